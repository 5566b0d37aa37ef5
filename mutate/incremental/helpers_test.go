package incremental

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"
)

// handGraph is a graph of n declarations with no files, for the
// functions that only read nodes and edges.
func handGraph(n int) *Graph {
	g := &Graph{byKey: map[string]int{}, files: map[string][]int{}, edges: make([][]int32, n)}
	for i := 0; i < n; i++ {
		key := "m.d" + string(rune('0'+i))
		g.nodes = append(g.nodes, node{key: key})
		g.byKey[key] = i
	}
	return g
}

// TestEdge: a reference is recorded between two declarations, the first
// one included; none from or to a position outside every declaration
// (-1), none from a declaration to itself.
func TestEdge(t *testing.T) {
	for _, c := range []struct {
		from, to int
		want     bool
	}{{0, 1, true}, {1, 0, true}, {2, 1, true}, {-1, 1, false}, {1, -1, false}, {0, 0, false}, {1, 1, false}} {
		g := handGraph(3)
		g.edge(c.from, c.to)
		got := c.from >= 0 && slices.Contains(g.edges[c.from], int32(c.to))
		n := 0
		for _, e := range g.edges {
			n += len(e)
		}
		if got != c.want || n != map[bool]int{true: 1, false: 0}[c.want] {
			t.Errorf("edge(%d, %d): recorded %v (%d edges), want %v", c.from, c.to, got, n, c.want)
		}
	}
}

// TestNodeAt: the declaration spanning an offset, from its first byte up
// to (not including) its end; the narrowest where two span it; -1 between
// declarations and in a file without any.
func TestNodeAt(t *testing.T) {
	g := handGraph(4)
	span := func(i, start, end int) {
		g.nodes[i].file, g.nodes[i].start, g.nodes[i].end = "f.go", start, end
		g.files["f.go"] = append(g.files["f.go"], i)
	}
	span(0, 10, 20)
	span(1, 30, 60)
	span(2, 35, 40) // inside 1
	span(3, 0, 100) // around all
	g.files["f.go"] = []int{3, 0, 1, 2}
	for _, c := range []struct {
		file   string
		offset int
		want   int
	}{
		{"f.go", 10, 0}, {"f.go", 19, 0}, {"f.go", 20, 3}, {"f.go", 9, 3}, {"f.go", 30, 1}, {"f.go", 34, 1},
		{"f.go", 35, 2}, {"f.go", 39, 2}, {"f.go", 40, 1}, {"f.go", 59, 1}, {"f.go", 60, 3}, {"f.go", 0, 3},
		{"f.go", 100, -1}, {"f.go", -1, -1}, {"g.go", 12, -1},
	} {
		if got := g.nodeAt(c.file, c.offset); got != c.want {
			t.Errorf("nodeAt(%s, %d) = %d, want %d", c.file, c.offset, got, c.want)
		}
	}
	// the narrowest wins whatever the order the file lists them in
	g.files["f.go"] = []int{2, 1, 0, 3}
	for offset, want := range map[int]int{36: 2, 15: 0, 50: 1} {
		if got := g.nodeAt("f.go", offset); got != want {
			t.Errorf("nodeAt(f.go, %d) = %d in another order, want %d", offset, got, want)
		}
	}
}

// TestEntryProbed: only a probed declaration of the graph is; an index
// outside the graph is not (and does not panic).
func TestEntryProbed(t *testing.T) {
	g := handGraph(3)
	g.nodes[0].probed = true
	g.nodes[2].probed = true
	for n, want := range map[int32]bool{-1: false, 0: true, 1: false, 2: true, 3: false, 100: false} {
		if got := g.EntryProbed(n); got != want {
			t.Errorf("EntryProbed(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestReach: everything reachable from the roots, the roots included,
// each once and sorted; a negative root (no declaration) is none.
func TestReach(t *testing.T) {
	adj := [][]int32{0: {1, 2}, 1: {3}, 2: {3, 0}, 3: {}, 4: {0}, 5: {5}}
	for _, c := range []struct {
		roots []int
		want  []int32
	}{
		{nil, []int32{}},
		{[]int{-1}, []int32{}},
		{[]int{3}, []int32{3}},
		{[]int{0}, []int32{0, 1, 2, 3}},
		{[]int{4, -1}, []int32{0, 1, 2, 3, 4}},
		{[]int{5, 1, 1}, []int32{1, 3, 5}},
		{[]int{2}, []int32{0, 1, 2, 3}},
	} {
		if got := reach(c.roots, adj); !slices.Equal(got, c.want) {
			t.Errorf("reach(%v) = %v, want %v", c.roots, got, c.want)
		}
	}
}

// TestSortedSets: dedupe32 and sortedSet sort and keep each value once.
func TestSortedSets(t *testing.T) {
	for _, c := range []struct{ in, want []int32 }{
		{nil, nil}, {[]int32{4}, []int32{4}}, {[]int32{3, 1, 3, 2, 1}, []int32{1, 2, 3}}, {[]int32{2, 2}, []int32{2}}, {[]int32{2, 1}, []int32{1, 2}},
	} {
		if got := dedupe32(append([]int32(nil), c.in...)); !slices.Equal(got, c.want) {
			t.Errorf("dedupe32(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	// many, with runs of equal values, as a graph's references are
	var many, want []int32
	for i := int32(0); i < 500; i++ {
		many = append(many, (i*7919)%100, (i*31)%100)
	}
	for i := int32(0); i < 100; i++ {
		want = append(want, i)
	}
	if got := dedupe32(many); !slices.Equal(got, want) {
		t.Errorf("dedupe32 of 1000 values in 0..99 = %v", got)
	}
	for _, c := range []struct{ in, want []string }{
		{nil, []string{}}, {[]string{"b"}, []string{"b"}}, {[]string{"b", "a", "b", "c", "a"}, []string{"a", "b", "c"}}, {[]string{"a", "a"}, []string{"a"}},
	} {
		if got := sortedSet(append([]string(nil), c.in...)); !slices.Equal(got, c.want) {
			t.Errorf("sortedSet(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// parseDecls parses a Go file's text for the syntax helpers.
func parseDecls(t *testing.T, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDeclarationNames: a method's node is named by its receiver's type
// whatever its form (pointer, generic, parenthesized); the tests of a
// package are its Test, Fuzz, Example and Benchmark functions, never
// TestMain; a const group is named by its first name.
func TestDeclarationNames(t *testing.T) {
	f := parseDecls(t, `package p

func (T) A()            {}
func (*T) B()           {}
func (t *G[K]) C()      {}
func (m M[K, V]) D()    {}
func ((T)) E()          {}
func (x *(*T)) F()      {}

func TestX(t *testing.T)       {}
func FuzzX(f *testing.F)       {}
func ExampleX()                {}
func BenchmarkX(b *testing.B)  {}
func TestMain(m *testing.M)    {}
func Helper()                  {}
func testLower()               {}

const (
	First = iota
	Second
)

const (
	_, Third = 1, 2
)
`)
	var recvs, tests []string
	var consts []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				recvs = append(recvs, recvType(d.Recv.List[0].Type)+"."+d.Name.Name)
			} else if isTest(d) {
				tests = append(tests, d.Name.Name)
			}
		case *ast.GenDecl:
			consts = append(consts, firstName(d))
		}
	}
	if want := "T.A T.B G.C M.D T.E T.F"; strings.Join(recvs, " ") != want {
		t.Errorf("receivers %q, want %q", strings.Join(recvs, " "), want)
	}
	if want := "TestX FuzzX ExampleX BenchmarkX"; strings.Join(tests, " ") != want {
		t.Errorf("tests %q, want %q", strings.Join(tests, " "), want)
	}
	if want := "First _"; strings.Join(consts, " ") != want {
		t.Errorf("const groups %q, want %q", strings.Join(consts, " "), want)
	}
	if got := recvType(&ast.ArrayType{Elt: ast.NewIdent("T")}); got != "?" {
		t.Errorf("an odd receiver type is %q, want ?", got)
	}
	if got := firstName(&ast.GenDecl{Tok: token.CONST}); got != "const" {
		t.Errorf("an empty const group is named %q, want const", got)
	}
}

// TestCallsAnything: an initializer runs code at init when it calls
// (or converts) anything outside a function literal; a literal's body is
// defined, not run.
func TestCallsAnything(t *testing.T) {
	for src, want := range map[string]bool{
		"1 + 2":                           false,
		"f()":                             true,
		"[]int{1, g(2)}":                  true,
		"func() int { return f() }":       false,
		"func() int { return 1 }()":       true,
		"map[string]func(){\"a\": nil}":   false,
		"int64(x)":                        true,
		"struct{ f func() }{func() {}}":   false,
		"x, y":                            false,
		"x, f()":                          true,
		"func() { f() }, g()":             true,
		"[]func(){func() { f() }, nil}":   false,
		"T{a: func() int { return 1 }}":   false,
		"T{a: func() int { return 1 }()}": true,
	} {
		f := parseDecls(t, "package p\nvar a, b = "+src+"\n")
		vs := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.ValueSpec)
		if got := callsAnything(vs.Values); got != want {
			t.Errorf("callsAnything(%s) = %v, want %v", src, got, want)
		}
	}
}

// TestDirectives: a doc comment's //go: lines, each ending in a newline;
// nothing for other comments or none.
func TestDirectives(t *testing.T) {
	f := parseDecls(t, `package p

// F is fast.
//
//go:noescape
//go:nosplit
func F()

// G has no directive; go:embed in prose is none.
func G() {}

func H() {}
`)
	var got []string
	for _, d := range f.Decls {
		got = append(got, string(directives(d.(*ast.FuncDecl).Doc)))
	}
	want := []string{"//go:noescape\n//go:nosplit\n", "", ""}
	if !slices.Equal(got, want) {
		t.Errorf("directives %q, want %q", got, want)
	}
}

// TestPackageSets: the packages only tests import are test-only, also
// where a test-only helper imports them too (found in a later pass when
// listed first); one production code imports is not, nor one that only a
// helper imports and no test (it stays production code, which the keys
// hold either way). A test binary links its package and every module
// package it or its tests import, transitively, sorted; the imports of a
// dependency's tests are not linked.
func TestPackageSets(t *testing.T) {
	pkgs := []listed{
		{ImportPath: "m/deep"},
		{ImportPath: "m/p", Imports: []string{"m/q", "fmt"}, TestImports: []string{"m/ptest", "m/deep"}, XTestImports: []string{"m/xtest"}},
		{ImportPath: "m/q", Imports: []string{"m/r"}, TestImports: []string{"m/qtest"}},
		{ImportPath: "m/r"},
		{ImportPath: "m/ptest", Imports: []string{"m/deep", "m/r"}},
		{ImportPath: "m/xtest"},
		{ImportPath: "m/qtest", Imports: []string{"m/shared"}},
		{ImportPath: "m/shared"},
		{ImportPath: "m/both", TestImports: []string{"m/r"}},
		{ImportPath: "m/prod", Imports: []string{"m/shared2"}, TestImports: []string{"m/shared2"}},
		{ImportPath: "m/shared2"},
	}
	only := testOnlyPackages(pkgs)
	var got []string
	for p, ok := range only {
		if ok {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	if want := []string{"m/deep", "m/ptest", "m/qtest", "m/xtest"}; !slices.Equal(got, want) {
		t.Errorf("test-only packages %v, want %v", got, want)
	}
	inModule := map[string]bool{}
	for _, p := range pkgs {
		inModule[p.ImportPath] = true
	}
	for _, c := range []struct {
		pkg  int
		want []string
	}{
		{1, []string{"m/deep", "m/p", "m/ptest", "m/q", "m/r", "m/xtest"}},
		{2, []string{"m/q", "m/qtest", "m/r", "m/shared"}},
		{3, []string{"m/r"}},
		{8, []string{"m/both", "m/r"}},
	} {
		if got := binaryPackages(pkgs[c.pkg], pkgs, inModule); !slices.Equal(got, c.want) {
			t.Errorf("the test binary of %s links %v, want %v", pkgs[c.pkg].ImportPath, got, c.want)
		}
	}
}

// TestHasGo: a package has declarations when it has Go files of any kind
// (production, cgo, internal or external tests), alone or together.
func TestHasGo(t *testing.T) {
	one := []string{"a.go"}
	for _, c := range []struct {
		p    listed
		want bool
	}{
		{listed{}, false},
		{listed{SFiles: one, CFiles: one, EmbedFiles: one}, false},
		{listed{GoFiles: one}, true},
		{listed{CgoFiles: one}, true},
		{listed{TestGoFiles: one}, true},
		{listed{XTestGoFiles: one}, true},
		{listed{GoFiles: one, CgoFiles: one}, true},
		{listed{GoFiles: one, TestGoFiles: one}, true},
		{listed{GoFiles: one, XTestGoFiles: one}, true},
		{listed{CgoFiles: one, XTestGoFiles: one}, true},
	} {
		if got := c.p.hasGo(); got != c.want {
			t.Errorf("%+v: has Go %v, want %v", c.p, got, c.want)
		}
	}
}

// TestSigKey: a function type's key is its parameter and result types
// (not their names), a variadic last parameter marked; the count of its
// parameters, and whether it is generic; nothing for a type that is not
// a function.
func TestSigKey(t *testing.T) {
	src := `package p

type T struct{}

func a(x int, rest ...string) (n int, err error) { return }
func b(int, []string) (int, error) { return 0, nil }
func c(y T, z ...T) {}
func d[E any](e E) E { return e }
func e() {}

var v int
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{}).Check("m/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		key     string
		params  int
		generic bool
	}{
		{"a", "func(int,...[]string)(int,error)", 2, false},
		{"b", "func(int,[]string)(int,error)", 2, false},
		{"c", "func(m/p.T,...[]m/p.T)()", 2, false},
		{"d", "func(E)(E)", 1, true},
		{"e", "func()()", 0, false},
		{"v", "", 0, false},
		{"T", "", 0, false},
	} {
		key, params, generic := sigKey(pkg.Scope().Lookup(c.name).Type())
		if key != c.key || params != c.params || generic != c.generic {
			t.Errorf("sigKey(%s) = %q, %d, %v; want %q, %d, %v", c.name, key, params, generic, c.key, c.params, c.generic)
		}
	}
}
