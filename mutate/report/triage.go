package report

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gathermut/mutate/mutant"
)

// Survivor ranks, in the order a reader meets them: the ones that look
// like real gaps first, const-int noise folded, equivalent-looking last.
const (
	rankReal     = iota // a removal or flipped condition on a line no test pins
	rankLikely          // a removal or flip, or any change on a line no test pins
	rankOther           // any other change
	rankInit            // in code only package initialisation runs
	rankConstInt        // const-int: folded into one line per function
	rankEquiv           // looks equivalent (the note says why)
)

// triage is what the report says of one survivor: its rank and, for an
// equivalent-looking one, why it looks so.
type triage struct {
	rank int
	note string
}

// removals delete a statement, a call, a branch's body or a return's
// value; flips force or invert a condition.
var (
	removals = map[string]bool{"remove-stmt": true, "remove-call": true, "zero-return": true, "branch-if": true, "branch-else": true, "branch-case": true}
	flips    = map[string]bool{"negate": true, "branch-true": true, "branch-false": true}
)

// lineKey names a source line.
type lineKey struct {
	file string
	line int
}

// triageSurvivors ranks the survivors of outcomes for reading; sources
// maps a file to its source (the lines a survivor sits on are read there).
// A survivor looks real when it removes a statement or a return, or flips
// a condition, and more so on a line where other mutants were tested and
// none was killed (no test pins that line's behaviour); const-int changes are noise to
// fold; bounds-check hints (_ = b[i], b = b[:n]), masks that change only
// bits a shift already cleared, shortcuts whose removal leaves the same
// answer, a condition forced to one side where inverting it was caught,
// and code its comment calls an optimisation look equivalent.
func triageSurvivors(outcomes []mutant.Outcome, sources map[string]string) map[string]triage {
	killed := map[lineKey]map[string]bool{} // the operators killed on a line
	tested := map[lineKey]int{}             // how many mutants of a line were tested
	for _, o := range outcomes {
		if s := o.Result.Status; s == mutant.Killed || s == mutant.TimedOut || s == mutant.Survived {
			tested[lineKey{o.Mutant.File, o.Mutant.Pos.Line}]++
		}
		if o.Result.Status == mutant.Killed || o.Result.Status == mutant.TimedOut {
			k := lineKey{o.Mutant.File, o.Mutant.Pos.Line}
			if killed[k] == nil {
				killed[k] = map[string]bool{}
			}
			killed[k][o.Mutant.Operator] = true
		}
	}
	caughtFuncs := map[string]bool{} // the functions a test caught a change to, by name
	for _, o := range outcomes {
		if o.Result.Status == mutant.Killed || o.Result.Status == mutant.TimedOut {
			caughtFuncs[o.Mutant.Func] = true
		}
	}
	lines := map[string][]string{}
	for f, src := range sources {
		lines[f] = strings.Split(src, "\n")
	}
	ctx := &triageContext{lines: lines, killed: killed, caughtFuncs: caughtFuncs, src: parseGoSources(sources)}
	out := map[string]triage{}
	var survivors []mutant.Mutant
	for _, o := range outcomes {
		if o.Result.Status != mutant.Survived || o.Result.Why == mutant.NotCovered {
			continue
		}
		m := o.Mutant
		survivors = append(survivors, m)
		k := lineKey{m.File, m.Pos.Line}
		if note := ctx.equivalentLooking(m); note != "" {
			out[m.ID] = triage{rank: rankEquiv, note: note}
			continue
		}
		strong := removals[m.Operator] || flips[m.Operator]
		unpinned := killed[k] == nil && tested[k] > 1 // other changes to the line were tested, none caught
		switch {
		case m.Operator == "const-int":
			out[m.ID] = triage{rank: rankConstInt}
		case ctx.src.initOnly[path.Dir(m.File)][m.Func]:
			out[m.ID] = triage{rank: rankInit}
		case strong && unpinned:
			out[m.ID] = triage{rank: rankReal}
		case strong || unpinned:
			out[m.ID] = triage{rank: rankLikely}
		default:
			out[m.ID] = triage{rank: rankOther}
		}
	}
	// a boundary change moves one edge case to a side of its condition:
	// where forcing every case to that side looks equivalent, so does it
	forced := map[[2]string]string{} // file and position, operator -> note
	for _, m := range survivors {
		if t := out[m.ID]; t.rank == rankEquiv && (m.Operator == "branch-true" || m.Operator == "branch-false") {
			forced[[2]string{location(m), m.Operator}] = t.note
		}
	}
	for _, m := range survivors {
		if m.Operator != "boundary" || out[m.ID].rank == rankEquiv {
			continue
		}
		side := "branch-false"
		if strings.Count(m.Replacement, "=") > strings.Count(m.Original, "=") {
			side = "branch-true"
		}
		if _, ok := forced[[2]string{location(m), side}]; ok {
			out[m.ID] = triage{rank: rankEquiv, note: "it moves one edge case to the side " + side + " sends every case to, and that looks equivalent too"}
		}
	}
	return out
}

// triageContext is what the rules read: the files' lines, the operators
// killed per line, the functions a test caught a change to, and the Go
// files parsed.
type triageContext struct {
	lines       map[string][]string
	killed      map[lineKey]map[string]bool
	caughtFuncs map[string]bool
	src         *goSources
}

var (
	hintRE     = regexp.MustCompile(`^_\s*=\s*[\w.]+\[[^\]]*\]\s*(//.*)?$`)
	resliceRE  = regexp.MustCompile(`^(\w+)\s*=\s*(\w+)\[:[^\]]*\]\s*(//.*)?$`)
	shortcutRE = regexp.MustCompile(`^\{\s*return\b([^\n]*)\s*\}$`)
	optimRE    = regexp.MustCompile(`(?i)optimi[sz]|bounds.?check|fast path|save (some )?memory`)
	// a, b = f(a, b)
	normaliseRE = regexp.MustCompile(`^([\w\s,]+?)\s*=\s*(\w+)\(([\w\s,]*)\)$`)
)

// equivalentLooking says why mutant m looks equivalent, or "".
func (c *triageContext) equivalentLooking(m mutant.Mutant) string {
	lines, killedOps := c.lines[m.File], c.killed[lineKey{m.File, m.Pos.Line}]
	loc := Location{Start: m.Pos, End: m.End}
	raw := ""
	if m.Pos.Line >= 1 && m.Pos.Line <= len(lines) {
		raw = lines[m.Pos.Line-1]
	}
	text := strings.TrimSpace(raw)
	switch {
	case hintRE.MatchString(text):
		return "a bounds-check hint: it changes no result"
	case m.Operator == "remove-stmt" && isSelfReslice(m.Original):
		return "a bounds-check hint (a re-slice to the length it has): removing it changes no result"
	case m.Operator == "const-int" && maskOfClearedBits(raw, m):
		return "the mask changes only bits the shift already cleared"
	case m.Operator == "branch-if" && isShortcut(m.Original) && (killedOps["negate"] || killedOps["branch-true"]):
		return "a shortcut: without it the code after gives the same answer"
	case (m.Operator == "branch-true" || m.Operator == "branch-false") && killedOps["negate"]:
		return "the tests take both sides, and the side forced gives the same answers: a general path beside a narrower one"
	case (m.Operator == "branch-true" || m.Operator == "branch-false") && c.src.forcedToPlainSide(m.File, m.Operator, loc):
		return "it forces the condition away from a branch its comment calls an optimisation: the general path left gives the same answers"
	case m.Operator == "guard-swap" && c.guardsChecked(m):
		return "both guards are checked (inverting either was caught): their order matters only for an input that meets both"
	case m.Operator == "remove-stmt" && c.normalisation(m.Original):
		return "skipping the call changes no answer though its own mistakes are caught: a normalisation or a shortcut"
	case m.Operator == "zero-return" && c.src.zeroVars[path.Dir(m.File)][strings.TrimSpace(m.Original)]:
		return "it returns the zero value already: the variable is declared without a value and never assigned"
	case commentSaysOptimisation(lines, m.Pos.Line):
		return "its comment calls it an optimisation: only time or memory can tell"
	}
	return ""
}

// guardsChecked reports whether both guards guard-swap m reorders are
// checked: a change inverting or forcing each one's condition was caught.
func (c *triageContext) guardsChecked(m mutant.Mutant) bool {
	second := 0 // the second guard's line
	for i, l := range strings.Split(m.Original, "\n") {
		if i > 0 && strings.HasPrefix(strings.TrimSpace(l), "if ") && len(l)-len(strings.TrimLeft(l, " \t")) == m.Pos.Column-1 {
			second = m.Pos.Line + i
			break
		}
	}
	checked := func(line int) bool {
		ops := c.killed[lineKey{m.File, line}]
		return ops["negate"] || ops["branch-true"] || ops["branch-false"]
	}
	return second > 0 && checked(m.Pos.Line) && checked(second)
}

// normalisation reports whether stmt is "a, b = f(a, b)", a call that
// replaces its own arguments, whose function f had a change caught: it
// matters when it is wrong, not when it is skipped.
func (c *triageContext) normalisation(stmt string) bool {
	g := normaliseRE.FindStringSubmatch(strings.TrimSpace(stmt))
	if g == nil || !c.caughtFuncs[g[2]] {
		return false
	}
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, ",", " ")), ",") }
	return norm(g[1]) == norm(g[3])
}

func isSelfReslice(stmt string) bool {
	g := resliceRE.FindStringSubmatch(strings.TrimSpace(stmt))
	return g != nil && g[1] == g[2]
}

// isShortcut reports whether a branch body is one return of values that
// are not errors (dropping an error return is a real gap, not a shortcut).
func isShortcut(body string) bool {
	g := shortcutRE.FindStringSubmatch(strings.TrimSpace(body))
	if g == nil {
		return false
	}
	low := strings.ToLower(g[1])
	return !strings.Contains(low, "err") && !strings.Contains(low, "nil")
}

// maskOfClearedBits reports whether const-int m changes the constant of
// "(x << k) & C" (or "x << k & C") only in the k low bits, which the
// shift made zero.
func maskOfClearedBits(line string, m mutant.Mutant) bool {
	orig, err1 := strconv.ParseUint(m.Original, 0, 64)
	repl, err2 := strconv.ParseUint(m.Replacement, 0, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	re := regexp.MustCompile(`<<\s*(\d+)\)?\s*&\s*` + regexp.QuoteMeta(m.Original) + `\b`)
	for _, loc := range re.FindAllStringSubmatchIndex(line, -1) {
		k, _ := strconv.Atoi(line[loc[2]:loc[3]])
		if k <= 0 || k >= 64 || loc[1]-len(m.Original) != m.Pos.Column-1 { // the constant m changes
			continue
		}
		if (orig^repl)&^(1<<k-1) == 0 {
			return true
		}
	}
	return false
}

// commentSaysOptimisation reports whether the comment on line (1-based)
// or the comment block right above it calls the code an optimisation.
func commentSaysOptimisation(lines []string, line int) bool {
	if line < 1 || line > len(lines) {
		return false
	}
	if _, c, ok := strings.Cut(lines[line-1], "//"); ok && optimRE.MatchString(c) {
		return true
	}
	for i := line - 2; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "//") {
			return false
		}
		if optimRE.MatchString(t) {
			return true
		}
	}
	return false
}

// funcGroup is one function's survivors, in reading order.
type funcGroup struct {
	file, fn string
	items    []mutant.Outcome // ranked, then in source order
	best     int              // the lowest rank
	strong   int              // how many rank rankReal or rankLikely
}

// denser reports whether g has the larger share of real-looking survivors.
func (g *funcGroup) denser(h *funcGroup) bool {
	return g.strong*len(h.items) > h.strong*len(g.items)
}

// groupSurvivors groups the survivors by function: the functions with the
// likeliest gaps first (by their best rank, then the share of their
// survivors that look real, then source order), each function's survivors by rank, then source order.
func groupSurvivors(survivors []mutant.Outcome, tri map[string]triage) []*funcGroup {
	byFn := map[[2]string]*funcGroup{}
	var groups []*funcGroup
	sort.SliceStable(survivors, func(i, j int) bool { return sourceOrder(survivors[i].Mutant, survivors[j].Mutant) })
	for _, o := range survivors {
		key := [2]string{o.Mutant.File, o.Mutant.Func}
		g := byFn[key]
		if g == nil {
			g = &funcGroup{file: o.Mutant.File, fn: o.Mutant.Func, best: rankEquiv}
			byFn[key] = g
			groups = append(groups, g)
		}
		g.items = append(g.items, o)
		r := tri[o.Mutant.ID].rank
		g.best = min(g.best, r)
		if r <= rankLikely {
			g.strong++
		}
	}
	for _, g := range groups {
		sort.SliceStable(g.items, func(i, j int) bool { return tri[g.items[i].Mutant.ID].rank < tri[g.items[j].Mutant.ID].rank })
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].best != groups[j].best {
			return groups[i].best < groups[j].best
		}
		return groups[i].denser(groups[j])
	})
	return groups
}

// operatorMix is "negate 2, remove-stmt 1, const-int 4": the operators of
// a function's survivors, most frequent first.
func operatorMix(items []mutant.Outcome) string {
	n := map[string]int{}
	var ops []string
	for _, o := range items {
		if n[o.Mutant.Operator] == 0 {
			ops = append(ops, o.Mutant.Operator)
		}
		n[o.Mutant.Operator]++
	}
	sort.SliceStable(ops, func(i, j int) bool { return n[ops[i]] > n[ops[j]] })
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = fmt.Sprintf("%s %d", op, n[op])
	}
	return strings.Join(parts, ", ")
}

// survivorFindings renders the survivors grouped for reading
// (groupSurvivors): first, per function, a line naming it with its
// survivors' operator mix, then its survivors that may be gaps, the
// likeliest first (in a function no test caught any change to, the
// survivors are one gap: the first is shown, the rest on one line); then
// the const-int changes, one folded line per function; then the
// equivalent-looking ones, one line each, marked with why. A reviewer's
// first screen holds the likely gaps of every function.
func (md *mdReport) survivorFindings(survivors []mutant.Outcome) []finding {
	sources := map[string]string{}
	for p, f := range md.r.Files {
		sources[p] = f.Source
	}
	tri := triageSurvivors(md.outcomes, sources)
	caught := map[[2]string]bool{} // the functions a test caught a change to
	for _, o := range md.outcomes {
		if o.Result.Status == mutant.Killed || o.Result.Status == mutant.TimedOut {
			caught[[2]string{o.Mutant.File, o.Mutant.Func}] = true
		}
	}
	var gaps, folded, equivs []finding
	for _, g := range groupSurvivors(survivors, tri) {
		fn := g.fn
		if fn == "" {
			fn = "(package level)"
		}
		var items []finding
		var consts, rest []mutant.Outcome
		unpinned := !caught[[2]string{g.file, g.fn}] // one gap: nothing in it is checked
		for _, o := range g.items {
			switch t := tri[o.Mutant.ID]; {
			case t.rank == rankEquiv:
				line := fmt.Sprintf("- `%s` %s: %s — *looks equivalent: %s* — `%s`\n", o.Mutant.ID, location(o.Mutant), change(o.Mutant), t.note, RerunCommand(md.g, o.Mutant))
				equivs = append(equivs, finding{full: line, compact: line})
			case unpinned && len(items) > 0:
				rest = append(rest, o)
			case t.rank == rankConstInt:
				consts = append(consts, o)
			default:
				items = append(items, finding{full: md.fullFinding(o), compact: md.compactFinding(o)})
			}
		}
		if len(consts) > 0 {
			line := md.foldedConstInts(fn, g.file, consts)
			folded = append(folded, finding{full: line, compact: line})
		}
		if len(items) == 0 {
			continue
		}
		if len(rest) > 0 {
			word := "survivors"
			if len(rest) == 1 {
				word = "survivor"
			}
			line := fmt.Sprintf("\n- no test caught any change to `%s`: %d more %s (%s), the same gap: %s\n", fn, len(rest), word, operatorMix(rest), listIDs(rest, 4))
			items = append(items, finding{full: line, compact: line})
		}
		init := ""
		if g.best == rankInit {
			init = " — run only by the package's initialisation: its effects depend on the machine and are fixed before any test runs"
		}
		head := fmt.Sprintf("\n**`%s`** in `%s`: %s (%s)%s\n\n", fn, g.file, plural(len(g.items), "survivor", "survivors"), operatorMix(g.items), init)
		items[0].full = head + items[0].full
		items[0].compact = head + items[0].compact
		gaps = append(gaps, items...)
	}
	if len(folded) > 0 {
		intro := "\n**Folded**: const-int changes, a constant changed by one, often noise; one line per function (`" + ToolCommand(md.g, "diff", "<id>") + "` prints one):\n\n"
		folded[0].full, folded[0].compact = intro+folded[0].full, intro+folded[0].compact
	}
	if len(equivs) > 0 {
		intro := "\n**Look equivalent**: no input may tell these apart from the original; each says why:\n\n"
		equivs[0].full, equivs[0].compact = intro+equivs[0].full, intro+equivs[0].compact
	}
	return append(append(gaps, folded...), equivs...)
}

// foldedConstInts is one line for a function's const-int survivors: how
// many, and the first 8 with what each changes.
func (md *mdReport) foldedConstInts(fn, file string, consts []mutant.Outcome) string {
	var parts []string
	for i, o := range consts {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(consts)-8))
			break
		}
		m := o.Mutant
		parts = append(parts, fmt.Sprintf("`%s` `%s`→`%s`", m.ID, oneLine(m.Original), oneLine(m.Replacement)))
	}
	return fmt.Sprintf("- `%s` in `%s`: const-int ×%d: %s\n", fn, file, len(consts), strings.Join(parts, ", "))
}

// listIDs names the first n mutants of os, and how many more.
func listIDs(os []mutant.Outcome, n int) string {
	var ids []string
	for i, o := range os {
		if i == n {
			ids = append(ids, fmt.Sprintf("and %d more", len(os)-n))
			break
		}
		ids = append(ids, "`"+o.Mutant.ID+"`")
	}
	return strings.Join(ids, ", ")
}

// SurvivorSummary is the few lines a run prints at its end of its
// survivors, grouped as in the markdown: the first functions (at most
// maxFuncs) with likely gaps, the likeliest first, each with its first
// two gaps on a line each (where, what changed), and how many others the
// markdown lists; nil when no survivor was tested and missed.
func SurvivorSummary(r *Report, maxFuncs int) []string {
	outcomes, err := r.Outcomes()
	if err != nil {
		return nil
	}
	var survivors []mutant.Outcome
	for _, o := range outcomes {
		if o.Result.Status == mutant.Survived && o.Result.Why != mutant.NotCovered && !o.Result.CatalogFailure(o.Mutant) {
			survivors = append(survivors, o)
		}
	}
	if len(survivors) == 0 {
		return nil
	}
	sources := map[string]string{}
	for p, f := range r.Files {
		sources[p] = f.Source
	}
	tri := triageSurvivors(outcomes, sources)
	lines := []string{fmt.Sprintf("survivors by function, likeliest gaps first (%s.md has all %d):", r.Gathermut.Name, len(survivors))}
	funcs, gaps, moreFuncs, moreGaps := 0, 0, 0, 0
	for _, g := range groupSurvivors(survivors, tri) {
		var likely []mutant.Outcome
		for _, o := range g.items {
			if tri[o.Mutant.ID].rank < rankConstInt {
				likely = append(likely, o)
			}
		}
		if len(likely) == 0 {
			continue
		}
		gaps += len(likely)
		if funcs == maxFuncs {
			moreFuncs, moreGaps = moreFuncs+1, moreGaps+len(likely)
			continue
		}
		funcs++
		fn := g.fn
		if fn == "" {
			fn = "(package level)"
		}
		lines = append(lines, fmt.Sprintf("  %s in %s: %s (%s)", fn, g.file, plural(len(g.items), "survivor", "survivors"), operatorMix(g.items)))
		for i, o := range likely {
			if i == 2 {
				lines = append(lines, fmt.Sprintf("    and %d more", len(likely)-2))
				break
			}
			m := o.Mutant
			lines = append(lines, fmt.Sprintf("    %s:%d:%d %s %s -> %s", m.File, m.Pos.Line, m.Pos.Column, m.Operator, oneLine(m.Original), deleted(oneLine(m.Replacement))))
		}
	}
	if funcs == 0 {
		return append(lines, "  none looks like a gap: const-int changes and equivalent-looking ones only")
	}
	if moreFuncs > 0 {
		lines = append(lines, fmt.Sprintf("  and %s in %s", plural(moreGaps, "likely gap", "likely gaps"), plural(moreFuncs, "other function", "other functions")))
	}
	if rest := len(survivors) - gaps; rest > 0 {
		lines = append(lines, fmt.Sprintf("  and %d const-int or equivalent-looking", rest))
	}
	return lines
}

// deleted is a replacement as a summary line shows it.
func deleted(repl string) string {
	if repl == "" {
		return "(deleted)"
	}
	return repl
}
