package incremental

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
)

var update = flag.Bool("update", false, "rewrite testdata/graph.golden")

// richModule has every kind of reference the graph follows: static calls,
// a table of functions and a dynamic call, a function literal stored as a
// value, a method value, an interface method call, a generic function and
// a method called through a type parameter's constraint, methods the
// standard library calls (String, Error), init functions and variables
// initialized by calls, a TestMain, internal and external tests, a
// test-only helper package, an embedded file, an assembly declaration and
// testdata.
var richModule = map[string]string{
	"go.mod": "module r\n\ngo 1.26\n",
	"a/a.go": `package a

import (
	_ "embed"
	"errors"
	"fmt"
)

//go:embed words.txt
var words string

var ops = map[string]func(int) int{"inc": inc, "dbl": func(x int) int { return 2 * x }}

var ready = setup()

func setup() bool { return len(words) > 0 }

func init() { ops["neg"] = neg }

func inc(x int) int { return x + 1 }

func neg(x int) int { return -x }

// Do runs the named op.
func Do(name string, x int) int {
	f := ops[name]
	return f(x)
}

// Shape is what Area needs.
type Shape interface{ Area() int }

// Sq is a square.
type Sq struct{ S int }

func (q Sq) Area() int { return q.S * q.S }

func (q Sq) String() string { return fmt.Sprint("sq", q.S) }

// Bad is an error.
type Bad struct{}

func (Bad) Error() string { return "bad" }

// Total adds the shapes' areas.
func Total(xs []Shape) int {
	t := 0
	for _, x := range xs {
		t += x.Area()
	}
	return t
}

// Max is generic.
func Max[T interface{ ~int | ~float64 }](a, b T) T {
	if a > b {
		return a
	}
	return b
}

// Sum calls Area through a constraint.
func Sum[S Shape](xs []S) int {
	t := 0
	for _, x := range xs {
		t += x.Area()
	}
	return t
}

// Bound returns a method value.
func Bound(q Sq) func() int { return q.Area }

// Check fails for negative n.
func Check(n int) error {
	if n < 0 {
		return errors.Join(Bad{})
	}
	return nil
}

// Fast is in assembly.
func Fast(x int) int
`,
	"a/fast.s":    "// not assembled: the graph only hashes it\n",
	"a/words.txt": "alpha beta\n",
	"a/a_test.go": `package a

import (
	"os"
	"testing"

	"r/atest"
)

func TestMain(m *testing.M) { os.Exit(m.Run()) }

func TestDo(t *testing.T) { atest.Eq(t, Do("inc", 1), 2) }

func TestTotal(t *testing.T) { atest.Eq(t, Total([]Shape{Sq{2}}), 4) }
`,
	"a/x_test.go": `package a_test

import (
	"testing"

	"r/a"
)

func TestMax(t *testing.T) {
	if a.Max(2, 3) != 3 || a.Sum([]a.Sq{{1}, {2}}) != 5 || a.Bound(a.Sq{3})() != 9 {
		t.Error("generic")
	}
}

func TestCheck(t *testing.T) {
	if a.Check(-1) == nil {
		t.Error("Check")
	}
}
`,
	"atest/atest.go": `package atest

import "testing"

// Eq is a test helper.
func Eq(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
`,
	"b/b.go": `package b

import "r/a"

// Twice uses a's table.
func Twice(x int) int { return a.Do("dbl", x) }
`,
	"b/b_test.go": `package b

import "testing"

func TestTwice(t *testing.T) {
	if Twice(2) != 4 {
		t.Fatal("Twice")
	}
}
`,
	"a/testdata/in.txt": "1\n",
}

// TestGraphGolden pins what Build makes of richModule (every node, edge,
// test, TestMain, init and binary) and what the keys hold for a
// declaration (its forward and backward closures and the tests that can
// execute it), with the keys of a few mutants: testdata/graph.golden.
// TestReuseFollowsWhatRan and TestKeysFollowTheCode show by examples
// that the dependencies change when they must; this test catches in one build any change to what the graph
// records. After a deliberate change, -update rewrites the file and
// TestReuseFollowsWhatRan must still pass.
func TestGraphGolden(t *testing.T) {
	dir := writeModule(t, richModule)
	g, err := Build(dir, "r", append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"), "salt")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeGraph(t, &b, g)
	writeGraphMutants(t, &b, g)
	compareGraphGolden(t, b.String())
}

// graphKeys lists the keys of nodes, sorted.
func graphKeys(g *Graph, ns []int32) string {
	var ks []string
	for _, n := range ns {
		ks = append(ks, g.nodes[n].key)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func int32s(ns []int) []int32 {
	out := make([]int32, len(ns))
	for i, n := range ns {
		out[i] = int32(n)
	}
	return out
}

// writeGraph writes the graph's nodes (edges, closures, candidates),
// files, tests, test mains, inits and binaries.
func writeGraph(t *testing.T, w *strings.Builder, g *Graph) {
	t.Helper()
	b := w
	keyOf := func(ns []int32) string { return graphKeys(g, ns) }
	ints := int32s
	fmt.Fprintf(b, "module %s, global %x\n", g.module, g.global)
	order := make([]int, len(g.nodes))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return g.nodes[order[i]].key < g.nodes[order[j]].key })
	for _, n := range order {
		d := g.nodes[n]
		if g.byKey[d.key] != n {
			t.Errorf("byKey[%s] = %d, want %d", d.key, g.byKey[d.key], n)
		}
		fmt.Fprintf(b, "node %s pkg=%s %s[%d,%d) test=%v hash=%s\n", d.key, d.pkg, d.file, d.start, d.end, d.testCode, hex.EncodeToString(d.hash[:6]))
		fmt.Fprintf(b, "\tedges: %s\n\tfrom: %s\n", keyOf(g.edges[n]), keyOf(g.redges[n]))
		fmt.Fprintf(b, "\tcandidates: %s\n\tprobed=%v bodyless=%v\n", strings.Join(g.candidates(n), " "), d.probed, d.bodyless)
	}
	for _, p := range g.Probes() {
		fmt.Fprintf(b, "probe %s %s@%d: %s\n", p.Package, p.File, p.At, g.nodes[p.Node].key)
	}
	var files []string
	for f := range g.files {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(b, "file %s: %s\n", f, keyOf(ints(g.files[f])))
	}
	var tests []string
	for id := range g.tests {
		tests = append(tests, id)
	}
	sort.Strings(tests)
	for _, id := range tests {
		h := g.testCodeHash(id)
		fmt.Fprintf(b, "test %s node=%s pkg=%s code=%s\n\tclosure: %s\n", id, g.nodes[g.tests[id]].key, g.testPkg[id], hex.EncodeToString(h[:6]), keyOf(g.testClosure(id)))
	}
	for _, m := range []struct {
		name string
		kv   map[string][]int
	}{{"testmain", g.testMain}, {"inits", g.inits}} {
		var pkgs []string
		for p := range m.kv {
			pkgs = append(pkgs, p)
		}
		sort.Strings(pkgs)
		for _, p := range pkgs {
			fmt.Fprintf(b, "%s %s: %s\n", m.name, p, keyOf(ints(m.kv[p])))
		}
	}
	var bins []string
	for p := range g.binary {
		bins = append(bins, p)
	}
	sort.Strings(bins)
	for _, p := range bins {
		q := append([]string(nil), g.binary[p]...)
		sort.Strings(q)
		fmt.Fprintf(b, "binary %s: %s\n", p, strings.Join(q, " "))
	}
}

// writeGraphMutants writes the dependencies of sample mutants (as a
// survivor and as a kill, without evidence: static), a kernel mutant's
// and one outside the module's packages.
func writeGraphMutants(t *testing.T, b *strings.Builder, g *Graph) {
	t.Helper()
	for _, c := range []struct {
		name, file, marker, old, repl string
		killers                       []string
	}{
		{"inc", "a/a.go", "func inc", "+ 1", "- 1", []string{"r/a.TestDo"}},
		{"literal", "a/a.go", "var ops", "2 * x", "3 * x", nil},
		{"area", "a/a.go", "func (q Sq) Area", "q.S * q.S", "q.S + q.S", []string{"r/a.TestTotal", "r/a.TestMax"}},
		{"error", "a/a.go", "func (Bad) Error", `"bad"`, `""`, nil},
		{"max", "a/a.go", "func Max", "a > b", "a < b", []string{"r/a_test.TestMax"}}, // not a test id
		{"twice", "b/b.go", "func Twice", `"dbl"`, `"inc"`, []string{"r/b.TestTwice"}},
		{"crash", "b/b.go", "func Twice", `"dbl"`, `"x"`, []string{"r/b (test binary)"}},
	} {
		m := at(t, richModule, c.file, c.marker, c.old, c.repl)
		survived, ok := g.depsOf(m, mutant.Result{Status: mutant.Survived}, nil)
		killed, kok := g.depsOf(m, mutant.Result{Status: mutant.Killed, KilledBy: c.killers}, nil)
		fmt.Fprintf(b, "mutant %s: node=%s identity=%s\n\tsurvived %v: %s\n\tkilled %v: %s\n", c.name, g.nodes[g.locate(m)].key, g.Identity(m)[:12],
			ok, depNames(survived), kok, depNames(killed))
	}
	kernel := mutant.Mutant{ID: "k", Kind: mutant.Kernel, File: "k.hip", Expected: []mutant.TestID{{Package: "r/b", Name: "TestTwice"}}}
	ev := &Evidence{KernelPackage: "r/b", KernelFiles: []string{"k.hip"}}
	survived, ok := g.depsOf(kernel, mutant.Result{Status: mutant.Survived}, ev)
	killed, kok := g.depsOf(kernel, mutant.Result{Status: mutant.Killed, KilledBy: []string{"r/b.TestTwice"}}, ev)
	fmt.Fprintf(b, "kernel mutant: identity=%s\n\tsurvived %v: %s\n\tkilled %v: %s\n", g.Identity(kernel)[:12], ok, depNames(survived), kok, depNames(killed))
	outside := mutant.Mutant{ID: "o", Kind: mutant.Go, File: "c/none.go", Edit: &mutant.Edit{Start: 1, End: 2, Text: "x"}}
	_, ok = g.depsOf(outside, mutant.Result{Status: mutant.Survived}, nil)
	fmt.Fprintf(b, "outside the module's packages: deps %v, identity=%s\n", ok, g.Identity(outside)[:12])
}

// depNames lists a verdict's dependency names, sorted ("-" for none).
func depNames(d *deps) string {
	if d == nil {
		return "-"
	}
	var out []string
	for n := range d.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// compareGraphGolden compares the graph's text with testdata/graph.golden,
// or writes it with -update.
func compareGraphGolden(t *testing.T, text string) {
	t.Helper()
	path := filepath.Join("testdata", "graph.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got := []byte(text); !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			if i >= len(gl) || i >= len(wl) || gl[i] != wl[i] {
				var gs, ws string
				if i < len(gl) {
					gs = gl[i]
				}
				if i < len(wl) {
					ws = wl[i]
				}
				t.Fatalf("graph differs from %s at line %d:\ngot:  %q\nwant: %q", path, i+1, gs, ws)
			}
		}
	}
}
