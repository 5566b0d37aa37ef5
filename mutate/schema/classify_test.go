package schema_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
)

// snippet is one type-checked file of package p (p/p.go), with its facts.
type snippet struct {
	fset  *token.FileSet
	file  *ast.File
	tf    *token.File
	src   []byte
	info  *types.Info
	pkg   *types.Package
	facts *schema.Facts
}

// check parses and type-checks src as package p; tests is the source of
// its internal test files.
func check(t *testing.T, src, tests string) *snippet {
	t.Helper()
	s := &snippet{fset: token.NewFileSet(), src: []byte(src)}
	f, err := parser.ParseFile(s.fset, "p/p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	s.file = f
	s.tf = s.fset.File(f.Pos())
	s.info = &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	s.pkg, err = (&types.Config{Importer: fakeImporter{}}).Check("m/p", s.fset, []*ast.File{f}, s.info)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	s.facts = schema.NewFacts(s.fset, s.pkg, []*ast.File{f}, [][]byte{s.src}, []string{"p/p.go"}, s.info, []byte(tests))
	return s
}

// find returns the node of type typ (as %T writes it) that spans exactly
// the nth occurrence (from 0) of sub after the first skip bytes, the outermost if several do, with
// its ancestors (the file first).
func (s *snippet) find(t *testing.T, sub string, nth, skip int, typ string) (ast.Node, []ast.Node) {
	t.Helper()
	start := -1
	for i, from := 0, skip; i <= nth; i++ {
		k := strings.Index(string(s.src[from:]), sub)
		if k < 0 {
			t.Fatalf("%q (occurrence %d) not in the source", sub, nth)
		}
		start, from = from+k, from+k+1
	}
	end := start + len(sub)
	var found ast.Node
	var path, stack []ast.Node
	ast.Inspect(s.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if found == nil && s.tf.Offset(n.Pos()) == start && s.tf.Offset(n.End()) == end && fmt.Sprintf("%T", n) == typ {
			found, path = n, append([]ast.Node(nil), stack...)
		}
		stack = append(stack, n)
		return true
	})
	if found == nil {
		t.Fatalf("no %s spans %q", typ, sub)
	}
	return found, path
}

// classifyCase is a mutant of a snippet: the node spanning at (of type
// typ) rewritten to repl, or deleted.
type classifyCase struct {
	name    string
	src     string
	at      string
	nth     int
	typ     string
	repl    string
	deleted bool
	// edit, when set, is the edit's range as [start, end) relative to the
	// node's (for edits that reach outside the node)
	grow      [2]int
	skip      int // bytes of src before the first place at may be
	imprecise bool
	spell     string // "-" makes Spell fail; "nofacts" leaves Facts nil
	tests     string
	want      string
}

// describe writes what a site says: kind, form, type, name, text and
// ranges of a switched one, the reason of a fallback.
func describe(s *snippet, site *mutant.Site) string {
	if !site.Switched() {
		return "fallback: " + site.Fallback
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", site.Kind)
	if site.Form != "" {
		fmt.Fprintf(&b, "/%s", site.Form)
	}
	if site.Kind == mutant.UsesSite {
		fmt.Fprintf(&b, " %s", site.Name)
		for _, u := range site.Uses {
			fmt.Fprintf(&b, " %s %q->%q %s", u.File, s.src[u.Start:u.End], u.Text, u.Type)
		}
		return b.String()
	}
	fmt.Fprintf(&b, " %q->%q", s.src[site.Start:site.End], site.Text)
	if site.Type != "" {
		fmt.Fprintf(&b, " %s", site.Type)
	}
	if site.Kind == mutant.ConstSite {
		fmt.Fprintf(&b, " %s value=%q block=%v", site.Name, s.src[site.ValueStart:site.ValueEnd], site.Block)
	}
	return b.String()
}

func runClassify(t *testing.T, c classifyCase) (*snippet, *mutant.Site) {
	t.Helper()
	s := check(t, c.src, c.tests)
	n, stack := s.find(t, c.at, c.nth, c.skip, c.typ)
	start, end := s.tf.Offset(n.Pos()), s.tf.Offset(n.End())
	in := schema.Input{
		TF: s.tf, Src: s.src, Info: s.info, Facts: s.facts, Stack: stack, Node: n,
		Deleted: c.deleted, Edit: mutant.Edit{Start: start + c.grow[0], End: end + c.grow[1], Text: c.repl},
		Spell: func(typ types.Type) string {
			if c.spell == "-" {
				return ""
			}
			return schema.Spell(typ, s.pkg, s.file)
		},
		Imprecise: c.imprecise,
	}
	if c.spell == "nofacts" {
		in.Facts = nil
	}
	return s, schema.Classify(in)
}

// TestClassify: how Classify switches a mutant of each kind of place, or
// the reason it gives for building it on its own.
func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		t.Run(c.name, func(t *testing.T) {
			c.skip = len(classifyPre)
			s, site := runClassify(t, c)
			if got := describe(s, site); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// classifyPre opens every source of classifyCases.
const classifyPre = "package p\n\ntype T struct{ a int }\n\nfunc g(int) int { return 0 }\n\nfunc two() (int, int) { return 1, 2 }\n\n"

// classifyCases are TestClassify's cases.
var classifyCases = []classifyCase{
	// expressions
	{name: "expr", src: classifyPre + "func f(x int) int { return x + 1 }", at: "x + 1", typ: "*ast.BinaryExpr", repl: "x - 1", want: `expr "x + 1"->"x - 1" int`},
	{name: "expr-cgo", src: classifyPre + "func f(x int) int { return x + 1 }", at: "x + 1", typ: "*ast.BinaryExpr", repl: "x - 1", imprecise: true, want: "fallback: the package's C types are unknown to the type checker (cgo)"},
	{name: "expr-const-folded", src: classifyPre + "func f(x int) int { return x + 2*3 }", at: "2", typ: "*ast.BasicLit", repl: "4", want: `expr "2*3"->"4*3" int`},
	{name: "expr-const-paren", src: classifyPre + "func f(x int) int { return x + (2) }", at: "2", typ: "*ast.BasicLit", repl: "4", want: `expr "(2)"->"(4)" int`},
	{name: "expr-map-key", src: classifyPre + "var m = map[int]int{}\nfunc f(x int) { m = map[int]int{x: 1 + 2} }", at: "1", nth: 0, typ: "*ast.BasicLit", repl: "5", want: `expr "1 + 2"->"5 + 2" int`},
	{name: "expr-const-map-key", src: classifyPre + "func f() map[int]bool { return map[int]bool{1: true} }", at: "1", typ: "*ast.BasicLit", repl: "2", want: `expr "1"->"2" int`},
	{name: "expr-array-key", src: classifyPre + "func f() []int { return []int{1: 5} }", at: "1", typ: "*ast.BasicLit", repl: "2", want: "fallback: an index key of an array or slice literal must be constant"},
	{name: "expr-array-lit-key", src: classifyPre + "func f() [3]int { return [3]int{1: 5} }", at: "1", nth: 0, typ: "*ast.BasicLit", repl: "2", want: "fallback: an index key of an array or slice literal must be constant"},
	{name: "expr-value-of-key", src: classifyPre + "func f() []int { return []int{1: 5} }", at: "5", typ: "*ast.BasicLit", repl: "6", want: `expr "5"->"6" int`},
	{name: "expr-deleted-element", src: classifyPre + "func f() []int { return []int{4, 5} }", at: "5", typ: "*ast.BasicLit", deleted: true, want: "fallback: a deleted list element"},
	{name: "expr-untyped-bool", src: classifyPre + "func f(x int) bool { return x == 1 }", at: "x == 1", typ: "*ast.BinaryExpr", repl: "x != 1", want: `expr "x == 1"->"x != 1" bool`},
	{name: "expr-shift-count", src: classifyPre + "func f(x int) int { return x << 2 }", at: "2", typ: "*ast.BasicLit", repl: "3", want: `expr "2"->"3" uint`},
	{name: "expr-shift-count-zero", src: classifyPre + "func f(x int) int { return x << 0 }", at: "0", nth: 0, typ: "*ast.BasicLit", repl: "1", want: `expr "0"->"1" uint`},
	{name: "expr-shift-right-count", src: classifyPre + "func f(x int) int { return x >> 2 }", at: "2", typ: "*ast.BasicLit", repl: "3", want: `expr "2"->"3" uint`},
	{name: "expr-shift-assign-count", src: classifyPre + "func f(x int) int { x <<= 2; return x }", at: "2", typ: "*ast.BasicLit", repl: "3", want: `expr "2"->"3" uint`},
	{name: "expr-shift-right-assign-count", src: classifyPre + "func f(x int) int { x >>= 2; return x }", at: "2", typ: "*ast.BasicLit", repl: "3", want: `expr "2"->"3" uint`},
	{name: "expr-untyped-shifted", src: classifyPre + "func f(x uint) int { return 1 << x }", at: "1", nth: 0, typ: "*ast.BasicLit", repl: "2", want: `expr "1"->"2" int`},
	{name: "expr-untyped-float", src: classifyPre + "func f(x float64) float64 { return x * 2 }", at: "2", typ: "*ast.BasicLit", repl: "3", want: `expr "2"->"3" float64`},
	{name: "expr-add-not-shift", src: classifyPre + "func f(x int) bool { return x+2 > 0 }", at: "2", typ: "*ast.BasicLit", repl: "3", want: `expr "2"->"3" int`},
	{name: "expr-not-a-value", src: classifyPre + "func f(x int) int64 { return int64(x) }", at: "int64", nth: 1, typ: "*ast.Ident", repl: "int32", want: "fallback: not a value"},
	{name: "expr-builtin", src: classifyPre + "func f(s []int) int { return len(s) }", at: "len", typ: "*ast.Ident", repl: "cap", want: "fallback: not a value"},
	{name: "expr-tuple", src: classifyPre + "func f() int { a, _ := two(); return a }", at: "two()", typ: "*ast.CallExpr", repl: "two()", want: "fallback: a multi-valued expression"},
	{name: "expr-assigned", src: classifyPre + "func f(s []int) { s[0] = 1 }", at: "s[0]", typ: "*ast.IndexExpr", repl: "s[1]", want: "fallback: assigned to"},
	{name: "expr-assigned-second", src: classifyPre + "func f(s []int) { s[1], s[0] = 1, 2 }", at: "s[0]", typ: "*ast.IndexExpr", repl: "s[2]", want: "fallback: assigned to"},
	{name: "expr-incremented", src: classifyPre + "func f(s []int) { s[0]++ }", at: "s[0]", typ: "*ast.IndexExpr", repl: "s[1]", want: "fallback: incremented"},
	{name: "expr-range-key", src: classifyPre + "func f(s []int) { for s[0] = range s {} }", at: "s[0]", typ: "*ast.IndexExpr", repl: "s[1]", want: "fallback: a range variable"},
	{name: "expr-range-value", src: classifyPre + "func f(s []int) { for _, s[0] = range s {} }", at: "s[0]", typ: "*ast.IndexExpr", repl: "s[1]", want: "fallback: a range variable"},
	{name: "expr-ranged", src: classifyPre + "func f(s []int) { for range s[1:] {} }", at: "s[1:]", typ: "*ast.SliceExpr", repl: "s[2:]", want: `expr "s[1:]"->"s[2:]" []int`},
	{name: "expr-address", src: classifyPre + "func f(v T) *int { return &v.a }", at: "v.a", typ: "*ast.SelectorExpr", repl: "v.a", want: "fallback: its address is taken"},
	{name: "expr-negated", src: classifyPre + "func f(x int) int { return -x }", at: "x", nth: 1, typ: "*ast.Ident", repl: "x", want: `expr "x"->"x" int`},
	{name: "expr-struct-operand", src: classifyPre + "func f(v T) int { return v.a }", at: "v", nth: 1, typ: "*ast.Ident", repl: "T{}", want: "fallback: an operand that may need to be addressable"},
	{name: "expr-array-operand", src: classifyPre + "func f(v [2]int) []int { return v[:] }", at: "v", nth: 1, typ: "*ast.Ident", repl: "v", want: "fallback: an operand that may need to be addressable"},
	{name: "expr-pointer-operand", src: classifyPre + "func f(v *T) int { return v.a }", at: "v", nth: 1, typ: "*ast.Ident", repl: "v", want: `expr "v"->"v" *T`},
	{name: "expr-slice-operand", src: classifyPre + "func f(v []int) int { return v[0] }", at: "v", nth: 1, typ: "*ast.Ident", repl: "v[1:]", want: `expr "v"->"v[1:]" []int`},
	{name: "expr-called", src: classifyPre + "func f() int { return g(1) }", at: "g", nth: 0, typ: "*ast.Ident", repl: "g", want: "fallback: a called function"},
	{name: "expr-argument", src: classifyPre + "func f(x int) int { return g(x) }", at: "x", nth: 1, typ: "*ast.Ident", repl: "-x", want: `expr "x"->"-x" int`},
	{name: "expr-unspellable", src: classifyPre + "func f(x int) int { return x + 1 }", at: "x + 1", typ: "*ast.BinaryExpr", repl: "x - 1", spell: "-", want: "fallback: its type int cannot be written in the file"},
	{name: "expr-edit-outside", src: classifyPre + "func f(x int) int { return x + 1 }", at: "x + 1", typ: "*ast.BinaryExpr", repl: "0", grow: [2]int{-7, 0}, want: "fallback: the edit reaches outside the expression"},
	{name: "expr-edit-past-end", src: classifyPre + "func f(x int) int { return x + 1 }", at: "x + 1", typ: "*ast.BinaryExpr", repl: "0", grow: [2]int{0, 2}, want: "fallback: the edit reaches outside the expression"},
	{name: "expr-calls-recover", src: classifyPre + "func f() any { return recover() }", at: "recover()", typ: "*ast.CallExpr", repl: "nil", want: "fallback: recover must not move into a func literal"},
	{name: "expr-calls-paren-recover", src: classifyPre + "func f() any { return (recover)() }", at: "(recover)()", typ: "*ast.CallExpr", repl: "nil", want: "fallback: recover must not move into a func literal"},
	{name: "expr-becomes-recover", src: classifyPre + "func f(x int) int { return x }", at: "x", nth: 1, typ: "*ast.Ident", repl: "recover().(int)", want: "fallback: recover must not move into a func literal"},
	{name: "expr-recovered-name", src: classifyPre + "func f(recovered int) int { return recovered }", at: "recovered", nth: 1, typ: "*ast.Ident", repl: "recovered+1", want: `expr "recovered"->"recovered+1" int`},
	{name: "expr-unrecover-name", src: classifyPre + "func f(unrecover int) int { return unrecover }", at: "unrecover", nth: 1, typ: "*ast.Ident", repl: "unrecover+1", want: `expr "unrecover"->"unrecover+1" int`},
	{name: "expr-recover-name-end", src: classifyPre + "func f(x_recover int) int { return x_recover }", at: "x_recover", nth: 1, typ: "*ast.Ident", repl: "x_recover+1", want: `expr "x_recover"->"x_recover+1" int`},
	{name: "expr-recover9", src: classifyPre + "func f(recover9 int) int { return recover9 }", at: "recover9", nth: 1, typ: "*ast.Ident", repl: "recover9+1", want: `expr "recover9"->"recover9+1" int`},
	{name: "expr-Zrecover", src: classifyPre + "func f(Zrecover int) int { return Zrecover }", at: "Zrecover", nth: 1, typ: "*ast.Ident", repl: "Zrecover+1", want: `expr "Zrecover"->"Zrecover+1" int`},
	{name: "expr-recoverZ", src: classifyPre + "func f(recoverZ, recoverz int) int { return recoverZ }", at: "recoverZ", nth: 1, typ: "*ast.Ident", repl: "recoverz", want: `expr "recoverZ"->"recoverz" int`},
	{name: "expr-recover-at-end", src: classifyPre + "func f(x, recover int) int { return x }", at: "x", nth: 1, typ: "*ast.Ident", repl: "x+recover", want: "fallback: recover must not move into a func literal"},
	{name: "expr-recover-in-word", src: classifyPre + "func f(x, recover int) int { return x }", at: "x", nth: 1, typ: "*ast.Ident", repl: "(recover)", want: "fallback: recover must not move into a func literal"},
	{name: "expr-float-shift-count", src: classifyPre + "func f(x int) int { return x << 2.0 }", at: "2.0", typ: "*ast.BasicLit", repl: "3.0", want: "fallback: an untyped float in a context that keeps it untyped"},
	{name: "expr-recover0", src: classifyPre + "func f(recover0 int) int { return recover0 }", at: "recover0", nth: 1, typ: "*ast.Ident", repl: "recover0+1", want: `expr "recover0"->"recover0+1" int`},
	{name: "expr-arecover", src: classifyPre + "func f(arecover int) int { return arecover }", at: "arecover", nth: 1, typ: "*ast.Ident", repl: "arecover+1", want: `expr "arecover"->"arecover+1" int`},
	{name: "expr-Arecover", src: classifyPre + "func f(Arecover int) int { return Arecover }", at: "Arecover", nth: 1, typ: "*ast.Ident", repl: "Arecover+1", want: `expr "Arecover"->"Arecover+1" int`},
	{name: "expr-field-key", src: classifyPre + "func f() T { return T{a: 1} }", at: "a", nth: 0, typ: "*ast.Ident", repl: "b", want: "fallback: an expression without a type"},
	{name: "expr-empty-text", src: classifyPre + "func f(x int) int { return x }", at: "x", nth: 1, typ: "*ast.Ident", repl: "", want: `expr "x"->"" int`},
	{name: "in-type-decl", src: classifyPre + "type A [3]int", at: "3", typ: "*ast.BasicLit", repl: "4", want: "fallback: in a type declaration"},
	{name: "in-array-length", src: classifyPre + "func f() int { var a [3]int; return len(a) }", at: "3", nth: 0, typ: "*ast.BasicLit", repl: "4", want: "fallback: in an array length"},
	{name: "in-array-elem", src: classifyPre + "func f() int { return len([3]int{1}) }", at: "1", typ: "*ast.BasicLit", repl: "2", want: `expr "1"->"2" int`},
	{name: "in-func-type", src: classifyPre + "var h func([3]int)", at: "3", typ: "*ast.BasicLit", repl: "4", want: "fallback: in a type"},
	{name: "in-struct-type", src: classifyPre + "var h struct{ a [3]int }", at: "3", typ: "*ast.BasicLit", repl: "4", want: "fallback: in a type"},
	{name: "in-map-type", src: classifyPre + "var h map[int][3]int", at: "3", typ: "*ast.BasicLit", repl: "4", want: "fallback: in a type"},
	{name: "in-chan-type", src: classifyPre + "var h chan [3]int", at: "3", typ: "*ast.BasicLit", repl: "4", want: "fallback: in a type"},
	{name: "in-interface-type", src: classifyPre + "var h interface{ m([3]int) }", at: "3", typ: "*ast.BasicLit", repl: "4", want: "fallback: in a type"},
	{name: "a-field", src: classifyPre + "func f() T { return T{} }", at: "T{}", typ: "*ast.CompositeLit", repl: "T{a: 1}", want: `expr "T{}"->"T{a: 1}" T`},
	{name: "an-ident-node", src: classifyPre + "func f() { }", at: "{ }", typ: "*ast.BlockStmt", repl: "{}", want: `block "{ }"->"{}"`},
	{name: "a-spec", src: classifyPre + "var h = 1", at: "h = 1", typ: "*ast.ValueSpec", repl: "h = 2", want: "fallback: a *ast.ValueSpec"},

	// statements
	{name: "stmt-list", src: classifyPre + "func f(x *int) { *x = 1 }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/list "*x = 1"->"*x = 2"`},
	{name: "stmt-deleted", src: classifyPre + "func f(x *int) { *x = 1 }", at: "*x = 1", typ: "*ast.AssignStmt", deleted: true, want: `stmt/list "*x = 1"->""`},
	{name: "stmt-deleted-outside", src: classifyPre + "func f(x *int) { *x = 1 }", at: "*x = 1", typ: "*ast.AssignStmt", deleted: true, grow: [2]int{-1, 1}, want: `stmt/list "*x = 1"->""`},
	{name: "stmt-edit-outside", src: classifyPre + "func f(x *int) { *x = 1 }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "", grow: [2]int{-1, 0}, want: "fallback: the edit reaches outside the statement"},
	{name: "stmt-edit-past-end", src: classifyPre + "func f(x *int) { *x = 1 }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "", grow: [2]int{0, 1}, want: "fallback: the edit reaches outside the statement"},
	{name: "stmt-case-body", src: classifyPre + "func f(x *int) { switch { case *x > 0: *x = 1 } }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/list "*x = 1"->"*x = 2"`},
	{name: "stmt-comm-body", src: classifyPre + "func f(x *int, c chan int) { select { case <-c: *x = 1 } }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/list "*x = 1"->"*x = 2"`},
	{name: "stmt-comm", src: classifyPre + "func f(c chan int) { select { case c <- 1: } }", at: "c <- 1", typ: "*ast.SendStmt", repl: "c <- 2", want: "fallback: a statement where no if/else can stand (CommClause)"},
	{name: "stmt-labeled", src: classifyPre + "func f(x *int) {\nL:\n\t*x = 1\n\tgoto L\n}", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/list "*x = 1"->"*x = 2"`},
	{name: "stmt-labeled-for", src: classifyPre + "func f() {\nL:\n\tfor {\n\t\tbreak L\n\t}\n}", at: "for {\n\t\tbreak L\n\t}", typ: "*ast.ForStmt", repl: "for {\n\t\tbreak\n\t}", want: "fallback: a statement where no if/else can stand (LabeledStmt)"},
	{name: "stmt-labeled-range", src: classifyPre + "func f(s []int) {\nL:\n\tfor range s {\n\t\tbreak L\n\t}\n}", at: "for range s {\n\t\tbreak L\n\t}", typ: "*ast.RangeStmt", repl: "for {\n\t\tbreak\n\t}", want: "fallback: a statement where no if/else can stand (LabeledStmt)"},
	{name: "stmt-labeled-switch", src: classifyPre + "func f() {\nL:\n\tswitch {\n\tdefault:\n\t\tbreak L\n\t}\n}", at: "switch {\n\tdefault:\n\t\tbreak L\n\t}", typ: "*ast.SwitchStmt", repl: "{}", want: "fallback: a statement where no if/else can stand (LabeledStmt)"},
	{name: "stmt-labeled-typeswitch", src: classifyPre + "func f(v any) {\nL:\n\tswitch v.(type) {\n\tdefault:\n\t\tbreak L\n\t}\n}", at: "switch v.(type) {\n\tdefault:\n\t\tbreak L\n\t}", typ: "*ast.TypeSwitchStmt", repl: "{}", want: "fallback: a statement where no if/else can stand (LabeledStmt)"},
	{name: "stmt-labeled-select", src: classifyPre + "func f() {\nL:\n\tselect {\n\tdefault:\n\t\tbreak L\n\t}\n}", at: "select {\n\tdefault:\n\t\tbreak L\n\t}", typ: "*ast.SelectStmt", repl: "{}", want: "fallback: a statement where no if/else can stand (LabeledStmt)"},
	{name: "stmt-else", src: classifyPre + "func f(x *int) { if *x > 0 { *x = 1 } else if *x < 0 { *x = 2 } }", at: "if *x < 0 { *x = 2 }", typ: "*ast.IfStmt", repl: "if *x < 0 { *x = 3 }", want: `stmt/else "if *x < 0 { *x = 2 }"->"if *x < 0 { *x = 3 }"`},
	{name: "stmt-if-init", src: classifyPre + "func f(x *int) { if *x = 1; *x > 0 { } }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/func "*x = 1"->"*x = 2"`},
	{name: "stmt-for-init", src: classifyPre + "func f(x *int) { for *x = 1; *x > 0; *x-- { } }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/func "*x = 1"->"*x = 2"`},
	{name: "stmt-for-post", src: classifyPre + "func f(x *int) { for *x = 1; *x > 0; *x-- { } }", at: "*x--", typ: "*ast.IncDecStmt", repl: "*x++", want: `stmt/func "*x--"->"*x++"`},
	{name: "stmt-switch-init", src: classifyPre + "func f(x *int) { switch *x = 1; *x { } }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/func "*x = 1"->"*x = 2"`},
	{name: "stmt-typeswitch-init", src: classifyPre + "func f(x *int, v any) { switch *x = 1; v.(type) { } }", at: "*x = 1", typ: "*ast.AssignStmt", repl: "*x = 2", want: `stmt/func "*x = 1"->"*x = 2"`},
	{name: "stmt-typeswitch-assign", src: classifyPre + "func f(v any) { switch v.(type) { } }", at: "v.(type)", typ: "*ast.ExprStmt", repl: "v.(type)", want: "fallback: a statement where no if/else can stand (TypeSwitchStmt)"},
	{name: "stmt-for-post-recover", src: classifyPre + "func f(x *int) { for ; *x > 0; recover() { } }", at: "recover()", typ: "*ast.ExprStmt", repl: "recover()", want: "fallback: recover must not move into a func literal"},
	{name: "stmt-for-post-becomes-recover", src: classifyPre + "func f(x *int) { for ; *x > 0; *x-- { } }", at: "*x--", typ: "*ast.IncDecStmt", repl: "recover()", want: "fallback: recover must not move into a func literal"},
	{name: "stmt-list-recover", src: classifyPre + "func f() { recover() }", at: "recover()", typ: "*ast.ExprStmt", repl: "_ = 1", want: `stmt/list "recover()"->"_ = 1"`},
	{name: "stmt-for-body-block", src: classifyPre + "func f(x *int) { for *x > 0 { *x-- } }", at: "{ *x-- }", typ: "*ast.BlockStmt", repl: "{}", want: `block "{ *x-- }"->"{}"`},
	{name: "stmt-switch-body", src: classifyPre + "func f(x int) int { switch x { case 1: return 2 }; return 0 }", at: "{ case 1: return 2 }", typ: "*ast.BlockStmt", repl: "{}", want: "fallback: the body of a switch or select"},
	{name: "stmt-decl", src: classifyPre + "func f() { var y = 1; _ = y }", at: "var y = 1", typ: "*ast.DeclStmt", repl: "var y = 2", want: "fallback: a DeclStmt declares names"},
	{name: "stmt-label", src: classifyPre + "func f(x *int) {\nL:\n\t*x = 1\n\tgoto L\n}", at: "L:\n\t*x = 1", typ: "*ast.LabeledStmt", repl: "L:\n\t*x = 2", want: "fallback: a LabeledStmt declares names"},
	{name: "stmt-define", src: classifyPre + "func f() { y := 1; _ = y }", at: "y := 1", typ: "*ast.AssignStmt", repl: "y := 2", want: "fallback: a := declares names"},
	{name: "stmt-fallthrough", src: classifyPre + "func f(x *int) { switch *x { case 1: fallthrough\n case 2: } }", at: "fallthrough", typ: "*ast.BranchStmt", deleted: true, want: "fallback: a fallthrough must stay last in its case"},
	{name: "stmt-break", src: classifyPre + "func f(x *int) { for { break } }", at: "break", typ: "*ast.BranchStmt", deleted: true, want: `stmt/list "break"->""`},
	{name: "stmt-if-body", src: classifyPre + "func f(x *int) { if *x > 0 { *x = 1 } }", at: "{ *x = 1 }", typ: "*ast.BlockStmt", repl: "{}", want: `block "{ *x = 1 }"->"{}"`},
	{name: "stmt-if-body-inner-edit", src: classifyPre + "func f(x *int) { if *x > 0 { *x = 1 } }", at: "{ *x = 1 }", typ: "*ast.BlockStmt", repl: "", grow: [2]int{2, -2}, want: `block "{ *x = 1 }"->"{  }"`},
	{name: "stmt-if-body-outside", src: classifyPre + "func f(x *int) { if *x > 0 { *x = 1 } }", at: "{ *x = 1 }", typ: "*ast.BlockStmt", repl: "", grow: [2]int{-1, 0}, want: "fallback: the edit reaches outside the block"},
	{name: "stmt-if-body-past-end", src: classifyPre + "func f(x *int) { if *x > 0 { *x = 1 } }", at: "{ *x = 1 }", typ: "*ast.BlockStmt", repl: "", grow: [2]int{0, 1}, want: "fallback: the edit reaches outside the block"},
	{name: "stmt-else-block", src: classifyPre + "func f(x *int) { if *x > 0 { *x = 1 } else { *x = 2 } }", at: "{ *x = 2 }", typ: "*ast.BlockStmt", repl: "{}", want: `block "{ *x = 2 }"->"{}"`},
	{name: "case", src: classifyPre + "func f(x *int) { switch *x { case 1: *x = 2; *x++ } }", at: "case 1: *x = 2; *x++", typ: "*ast.CaseClause", repl: "case 1:", want: `stmt/list "*x = 2; *x++"->""`},
	{name: "case-inner-edit", src: classifyPre + "func f(x *int) { switch *x { case 1: *x = 2; *x++ } }", at: "case 1: *x = 2; *x++", typ: "*ast.CaseClause", repl: "", grow: [2]int{13, -6}, want: `stmt/list "*x = 2; *x++"->"*x = ; *x++"`},
	{name: "case-edit-past-body", src: classifyPre + "func f(x *int) { switch *x { case 1: *x = 2; *x++ } }", at: "case 1: *x = 2; *x++", typ: "*ast.CaseClause", repl: "", grow: [2]int{8, 1}, want: `stmt/list "*x = 2; *x++"->""`},
	{name: "case-empty", src: classifyPre + "func f(x *int) { switch *x { case 1: } }", at: "case 1:", typ: "*ast.CaseClause", repl: "case 2:", want: "fallback: an empty case"},
	{name: "case-fallthrough", src: classifyPre + "func f(x *int) { switch *x { case 1: *x = 2; fallthrough\n case 2: } }", at: "case 1: *x = 2; fallthrough", typ: "*ast.CaseClause", repl: "case 1:", want: "fallback: a case that ends in fallthrough"},
	{name: "case-ends-in-break", src: classifyPre + "func f(x *int) { switch *x { case 1: *x = 2; break } }", at: "case 1: *x = 2; break", typ: "*ast.CaseClause", repl: "case 1:", want: `stmt/list "*x = 2; break"->""`},
}

// TestClassifyConst: a constant's mutant is switched by making the
// constant a variable (a const site), or by switching each of its uses (a
// uses site), or falls back with the reason.
func TestClassifyConst(t *testing.T) {
	for _, c := range []classifyCase{
		{name: "const", src: "package p\n\nconst c = 1\n\nfunc f() int { return c }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: `const "const c = 1"->"2" int c value="1" block=false`},
		{name: "const-typed", src: "package p\n\nconst c int8 = 1\n\nfunc f() int8 { return c }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: `const "const c int8 = 1"->"2" int8 c value="1" block=false`},
		{name: "const-string", src: "package p\n\nconst c = \"a\"\n\nfunc f() string { return c }\n", at: `"a"`, typ: "*ast.BasicLit", repl: `"b"`, want: `const "const c = \"a\""->"\"b\"" string c value="\"a\"" block=false`},
		{name: "const-bool", src: "package p\n\nconst c = 1 > 0\n\nfunc f() bool { return c }\n", at: "1 > 0", typ: "*ast.BinaryExpr", repl: "1 < 0", want: `const "const c = 1 > 0"->"1 < 0" bool c value="1 > 0" block=false`},
		{name: "const-in-expr", src: "package p\n\nconst c = 1 + 2\n\nfunc f() int { return c }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const c = 1 + 2"->"1 + 3" int c value="1 + 2" block=false`},
		{name: "const-block", src: "package p\n\nconst (\n\ta = 1\n\tb = 2\n)\n\nfunc f(x int) int { return x + b }\nfunc g() int { return a }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "b = 2"->"3" int b value="2" block=true`},
		{name: "const-paren-one", src: "package p\n\nconst (\n\tb = 2\n)\n\nfunc f() int { return b }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const (\n\tb = 2\n)"->"3" int b value="2" block=false`},
		{name: "const-local", src: "package p\n\nfunc f() int {\n\tconst c = 1\n\treturn c\n}\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: `const "const c = 1"->"2" int c value="1" block=false`},
		{name: "const-local-block", src: "package p\n\nfunc f() int {\n\tconst (\n\t\ta = 1\n\t\tb = 2\n\t)\n\treturn a + b\n}\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "fallback: a constant in a block inside a function"},
		{name: "const-local-paren-one", src: "package p\n\nfunc f() int {\n\tconst (\n\t\ta = 1\n\t)\n\treturn a\n}\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: `const "const (\n\t\ta = 1\n\t)"->"2" int a value="1" block=false`},
		{name: "const-local-float", src: "package p\n\nfunc f() float64 {\n\tconst c = 1.5\n\treturn c\n}\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: "fallback: constant c is not of an integer, boolean or string type"},
		{name: "const-unspellable", src: "package p\n\nconst c = 1\n\nfunc f() int { return c }\n", at: "1", typ: "*ast.BasicLit", repl: "2", spell: "-", want: "fallback: constant c: its type int cannot be written in the file"},
		{name: "const-two-names", src: "package p\n\nconst a, b = 1, 2\n\nfunc f() int { return a + b }\n", at: "2", nth: 0, typ: "*ast.BasicLit", repl: "3", want: "fallback: a constant declared with others in one spec"},
		{name: "const-type", src: "package p\n\ntype I int\n\nconst c I = 1\n\nfunc f() I { return c }\n", at: "I", nth: 1, typ: "*ast.Ident", repl: "int", want: "fallback: in a constant's type"},
		{name: "const-spec", src: "package p\n\nconst c = 1\n", at: "c = 1", typ: "*ast.ValueSpec", repl: "c = 2", want: "fallback: in a constant declaration"},
		{name: "const-edit-outside", src: "package p\n\nconst c = 1\n\nfunc f() int { return c }\n", at: "1", typ: "*ast.BasicLit", repl: "2", grow: [2]int{-2, 0}, want: "fallback: the edit reaches outside the constant's value"},
		{name: "const-edit-past-value", src: "package p\n\nconst c = 1\n\nfunc f() int { return c }\n", at: "1", typ: "*ast.BasicLit", repl: "2", grow: [2]int{0, 1}, want: "fallback: the edit reaches outside the constant's value"},

		// uses sites: constants that cannot become variables
		{name: "uses", src: "package p\n\nconst c = 1.5\n\nfunc f() float64 { return c * 2 }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c * 2"->"(2.5) * 2" float64`},
		{name: "uses-typed", src: "package p\n\nconst c float32 = 1.5\n\nfunc f() float32 { return c }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c"->"float32(2.5)" float32`},
		{name: "uses-named-type", src: "package p\n\ntype F float64\n\nconst c F = 1.5\n\nfunc f() F { return c }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c"->"F(2.5)" F`},
		{name: "uses-two-in-one", src: "package p\n\nconst c = 1.5\n\nfunc f() float64 { return c + c }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c + c"->"(2.5) + (2.5)" float64`},
		{name: "uses-two", src: "package p\n\nconst c = 1.5\n\nfunc f(x float64) float64 { return c + x*c }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c"->"(2.5)" float64 p/p.go "c"->"(2.5)" float64`},
		{name: "uses-compare", src: "package p\n\nconst c = 1.5\n\nfunc f() bool { return c > 1 }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c > 1"->"(2.5) > 1" bool`},
		{name: "uses-shift", src: "package p\n\nconst c = 2\n\nvar k = 3\n\nfunc f(x int) int { return x << c }\nfunc g() [c]int { return [c]int{} }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: "fallback: constant c is used as another type at p.go:7, and is an array length at p.go:8"},
		{name: "uses-untyped", src: "package p\n\nconst c = 1.5\n\nfunc f() any { return c }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c"->"(2.5)" float64`},
		{name: "uses-exported", src: "package p\n\nconst C = 1.5\n\nfunc f() float64 { return C }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: "fallback: constant C is not of an integer, boolean or string type, and is exported"},
		{name: "uses-in-tests", src: "package p\n\nconst c = 1.5\n\nfunc f() float64 { return c }\n", tests: "package p\nvar _ = c\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: "fallback: constant c is not of an integer, boolean or string type, and switching its uses would leave the tests' uses at the old value"},
		{name: "uses-repeated", src: "package p\n\nconst (\n\tc = 1.5\n\td\n)\n\nfunc f() float64 { return c + d }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: "fallback: constant c is not of an integer, boolean or string type, and is repeated implicitly by the specs after it"},
		{name: "uses-repeated-before", src: "package p\n\ntype I int\n\nconst (\n\ta I = iota\n\tb\n\tc = 1.5\n)\n\nfunc f() float64 { return c }\nfunc g() I { return a + b }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c"->"(2.5)" float64`},
		{name: "uses-foreign-type", src: "package p\n\nimport \"m/q\"\n\nconst c q.D = 1.5e9\n\nfunc f() q.D { return c }\n", at: "1.5e9", typ: "*ast.BasicLit", repl: "2.5e9", want: "fallback: constant c is not of an integer, boolean or string type, and has a type of another package"},
		{name: "uses-shadowed", src: "package p\n\nconst k = 1\nconst c = k * 1.5\n\nfunc f() float64 {\n\tk := 2.0\n\t_ = k\n\treturn c\n}\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: "fallback: constant c is not of an integer, boolean or string type, and uses k, which means something else at p.go:9"},
		{name: "uses-not-shadowed", src: "package p\n\nconst k = 1\nconst c = k * 1.5\n\nfunc f() float64 {\n\treturn c\n}\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: `uses c p/p.go "c"->"(k * 2.5)" float64`},
		{name: "uses-by-const", src: "package p\n\nconst c = 1.5\nconst d = c * 2\n\nfunc f() float64 { return d }\n", at: "1.5", typ: "*ast.BasicLit", repl: "2.5", want: "fallback: constant c is not of an integer, boolean or string type, and is used by another constant at p.go:4"},
		{name: "uses-array-length", src: "package p\n\nconst c = 2.0\n\nvar a [c]int\n\nfunc f() int { return len(a) }\n", at: "2.0", typ: "*ast.BasicLit", repl: "3.0", want: "fallback: constant c is not of an integer, boolean or string type, and is an array length at p.go:5"},
		{name: "uses-index-key", src: "package p\n\nconst c = 2.0\n\nfunc f() []int { return []int{c: 1} }\n", at: "2.0", typ: "*ast.BasicLit", repl: "3.0", want: "fallback: constant c is not of an integer, boolean or string type, and is an index key at p.go:5"},
		{name: "uses-map-key", src: "package p\n\nconst c = 2.5\n\nfunc f() map[float64]int { return map[float64]int{c: 1} }\n", at: "2.5", typ: "*ast.BasicLit", repl: "3.5", want: `uses c p/p.go "c"->"(3.5)" float64`},
		{name: "uses-value-of-key", src: "package p\n\nconst c = 2.5\n\nfunc f() []float64 { return []float64{1: c} }\n", at: "2.5", typ: "*ast.BasicLit", repl: "3.5", want: `uses c p/p.go "c"->"(3.5)" float64`},
		{name: "uses-stays-untyped", src: "package p\n\nconst c = 2.0\n\nfunc f(x uint) int { return c << x }\n", at: "2.0", typ: "*ast.BasicLit", repl: "3.0", want: `uses c p/p.go "c"->"(3.0)" int`},
		{name: "uses-shift-count", src: "package p\n\nconst c = 2.0\n\nfunc f(x int) int { return x << c }\n", at: "2.0", typ: "*ast.BasicLit", repl: "3.0", want: "fallback: constant c is not of an integer, boolean or string type, and is used where it stays untyped at p.go:5"},
		{name: "uses-int-shift-count", src: "package p\n\nconst c = 2\n\nfunc f(x int) int { return x << c }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `uses c p/p.go "c"->"(3)" uint`},
		{name: "uses-int-as-float", src: "package p\n\nconst c = 2\n\nfunc f() float64 { return c }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `uses c p/p.go "c"->"(3)" float64`},
		{name: "uses-conversion", src: "package p\n\nconst c = 2\n\nfunc f() int64 { return int64(c) + 1 }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `uses c p/p.go "int64(c) + 1"->"int64((3)) + 1" int64`},
		{name: "const-converted", src: "package p\n\nconst c = 2\n\nfunc f() int { return int(c) }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const c = 2"->"3" int c value="2" block=false`},
		{name: "const-in-tests", src: "package p\n\nconst c = 2\n\nfunc f() int { return c }\n", tests: "package p\nvar _ = c\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is named in the package's internal tests, and switching its uses would leave the tests' uses at the old value`},
		{name: "const-tests-other-word", src: "package p\n\nconst c = 2\n\nfunc f() int { return c }\n", tests: "package p\nvar _ = cc\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const c = 2"->"3" int c value="2" block=false`},
		{name: "const-iota", src: "package p\n\nconst (\n\ta = iota\n\tB = 5\n)\n\nfunc f() int { return B }\n", at: "5", typ: "*ast.BasicLit", repl: "6", want: `fallback: constant B sits in a block that uses iota, and is exported`},
		{name: "const-iota-expr", src: "package p\n\nconst (\n\ta = 1 << iota\n\tB = 5\n)\n\nfunc f() int { return B }\n", at: "5", typ: "*ast.BasicLit", repl: "6", want: `fallback: constant B sits in a block that uses iota, and is exported`},
		{name: "const-repeated", src: "package p\n\nconst (\n\ta = 1\n\tb\n)\n\nfunc f() int { return a }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: `fallback: constant a sits in a block with implicit repetition, and is repeated implicitly by the specs after it`},
		{name: "const-paren-use", src: "package p\n\nconst c = 2\n\nfunc f() int { return (c) }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const c = 2"->"3" int c value="2" block=false`},
		{name: "const-case", src: "package p\n\nconst c = 2\n\nfunc f(x int) bool { switch x { case c: return true }; return false }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const c = 2"->"3" int c value="2" block=false`},
		{name: "const-array-length", src: "package p\n\nconst c = 2\n\nfunc f() int { var a [c]int; return len(a) }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is used as another type at p.go:5, and is an array length at p.go:5`},
		{name: "const-index-key", src: "package p\n\nconst c = 2\n\nfunc f() []int { return []int{c: 1} }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is an index key at p.go:5, and is an index key at p.go:5`},
		{name: "const-array-index-key", src: "package p\n\nconst c = 2\n\nfunc f() [3]int { return [3]int{c: 1} }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is an index key at p.go:5, and is an index key at p.go:5`},
		{name: "const-map-key", src: "package p\n\nconst c = 2\n\nfunc f() map[int]int { return map[int]int{c: 1} }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `const "const c = 2"->"3" int c value="2" block=false`},
		{name: "const-by-const", src: "package p\n\nconst c = 2\n\nfunc f() int { const d = c; return d }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is used as another type at p.go:5, and is used by another constant at p.go:5`},
		{name: "uses-struct-key", src: "package p\n\ntype S struct{ a float64 }\n\nconst c = 2.5\n\nfunc f() S { return S{a: c} }\n", at: "2.5", typ: "*ast.BasicLit", repl: "3.5", want: `uses c p/p.go "c"->"(3.5)" float64`},
		{name: "const-typed-array-length", src: "package p\n\nconst c int = 2\n\nfunc f() int { var a [c]int; return len(a) }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is an array length at p.go:5, and is an array length at p.go:5`},
		{name: "const-typed-by-const", src: "package p\n\nconst c int = 2\n\nfunc f() int { const d = c; return d }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant c is used by another constant at p.go:5, and is used by another constant at p.go:5`},
		{name: "const-in-const-expr", src: "package p\n\nconst C int = 2\n\nfunc f() int { return C + 1 }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: `fallback: constant C is used in a constant expression at p.go:5, and is exported`},
		{name: "const-in-len", src: "package p\n\nconst S string = \"ab\"\n\nfunc f() int { return len(S) }\n", at: `"ab"`, typ: "*ast.BasicLit", repl: `"abc"`, want: `fallback: constant S is used in a constant expression at p.go:5, and is exported`},
		{name: "const-iota-local", src: "package p\n\nfunc f() int {\n\tconst (\n\t\ta = iota\n\t)\n\treturn a\n}\n", at: "iota", typ: "*ast.Ident", repl: "1", want: `fallback: constant a sits in a block that uses iota`},
		{name: "uses-untyped-bool", src: "package p\n\nconst c = 1.5\n\nfunc f() int {\n\tif c > 1 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n", at: "1.5", typ: "*ast.BasicLit", repl: "0.5", want: `uses c p/p.go "c > 1"->"(0.5) > 1" bool`},
		{name: "uses-none", src: "package p\n\nconst c = 2.5\n", at: "2.5", typ: "*ast.BasicLit", repl: "3.5", want: `uses c`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, site := runClassify(t, c)
			if got := describe(s, site); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// fakeImporter knows one package, m/q, with an exported type D
// (float64) and an unexported one d (int).
type fakeImporter struct{}

func (fakeImporter) Import(path string) (*types.Package, error) {
	if path != "m/q" {
		return nil, fmt.Errorf("no package %s", path)
	}
	q := types.NewPackage("m/q", "q")
	for _, n := range []struct {
		name string
		u    types.Type
	}{{"D", types.Typ[types.Float64]}, {"d", types.Typ[types.Int]}} {
		obj := types.NewTypeName(token.NoPos, q, n.name, nil)
		types.NewNamed(obj, n.u, nil)
		q.Scope().Insert(obj)
	}
	q.MarkComplete()
	return q, nil
}

// coverage writes where a site's coverage probe stands (the start of the
// statement, or "-" at package level) and which functions' bodies read it
// (nil when every test covers it).
func coverage(s *snippet, site *mutant.Site) string {
	probe := "-"
	if site.Probe >= 0 {
		probe = string(s.src[site.Probe:])
		if i := strings.IndexAny(probe, "\n;{"); i >= 0 {
			probe = probe[:i]
		}
		probe = strings.TrimSpace(probe)
	}
	readers := "nil"
	if site.Readers != nil {
		var names []string
		for _, r := range site.Readers {
			name := fmt.Sprintf("%s:%d", r.File, r.At)
			for _, d := range s.file.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && s.tf.Offset(fd.Body.Lbrace)+1 == r.At && r.File == "p/p.go" {
					name = fd.Name.Name
				}
			}
			names = append(names, name)
		}
		readers = "[" + strings.Join(names, " ") + "]"
	}
	return "probe " + probe + " readers " + readers
}

// TestClassifyCoverage: a mutant's coverage probe goes before the
// innermost statement of a list around it; a package-level variable's or
// constant's mutant is covered by the bodies of the functions that read
// it, or by every test when something else may read it.
func TestClassifyCoverage(t *testing.T) {
	for _, c := range []classifyCase{
		{name: "stmt-in-list", src: "package p\n\nfunc f(x int) int {\n\ty := x + 1\n\treturn y\n}\n", at: "x + 1", typ: "*ast.BinaryExpr", repl: "x - 1", want: "probe y := x + 1 readers nil"},
		{name: "stmt-itself", src: "package p\n\nfunc f(x *int) {\n\t*x = 1\n}\n", at: "*x = 1", typ: "*ast.AssignStmt", deleted: true, want: "probe *x = 1 readers nil"},
		{name: "case-body", src: "package p\n\nfunc f(x int) int {\n\tswitch {\n\tcase x > 0:\n\t\treturn x + 1\n\t}\n\treturn 0\n}\n", at: "x + 1", typ: "*ast.BinaryExpr", repl: "x - 1", want: "probe return x + 1 readers nil"},
		{name: "case-value", src: "package p\n\nfunc f(x int) int {\n\tswitch {\n\tcase x > 0:\n\t\treturn x + 1\n\t}\n\treturn 0\n}\n", at: "x > 0", typ: "*ast.BinaryExpr", repl: "x < 0", want: "probe switch readers nil"},
		{name: "case-clause", src: "package p\n\nfunc f(x int) int {\n\tswitch {\n\tcase x > 0:\n\t\treturn x + 1\n\t}\n\treturn 0\n}\n", at: "case x > 0:\n\t\treturn x + 1", typ: "*ast.CaseClause", repl: "case x > 0:", want: "probe switch readers nil"},
		{name: "comm-body", src: "package p\n\nfunc f(c chan int, x int) int {\n\tselect {\n\tcase <-c:\n\t\treturn x + 1\n\t}\n}\n", at: "x + 1", typ: "*ast.BinaryExpr", repl: "x - 1", want: "probe return x + 1 readers nil"},
		{name: "comm-clause", src: "package p\n\nfunc f(c chan int, x int) int {\n\tselect {\n\tcase <-c:\n\t\treturn x + 1\n\t}\n}\n", at: "<-c", typ: "*ast.UnaryExpr", repl: "<-c", want: "probe select readers nil"},
		{name: "if-cond-in-loop", src: "package p\n\nfunc f(x int) int {\n\tfor {\n\t\tif x > 1 {\n\t\t\treturn x\n\t\t}\n\t}\n}\n", at: "x > 1", typ: "*ast.BinaryExpr", repl: "x < 1", want: "probe if x > 1 readers nil"},
		{name: "for-post", src: "package p\n\nfunc f(x int) {\n\tfor ; x > 0; x-- {\n\t}\n}\n", at: "x--", typ: "*ast.IncDecStmt", repl: "x++", want: "probe for readers nil"},
		{name: "local-const", src: "package p\n\nfunc f() int {\n\tconst c = 1\n\treturn c\n}\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe const c = 1 readers nil"},
		{name: "func-lit-in-var", src: "package p\n\nvar h = func() int { return 1 }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe return 1 } readers nil"},
		{name: "var", src: "package p\n\nvar v = 1\n\nfunc f() int { return v }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers [f]"},
		{name: "var-unread", src: "package p\n\nvar v = 1\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers []"},
		{name: "var-two-readers", src: "package p\n\nvar v = 1\n\nfunc g() int { return v }\n\nfunc f() int { return v + v }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers [g f]"},
		{name: "var-method", src: "package p\n\ntype T int\n\nvar v = 1\n\nfunc (T) init() int { return v }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers [init]"},
		{name: "var-init", src: "package p\n\nvar v = 1\n\nfunc init() { v++ }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers nil"},
		{name: "var-exported", src: "package p\n\nvar V = 1\n\nfunc f() int { return V }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers nil"},
		{name: "var-in-tests", src: "package p\n\nvar v = 1\n\nfunc f() int { return v }\n", tests: "package p\nvar _ = v\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers nil"},
		{name: "var-through-var", src: "package p\n\nvar v = 1\n\nvar w, u = v + 1, 2\n\nfunc f() int { return w }\n\nfunc g() int { return u }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers [f g]"},
		{name: "var-through-block", src: "package p\n\nvar v = 1\n\nvar (\n\tu = 2\n\tw = v + 1\n)\n\nfunc f() int { return w }\n\nfunc g() int { return u }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers [f]"},
		{name: "var-func-lit", src: "package p\n\nvar v = 1\n\nvar w = func() int { return v }\n\nfunc f() int { return w() }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers nil"},
		{name: "var-func-lit-beside", src: "package p\n\nvar v = 1\n\nvar w, z = v, func() int { return 0 }\n\nfunc f() int { return w + z() }\n", at: "1", typ: "*ast.BasicLit", repl: "2", want: "probe - readers [f]"},
		{name: "var-two-names", src: "package p\n\nvar a, b = 1, 2\n\nfunc f() int { return a }\n\nfunc g() int { return b }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: "probe - readers [f g]"},
		{name: "const-type", src: "package p\n\nconst c = 2\n\ntype A [c]int\n\nfunc f() int { return c }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: "probe - readers nil"},
		{name: "const-signature", src: "package p\n\nconst c = 2\n\nfunc f(a [c]int) int { return a[0] }\n", at: "2", typ: "*ast.BasicLit", repl: "3", want: "probe - readers nil"},
		{name: "var-no-facts", src: "package p\n\nvar v = 1\n\nfunc f() int { return v }\n", at: "1", typ: "*ast.BasicLit", repl: "2", spell: "nofacts", want: "probe - readers nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, site := runClassify(t, c)
			if got := coverage(s, site); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
