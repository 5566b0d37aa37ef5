package incremental

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// linkedEdges links one package's file (type-checked with go/types, no
// imports) into its parsed graph and returns the references, sorted.
func linkedEdges(t *testing.T, src string) []string {
	t.Helper()
	dir := writeModule(t, map[string]string{"p/p.go": src})
	g := &Graph{
		root: dir, module: "m", byKey: map[string]int{}, files: map[string][]int{},
		tests: map[string]int{}, testPkg: map[string]string{}, testMain: map[string][]int{}, inits: map[string][]int{},
		binary: map[string][]string{}, src: map[string][]byte{}, texts: map[string]*textFile{}, fwdTest: map[string][]int32{}, testHash: map[string][32]byte{},
	}
	declFset := token.NewFileSet()
	internal, _, err := g.parse(listed{ImportPath: "m/p", Name: "p", Dir: filepath.Join(dir, "p"), GoFiles: []string{"p.go"}}, declFset, false)
	if err != nil {
		t.Fatal(err)
	}
	g.declare(internal, declFset)
	g.edges = make([][]int32, len(g.nodes))
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "p", "p.go"), src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, Instances: map[*ast.Ident]types.Instance{}}
	tp, err := (&types.Config{}).Check("m/p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	g.link([]*packages.Package{{PkgPath: "m/p", Types: tp, TypesInfo: info, Syntax: []*ast.File{f}}}, fset)
	var out []string
	for from, tos := range g.edges {
		for _, to := range dedupe32(tos) {
			out = append(out, g.nodes[from].key+" -> "+g.nodes[to].key)
		}
	}
	sort.Strings(out)
	return out
}

// TestLinkFirstDeclarations: the references of a package whose first
// declaration (the graph's first node) is a method, a type or a function
// used as a value are those of any other: a static method call, an
// interface call dispatched to every type with the methods, the String
// method the standard library calls on a type it is handed, a function
// value reached by the dynamic calls of its signature.
func TestLinkFirstDeclarations(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"a method first", `package p

func (T) M() int { return 1 }

type T struct{}

type I interface{ M() int }

func Call(i I) int { return i.M() }

func Static() int { return T{}.M() }

func (T) String() string { return "t" }
`, []string{
			"m/p.(T).M -> m/p.T", "m/p.(T).String -> m/p.T", "m/p.Call -> m/p.(T).M", "m/p.Call -> m/p.I",
			"m/p.Static -> m/p.(T).M", "m/p.Static -> m/p.T", "m/p.T -> m/p.(T).String",
		}},
		{"a type first", `package p

type T struct{}

func (T) M() int { return 1 }

type I interface{ M() int }

type U struct{}

func (U) N() int { return 2 }

func Call(i I) int { return i.M() }

func (T) String() string { return "t" }
`, []string{
			"m/p.(T).M -> m/p.T", "m/p.(T).String -> m/p.T", "m/p.(U).N -> m/p.U", "m/p.Call -> m/p.(T).M", "m/p.Call -> m/p.I",
			"m/p.T -> m/p.(T).String",
		}},
		{"a function value first", `package p

func F(x int) int { return x }

var table = []func(int) int{F}

func Apply(i, x int) int { return table[i](x) }

func G(s string) string { return s }

var other = []func(string) string{G}
`, []string{"m/p.Apply -> m/p.F", "m/p.Apply -> m/p.table"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := linkedEdges(t, c.src); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("references\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
