package incremental

import (
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/mutant"
)

// keyModule is a small module for the key tests that need no type
// checker: its graph is parsed (parsedGraph) and its references are
// given by hand.
var keyModule = map[string]string{
	"p/p.go": `package p

var table = []int{1, 2}

func F(x int) int { return x + 1 }

func G(x int) int { return F(x) * 2 }

func Fast(x int) int
`,
	"p/p_test.go": `package p

import "testing"

func helper() int { return 1 }

func TestF(t *testing.T) { _ = F(helper()) }

func TestG(t *testing.T) { _ = G(1) }
`,
	"p/fast.s": "TEXT ·Fast(SB), $0\n\tADDQ $1, AX\n\tRET\n",
	"k/k.hip":  "__global__ void k() {\n\tint x = 1;\n}\n",
	"q/q.go":   "package q\n\nfunc H() int { return 3 }\n",
	"q/q_test.go": `package q

import "testing"

func TestH(t *testing.T) { _ = H() }
`,
}

// keyPackages is what go list says of keyModule.
func keyPackages(dir string) []listed {
	return []listed{
		{ImportPath: "m/p", Name: "p", Dir: filepath.Join(dir, "p"), GoFiles: []string{"p.go"}, TestGoFiles: []string{"p_test.go"}, SFiles: []string{"fast.s"}},
		{ImportPath: "m/q", Name: "q", Dir: filepath.Join(dir, "q"), GoFiles: []string{"q.go"}, TestGoFiles: []string{"q_test.go"}},
	}
}

// keyEdges are keyModule's references.
var keyEdges = [][2]string{
	{"m/p.G", "m/p.F"}, {"m/p.TestF", "m/p.F"}, {"m/p.TestF", "m/p.helper"}, {"m/p.TestG", "m/p.G"}, {"m/q.TestH", "m/q.H"},
}

// parsedGraph makes the graph of files (with keyModule's packages and
// references, those that still exist) without go list or a type checker.
func parsedGraph(t *testing.T, files map[string]string) *Graph {
	t.Helper()
	dir := writeModule(t, files)
	g := &Graph{
		root: dir, module: "m", byKey: map[string]int{}, files: map[string][]int{},
		tests: map[string]int{}, testPkg: map[string]string{}, testMain: map[string][]int{}, inits: map[string][]int{},
		binary: map[string][]string{}, src: map[string][]byte{}, texts: map[string]*textFile{}, fwdTest: map[string][]int32{}, testHash: map[string][32]byte{},
	}
	fset := token.NewFileSet()
	pkgs := keyPackages(dir)
	for _, p := range pkgs {
		internal, external, err := g.parse(p, fset, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range []*pkgSyntax{internal, external} {
			if len(ps.files) > 0 {
				g.declare(ps, fset)
			}
		}
		g.binary[p.ImportPath] = []string{p.ImportPath}
	}
	g.edges = make([][]int32, len(g.nodes))
	for _, e := range keyEdges {
		from, ok1 := g.byKey[e[0]]
		to, ok2 := g.byKey[e[1]]
		if ok1 && ok2 {
			g.edge(from, to)
		}
	}
	g.globalHash("salt")
	return g
}

func edited(files map[string]string, file, old, repl string) map[string]string {
	out := change(files, file, old, repl)
	return out
}

// mutantAt is a mutant of keyModule's text: old after marker replaced.
func mutantAt(t *testing.T, files map[string]string, kind mutant.Kind, file, marker, old, repl string) mutant.Mutant {
	t.Helper()
	m := at(t, files, file, marker, old, repl)
	m.Kind = kind
	if kind == mutant.Kernel {
		m.Package = ""
	}
	return m
}

// TestIdentityCases: a mutant's identity stays while its mutated code
// does, wherever the code moves and however it is commented or
// formatted, for an edit anywhere in its declaration up to its last
// byte; it changes with the edit, the operator, the file, the kind, the
// catalog entry and the expected killers. Code outside every
// declaration is named by its line, as in an assembly file.
func TestIdentityCases(t *testing.T) {
	moved := edited(edited(edited(keyModule, "p/p.go", "func F", "// F adds one.\n\nfunc F"),
		"p/fast.s", "TEXT", "// fast\n\nTEXT"), "k/k.hip", "__global__", "// kernel\n\n__global__")
	reformatted := edited(edited(edited(moved, "p/p.go", "func G(x int) int { return F(x) * 2 }", "func G(x int) int {\n\treturn F(x)*2 // twice\n}"),
		"p/p.go", "func F(x int) int { return x + 1 }", "func F(x int) int {\n\treturn x + 1\n}"),
		"p/p.go", "var table = []int{1, 2}", "var table = []int{\n\t1, 2}")
	g, gm, gr := parsedGraph(t, keyModule), parsedGraph(t, moved), parsedGraph(t, reformatted)
	type mk func(files map[string]string) mutant.Mutant
	goAt := func(marker, old, repl string) mk {
		return func(files map[string]string) mutant.Mutant {
			return mutantAt(t, files, mutant.Go, "p/p.go", marker, old, repl)
		}
	}
	stable := []struct {
		name string
		m    mk
	}{
		{"inside a function", goAt("func F", "+ 1", "- 1")},
		{"a function's last byte", goAt("func F", "}", "; }")},
		{"a function's first byte", goAt("func F", "func F", "func  F")},
		{"reformatted around", goAt("func G", "F(x)", "F(-x)")},
		{"a variable, the file's first declaration", goAt("var table", "1", "3")},
		{"assembly", func(files map[string]string) mutant.Mutant {
			return mutantAt(t, files, mutant.Go, "p/fast.s", "ADDQ", "$1", "$2")
		}},
		{"a kernel", func(files map[string]string) mutant.Mutant {
			return mutantAt(t, files, mutant.Kernel, "k/k.hip", "int x", "1", "2")
		}},
	}
	for _, c := range stable {
		a, b, r := g.Identity(c.m(keyModule)), gm.Identity(c.m(moved)), gr.Identity(c.m(reformatted))
		if a != b || a != r {
			t.Errorf("%s: the identity changes when the code moves (%v) or is reformatted (%v)", c.name, a != b, a != r)
		}
	}
	base := goAt("func F", "+ 1", "- 1")(keyModule)
	id := g.Identity(base)
	variants := map[string]func(m *mutant.Mutant){
		"another edit":     func(m *mutant.Mutant) { m.Edit.Text = "* 1" },
		"another operator": func(m *mutant.Mutant) { m.Operator = "other" },
		"another kind":     func(m *mutant.Mutant) { m.Kind = mutant.Kernel },
		"another file":     func(m *mutant.Mutant) { m.File = "p/other.go" },
		"an expected killer": func(m *mutant.Mutant) {
			m.Expected = []mutant.TestID{{Package: "m/p", Name: "TestF"}}
		},
		"a catalog entry": func(m *mutant.Mutant) { m.Catalog = &catalog.Entry{ID: "e"} },
		"a longer edit":   func(m *mutant.Mutant) { m.Edit.End += 2 },
	}
	for name, change := range variants {
		m := base
		e := *base.Edit
		m.Edit = &e
		change(&m)
		if g.Identity(m) == id {
			t.Errorf("%s: the same identity", name)
		}
	}
	if a, b := g.Identity(mutant.Mutant{Catalog: &catalog.Entry{ID: "a"}}), g.Identity(mutant.Mutant{Catalog: &catalog.Entry{ID: "b"}}); a == b {
		t.Error("two catalog entries share an identity")
	}
	checkIdentityOutsideDecls(t, g, gm)
}

// checkIdentityOutsideDecls is TestIdentityCases' part for mutants outside
// every declaration of keyModule (g) and its copy with moved code (gm).
func checkIdentityOutsideDecls(t *testing.T, g, gm *Graph) {
	t.Helper()
	// outside every declaration, and past a declaration's end: by the
	// edit's line, or, where the file does not read or there is no edit,
	// by the mutant's id (and edit)
	src := keyModule["p/p.go"]
	pkgClause := mutant.Mutant{ID: "a", Kind: mutant.Go, File: "p/p.go", Operator: "o", Edit: &mutant.Edit{Start: 0, End: 7, Text: "package"}}
	fEnd := strings.Index(src, "1 }") + 3
	spanning := mutant.Mutant{ID: "a", Kind: mutant.Go, File: "p/p.go", Operator: "o", Edit: &mutant.Edit{Start: fEnd - 3, End: fEnd + 1, Text: "1 }"}}
	gone := mutant.Mutant{ID: "a", Kind: mutant.Go, File: "p/gone.go", Operator: "o", Edit: &mutant.Edit{Start: 0, End: 1, Text: "x"}}
	for _, c := range []struct {
		name   string
		m      mutant.Mutant
		byID   bool
		byEdit bool
	}{
		{"the package clause", pkgClause, false, true},
		{"an edit past its declaration", spanning, false, true},
		{"a file that does not read", gone, true, true},
		{"no edit", mutant.Mutant{ID: "a", Kind: mutant.Go, File: "p/p.go", Operator: "o"}, true, false},
	} {
		other := c.m
		other.ID = "b"
		if got := g.Identity(c.m) != g.Identity(other); got != c.byID {
			t.Errorf("%s: the identity holds the id %v, want %v", c.name, got, c.byID)
		}
		if c.m.Edit != nil {
			e := *c.m.Edit
			e.Start++
			shifted := c.m
			shifted.Edit = &e
			if got := g.Identity(c.m) != g.Identity(shifted); got != c.byEdit {
				t.Errorf("%s: the identity holds the edit's place %v, want %v", c.name, got, c.byEdit)
			}
		}
	}
	if g.Identity(pkgClause) != gm.Identity(pkgClause) {
		t.Error("the package clause's identity changes with a line added below it")
	}
}

// depList is d's names, sorted, space-separated.
func depList(d *deps) string {
	if d == nil {
		return "-"
	}
	return depNames(d)
}

// TestDepsOfCases: what a verdict depends on for each kind of mutant and
// verdict, with and without evidence of what ran.
func TestDepsOfCases(t *testing.T) {
	g := parsedGraph(t, keyModule)
	node := func(key string) int32 {
		n, ok := g.byKey[key]
		if !ok {
			t.Fatalf("no %s", key)
		}
		return int32(n)
	}
	inF := mutantAt(t, keyModule, mutant.Go, "p/p.go", "func F", "+ 1", "- 1")
	inAsm := mutantAt(t, keyModule, mutant.Go, "p/fast.s", "ADDQ", "$1", "$2")
	kernel := mutantAt(t, keyModule, mutant.Kernel, "k/k.hip", "int x", "1", "2")
	kev := &Evidence{KernelPackage: "m/q", KernelFiles: []string{"k/k.hip", "k/d.h"}}
	probed := map[int32]bool{node("m/p.F"): true, node("m/p.G"): true}
	observed := &Evidence{Probed: probed, Ran: []string{"m/p.TestF"}, Executed: []int32{node("m/p.F")},
		Tests: map[string][]int32{"m/p.TestG": {node("m/p.G"), node("m/p.F")}}}
	set := func(keys ...string) string {
		d := &deps{names: map[string]bool{}, sets: map[string][]string{}}
		var ns []int32
		for _, k := range keys {
			ns = append(ns, node(k))
		}
		return d.set(g, ns)
	}
	pset, xset, bset := set("m/p.F", "m/p.G"), set("m/p.F"), set("m/p.F", "m/p.G")
	survived := mutant.Result{Status: mutant.Survived, CoveredBy: []string{"m/p.TestF"}}
	killed := mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestF"}, CoveredBy: []string{"m/p.TestF", "m/q.TestH", "m/x.TestGone"}}
	for _, c := range []struct {
		name string
		m    mutant.Mutant
		r    mutant.Result
		ev   *Evidence
		want string
	}{
		{"unviable", inF, mutant.Result{Status: mutant.Unviable}, nil, "n:m/p.F p:m/p"},
		{"unviable kernel", kernel, mutant.Result{Status: mutant.Unviable}, kev, "f:k/d.h f:k/k.hip"},
		{"unviable assembly", inAsm, mutant.Result{Status: mutant.Unviable}, nil, "f:p/fast.s n:m/p.Fast p:m/p"},
		{"survived, static", inF, survived, nil, "c:m/p.F n:m/p.F s:-:m/p.TestF s:-:m/p.TestG t:m/p.TestF t:m/p.TestG"},
		{"killed, static: the tests it names that the graph knows", inF, killed, nil, "n:m/p.F s:-:m/p.TestF s:-:m/q.TestH t:m/p.TestF t:m/q.TestH"},
		{"killed by an expected killer the graph does not know", func() mutant.Mutant {
			m := inF
			m.Expected = []mutant.TestID{{Package: "m/p", Name: "TestGone"}}
			return m
		}(), mutant.Result{Status: mutant.Killed}, nil, "n:m/p.F t:m/p.TestGone"},
		{"survived, observed", inF, survived, observed,
			"c:m/p.F n:m/p.F s:" + pset + ":m/p.TestF s:" + pset + ":m/p.TestG t:m/p.TestF t:m/p.TestG x:" + xset + " b:" + bset},
		{"killed, observed: only what ran with it", inF, killed, observed, "n:m/p.F s:" + pset + ":m/p.TestF t:m/p.TestF x:" + xset},
		{"survived, observed, a reacher without a baseline", inF, survived, &Evidence{Probed: probed, Ran: []string{"m/p.TestF"}, Executed: []int32{}},
			"c:m/p.F n:m/p.F s:" + pset + ":m/p.TestF s:-:m/p.TestG t:m/p.TestF t:m/p.TestG x:" + set()},
		{"survived, nothing probed", inF, survived, &Evidence{Ran: []string{"m/p.TestF"}, Executed: []int32{node("m/p.F")}},
			"c:m/p.F n:m/p.F s:-:m/p.TestF s:-:m/p.TestG t:m/p.TestF t:m/p.TestG x:" + xset},
		{"the file's first declaration", mutantAt(t, keyModule, mutant.Go, "p/p.go", "var table", "1", "3"), mutant.Result{Status: mutant.Survived}, nil, "c:m/p.table n:m/p.table"},
		{"assembly survived", inAsm, mutant.Result{Status: mutant.Survived}, nil, "c:m/p.Fast f:p/fast.s n:m/p.Fast"},
		{"kernel survived", kernel, mutant.Result{Status: mutant.Survived}, kev, "f:k/d.h f:k/k.hip k:m/q s:-:m/q.TestH t:m/q.TestH"},
		{"kernel killed", kernel, mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/q.TestH"}}, kev, "f:k/d.h f:k/k.hip s:-:m/q.TestH t:m/q.TestH"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, ok := g.depsOf(c.m, c.r, c.ev)
			want := strings.Fields(c.want)
			sort.Strings(want)
			if got := depList(d); !ok || got != strings.Join(want, " ") {
				t.Errorf("deps (%v)\n%s\nwant\n%s", ok, got, strings.Join(want, " "))
			}
		})
	}
	for name, c := range map[string]struct {
		m  mutant.Mutant
		ev *Evidence
	}{
		"a kernel mutant without kernel files":  {kernel, &Evidence{KernelPackage: "m/q"}},
		"an assembly file that does not read":   {mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: "p/gone.s", Edit: &mutant.Edit{}}, nil},
		"a Go mutant outside every declaration": {mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: "p/p.go", Edit: &mutant.Edit{Start: 0, End: 1}}, nil},
		"a Go mutant without an edit":           {mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: "p/p.go"}, nil},
	} {
		if d, ok := g.depsOf(c.m, mutant.Result{Status: mutant.Survived}, c.ev); ok {
			t.Errorf("%s: deps %s", name, depList(d))
		}
	}
}

// TestValuesFollowTheirCode: each dependency name's value changes with
// what it names and only with it; a name whose declaration, file or set
// is gone, or of no known kind, has none (its verdict is judged again).
func TestValuesFollowTheirCode(t *testing.T) {
	sets := map[string][]string{"sF": {"m/p.F"}, "sG": {"m/p.G"}, "sGone": {"m/p.Gone"}}
	names := []string{"n:m/p.F", "n:m/p.G", "t:m/p.TestF", "t:m/p.TestG", "t:m/p.TestGone", "c:m/p.F", "c:m/q.H", "k:m/p", "k:m/q",
		"f:p/fast.s", "f:k/k.hip", "p:m/p", "p:m/q", "x:sF", "b:sG", "s:-:m/p.TestF", "s:sF:m/p.TestF", "s:sG:m/p.TestG", "s:-:m/q.TestH"}
	for _, c := range []struct {
		name    string
		files   map[string]string
		changed []string
	}{
		{"nothing", keyModule, nil},
		{"F's code", edited(keyModule, "p/p.go", "x + 1", "x + 2"),
			[]string{"n:m/p.F", "p:m/p", "x:sF", "s:-:m/p.TestF", "s:sG:m/p.TestG"}},
		{"G's code", edited(keyModule, "p/p.go", "* 2", "* 3"), []string{"n:m/p.G", "p:m/p", "b:sG"}},
		{"a variable no test reaches", edited(keyModule, "p/p.go", "1, 2}", "1, 3}"), []string{"p:m/p"}},
		{"the assembly", edited(keyModule, "p/fast.s", "$1", "$2"), []string{"f:p/fast.s", "p:m/p"}},
		{"the kernel", edited(keyModule, "k/k.hip", "= 1", "= 2"), []string{"f:k/k.hip"}},
		{"a test helper", edited(keyModule, "p/p_test.go", "return 1", "return 2"), []string{"t:m/p.TestF"}},
		{"a new test that reaches F", edited(keyModule, "p/p_test.go", "func TestG", "func TestF2(t *testing.T) {}\n\nfunc TestG"), []string{"k:m/p"}},
		{"q's code", edited(keyModule, "q/q.go", "return 3", "return 4"), []string{"p:m/q", "s:-:m/q.TestH"}},
		{"q's test", edited(keyModule, "q/q_test.go", "_ = H()", "_ = H() + 1"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, after := parsedGraph(t, keyModule).values(sets), parsedGraph(t, c.files).values(sets)
			for _, name := range names {
				b, ok1 := before.value(name)
				a, ok2 := after.value(name)
				if !ok1 || !ok2 {
					if name != "t:m/p.TestGone" || !ok1 || !ok2 {
						// an absent test still has a value (its absence)
						t.Errorf("%s has no value (%v, %v)", name, ok1, ok2)
					}
					continue
				}
				if changed := string(a) != string(b); changed != contains(c.changed, name) {
					t.Errorf("%s changed %v, want %v", name, changed, !changed)
				}
			}
		})
	}
	v := parsedGraph(t, keyModule).values(sets)
	for _, name := range []string{"n:m/p.Gone", "c:m/p.Gone", "f:p/gone.s", "x:unknown", "b:sGone", "s:unknown:m/p.TestF", "z:m/p.F", "nocolon"} {
		if b, ok := v.value(name); ok {
			t.Errorf("%s has a value %x", name, b)
		}
		if _, ok := v.digest("id", []string{"n:m/p.F", name}, nil); ok {
			t.Errorf("a digest over %s", name)
		}
	}
	d1, ok1 := v.digest("id", []string{"n:m/p.F"}, nil)
	d2, ok2 := v.digest("id", []string{"n:m/p.F"}, []string{"extra"})
	d3, ok3 := v.digest("id2", []string{"n:m/p.F"}, nil)
	d4, ok4 := v.digest("id", []string{"n:m/p.G"}, nil)
	d5, ok5 := v.digest("id", []string{"n:m/p.F", "n:m/p.G"}, nil)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || d1 == d2 || d1 == d3 || d1 == d4 || d1 == d5 {
		t.Errorf("digests: %s %s %s %s %s", d1, d2, d3, d4, d5)
	}
	if _, err := os.Stat(filepath.Join(v.g.root, "p", "fast.s")); err != nil {
		t.Fatal(err)
	}
}

// TestDeclareOddSyntax: what go/parser accepts and the type checker then
// refuses is declared without a panic, so that Build reaches the type
// checker and reports the error: a method without a receiver is named
// as a function; an empty const group by the keyword.
func TestDeclareOddSyntax(t *testing.T) {
	g := parsedGraph(t, edited(keyModule, "p/p.go", "func Fast", "func () odd() {}\n\nconst ()\n\nfunc Fast"))
	for _, key := range []string{"m/p.odd", "m/p.const", "m/p.Fast"} {
		if _, ok := g.byKey[key]; !ok {
			t.Errorf("no declaration %s", key)
		}
	}
}
