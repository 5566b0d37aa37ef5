package selection

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	oracleQ4K = Ref{Package: "m/gather", Test: "TestOracle", Sub: "Q4_K"}
	oracleQ8  = Ref{Package: "m/gather", Test: "TestOracle", Sub: "Q8_0"}
	bounds    = Ref{Package: "m/gather", Test: "TestBounds"}
	golden    = Ref{Package: "m/engine", Test: "TestGolden"}
)

// learned is a map's history: mutants of two functions of one file and
// one function of another file of the same package.
var learned = []struct {
	key     Key
	killers []Ref
}{
	{Key{"a1", "m/gather", "kq.go", "decodeQ4K"}, []Ref{oracleQ4K}},
	{Key{"a2", "m/gather", "kq.go", "decodeQ4K"}, []Ref{oracleQ4K}},
	{Key{"a3", "m/gather", "kq.go", "decodeQ4K"}, []Ref{bounds}},
	{Key{"b1", "m/gather", "kq.go", "decodeQ8"}, []Ref{oracleQ8, oracleQ8}},
	{Key{"c1", "m/gather", "legacy.go", "check"}, []Ref{golden}},
}

var predictCases = []struct {
	name string
	key  Key
	want []Ref
}{
	{"its own killers", Key{"a3", "m/gather", "kq.go", "decodeQ4K"}, []Ref{bounds}},
	{"its function's, most first, and no other level's", Key{"new", "m/gather", "kq.go", "decodeQ4K"}, []Ref{oracleQ4K, bounds}},
	{"its file's", Key{"new", "m/gather", "kq.go", "other"}, []Ref{oracleQ4K, bounds, oracleQ8}},
	{"its file's, pointed at the case its function names", Key{"new", "m/gather", "kq.go", "decodeQ8_0Fast"}, []Ref{oracleQ8, bounds}},
	{"its package's, ties by name", Key{"new", "m/gather", "new.go", "f"}, []Ref{oracleQ4K, golden, bounds}},
	{"nothing known", Key{"new", "m/other", "o.go", "f"}, nil},
}

func newLearned() *Map {
	m := New()
	for _, l := range learned {
		m.Learn(l.key, l.killers)
	}
	return m
}

// TestPredict: a known mutant gets its own killers; an unknown one the
// killers of most mutants of its function, then file, then package, at
// most MaxPredicted, each once.
func TestPredict(t *testing.T) {
	m := newLearned()
	for _, c := range predictCases {
		t.Run(c.name, func(t *testing.T) {
			got, own := m.Predict(c.key)
			if !slices.Equal(got, c.want) || own != (c.key.ID != "new") {
				t.Errorf("Predict = %v (own %v), want %v", got, own, c.want)
			}
		})
	}
}

// TestLearnReplaces: a mutant killed again by another test replaces its
// killers, and its function's counts follow.
func TestLearnReplaces(t *testing.T) {
	m := newLearned()
	m.Learn(Key{"a1", "m/gather", "kq.go", "decodeQ4K"}, []Ref{bounds})
	m.Learn(Key{"a2", "m/gather", "kq.go", "decodeQ4K"}, []Ref{bounds})
	m.Learn(Key{"a2", "m/gather", "kq.go", "decodeQ4K"}, nil) // nothing learned
	got, _ := m.Predict(Key{"new", "m/gather", "kq.go", "decodeQ4K"})
	if want := []Ref{bounds}; !slices.Equal(got, want) {
		t.Errorf("Predict = %v, want %v", got, want)
	}
	if m.Len() != len(learned) {
		t.Errorf("Len = %d, want %d", m.Len(), len(learned))
	}
}

// TestSaveOpen: a saved map opens again for the same module and root,
// not for another; a map opened and unchanged writes nothing.
func TestSaveOpen(t *testing.T) {
	t.Setenv("GATHERMUT_CACHE", t.TempDir())
	m := Open("m", "/src/m")
	for _, l := range learned {
		m.Learn(l.key, l.killers)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	again := Open("m", "/src/m")
	for _, c := range predictCases {
		if got, _ := again.Predict(c.key); !slices.Equal(got, c.want) {
			t.Errorf("%s: reopened Predict = %v, want %v", c.name, got, c.want)
		}
	}
	if other := Open("m", "/src/other"); other.Len() != 0 {
		t.Errorf("another root's map has %d mutants", other.Len())
	}
	if again.dirty {
		t.Errorf("an opened map is dirty")
	}
}

var patternCases = []struct {
	name string
	refs []Ref
	want string
}{
	{"one test", []Ref{bounds}, `^TestBounds$`},
	{"a subtest", []Ref{oracleQ4K}, `^TestOracle$/^Q4_K$`},
	{"nested and quoted", []Ref{{Package: "p", Test: "TestT", Sub: "a.b/c+d"}}, `^TestT$/^a\.b$/^c\+d$`},
	{"alternatives", []Ref{oracleQ4K, bounds, oracleQ8}, `^TestOracle$/^Q4_K$|^TestBounds$|^TestOracle$/^Q8_0$`},
	{"a whole test covers its subtests", []Ref{oracleQ4K, {Package: "m/gather", Test: "TestOracle"}}, `^TestOracle$`},
	{"duplicates once", []Ref{bounds, bounds}, `^TestBounds$`},
}

// TestPattern: the -test.run pattern of refs, level by level.
func TestPattern(t *testing.T) {
	for _, c := range patternCases {
		t.Run(c.name, func(t *testing.T) {
			if got := Pattern(c.refs); got != c.want {
				t.Errorf("Pattern = %q, want %q", got, c.want)
			}
		})
	}
}

var tierCases = []struct {
	name     string
	tests    []string // "Name:ms"
	together bool
	tiers    []string // each process "A,B"
	tail     string
}{
	{"tiers and tail", []string{"TestA:0", "TestB:100", "TestC:2000", "TestD:40000", "TestE:3000", "TestF:600"}, false,
		[]string{"TestA", "TestB", "TestF", "TestC"}, "TestE,TestD"},
	{"a lone tail test", []string{"TestA:9000"}, false, nil, "TestA"},
	{"together: no tail", []string{"TestA:9000", "TestB:0"}, true, []string{"TestA,TestB"}, ""},
	{"nothing", nil, false, nil, ""},
}

// TestTiers: tiny, quick, each slow test alone, and the tail (TailTest
// and slower) held back, quickest first.
func TestTiers(t *testing.T) {
	type test struct {
		name string
		d    time.Duration
	}
	for _, c := range tierCases {
		t.Run(c.name, func(t *testing.T) {
			var tests []test
			for _, s := range c.tests {
				name, ms, _ := strings.Cut(s, ":")
				var n int
				for _, r := range ms {
					n = 10*n + int(r-'0')
				}
				tests = append(tests, test{name, time.Duration(n) * time.Millisecond})
			}
			tiers, tail := Tiers(tests, func(t test) time.Duration { return t.d }, c.together)
			var got []string
			for _, g := range tiers {
				var names []string
				for _, x := range g {
					names = append(names, x.name)
				}
				got = append(got, strings.Join(names, ","))
			}
			var tailNames []string
			for _, x := range tail {
				tailNames = append(tailNames, x.name)
			}
			if !slices.Equal(got, c.tiers) || strings.Join(tailNames, ",") != c.tail {
				t.Errorf("Tiers = %q, tail %q; want %q, tail %q", got, tailNames, c.tiers, c.tail)
			}
		})
	}
}
