package report

import (
	"fmt"
	"strings"
	"testing"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

// triageSource is a fixture file with real gaps and equivalent-looking
// survivors side by side.
const triageSource = `package p

func Encode(id []byte, dst []byte) {
	_ = dst[1]
	dst[0] = byte((id[0] << 4) & 0x1F)
	dst[1] = id[1]
}

func Sum(a []int) int {
	if len(a) == 0 {
		return 0
	}
	s := 0
	for _, x := range a {
		s += x
	}
	a = a[:len(a)]
	// fast path: skip the copy
	a = append(a, 0)
	return s
}

func Host() string {
	if h := env("H"); h != "" {
		return h
	}
	return "x"
}

const small = 32

func Dist(a, b []rune) int {
	var x []int
	if len(a)+1 > small {
		x = make([]int, len(a)+1)
	} else {
		// an optimization: no allocation for short strings
		x = make([]int, small)
	}
	a, b = trim(a, b)
	return len(x) + len(a) + len(b)
}

func trim(a, b []rune) ([]rune, []rune) {
	return a[1:], b[1:]
}

func Guard(a, b string) int {
	if a == "" {
		return len(b)
	}
	if b == "" {
		return len(a)
	}
	return 0
}

var seed = readSeed()

func readSeed() int {
	return pick()
}

var none T

func None() T {
	return none
}
`

// triageOutcome is a mutant of triageSource at line:col, with status st.
func triageOutcome(op string, line, col int, orig, repl string, st mutant.Status) mutant.Outcome {
	fn := "Encode"
	switch {
	case line >= 64:
		fn = "None"
	case line >= 58:
		fn = "readSeed"
	case line >= 48:
		fn = "Guard"
	case line >= 44:
		fn = "trim"
	case line >= 32:
		fn = "Dist"
	case line >= 23:
		fn = "Host"
	case line >= 9:
		fn = "Sum"
	}
	id := fmt.Sprintf("%s:p/p.go:%d:%d:%x", op, line, col, repl)
	o := mkOutcome(id, st, "every selected test passed (2 ran)")
	o.Mutant.Operator, o.Mutant.Func, o.Mutant.Pos, o.Mutant.Original, o.Mutant.Replacement = op, fn, mutant.Position{Line: line, Column: col}, orig, repl
	return o
}

// triageFixture is the outcomes of triageSource's mutants, and the rank
// and note each survivor should get.
func triageFixture() ([]mutant.Outcome, map[string]triage) {
	maskCol := strings.Index("\tdst[0] = byte((id[0] << 4) & 0x1F)", "0x1F") + 1
	type c struct {
		o    mutant.Outcome
		rank int
		note string
	}
	cases := []c{
		{triageOutcome("const-int", 4, 10, "1", "0", mutant.Survived), rankEquiv, "bounds-check hint"},
		{triageOutcome("const-int", 5, maskCol, "0x1F", "30", mutant.Survived), rankEquiv, "bits the shift already cleared"},
		{triageOutcome("const-int", 5, maskCol, "0x1F", "32", mutant.Survived), rankConstInt, ""}, // bit 5 was not cleared
		{triageOutcome("shift", 5, 21, "id[0] << 4", "id[0] >> 4", mutant.Killed), -1, ""},
		{triageOutcome("remove-stmt", 6, 2, "dst[1] = id[1]", "", mutant.Survived), rankReal, ""}, // a removal on a line no test pins
		{triageOutcome("const-int", 6, 6, "1", "2", mutant.Survived), rankConstInt, ""},           // noise
		{triageOutcome("branch-if", 10, 18, "{\n\t\treturn 0\n\t}", "{\n\n}", mutant.Survived), rankEquiv, "a shortcut"},
		{triageOutcome("branch-true", 10, 5, "len(a) == 0", "true", mutant.Survived), rankEquiv, "general path"},
		{triageOutcome("negate", 10, 5, "len(a) == 0", "len(a) != 0", mutant.Killed), -1, ""},
		{triageOutcome("const-int", 13, 7, "0", "1", mutant.Survived), rankConstInt, ""},
		{triageOutcome("arith", 15, 3, "s += x", "s -= x", mutant.Survived), rankOther, ""}, // the line is pinned by another test
		{triageOutcome("assign", 15, 3, "s += x", "s = x", mutant.Killed), -1, ""},
		{triageOutcome("remove-stmt", 17, 2, "a = a[:len(a)]", "", mutant.Survived), rankEquiv, "re-slice"},
		{triageOutcome("remove-stmt", 19, 2, "a = append(a, 0)", "", mutant.Survived), rankEquiv, "optimisation"},
		{triageOutcome("zero-return", 20, 9, "s", "0", mutant.Survived), rankLikely, ""}, // a removal, the only mutant of its line
		// a function no test caught any change to: one gap
		{triageOutcome("negate", 23, 26, `h != ""`, `h == ""`, mutant.Survived), rankReal, ""},
		{triageOutcome("branch-true", 23, 26, `h != ""`, "true", mutant.Survived), rankReal, ""},
		{triageOutcome("zero-return", 24, 10, "h", `""`, mutant.Survived), rankLikely, ""},
		{triageOutcome("zero-return", 26, 9, `"x"`, `""`, mutant.Survived), rankLikely, ""},
		// a condition forced away from the branch its comment calls an
		// optimisation, and a boundary that moves one case the same way
		{triageOutcome("branch-true", 34, 5, "len(a)+1 > small", "true", mutant.Survived), rankEquiv, "calls an optimisation"},
		{triageOutcome("branch-false", 34, 5, "len(a)+1 > small", "false", mutant.Survived), rankReal, ""}, // into the optimised branch: it may break
		{triageOutcome("negate", 34, 5, "len(a)+1 > small", "len(a)+1 <= small", mutant.Survived), rankReal, ""},
		{triageOutcome("boundary", 34, 5, "len(a)+1 > small", "len(a)+1 >= small", mutant.Survived), rankEquiv, "edge case"},
		{triageOutcome("boundary", 15, 3, "s < 0", "s <= 0", mutant.Survived), rankOther, ""}, // no forced side looks equivalent there
		// skipping a call that rewrites its own arguments, whose own
		// mistakes are caught
		{triageOutcome("remove-stmt", 40, 2, "a, b = trim(a, b)", "", mutant.Survived), rankEquiv, "normalisation"},
		{triageOutcome("zero-return", 45, 9, "a[1:]", "nil", mutant.Killed), -1, ""},
		// two guards, each checked, swapped
		{triageOutcome("guard-swap", 49, 2, "if a == \"\" {\n\t\treturn len(b)\n\t}\n\tif b == \"\" {\n\t\treturn len(a)\n\t}", "if b == \"\" {\n\t\treturn len(a)\n\t}\n\tif a == \"\" {\n\t\treturn len(b)\n\t}", mutant.Survived), rankEquiv, "both guards"},
		{triageOutcome("negate", 49, 5, `a == ""`, `a != ""`, mutant.Killed), -1, ""},
		{triageOutcome("negate", 52, 5, `b == ""`, `b != ""`, mutant.Killed), -1, ""},
		// code only the package's initialisation runs
		{triageOutcome("zero-return", 61, 9, "pick()", "0", mutant.Survived), rankInit, ""},
		// a variable that holds its zero value for good, returned
		{triageOutcome("zero-return", 67, 9, "none", "T{}", mutant.Survived), rankEquiv, "zero value already"},
		{triageOutcome("zero-return", 11, 10, "0", "1", mutant.Survived), rankLikely, ""}, // not covered: not a survivor to rank
	}
	cases[len(cases)-1].o.Result.Why = mutant.NotCovered
	var outcomes []mutant.Outcome
	want := map[string]triage{}
	for i, c := range cases {
		outcomes = append(outcomes, c.o)
		if c.rank >= 0 && i < len(cases)-1 {
			want[c.o.Mutant.ID] = triage{rank: c.rank, note: c.note}
		}
	}
	return outcomes, want
}

func TestTriageSurvivors(t *testing.T) {
	outcomes, want := triageFixture()
	got := triageSurvivors(outcomes, map[string]string{"p/p.go": triageSource})
	if len(got) != len(want) {
		t.Errorf("%d survivors ranked, want %d: %v", len(got), len(want), got)
	}
	for id, w := range want {
		t.Run(id, func(t *testing.T) {
			g, ok := got[id]
			if !ok || g.rank != w.rank || !strings.Contains(g.note, w.note) || (w.note == "") != (g.note == "") {
				t.Errorf("rank %d note %q, want rank %d note with %q", g.rank, g.note, w.rank, w.note)
			}
		})
	}
}

// TestSurvivorsGroupedForReading: the markdown lists the survivors by
// function, the function with a real-looking gap first, in it the gap
// before the folded const-int line and the equivalent-looking ones last.
func TestSurvivorsGroupedForReading(t *testing.T) {
	outcomes, _ := triageFixture()
	r := Build(Meta{Name: "x", Module: "example.com/p"}, outcomes, Inputs{Sources: map[string]string{"p/p.go": triageSource}})
	r.Decide(outcome.Conditions{})
	md := Markdown(r)
	for _, c := range []struct {
		name  string
		order []string
	}{
		{"functions, likeliest gap first", []string{"**`Host`** in `p/p.go`: 4 survivors", "**`Encode`** in `p/p.go`: 5 survivors (const-int 4, remove-stmt 1)", "**`Sum`** in `p/p.go`: 8 survivors"}},
		{"a function nothing checks: one entry, the rest on a line", []string{"#### `branch-true:p/p.go:23:26:", "- no test caught any change to `Host`: 3 more survivors (zero-return 2, negate 1), the same gap: `negate:p/p.go:23:26:", "**`Encode`**"}},
		{"gaps, then folded noise, then equivalents", []string{"#### `remove-stmt:p/p.go:6:2:", "**Folded**", "- `Encode` in `p/p.go`: const-int ×2:", "**Look equivalent**", "*looks equivalent: a bounds-check hint"}},
		{"folded const-ints name each change", []string{"- `Encode` in `p/p.go`: const-int ×2:", "`0x1F`→`32`", "`1`→`2`"}},
		{"a likely gap before other changes", []string{"#### `zero-return:p/p.go:20:9:", "#### `arith:p/p.go:15:3:", "- `Sum` in `p/p.go`: const-int ×1", "*looks equivalent: a shortcut"}},
		{"every function's gaps before any folded line", []string{"#### `branch-false:p/p.go:34:5:", "#### `arith:p/p.go:15:3:", "**`readSeed`** in `p/p.go`: 1 survivor (zero-return 1) — run only by the package's initialisation", "**Folded**"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			at := 0
			for _, s := range c.order {
				i := strings.Index(md[at:], s)
				if i < 0 {
					t.Fatalf("%q missing or out of order in:\n%s", s, md)
				}
				at += i + len(s)
			}
		})
	}
	if strings.Contains(md, "#### `const-int:") {
		t.Errorf("a const-int survivor has an entry of its own")
	}
}

// TestSurvivorSummary: the lines a run prints at its end name the
// functions with likely gaps, the likeliest first, each with its first
// gaps, and count the folded and equivalent-looking rest; a run without
// survivors prints none.
func TestSurvivorSummary(t *testing.T) {
	outcomes, want := triageFixture()
	r := Build(Meta{Name: "x", Module: "example.com/p"}, outcomes, Inputs{Sources: map[string]string{"p/p.go": triageSource}})
	lines := SurvivorSummary(r, 2)
	text := strings.Join(lines, "\n")
	noise := 0
	for _, w := range want {
		if w.rank >= rankConstInt {
			noise++
		}
	}
	for _, s := range []string{
		fmt.Sprintf("survivors by function, likeliest gaps first (x.md has all %d):", len(want)),
		"\n  Host in p/p.go: 4 survivors (zero-return 2, branch-true 1, negate 1)\n    p/p.go:23:26 branch-true h != \"\" -> true\n",
		"\n  Dist in p/p.go: 5 survivors",
		"    p/p.go:34:5 branch-false len(a)+1 > small -> false\n",
		"\n  and 5 likely gaps in 3 other functions\n", // Encode's remove-stmt; Sum's zero-return, arith and boundary; readSeed's zero-return
		fmt.Sprintf("\n  and %d const-int or equivalent-looking", noise),
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the summary lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "  Encode in") {
		t.Errorf("more than 2 functions in:\n%s", text)
	}
	var killed []mutant.Outcome
	for _, o := range outcomes {
		if o.Result.Status == mutant.Killed {
			killed = append(killed, o)
		}
	}
	if lines := SurvivorSummary(Build(Meta{Name: "x"}, killed, Inputs{}), 2); lines != nil {
		t.Errorf("a run without survivors prints %q", lines)
	}
}
