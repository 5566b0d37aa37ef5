package operator

import (
	"strings"
	"testing"

	"gathermut/mutate/load"
)

const tuneSrc = `package p

var rows = []struct{ lo, hi, width int }{{0x300, 0x36F, 0}, {0x1100, 0x115F, 2}}

var sizes = map[string]int{"kb": 1000}

var widths = map[string]int{"sjis": 2, "utf8": 6}

func Wide(cs string) bool {
	max := 1
	if m, ok := widths[cs]; ok {
		max = m
	}
	return max > 1
}

type step struct{ limit, div int }

var steps = []step{{100, 1}, {2000, 10}}

func Step(n int) int {
	for _, s := range steps {
		if n < s.limit {
			return n / s.div
		}
	}
	return 0
}

const depth = 32

const limit = 64

const Exported = 16

var counter = 7

func Callers() []uintptr {
	var pcs [depth]uintptr
	buf := make([]byte, 0, 512)
	m := make(map[int]bool, 8)
	ch := make(chan int, 4)
	_, _, _ = buf, m, ch
	return pcs[:]
}

func Decide(n int, s []byte) int {
	if n > limit {
		return 1
	}
	row := struct{ a, b int }{3, 4}
	switch n {
	case 5:
		return row.a
	}
	b := make([]byte, 10)
	counter++
	return int(s[n+2]) + len(b) + Exported + counter + int(s[:n*2+9][0]) + sizes["kb"]
}
`

// TestConstTune: literals that only tune (table entries, make's sizes, a
// constant used only as an array length) are const-tune's; compared and
// indexed values, values built at run time, lengths, exported and assigned
// names stay const-int's, and the two operators never make the same
// mutant.
func TestConstTune(t *testing.T) {
	tune := mutantsOf(t, tuneSrc, "const-tune")
	ints := mutantsOf(t, tuneSrc, "const-int")
	has := func(list []string, s string) bool {
		for _, x := range list {
			if strings.HasSuffix(x, s) {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		mutant string
		tunes  bool
		why    string
	}{
		{"rows: 0x36F -> 878", true, "an entry of a package-level table"},
		{"rows: 2 -> 3", true, "an entry of a package-level table"},
		{"sizes: 1000 -> 1001", true, "a value of a package-level map literal"},
		{"depth: 32 -> 33", true, "a constant used only as an array length"},
		{"Callers: 512 -> 513", true, "a slice's capacity"},
		{"Callers: 8 -> 9", true, "a map's size hint"},
		{"Callers: 4 -> 5", true, "a channel's buffer"},
		{"steps: 1 -> 2", true, "a table column that is only divided by"},
		{"steps: 2000 -> 2001", false, "a table column that is compared (a threshold)"},
		{"widths: 2 -> 1", false, "a table whose elements are compared after two local variables"},
		{"sizes: 1000 -> 1001", true, "a table whose elements are only multiplied"},
		{"limit: 64 -> 65", false, "a constant that is compared"},
		{"Exported: 16 -> 17", false, "an exported constant (uses elsewhere are unknown)"},
		{"counter: 7 -> 8", false, "a variable that is assigned"},
		{"Decide: 1 -> 2", false, "a returned value"},
		{"Decide: 3 -> 4", false, "a composite literal built at run time"},
		{"Decide: 5 -> 6", false, "a case value (compared)"},
		{"Decide: 10 -> 11", false, "a slice's length"},
		{"Decide: 2 -> 3", false, "an index"},
		{"Decide: 9 -> 10", false, "a slice bound"},
	} {
		if has(tune, c.mutant) != c.tunes || has(ints, c.mutant) == c.tunes {
			t.Errorf("%s (%s): const-tune %v, const-int %v; want const-tune %v", c.mutant, c.why, has(tune, c.mutant), has(ints, c.mutant), c.tunes)
		}
	}
	seen := map[string]bool{}
	for _, x := range ints {
		seen[strings.TrimPrefix(x, "const-int ")] = true
	}
	for _, x := range tune {
		if seen[strings.TrimPrefix(x, "const-tune ")] {
			t.Errorf("both operators made %s", x)
		}
	}
	if len(tune) == 0 || len(ints) == 0 {
		t.Fatalf("const-tune %d, const-int %d mutants: the test proves nothing", len(tune), len(ints))
	}
}

// TestConstIntSuppressionCoversTune: an equivalent comment naming
// const-int, written before const-tune split off, still covers the
// literal's const-tune mutants.
func TestConstIntSuppressionCoversTune(t *testing.T) {
	const src = "package p\n\nfunc F() []byte {\n\treturn make([]byte, 0, 64) //gathermut:equivalent(const-int) capacity only\n}\n"
	dir := writeModule(t, map[string]string{"p/p.go": src})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Generate(prog, Config{Operators: []string{"const-tune"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d const-tune mutants, want 64 -> 65 and 64 -> 63", len(ms))
	}
	for _, m := range ms {
		if m.Equivalent == "" {
			t.Errorf("%s: not covered by the const-int suppression", m.ID)
		}
	}
}

const outcomeSrc = `package p

var widths = map[string]int{"sjis": 2, "utf8": 6, "ascii": 1}

func Wide(cs string) bool {
	max := 1
	if m, ok := widths[cs]; ok {
		max = m
	}
	return max > 1
}

var limit = 10

func Small(n int) bool { return n < limit }

func Direct() bool {
	x := 4
	return x >= 3
}

func Neg() bool {
	y := -2
	return y < 0
}
`

// TestConstIntSameOutcome: a literal the package only compares with
// constants (through a table, local variables) gets only the mutants that
// change a comparison; one compared with a variable keeps both.
func TestConstIntSameOutcome(t *testing.T) {
	got := strings.Join(mutantsOf(t, outcomeSrc, "const-int", "const-tune"), "\n") + "\n"
	for _, c := range []struct {
		mutant string
		made   bool
	}{
		{"widths: 2 -> 1\n", true}, {"widths: 2 -> 3\n", false},
		{"widths: 6 -> 7\n", false}, {"widths: 6 -> 5\n", false},
		{"widths: 1 -> 2\n", true}, {"widths: 1 -> 0\n", false},
		{"limit: 10 -> 11\n", true}, {"limit: 10 -> 9\n", true},
		{"Direct: 4 -> 5\n", false}, {"Direct: 4 -> 3\n", false}, {"Direct: 3 -> 4\n", true},
		{"Neg: 2 -> 3\n", true}, {"Neg: 2 -> 1\n", true},
	} {
		if strings.Contains(got, c.mutant) != c.made {
			t.Errorf("%q made: %v, want %v; mutants:\n%s", strings.TrimSpace(c.mutant), !c.made, c.made, got)
		}
	}
}
