package incremental

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
)

// The module the key tests change one thing at a time in: two "decoders"
// in one table, a shared helper, a caller, a type with a String method,
// an iota group, a test-only helper package and tests in two packages.
var module = map[string]string{
	"go.mod": "module m\n\ngo 1.26\n",
	"p/p.go": `package p

import "fmt"

const (
	A = iota
	B
)

var table = []func(int) int{dec1, dec2}

var built = build()

func build() int { return helper(1) }

func helper(x int) int { return x + 1 }

func dec1(x int) int { return helper(x) * 2 }

func dec2(x int) int { return x * 3 }

// Apply runs the i-th decoder.
func Apply(i, x int) int { return table[i](x) }

type T struct{}

func (T) String() string { return "t" }

func UseT() string { var t T; return fmt.Sprint(t) + fmt.Sprint(B) }
`,
	"p/p_test.go": `package p

import (
	"testing"

	"m/ptest"
)

func TestDec1(t *testing.T) { ptest.Check(t, Apply(0, 1), 4) }

func TestDec2(t *testing.T) { ptest.Check(t, dec2(1), 3) }

func TestUseT(t *testing.T) { ptest.Check(t, len(UseT()), 2) }
`,
	"ptest/ptest.go": `package ptest

import "testing"

// Check is a test helper only tests import.
func Check(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
`,
	"q/q.go": `package q

import "m/p"

func Q() int { return p.Apply(1, 2) }
`,
	"q/q_test.go": `package q

import "testing"

func TestQ(t *testing.T) {
	if Q() != 6 {
		t.Fatal("Q")
	}
}
`,
	"p/testdata/vectors.txt": "1 2 3\n",
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// at makes a mutant that replaces the first occurrence of old (after the
// marker) in file.
func at(t *testing.T, files map[string]string, file, marker, old, repl string) mutant.Mutant {
	t.Helper()
	src := files[file]
	i := strings.Index(src, marker)
	j := strings.Index(src[i:], old)
	if i < 0 || j < 0 {
		t.Fatalf("%s: no %q after %q", file, old, marker)
	}
	off := i + j
	return mutant.Mutant{ID: file + ":" + marker, Kind: mutant.Go, Operator: "test", Package: "m/" + filepath.Dir(file), File: file,
		Edit: &mutant.Edit{Start: off, End: off + len(old), Text: repl}}
}

// judged is one verdict of the key tests: the mutant (by marker, so it
// moves with its text), its result, and what the run saw: the tests that
// ran with it active and the declarations they entered.
type judged struct {
	file, marker, old, repl string
	result                  mutant.Result
	ran, executed           []string
}

// baselineRuns are the declarations each test of the module enters in its
// baseline (package initialization included: built calls build and
// helper).
var baselineRuns = map[string][]string{
	"m/p.TestDec1": {"m/p.Apply", "m/p.dec1", "m/p.helper", "m/p.build"},
	"m/p.TestDec2": {"m/p.dec2", "m/p.helper", "m/p.build"},
	"m/p.TestUseT": {"m/p.UseT", "m/p.(T).String", "m/p.helper", "m/p.build"},
	"m/q.TestQ":    {"m/q.Q", "m/p.Apply", "m/p.dec2", "m/p.helper", "m/p.build"},
}

var verdicts = map[string]judged{
	"dec1 killed": {"p/p.go", "return helper(x)", "*", "/", mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestDec1"}, CoveredBy: []string{"m/p.TestDec1"}},
		[]string{"m/p.TestDec1"}, []string{"m/p.Apply", "m/p.dec1", "m/p.helper", "m/p.build"}},
	"dec2 survived": {"p/p.go", "func dec2", "*", "/", mutant.Result{Status: mutant.Survived, CoveredBy: []string{"m/p.TestDec2", "m/q.TestQ"}},
		[]string{"m/p.TestDec2", "m/q.TestQ"}, []string{"m/q.Q", "m/p.Apply", "m/p.dec2", "m/p.helper", "m/p.build"}},
	"string killed": {"p/p.go", "func (T) String", `"t"`, `"tt"`, mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestUseT"}, CoveredBy: []string{"m/p.TestUseT"}},
		[]string{"m/p.TestUseT"}, []string{"m/p.UseT", "m/p.(T).String", "m/p.helper", "m/p.build"}},
}

// evidence is what a run of v saw, by node key in g (nil: nothing, a
// static key).
func evidence(t *testing.T, g *Graph, v judged, observed bool) *Evidence {
	if !observed {
		return nil
	}
	nodes := func(keys []string) []int32 {
		var out []int32
		for _, k := range keys {
			n, ok := g.byKey[k]
			if !ok {
				t.Fatalf("no declaration %s", k)
			}
			out = append(out, int32(n))
		}
		return out
	}
	ev := &Evidence{Probed: map[int32]bool{}, Ran: v.ran, Executed: nodes(v.executed), Tests: map[string][]int32{}}
	for i, n := range g.nodes {
		if n.probed {
			ev.Probed[int32(i)] = true
		}
	}
	for test, keys := range baselineRuns {
		ev.Tests[test] = nodes(keys)
	}
	return ev
}

func change(files map[string]string, file, old, repl string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	if !strings.Contains(out[file], old) {
		panic(file + " has no " + old)
	}
	out[file] = strings.Replace(out[file], old, repl, 1)
	return out
}

// reuse stores the verdicts on the module (once with the run's
// evidence, once without), then tells which of them a changed module
// reuses.
type reuse struct {
	env    []string
	g      *Graph
	caches map[bool]*Cache // by evidence
}

func newReuse(t *testing.T) *reuse {
	r := &reuse{env: append(os.Environ(), "GOWORK=off"), caches: map[bool]*Cache{}}
	var err error
	if r.g, err = Build(writeModule(t, module), "m", r.env, "salt"); err != nil {
		t.Fatal(err)
	}
	for _, observed := range []bool{true, false} {
		c, err := Open(filepath.Join(t.TempDir(), "cache.json.gz"))
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range verdicts {
			o := mutant.Outcome{Mutant: at(t, module, v.file, v.marker, v.old, v.repl), Result: v.result}
			if !c.Store(r.g, o, evidence(t, r.g, v, observed)) {
				t.Fatalf("%s not stored", name)
			}
		}
		r.caches[observed] = c
	}
	return r
}

// after returns, by evidence, which verdicts the changed module reuses.
func (r *reuse) after(t *testing.T, files map[string]string) map[bool]map[string]bool {
	t.Helper()
	g2, err := Build(writeModule(t, files), "m", r.env, "salt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[bool]map[string]bool{}
	for observed, c := range r.caches {
		out[observed] = map[string]bool{}
		for name, v := range verdicts {
			m := at(t, files, v.file, v.marker, v.old, v.repl)
			res, ok := c.Lookup(g2, m)
			if ok && (!res.Reused || res.Status != v.result.Status) {
				t.Errorf("%s: reused as %+v", name, res)
			}
			out[observed][name] = ok
		}
	}
	return out
}

// TestReuseFollowsWhatRan: a stored verdict is reused exactly while the
// code its tests ran (with the mutant, and for a survivor every test that
// could reach it, in the baseline), those tests, and the mutated
// declaration are unchanged, whatever the comments and formatting; a
// change to a function a test ran is never reused, one to a function no
// test of the verdict ran re-judges nothing. Without evidence of what ran
// (a mutant built on its own) the key is static: every declaration its
// tests can reach.
func TestReuseFollowsWhatRan(t *testing.T) {
	all := []string{"dec1 killed", "dec2 survived", "string killed"}
	r := newReuse(t)
	for _, c := range []struct {
		name   string
		files  map[string]string
		rerun  []string // with evidence: the verdicts judged again
		static []string // without evidence
	}{
		{"nothing", module, nil, nil},
		{"a comment in the mutated function", change(module, "p/p.go", "func dec1(x int) int { return", "func dec1(x int) int { /* doubles */ return"), nil, nil},
		{"comments and blank lines above", change(module, "p/p.go", "var built", "// built is\n// computed at init\n\nvar built"), nil, nil},
		{"formatting", change(module, "p/p.go", "func dec2(x int) int { return x * 3 }", "func dec2(x int) int {\n\treturn x*3\n}"), nil, nil},
		{"a comment in an assembly-free test", change(module, "p/p_test.go", "func TestDec2", "// TestDec2 checks dec2.\nfunc TestDec2"), nil, nil},
		{"a function only a survivor's other reacher runs", change(module, "p/p.go", "return helper(x) * 2", "return helper(x) * (1 + 1)"),
			[]string{"dec1 killed", "dec2 survived"}, []string{"dec1 killed", "dec2 survived"}},
		{"a sibling function no test of the kill ran", change(module, "p/p.go", "return x * 3", "return 3 * x"),
			[]string{"dec2 survived"}, []string{"dec1 killed", "dec2 survived"}},
		{"a function every test runs", change(module, "p/p.go", "return x + 1", "return 1 + x"), all, all},
		{"a function no test of these runs", change(module, "q/q.go", "return p.Apply(1, 2)", "return p.Apply(1, 1+1)"),
			[]string{"dec2 survived"}, []string{"dec2 survived"}},
		{"the killing test", change(module, "p/p_test.go", "Apply(0, 1), 4", "Apply(0, 1), 2*2"), []string{"dec1 killed", "dec2 survived"}, []string{"dec1 killed", "dec2 survived"}},
		{"another test that reaches the survivor", change(module, "q/q_test.go", `t.Fatal("Q")`, `t.Fatal("q")`), []string{"dec2 survived"}, []string{"dec2 survived"}},
		{"a test-only helper", change(module, "ptest/ptest.go", "got != want", "want != got"), []string{"dec1 killed", "dec2 survived", "string killed"}, all},
		{"a new test reaching the survivor", change(module, "p/p_test.go", "func TestDec2", "func TestNew(t *testing.T) { Apply(1, 0) }\n\nfunc TestDec2"),
			[]string{"dec2 survived"}, []string{"dec2 survived"}},
		{"a variable the tests reach", change(module, "p/p.go", "{dec1, dec2}", "{dec1, dec2, dec2}"), []string{"dec1 killed", "dec2 survived"}, []string{"dec1 killed", "dec2 survived"}},
		{"testdata", change(module, "p/testdata/vectors.txt", "1 2 3", "1 2 4"), all, all},
	} {
		t.Run(c.name, func(t *testing.T) {
			reused := r.after(t, c.files)
			for _, observed := range []bool{true, false} {
				want := c.rerun
				if !observed {
					want = c.static
				}
				got := reused[observed]
				for _, name := range all {
					if rerun := !got[name]; rerun != contains(want, name) {
						t.Errorf("evidence %v: %s judged again %v, want %v", observed, name, rerun, !rerun)
					}
				}
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestCacheRoundTrip: a stored verdict comes back, marked reused, after
// the file is written and read; what may not be stored is not; another
// salt (tool, Go, flags) reuses nothing; forget and a broken file.
func TestCacheRoundTrip(t *testing.T) {
	dir := writeModule(t, module)
	env := append(os.Environ(), "GOWORK=off")
	g, err := Build(dir, "m", env, "salt")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub", "cache.json.gz")
	c, err := Open(path)
	if err != nil || len(c.Entries) != 0 {
		t.Fatalf("a missing file: %v, %d entries", err, len(c.Entries))
	}
	killed := mutant.Outcome{Mutant: at(t, module, "p/p.go", "func dec1", "* 2", "* 3"), Result: mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestDec1"}}}
	survived := mutant.Outcome{Mutant: at(t, module, "p/p.go", "func dec2", "* 3", "* 4"), Result: mutant.Result{Status: mutant.Survived, Why: "every selected test passed (1 ran)"}}
	errored := mutant.Outcome{Mutant: at(t, module, "q/q.go", "func Q", "1, 2", "0, 2"), Result: mutant.Result{Status: mutant.Error, Why: "no test ran"}}
	typeChecked := survived
	typeChecked.Mutant.State, typeChecked.Mutant.Note = mutant.Unbuildable, "does not type-check"
	typeChecked.Result = mutant.Result{Status: mutant.Unviable}
	ev := evidence(t, g, verdicts["dec1 killed"], true)
	for _, o := range []mutant.Outcome{killed, survived} {
		if !c.Store(g, o, ev) {
			t.Errorf("%s not stored", o.Mutant.ID)
		}
	}
	for _, o := range []mutant.Outcome{errored, typeChecked, {Mutant: killed.Mutant, Result: mutant.Result{Status: mutant.Interrupted}}} {
		if Cacheable(o) {
			t.Errorf("%s (%s) is cacheable", o.Mutant.ID, o.Result.Status)
		}
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c, err = Open(path)
	if err != nil || len(c.Entries) != 2 || len(c.Sets) == 0 {
		t.Fatalf("read back: %v, %d entries, %d sets", err, len(c.Entries), len(c.Sets))
	}
	for _, o := range []mutant.Outcome{killed, survived} {
		r, ok := c.Lookup(g, o.Mutant)
		if !ok || !r.Reused || r.Status != o.Result.Status {
			t.Errorf("%s: lookup %v %+v", o.Mutant.ID, ok, r)
		}
	}
	g3, err := Build(dir, "m", env, "other salt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup(g3, killed.Mutant); ok {
		t.Errorf("a verdict of another tool or flags was reused")
	}
	c.Forget(map[string]bool{"m/p": true}, map[string]bool{g.Identity(killed.Mutant): true})
	if len(c.Entries) != 1 {
		t.Errorf("forget kept %d entries", len(c.Entries))
	}
	os.WriteFile(path, []byte("not gzip"), 0o644)
	if c, err := Open(path); err == nil || len(c.Entries) != 0 {
		t.Errorf("a broken file: %v", err)
	}
}

// TestNormalizedText: assembly and C sources hash without their comments
// and formatting, and an edit's identity stays when comments and blank
// lines move around it.
func TestNormalizedText(t *testing.T) {
	src := "TEXT ·f(SB), NOSPLIT, $0\n\tMOVQ a+0(FP), AX // load\n\tADDQ $1, AX\n\tRET\n"
	same := "// f adds one.\nTEXT ·f(SB), NOSPLIT, $0\n\n\tMOVQ   a+0(FP), AX\n\t/* one */ ADDQ $1, AX\n\tRET\n"
	other := "TEXT ·f(SB), NOSPLIT, $0\n\tMOVQ a+0(FP), AX\n\tADDQ $2, AX\n\tRET\n"
	if sumText([]byte(src)) != sumText([]byte(same)) || sumText([]byte(src)) == sumText([]byte(other)) {
		t.Errorf("normalized text: %q vs %q", normalizeText([]byte(src)), normalizeText([]byte(same)))
	}
	if got := normalizeText([]byte(`DATA x<>+0(SB)/8, $"a//b"` + "\n")); string(got) != `DATA x<>+0(SB)/8, $"a//b"`+"\n" {
		t.Errorf("a string with // lost: %q", got)
	}
	g := &Graph{root: t.TempDir(), texts: map[string]*textFile{}}
	for name, text := range map[string]string{"a.s": src, "b.s": same} {
		if err := os.WriteFile(filepath.Join(g.root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := g.text("a.s"), g.text("b.s")
	ia := a.identity(strings.Index(src, "$1"), strings.Index(src, "$1")+2)
	ib := b.identity(strings.Index(same, "$1"), strings.Index(same, "$1")+2)
	if ia != ib {
		t.Errorf("identities %q and %q", ia, ib)
	}
}

// TestEdgeCache: the references between declarations are read back for
// the same code and after a comment-only change, and worked out again
// (the same as without the cache) after a change to the code.
func TestEdgeCache(t *testing.T) {
	env := append(os.Environ(), "GOWORK=off")
	cache := t.TempDir()
	edges := func(g *Graph) []string {
		var out []string
		for from, tos := range g.edges {
			for _, to := range tos {
				out = append(out, g.nodes[from].key+" -> "+g.nodes[to].key)
			}
		}
		sort.Strings(out)
		return out
	}
	commented := change(module, "p/p.go", "func helper", "// helper adds one.\nfunc helper")
	calls := change(module, "p/p.go", "return x * 3", "return helper(x) * 3")
	for _, c := range []struct {
		name  string
		files map[string]string
		read  bool
	}{{"first", module, false}, {"again", module, true}, {"a comment", commented, true}, {"a new call", calls, false}} {
		dir := writeModule(t, c.files)
		g, err := BuildCached(dir, "m", env, "salt", cache)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := Build(dir, "m", env, "salt")
		if err != nil {
			t.Fatal(err)
		}
		if g.edgesRead != c.read || plain.edgesRead {
			t.Errorf("%s: references read from the cache %v, want %v", c.name, g.edgesRead, c.read)
		}
		if got, want := edges(g), edges(plain); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: references\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if c.name == "a new call" && !slices.Contains(edges(g), "m/p.dec2 -> m/p.helper") {
			t.Errorf("the new call is not a reference: %v", edges(g))
		}
	}
}
