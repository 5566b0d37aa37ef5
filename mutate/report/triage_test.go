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
`

// triageOutcome is a mutant of triageSource at line:col, with status st.
func triageOutcome(op string, line, col int, orig, repl string, st mutant.Status) mutant.Outcome {
	fn := "Encode"
	switch {
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
		{"functions, likeliest gap first", []string{"**`Host`** in `p/p.go`: 4 survivors", "**`Encode`** in `p/p.go`: 5 survivors (const-int 4, remove-stmt 1)", "**`Sum`** in `p/p.go`: 7 survivors"}},
		{"a function nothing checks: one entry, the rest on a line", []string{"#### `branch-true:p/p.go:23:26:", "- no test caught any change to `Host`: 3 more survivors (zero-return 2, negate 1), the same gap: `negate:p/p.go:23:26:", "**`Encode`**"}},
		{"in a function: gap, folded noise, equivalents", []string{"#### `remove-stmt:p/p.go:6:2:", "- const-int ×2, folded", "*looks equivalent: a bounds-check hint"}},
		{"folded const-ints name each change", []string{"- const-int ×2, folded", "`0x1F`→`32`", "`1`→`2`"}},
		{"a likely gap before other changes", []string{"#### `zero-return:p/p.go:20:9:", "#### `arith:p/p.go:15:3:", "- const-int ×1, folded", "*looks equivalent: a shortcut"}},
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
