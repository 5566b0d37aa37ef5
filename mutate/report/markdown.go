package report

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

// MaxMarkdown bounds <name>.md, in bytes (so in characters too): a pull
// request's description or comment holds 65,536 characters, and the
// report must fit in one whatever the run's size.
const MaxMarkdown = 60000

// Caps on the sections after the findings, in bytes; what does not fit is
// counted and named in the "Cut to fit" section.
const (
	capPackages = 5000
	capFiles    = 9000
	capOps      = 3500
	capCatalog  = 12000
	capOthers   = 5000
	capBaseline = 2000
	capCutNote  = 1500
	maxDiff     = 2500 // bytes of one diff in a finding
	shortList   = 8    // ids named per count
)

// Markdown renders the pull-request view of a report, at most MaxMarkdown
// bytes: first what a reviewer acts on (catalog mutants not killed by
// their expected test, survivors, errors: each with its diff and the
// command that reruns it), then the scores per package and per file, the
// catalog, the per-operator table, and counts with short lists of what
// needs no action (timed out, unviable, ignored, not run, interrupted).
// Whatever does not fit is cut and the cut is named; the JSON has
// everything.
func Markdown(r *Report) string {
	outcomes, _ := r.Outcomes()
	md := &mdReport{r: r, g: r.Gathermut, outcomes: outcomes}
	return md.render()
}

type mdReport struct {
	r        *Report
	g        Meta
	outcomes []mutant.Outcome
	cuts     []string // what was cut, one phrase each
}

func (md *mdReport) jsonName() string { return md.g.Name + ".json" }

func (md *mdReport) render() string {
	head := md.head()
	tail := md.section("Scores by backend", md.backendTable()) +
		md.section("Scores by package", md.scoreTable("Package", packageKey, capPackages)) +
		md.section("Scores by file", md.scoreTable("File", fileKey, capFiles)) +
		md.section("Catalog", md.catalogTable()) +
		md.section("Scores by operator", md.scoreTable("Operator", func(o mutant.Outcome) string { return o.Mutant.Operator }, capOps)) +
		md.section("Needing no action", md.others()) +
		md.section("Baseline", md.baseline())
	budget := MaxMarkdown - len(head) - len(tail) - capCutNote
	act := md.findings(budget)
	out := head + act + tail + md.cutNote()
	if len(out) > MaxMarkdown { // cannot happen with the caps above; never exceed the bound
		out = out[:MaxMarkdown-40] + "\n\n[report cut at 60,000 bytes]\n"
	}
	return out
}

func (md *mdReport) section(title, body string) string {
	if body == "" {
		return ""
	}
	return "\n## " + title + "\n\n" + body
}

func (md *mdReport) head() string {
	g, s := md.g, md.g.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "# Mutation report: %s\n\n", Title(g))
	fmt.Fprintf(&b, "**Exit %d**: %s\n\n", g.ExitCode, cellText(g.Reason, 600))
	if g.Interrupted {
		b.WriteString(interruptLine(g.Baseline.Interrupted, s))
	}
	cols := []string{"Judged"}
	vals := []string{fmt.Sprint(s.Judged)}
	for i, title := range columnTitles() {
		cols = append(cols, title)
		vals = append(vals, fmt.Sprint(columnCounts(s)[i]))
	}
	if s.Interrupted > 0 {
		cols = append(cols, "Interrupted")
		vals = append(vals, fmt.Sprint(s.Interrupted))
	}
	if s.Reused > 0 {
		cols = append(cols, "Reused")
		vals = append(vals, fmt.Sprint(s.Reused))
	}
	cols = append(cols, "Score")
	vals = append(vals, outcome.FormatScore(s))
	if t := g.Config.Threshold; t.Given {
		cols = append(cols, "Threshold")
		vals = append(vals, thresholdCell(s, t))
	}
	fmt.Fprintf(&b, "| %s |\n|%s\n| %s |\n\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)), strings.Join(vals, " | "))
	fmt.Fprintf(&b, "Score: (killed + timed out) / (killed + timed out + survived + not covered). ")
	if s.CatalogTotal > 0 {
		fmt.Fprintf(&b, "Catalog: %s, %d not killed by their expected test. ", plural(s.CatalogTotal, "entry", "entries"), len(s.CatalogFailures))
	}
	if s.Reused > 0 {
		fmt.Fprintf(&b, "%d verdicts were reused from the incremental cache (marked *reused*); this run judged the other %d. ", s.Reused, s.Judged-s.Reused)
	}
	if n := len(g.GPUOnly); n > 0 {
		fmt.Fprintf(&b, "Left to GPU runs: %s of code only a GPU compiler sees (%s). ", plural(n, "kernel mutant", "kernel mutants"), cellText(strings.Join(g.GPUOnly, ", "), 400))
	}
	b.WriteString("\n\n")
	after := "unchanged after the run"
	if g.TreeAfter != g.TreeBefore || len(g.TreeChanged) > 0 {
		after = "**changed during the run: " + cellText(strings.Join(g.TreeChanged, ", "), 300) + "**"
	}
	fmt.Fprintf(&b, "Ran `%s` on tree `%s` (%s). ", g.CommandLine, short(g.TreeBefore), after)
	builds := "test binary builds"
	if RowTerms(g) {
		builds = "schema builds"
	}
	fmt.Fprintf(&b, "Wall time %s: discovery %s, %s %s, baseline %s, mutants %s. ", seconds(g.WallSeconds), seconds(g.Timing.Discovery),
		builds, seconds(g.Timing.SchemaBuilds), seconds(g.Timing.Baseline), seconds(g.Timing.Mutants))
	if rate := Rate(s, g.Timing); rate > 0 {
		fmt.Fprintf(&b, "%d mutants tested at %.1f per minute (over the %s and the mutant phase), -j %d. ", s.Tested, rate, builds, g.Jobs)
	} else {
		fmt.Fprintf(&b, "No mutant tested in this run, -j %d. ", g.Jobs)
	}
	fmt.Fprintf(&b, "%s; %s.\n", machine(g.Machine), g.GoVersion)
	if o := g.Timing.Order; o != nil {
		fmt.Fprintf(&b, "\nTest processes by step: predicted killers %d (%s, decided %d mutants), cost tiers %d (%s, decided %d), tail %d (%s, decided %d); seconds summed over workers.\n",
			o.Predicted, seconds(o.PredictedSeconds), o.PredictedKills, o.Tiers, seconds(o.TierSeconds), o.TierKills, o.Tail, seconds(o.TailSeconds), o.TailKills)
	}
	if g.Shard != "" {
		fmt.Fprintf(&b, "\nShard %s (the mutants split by expected work).\n", g.Shard)
	}
	if len(g.Shards) > 0 {
		var parts []string
		for _, sh := range g.Shards {
			label := sh.Name
			if sh.Shard != "" {
				label += " (shard " + sh.Shard + ")"
			}
			parts = append(parts, fmt.Sprintf("%s: `%s`, %s", label, sh.CommandLine, seconds(sh.WallSeconds)))
		}
		fmt.Fprintf(&b, "\nMerged from %d reports: %s. %s: %s.\n", len(g.Shards), cellText(strings.Join(parts, "; "), 2000), "Time", ShardTimesText(g))
	}
	return b.String()
}

// finding is one mutant a reviewer acts on, in its two renderings.
type finding struct {
	full    string
	compact string
}

// findingGroup is one kind of finding, and how each of its items is
// shown: with its diff, on one line, or not at all.
type findingGroup struct {
	title   string
	items   []finding
	full    int // the first full items are shown with their diff
	compact int // the next compact items on one line each
}

// share splits what is left of a budget evenly over the groups left, so
// that every kind of finding gets its first items shown.
func share(left, groupsLeft int) int {
	if groupsLeft <= 0 {
		return left
	}
	return left / groupsLeft
}

// findings renders the mutants a reviewer acts on within budget bytes:
// in each group as many as fit with their diff, then one line each, then
// a count. When not everything fits, at most 60% of the budget goes to
// the detailed form, shared evenly by the groups (what a group does not
// use passes on), so that the one-line lists get the rest.
func (md *mdReport) findings(budget int) string {
	groups, total := md.findingGroups()
	if len(groups) == 0 {
		return "\n## To act on\n\nNothing: no survivor, no error, and no catalog mutant that ran escaped its expected test.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## To act on (%d)\n\nEach with the command that reruns it from the module root. A survivor is a gap in the tests (add a test that kills it) or an equivalent mutant (record why no input can tell it apart); a mutant not covered by any test sits in code no test runs. Survivors are grouped by function, the likeliest gaps first: a removed statement or return or a flipped condition, above all on a line where no other change was caught; `const-int` changes are folded into one line per function, and the ones that look equivalent come last, marked. The other findings are in source order.\n", total)
	fitFindings(groups, budget-b.Len()-len(groups)*160) // less the headings and cut lines
	compacted, cut := 0, map[string]int{}
	for _, g := range groups {
		compacted += g.write(&b, ToolCommand(md.g, "diff", "<id>"))
		if n := len(g.items) - g.full - g.compact; n > 0 {
			cut[g.title] = n
		}
	}
	if compacted > 0 {
		md.cuts = append(md.cuts, fmt.Sprintf("the diffs of %d of the %d findings (listed on one line each)", compacted, total))
	}
	for _, g := range groups {
		if n := cut[g.title]; n > 0 {
			md.cuts = append(md.cuts, fmt.Sprintf("%d of the %d %s", n, len(g.items), strings.ToLower(g.title)))
		}
	}
	return b.String()
}

// findingGroups sorts the findings into their groups, most severe first:
// catalog failures, survivors (those tests ran and missed first), errors.
func (md *mdReport) findingGroups() ([]*findingGroup, int) {
	kinds := []struct {
		title string
		keep  func(mutant.Outcome) bool
	}{
		{"Catalog mutants not killed by their expected test", func(o mutant.Outcome) bool { return o.Result.CatalogFailure(o.Mutant) }},
		{"Survivors", func(o mutant.Outcome) bool {
			return o.Result.Status == mutant.Survived && o.Result.Why != mutant.NotCovered && !o.Result.CatalogFailure(o.Mutant)
		}},
		{"Mutants not covered by any test", func(o mutant.Outcome) bool {
			return o.Result.Status == mutant.Survived && o.Result.Why == mutant.NotCovered && !o.Result.CatalogFailure(o.Mutant)
		}},
		{"Errors", func(o mutant.Outcome) bool {
			return o.Result.Status == mutant.Error && !o.Result.CatalogFailure(o.Mutant)
		}},
	}
	var groups []*findingGroup
	total := 0
	for _, k := range kinds {
		var picked []mutant.Outcome
		for _, o := range md.outcomes {
			if k.keep(o) {
				picked = append(picked, o)
			}
		}
		if len(picked) == 0 {
			continue
		}
		// in source order: by file, then line and column (then id)
		sort.SliceStable(picked, func(i, j int) bool { return sourceOrder(picked[i].Mutant, picked[j].Mutant) })
		g := &findingGroup{title: k.title}
		if k.title == "Survivors" {
			g.items = md.survivorFindings(picked)
		} else {
			for _, o := range picked {
				g.items = append(g.items, finding{full: md.fullFinding(o), compact: md.compactFinding(o)})
			}
		}
		groups = append(groups, g)
		total += len(picked)
	}
	return groups, total
}

// fitFindings sets how many findings of each group keep their diff (full)
// and how many get one line (compact) within budget bytes.
func fitFindings(groups []*findingGroup, budget int) {
	fullSize, compactSize := 0, 0
	for _, g := range groups {
		for _, it := range g.items {
			fullSize += len(it.full)
			compactSize += len(it.compact)
		}
	}
	if fullSize <= budget {
		for _, g := range groups {
			g.full = len(g.items)
		}
		return
	}
	// detailed forms first, within their share
	left := budget
	if compactSize > budget*2/5 {
		left = budget * 3 / 5
	} else {
		left = budget - compactSize
	}
	detailed := left
	for i, g := range groups {
		limit := share(left, len(groups)-i)
		used := 0
		for _, it := range g.items {
			if used+len(it.full) > limit {
				break
			}
			used += len(it.full)
			g.full++
		}
		left -= used
	}
	// then one line each for the rest, within what is left
	left = budget - (detailed - left)
	for i, g := range groups {
		limit := share(left, len(groups)-i)
		used := 0
		for _, it := range g.items[g.full:] {
			if used+len(it.compact) > limit {
				break
			}
			used += len(it.compact)
			g.compact++
		}
		left -= used
	}
}

// write renders the group as fitted: the detailed findings, then the
// one-line ones (diffCmd prints the diff of one), then a count of the
// rest; it returns how many got one line.
func (g *findingGroup) write(b *strings.Builder, diffCmd string) int {
	fmt.Fprintf(b, "\n### %s (%d)\n", g.title, len(g.items))
	for _, it := range g.items[:g.full] {
		b.WriteString(it.full)
	}
	if g.compact > 0 {
		if g.full > 0 {
			fmt.Fprintf(b, "\nThe other %s, without their diff (`%s` prints one):\n\n", strings.ToLower(g.title), diffCmd)
		} else {
			b.WriteString("\n")
		}
		for _, it := range g.items[g.full : g.full+g.compact] {
			b.WriteString(it.compact)
		}
	}
	if n := len(g.items) - g.full - g.compact; n > 0 {
		fmt.Fprintf(b, "\n*%d more %s are not listed here: see the cut note at the end.*\n", n, strings.ToLower(g.title))
	}
	return g.compact
}

func (md *mdReport) fullFinding(o mutant.Outcome) string {
	m, r := o.Mutant, o.Result
	var b strings.Builder
	fmt.Fprintf(&b, "\n#### `%s`\n\n", m.ID)
	fmt.Fprintf(&b, "%s: %s", location(m), change(m))
	if why := md.why(o); why != "" {
		fmt.Fprintf(&b, " — %s", why)
	}
	b.WriteString("\n\n")
	if m.Catalog != nil {
		fmt.Fprintf(&b, "Catalog class %d: %s. Expected killer: %s.", m.Catalog.Class, cellText(m.Catalog.Reason, 300), code(strings.Join(mutant.TestIDStrings(m.Expected), ", ")))
		if len(r.KilledBy) > 0 {
			fmt.Fprintf(&b, " Killed by: %s.", code(listSome(r.KilledBy, 5)))
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Rerun: `%s`\n\n<details><summary>diff</summary>\n\n```diff\n%s```\n", RerunCommand(md.g, m), limitDiff(m.Diff, ToolCommand(md.g, "diff", config.ShellWord(m.ID))))
	if r.Excerpt != "" {
		fmt.Fprintf(&b, "\nTest output:\n\n```\n%s\n```\n", strings.ReplaceAll(strings.TrimRight(r.Excerpt, "\n"), "```", "'''"))
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

func (md *mdReport) compactFinding(o mutant.Outcome) string {
	m := o.Mutant
	s := fmt.Sprintf("- `%s` %s", m.ID, location(m))
	if why := md.why(o); why != "" {
		s += ": " + why
	}
	return s + " — `" + RerunCommand(md.g, m) + "`\n"
}

func (md *mdReport) why(o mutant.Outcome) string {
	why := cellText(o.Result.Why, 240)
	if o.Result.Reused {
		why += " (*reused*)"
	}
	return why
}

func location(m mutant.Mutant) string {
	loc := "`" + m.File
	if m.Pos.Line > 0 {
		loc += fmt.Sprintf(":%d:%d", m.Pos.Line, m.Pos.Column)
	}
	loc += "`"
	if m.Func != "" {
		loc += " in `" + m.Func + "`"
	}
	return loc
}

func change(m mutant.Mutant) string {
	repl := oneLine(m.Replacement)
	if repl == "" {
		repl = "(deleted)"
	} else {
		repl = code(repl)
	}
	return fmt.Sprintf("%s %s → %s", m.Operator, code(oneLine(m.Original)), repl)
}

// limitDiff cuts a diff to maxDiff bytes at a line end; diffCmd prints
// it whole.
func limitDiff(d, diffCmd string) string {
	d = strings.ReplaceAll(d, "```", "'''")
	if len(d) <= maxDiff {
		if !strings.HasSuffix(d, "\n") {
			d += "\n"
		}
		return d
	}
	cut := strings.LastIndex(d[:maxDiff], "\n")
	if cut < 0 {
		cut = maxDiff
	}
	return d[:cut] + "\n[... diff cut; the whole diff is in the JSON and in `" + diffCmd + "`]\n"
}

type groupKey func(mutant.Outcome) string

func packageKey(o mutant.Outcome) string {
	if o.Mutant.Package == "" {
		return o.Mutant.File
	}
	return o.Mutant.Package
}

func fileKey(o mutant.Outcome) string { return o.Mutant.File }

// scoreTable renders one row per key, all of them sorted by name when
// they fit in limit bytes, else the lowest scores first until the limit.
func (md *mdReport) scoreTable(what string, key groupKey, limit int) string {
	groups := map[string][]mutant.Outcome{}
	for _, o := range md.outcomes {
		groups[key(o)] = append(groups[key(o)], o)
	}
	if len(groups) == 0 {
		return ""
	}
	type row struct {
		key  string
		s    outcome.Summary
		text string
	}
	var rows []row
	for k, os := range groups {
		s := outcome.Summarize(os)
		var b strings.Builder
		fmt.Fprintf(&b, "| `%s` | %d |", k, s.Judged)
		for _, n := range columnCounts(s) {
			fmt.Fprintf(&b, " %d |", n)
		}
		fmt.Fprintf(&b, " %s |\n", outcome.FormatScore(s))
		rows = append(rows, row{k, s, b.String()})
	}
	header := scoreHeader(what)
	size := len(header)
	for _, r := range rows {
		size += len(r.text)
	}
	if size <= limit {
		sort.Slice(rows, func(i, j int) bool { return rows[i].key < rows[j].key })
		var b strings.Builder
		b.WriteString(header)
		for _, r := range rows {
			b.WriteString(r.text)
		}
		return b.String()
	}
	// worst first: survivors (not covered included), then the lowest
	// score, then the most mutants
	sort.Slice(rows, func(i, j int) bool {
		a, c := rows[i].s, rows[j].s
		if a.Counts[mutant.Survived] != c.Counts[mutant.Survived] {
			return a.Counts[mutant.Survived] > c.Counts[mutant.Survived]
		}
		if a.Score != c.Score {
			return a.Score < c.Score
		}
		if a.Judged != c.Judged {
			return a.Judged > c.Judged
		}
		return rows[i].key < rows[j].key
	})
	var b strings.Builder
	b.WriteString("Most survivors and lowest scores first.\n\n")
	b.WriteString(header)
	used := b.Len() + 200
	shown := 0
	for _, r := range rows {
		if used+len(r.text) > limit {
			break
		}
		b.WriteString(r.text)
		used += len(r.text)
		shown++
	}
	cut := len(rows) - shown
	fmt.Fprintf(&b, "\n*%d more %s rows are in the JSON.*\n", cut, strings.ToLower(what))
	md.cuts = append(md.cuts, fmt.Sprintf("%d of %d rows of the per-%s table", cut, len(rows), strings.ToLower(what)))
	return b.String()
}

// scoreHeader is a score table's header: what each row is, then the
// count columns (columnTitles) and the score.
func scoreHeader(what string) string {
	var hb strings.Builder
	fmt.Fprintf(&hb, "| %s | Judged |", what)
	for _, title := range columnTitles() {
		fmt.Fprintf(&hb, " %s |", title)
	}
	hb.WriteString(" Score |\n|---|---:|")
	for range columnTitles() {
		hb.WriteString("---:|")
	}
	hb.WriteString("---:|\n")
	return hb.String()
}

func (md *mdReport) catalogTable() string {
	var cat []mutant.Outcome
	for _, o := range md.outcomes {
		if o.Mutant.Catalog != nil {
			cat = append(cat, o)
		}
	}
	if len(cat) == 0 {
		return ""
	}
	// failures first, then by id
	sort.SliceStable(cat, func(i, j int) bool {
		return cat[i].Result.CatalogFailure(cat[i].Mutant) && !cat[j].Result.CatalogFailure(cat[j].Mutant)
	})
	var b strings.Builder
	b.WriteString("| Entry | Class | Status | By its expected test | Killed by |\n|---|---:|---|---|---|\n")
	shown := 0
	for _, o := range cat {
		expected := "no"
		switch {
		case o.Result.Status == mutant.Killed && o.Result.ExpectedKiller:
			expected = "yes"
		case !o.Result.CatalogFailure(o.Mutant):
			expected = "—"
		}
		status := string(o.Result.Status)
		if o.Result.Reused {
			status += " (reused)"
		}
		var killers []string
		for _, k := range o.Result.KilledBy {
			killers = append(killers, testName(k))
		}
		line := fmt.Sprintf("| `%s` | %d | %s | %s | %s |\n", o.Mutant.ID, o.Mutant.Catalog.Class, status, expected, cellText(listSome(killers, 3), 120))
		if b.Len()+len(line)+200 > capCatalog {
			break
		}
		b.WriteString(line)
		shown++
	}
	if cut := len(cat) - shown; cut > 0 {
		fmt.Fprintf(&b, "\n*%d more catalog entries are in the JSON (every one not killed by its expected test is listed above).*\n", cut)
		md.cuts = append(md.cuts, fmt.Sprintf("%d of %d rows of the catalog table", cut, len(cat)))
	}
	return b.String()
}

// others counts what needs no action, with a short list of each.
func (md *mdReport) others() string {
	var b strings.Builder
	byStatus := map[mutant.Status][]mutant.Outcome{}
	for _, o := range md.outcomes {
		byStatus[o.Result.Status] = append(byStatus[o.Result.Status], o)
	}
	ids := func(os []mutant.Outcome) string {
		var xs []string
		for _, o := range os {
			xs = append(xs, "`"+o.Mutant.ID+"`")
		}
		return listSome(xs, shortList)
	}
	if os := byStatus[mutant.TimedOut]; len(os) > 0 {
		confirmed := ""
		if n := md.g.Summary.Confirmed; n > 0 {
			confirmed = fmt.Sprintf(", %d confirmed (timed out again alone, with twice the time)", n)
		}
		fmt.Fprintf(&b, "- **Timed out** (the tests hung: counted as detected unless --strict-timeouts): %d%s — %s\n", len(os), confirmed, ids(os))
	}
	if os := slowOutcomes(md.outcomes); len(os) > 0 {
		fmt.Fprintf(&b, "- **Slow** (timed out among other processes, then finished alone with twice the time; counted as killed or survived): %d — %s\n", len(os), ids(os))
	}
	if os := byStatus[mutant.Unviable]; len(os) > 0 {
		typeCheck := 0
		for _, o := range os {
			if o.Mutant.State == mutant.Unbuildable {
				typeCheck++
			}
		}
		fmt.Fprintf(&b, "- **Unviable** (outside the score): %d, %d found by the type checker, %d by the compiler — %s\n", len(os), typeCheck, len(os)-typeCheck, ids(os))
	}
	if os := byStatus[mutant.Ignored]; len(os) > 0 {
		fmt.Fprintf(&b, "- **Ignored** (equivalent, with a recorded reason): %d — %s\n", len(os), ids(os))
	}
	if os := byStatus[mutant.NotRun]; len(os) > 0 {
		reasons := map[string][]mutant.Outcome{}
		var keys []string
		for _, o := range os {
			k := cellText(o.Result.Why, 160)
			if _, ok := reasons[k]; !ok {
				keys = append(keys, k)
			}
			reasons[k] = append(reasons[k], o)
		}
		sort.Slice(keys, func(i, j int) bool { return len(reasons[keys[i]]) > len(reasons[keys[j]]) })
		fmt.Fprintf(&b, "- **Not run** (status Pending in the JSON; outside the score): %d\n", len(os))
		for i, k := range keys {
			if i == 5 {
				fmt.Fprintf(&b, "  - %d other reasons\n", len(keys)-5)
				break
			}
			fmt.Fprintf(&b, "  - %s: %d — %s\n", k, len(reasons[k]), ids(reasons[k]))
		}
	}
	if n := md.g.Summary.Interrupted; n > 0 {
		fmt.Fprintf(&b, "- **Interrupted before a verdict**: %d (status Pending in the JSON, which lists their ids)\n", n)
	}
	if n := md.g.Summary.Reused; n > 0 {
		cache := ""
		if md.g.Incremental != nil {
			cache = " from `" + md.g.Incremental.Cache + "`"
		}
		fmt.Fprintf(&b, "- **Reused verdicts** (incremental%s): %d, each marked `\"reused\": true` in the JSON\n", cache, n)
	}
	out := b.String()
	if len(out) > capOthers {
		cut := strings.LastIndex(out[:capOthers-100], "\n")
		out = out[:cut+1] + "- *(this list is cut: the JSON has every mutant)*\n"
		md.cuts = append(md.cuts, "part of the lists of mutants needing no action")
	}
	return out
}

func (md *mdReport) baseline() string {
	bl := md.g.Baseline
	var b strings.Builder
	if bl.Interrupted {
		b.WriteString("Interrupted before the baseline finished. ")
	}
	fmt.Fprintf(&b, "%s in %s, %s.", plural(bl.Tests, "test", "tests"), plural(bl.Packages, "package", "packages"), seconds(bl.Seconds))
	if len(bl.Failing) > 0 {
		fmt.Fprintf(&b, " **Failing: %s.**", cellText(listSome(bl.Failing, 10), 600))
	}
	if len(bl.Flaky) > 0 {
		fmt.Fprintf(&b, " Flaky, excluded: %s.", cellText(listSome(bl.Flaky, 5), 500))
	}
	if len(bl.Skipped) > 0 {
		fmt.Fprintf(&b, " Skipped (%d): %s.", len(bl.Skipped), cellText(listSome(bl.Skipped, 3), 600))
	}
	return truncate(b.String(), capBaseline) + "\n"
}

func (md *mdReport) cutNote() string {
	if len(md.cuts) == 0 {
		return ""
	}
	s := fmt.Sprintf("\n## Cut to fit\n\nThis report holds at most %d characters (a pull request holds 65,536), so it leaves out: %s. `%s` next to it has every mutant with its verdict, diff and evidence (mutation-testing-report-schema: any mutation-testing-elements viewer opens it); `%s` reruns one.\n",
		MaxMarkdown, cellText(strings.Join(md.cuts, "; "), 800), md.jsonName(), ToolCommand(md.g, "run", "<id>"))
	return s
}

func machine(m Machine) string {
	s := fmt.Sprintf("Machine: %s/%s, %d cores", m.OS, m.Arch, m.Cores)
	if m.CPU != "" {
		s += ", " + m.CPU
	}
	if len(m.GPUs) == 0 {
		s += "; GPU: none"
		if m.GPUNote != "" {
			s += " (" + m.GPUNote + ")"
		}
	}
	for _, g := range m.GPUs {
		s += fmt.Sprintf("; GPU: %s (%s)", g.Name, g.Arch)
	}
	return s
}

// columnTitles are the count columns of the markdown's tables: one per
// verdict, with the survivors no test covers in a column of their own
// after those the tests missed.
func columnTitles() []string {
	var out []string
	for _, st := range mutant.Statuses {
		out = append(out, statusTitle(st))
		if st == mutant.Survived {
			out = append(out, "Not covered")
		}
	}
	return out
}

// columnCounts are a summary's counts in columnTitles' order.
func columnCounts(s outcome.Summary) []int {
	var out []int
	for _, st := range mutant.Statuses {
		switch st {
		case mutant.Survived:
			out = append(out, s.Survivors(), s.NotCovered)
		default:
			out = append(out, s.Counts[st])
		}
	}
	return out
}

// sourceOrder orders mutants by file, line and column, then id.
func sourceOrder(a, b mutant.Mutant) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	if a.Pos.Column != b.Pos.Column {
		return a.Pos.Column < b.Pos.Column
	}
	return a.ID < b.ID
}

func statusTitle(st mutant.Status) string {
	s := string(st)
	return strings.ToUpper(s[:1]) + s[1:]
}

func seconds(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 10:
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.2f s", s)
}

// code renders s as inline code, safe in a table cell.
func code(s string) string {
	if s == "" {
		return "—"
	}
	s = strings.ReplaceAll(s, "`", "'")
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// cellText flattens s to one line of at most n bytes, safe in a table.
func cellText(s string, n int) string {
	s = truncate(strings.Join(strings.Fields(s), " "), n)
	return strings.ReplaceAll(s, "|", `\|`)
}

func oneLine(s string) string {
	return truncate(strings.Join(strings.Fields(s), " "), 80)
}

// backendKey groups outcomes by what judged them: Go, assembly, the
// kernel on the host emulation or on a GPU (mutant.BackendOf).
// backendTable is the scores by backend, where a run had more than one
// (Go and assembly, a kernel's): a table of one row repeats the summary.
func (md *mdReport) backendTable() string {
	seen := map[string]bool{}
	for _, o := range md.outcomes {
		seen[backendKey(o)] = true
	}
	if len(seen) < 2 {
		return ""
	}
	return md.scoreTable("Backend", backendKey, capPackages)
}

func backendKey(o mutant.Outcome) string { return mutant.BackendOf(o.Mutant, o.Result) }

// slowOutcomes are the mutants whose test process timed out among the
// others and then finished alone (Result.Timeout "slow").
func slowOutcomes(outcomes []mutant.Outcome) []mutant.Outcome {
	var out []mutant.Outcome
	for _, o := range outcomes {
		if o.Result.Timeout == mutant.TimeoutSlow {
			out = append(out, o)
		}
	}
	return out
}

// interruptLine says how much of an interrupted run was judged. A
// package's mutants are judged while other packages' baselines still run,
// so an interrupt may come during a baseline with mutants judged.
func interruptLine(inBaseline bool, s outcome.Summary) string {
	if inBaseline && s.Judged == 0 {
		return fmt.Sprintf("**Interrupted during the baseline: 0 of %d mutants judged.** This report is partial.\n\n", s.Total)
	}
	when := ""
	if inBaseline {
		when = ", before every package's baseline had finished"
	}
	return fmt.Sprintf("**Interrupted%s: %d of %d mutants judged.** Every count, the score and the rate cover the judged mutants only; the %d others are counted apart (status Pending in the JSON). The judged part leans to killed mutants: a mutant its own package's tests do not kill waits for its importers' tests, and others are judged meanwhile.\n\n", when, s.Judged, s.Total, s.Interrupted)
}
