package report

import (
	"fmt"
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
	lines := map[string][]string{}
	for f, src := range sources {
		lines[f] = strings.Split(src, "\n")
	}
	out := map[string]triage{}
	for _, o := range outcomes {
		if o.Result.Status != mutant.Survived || o.Result.Why == mutant.NotCovered {
			continue
		}
		m := o.Mutant
		k := lineKey{m.File, m.Pos.Line}
		if note := equivalentLooking(m, lines[m.File], killed[k]); note != "" {
			out[m.ID] = triage{rank: rankEquiv, note: note}
			continue
		}
		strong := removals[m.Operator] || flips[m.Operator]
		unpinned := killed[k] == nil && tested[k] > 1 // other changes to the line were tested, none caught
		switch {
		case m.Operator == "const-int":
			out[m.ID] = triage{rank: rankConstInt}
		case strong && unpinned:
			out[m.ID] = triage{rank: rankReal}
		case strong || unpinned:
			out[m.ID] = triage{rank: rankLikely}
		default:
			out[m.ID] = triage{rank: rankOther}
		}
	}
	return out
}

var (
	hintRE     = regexp.MustCompile(`^_\s*=\s*[\w.]+\[[^\]]*\]\s*(//.*)?$`)
	resliceRE  = regexp.MustCompile(`^(\w+)\s*=\s*(\w+)\[:[^\]]*\]\s*(//.*)?$`)
	shortcutRE = regexp.MustCompile(`^\{\s*return\b([^\n]*)\s*\}$`)
	optimRE    = regexp.MustCompile(`(?i)optimi[sz]|bounds.?check|fast path|save (some )?memory`)
)

// equivalentLooking says why mutant m looks equivalent, or "": lines are
// its file's lines, killedOps the operators killed on its line.
func equivalentLooking(m mutant.Mutant, lines []string, killedOps map[string]bool) string {
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
	case commentSaysOptimisation(lines, m.Pos.Line):
		return "its comment calls it an optimisation: only time or memory can tell"
	}
	return ""
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
// (groupSurvivors): a line naming each function with its survivors'
// operator mix, then its survivors, the real-looking ones first, its
// const-int changes folded into one line, and the equivalent-looking ones
// on one line each, marked. In a function no test caught any change to,
// the survivors are one gap: the first is shown, the rest on one line.
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
	var out []finding
	for _, g := range groupSurvivors(survivors, tri) {
		fn := g.fn
		if fn == "" {
			fn = "(package level)"
		}
		head := fmt.Sprintf("\n**`%s`** in `%s`: %s (%s)\n\n", fn, g.file, plural(len(g.items), "survivor", "survivors"), operatorMix(g.items))
		var items, equivs []finding
		var consts, rest []mutant.Outcome
		unpinned := !caught[[2]string{g.file, g.fn}] // one gap: nothing in it is checked
		for _, o := range g.items {
			switch t := tri[o.Mutant.ID]; {
			case unpinned && len(items) > 0 && t.rank != rankEquiv:
				rest = append(rest, o)
			case t.rank == rankConstInt:
				consts = append(consts, o)
			case t.rank == rankEquiv:
				line := fmt.Sprintf("- `%s` %s: %s — *looks equivalent: %s* — `%s`\n", o.Mutant.ID, location(o.Mutant), change(o.Mutant), t.note, RerunCommand(md.g, o.Mutant))
				equivs = append(equivs, finding{full: line, compact: line})
			default:
				items = append(items, finding{full: md.fullFinding(o), compact: md.compactFinding(o)})
			}
		}
		if len(rest) > 0 {
			word := "survivors"
			if len(rest) == 1 {
				word = "survivor"
			}
			line := fmt.Sprintf("- no test caught any change to `%s`: %d more %s (%s), the same gap: %s\n", fn, len(rest), word, operatorMix(rest), listIDs(rest, 4))
			equivs = append([]finding{{full: line, compact: line}}, equivs...)
		}
		if len(consts) > 0 {
			line := md.foldedConstInts(consts)
			equivs = append([]finding{{full: line, compact: line}}, equivs...)
		}
		if len(equivs) > 0 { // a list after a finding's details needs a blank line
			equivs[0].full, equivs[0].compact = "\n"+equivs[0].full, "\n"+equivs[0].compact
		}
		items = append(items, equivs...)
		items[0].full = head + items[0].full
		items[0].compact = head + items[0].compact
		out = append(out, items...)
	}
	return out
}

// foldedConstInts is one line for a function's const-int survivors: how
// many, and the first 8 with what each changes.
func (md *mdReport) foldedConstInts(consts []mutant.Outcome) string {
	var parts []string
	for i, o := range consts {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(consts)-8))
			break
		}
		m := o.Mutant
		parts = append(parts, fmt.Sprintf("`%s` `%s`→`%s`", m.ID, oneLine(m.Original), oneLine(m.Replacement)))
	}
	return fmt.Sprintf("- const-int ×%d, folded (a constant changed by one, often noise): %s — `%s` prints one\n", len(consts), strings.Join(parts, ", "), ToolCommand(md.g, "diff", "<id>"))
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
