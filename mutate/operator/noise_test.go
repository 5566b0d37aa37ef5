package operator

import (
	"sort"
	"strings"
	"testing"

	"gathermut/mutate/load"
)

const noiseSrc = `package p

var table = []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, -25}

var small = []int{30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44}

var keyed = [256]byte{'0': 50, '1': 51, '2': 52, '3': 53, '4': 54, '5': 55, '6': 56, '7': 57, '8': 58, '9': 59, 'a': 60, 'b': 61, 'c': 62, 'd': 63, 'e': 64, 'f': 65}

var b byte = 255

var i8 int8 = -128

var u8 uint8 = 0

const untyped = 255

var sum byte = 255 - 1
`

// mutantsOf runs the operators on the module and returns "func: orig -> repl".
func mutantsOf(t *testing.T, src string, ops ...string) []string {
	t.Helper()
	dir := writeModule(t, map[string]string{"p/p.go": src})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Generate(prog, Config{Operators: ops})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if m.Unviable != "" {
			t.Errorf("%s: unviable: %s", m.ID, m.Unviable)
		}
		out = append(out, m.Operator+" "+m.Func+": "+m.Original+" -> "+m.Replacement)
	}
	sort.Strings(out)
	return out
}

func count(xs []string, prefix string) int {
	n := 0
	for _, x := range xs {
		if strings.HasPrefix(x, prefix) {
			n++
		}
	}
	return n
}

func TestConstIntNoiseRules(t *testing.T) {
	got := mutantsOf(t, noiseSrc, "const-int")
	// tables (16 elements or more) are const-table's, a 15-element literal is not a table
	if n := count(got, "const-int table:"); n != 0 {
		t.Errorf("const-int made %d mutants in a 16-element table", n)
	}
	if n := count(got, "const-int keyed:"); n != 0 {
		t.Errorf("const-int made %d mutants in a keyed 16-element table", n)
	}
	// a 15-element package-level literal is no const-table table, but its
	// entries only tune: const-tune's (tune_test.go)
	if n := count(got, "const-int small:"); n != 0 {
		t.Errorf("const-int made %d mutants in the 15-element package-level literal, want 0", n)
	}
	if n := count(mutantsOf(t, noiseSrc, "const-tune"), "const-tune small:"); n != 30 {
		t.Errorf("const-tune made %d mutants in the 15-element literal, want 30", n)
	}
	// only what the literal's type holds
	for _, want := range []string{"const-int b: 255 -> 254", "const-int i8: 128 -> 127", "const-int u8: 0 -> 1",
		"const-int untyped: 255 -> 256", "const-int untyped: 255 -> 254", "const-int sum: 255 -> 256", "const-int sum: 1 -> 2"} {
		if count(got, want) != 1 {
			t.Errorf("no %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, bad := range []string{"const-int b: 255 -> 256", "const-int i8: 128 -> 129"} {
		if count(got, bad) != 0 {
			t.Errorf("%q does not compile, yet was made", bad)
		}
	}

	tables := mutantsOf(t, noiseSrc, "const-table")
	if n := count(tables, "const-table table:"); n != 32 {
		t.Errorf("const-table made %d mutants in the 16-element table, want 32:\n%s", n, strings.Join(tables, "\n"))
	}
	// keys '0'.. are rune literals, not integer literals: 16 values, each both ways
	if n := count(tables, "const-table keyed:"); n != 32 {
		t.Errorf("const-table made %d mutants in the keyed table, want 32", n)
	}
	if len(tables) != 64 {
		t.Errorf("const-table strayed outside tables:\n%s", strings.Join(tables, "\n"))
	}
}

func TestSelectOperators(t *testing.T) {
	names := func(ops []*Operator) string {
		var s []string
		for _, op := range ops {
			s = append(s, op.Name)
		}
		return strings.Join(s, ",")
	}
	def, err := SelectOperators(nil)
	if err != nil || strings.Contains(names(def), "const-table") || strings.Contains(names(def), "const-tune") || !strings.Contains(names(def), "const-int") || len(def) != len(Operators)-2 {
		t.Errorf("default set: %s %v", names(def), err)
	}
	all, _ := SelectOperators([]string{"all"})
	if len(all) != len(Operators) {
		t.Errorf("all: %s", names(all))
	}
	plus, _ := SelectOperators([]string{"default", "const-table", "const-tune", "arith"})
	if len(plus) != len(Operators) {
		t.Errorf("default,const-table: %s", names(plus))
	}
	if one, _ := SelectOperators([]string{"const-table"}); names(one) != "const-table" {
		t.Errorf("const-table alone: %s", names(one))
	}
	if _, err := SelectOperators([]string{"const-tabel"}); err == nil {
		t.Errorf("unknown operator accepted")
	}
}

const contractSrc = `package p

import (
	"strconv"
	"strings"
)

func Replace(s string) string { return strings.Replace(s, ",", "", -1) }

func Parse64(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func Parse32(s string) (float64, error) { return strconv.ParseFloat(s, 32) }

func Shortest(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func Six(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }

func Two(s string) []string { return strings.SplitN(s, ",", (2)) }
`

// TestConstIntCalleeContract: const-int makes no mutant that its callee's
// documented contract makes the same call (a negative count or precision
// to another negative one, ParseFloat's bitSize 64 to 63 or 65), and
// keeps every other.
func TestConstIntCalleeContract(t *testing.T) {
	got := strings.Join(mutantsOf(t, contractSrc, "const-int"), "\n") + "\n"
	for _, c := range []struct {
		mutant string
		made   bool
	}{
		{"Replace: 1 -> 0\n", true}, {"Replace: 1 -> 2\n", false},
		{"Parse64: 64 -> 65\n", false}, {"Parse64: 64 -> 63\n", false},
		{"Parse32: 32 -> 33\n", true}, {"Parse32: 32 -> 31\n", true},
		{"Shortest: 1 -> 0\n", true}, {"Shortest: 1 -> 2\n", false}, {"Shortest: 64 -> 65\n", true},
		{"Six: 6 -> 7\n", true}, {"Six: 6 -> 5\n", true},
		{"Two: 2 -> 3\n", true}, {"Two: 2 -> 1\n", true},
	} {
		if strings.Contains(got, c.mutant) != c.made {
			t.Errorf("%q made: %v, want %v; mutants:\n%s", strings.TrimSpace(c.mutant), !c.made, c.made, got)
		}
	}
}
