package schema

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Facts is what a package's type information says about turning its
// constants into variables: a constant can be switched only where no code
// needs it constant.
type Facts struct {
	fset    *token.FileSet
	pkg     *types.Package
	srcs    [][]byte // the files' sources
	info    *types.Info
	files   []*ast.File
	rels    []string // module-relative names of files
	tests   []byte   // the package's own (internal) test files, concatenated
	once    sync.Once
	parents map[ast.Node]ast.Node
	uses    map[*types.Const][]*ast.Ident
	objUses map[types.Object][]*ast.Ident // package-level objects
	top     map[ast.Node]ast.Decl         // every node -> its top-level declaration
	fileOf  map[ast.Decl]int
	mu      sync.Mutex
	memo    map[*types.Const]string
}

// NewFacts prepares the analysis of one package: its files (rels are
// their module-relative names), their type information, and the source of
// its internal test files (which may use its unexported names); the work
// is done on first use.
func NewFacts(fset *token.FileSet, pkg *types.Package, files []*ast.File, srcs [][]byte, rels []string, info *types.Info, internalTests []byte) *Facts {
	return &Facts{fset: fset, pkg: pkg, srcs: srcs, info: info, files: files, rels: rels, tests: internalTests, memo: map[*types.Const]string{}}
}

func (f *Facts) index() {
	f.parents = map[ast.Node]ast.Node{}
	f.uses = map[*types.Const][]*ast.Ident{}
	f.objUses = map[types.Object][]*ast.Ident{}
	f.top = map[ast.Node]ast.Decl{}
	f.fileOf = map[ast.Decl]int{}
	for i, file := range f.files {
		var stack []ast.Node
		ast.Inspect(file, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			if len(stack) > 0 {
				f.parents[n] = stack[len(stack)-1]
			}
			if len(stack) >= 2 { //gathermut:equivalent(boundary) at depth 2 only a declaration's own parts (a func's name, type, body) stand, never a use; top is read only for uses
				if d, ok := stack[1].(ast.Decl); ok {
					f.top[n] = d
				}
			}
			if d, ok := n.(ast.Decl); ok && len(stack) == 1 {
				f.top[n] = d
				f.fileOf[d] = i
			}
			if id, ok := n.(*ast.Ident); ok {
				obj := f.info.Uses[id]
				if c, ok := obj.(*types.Const); ok {
					f.uses[c] = append(f.uses[c], id)
				}
				if obj != nil && obj.Parent() != nil && obj.Parent() == obj.Pkg().Scope() {
					f.objUses[obj] = append(f.objUses[obj], id)
				}
			}
			stack = append(stack, n)
			return true
		})
	}
}

// Readers returns where the bodies of the functions that read the given
// package-level objects start, following objects computed from them
// (another variable initialized from one); ok is false when some reader is
// not a function body of the package: the object is exported (other
// packages may read it), named in an internal test file, used by an init
// function, a type, or a package-level func literal.
func (f *Facts) Readers(objs []types.Object) (readers []Position, ok bool) {
	f.once.Do(f.index)
	seen := map[types.Object]bool{}
	bodies := map[*ast.FuncDecl]bool{}
	work := append([]types.Object(nil), objs...)
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o == nil || seen[o] {
			continue
		}
		seen[o] = true
		if o.Exported() || f.namedInTests(o.Name()) {
			return nil, false
		}
		for _, id := range f.objUses[o] {
			switch d := f.top[id].(type) {
			case *ast.FuncDecl:
				if d.Body == nil || !contains(d.Body, id) || (d.Recv == nil && d.Name.Name == "init") {
					return nil, false
				}
				bodies[d] = true
			case *ast.GenDecl:
				if d.Tok != token.VAR && d.Tok != token.CONST {
					return nil, false
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					if !contains(vs, id) {
						continue
					}
					for _, v := range vs.Values {
						if containsFuncLit(v, id) {
							return nil, false
						}
					}
					for _, name := range vs.Names {
						work = append(work, f.info.Defs[name])
					}
				}
			default:
				return nil, false //gathermut:equivalent(branch-case) unreachable: every use lies under a FuncDecl or GenDecl (a BadDecl does not type-check)
			}
		}
	}
	for d := range bodies {
		readers = append(readers, Position{File: f.rels[f.fileOf[d]], At: f.fset.Position(d.Body.Lbrace).Offset + 1})
	}
	sort.Slice(readers, func(i, j int) bool {
		if readers[i].File != readers[j].File {
			return readers[i].File < readers[j].File //gathermut:equivalent(boundary) reached only when the files differ
		}
		return readers[i].At < readers[j].At //gathermut:equivalent(boundary) one reader per function body: two readers of a file never share At
	})
	return readers, true
}

// Position is a byte offset in a module-relative file.
type Position struct {
	File string
	At   int
}

func containsFuncLit(e ast.Expr, id *ast.Ident) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && contains(lit, id) {
			found = true
		}
		return !found
	})
	return found
}

// namedInTests reports whether the package's internal test files contain
// name as an identifier.
func (f *Facts) namedInTests(name string) bool {
	return containsWord(string(f.tests), name)
}

// ConstReason says why the constant c, declared in decl, cannot become a
// variable of its type (its default type when untyped), or "" when it can:
// its type is an integer, boolean or string type (a float constant folds
// with more precision than a variable computes); the package's internal
// test files do not name it (their uses are not checked here); its block has no iota
// and no implicit repetition (taking a spec out would renumber the rest);
// and every use in the package is a whole value of exactly that type, or
// converted, in a place that does not need a constant (not an array
// length, another constant, a constant expression, an array index key).
// Uses outside the package are left to the compiler: a schema build that
// fails takes the constant out again.
func (f *Facts) ConstReason(c *types.Const, decl *ast.GenDecl) string {
	f.once.Do(f.index)
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.memo[c]; ok {
		return r
	}
	r := f.constReason(c, decl)
	f.memo[c] = r
	return r
}

func (f *Facts) constReason(c *types.Const, decl *ast.GenDecl) string {
	typ := c.Type()
	if b, ok := typ.Underlying().(*types.Basic); !ok || b.Info()&(types.IsInteger|types.IsBoolean|types.IsString) == 0 {
		return "is not of an integer, boolean or string type"
	}
	if b, ok := typ.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 { //gathermut:equivalent(bitwise) types.Default returns a typed type unchanged
		typ = types.Default(typ)
	}
	if f.namedInTests(c.Name()) {
		// uses there are not in this type information; one that needs a
		// constant would fail the schema build and cost a second round
		return "is named in the package's internal tests"
	}
	for _, s := range decl.Specs {
		vs := s.(*ast.ValueSpec)
		if len(vs.Values) != len(vs.Names) {
			return "sits in a block with implicit repetition"
		}
		for _, v := range vs.Values {
			iota := false
			ast.Inspect(v, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
					iota = true
				}
				return !iota
			})
			if iota {
				return "sits in a block that uses iota"
			}
		}
	}
	for _, id := range f.uses[c] {
		if r := f.useReason(id, typ); r != "" {
			return r
		}
	}
	return ""
}

func (f *Facts) useReason(id *ast.Ident, typ types.Type) string {
	if tv, ok := f.info.Types[id]; !ok || !types.Identical(tv.Type, typ) {
		return "is used as another type at " + f.pos(id)
	}
	x := ast.Node(id)
	for {
		p := f.parents[x]
		pe, ok := p.(ast.Expr)
		if !ok {
			break
		}
		if _, kv := p.(*ast.KeyValueExpr); kv {
			break
		}
		tv, ok := f.info.Types[pe]
		if !ok || tv.Value == nil {
			break
		}
		switch q := p.(type) {
		case *ast.ParenExpr:
		case *ast.CallExpr:
			if !f.info.Types[q.Fun].IsType() {
				return "is used in a constant expression at " + f.pos(id)
			}
		default:
			return "is used in a constant expression at " + f.pos(id)
		}
		x = p
	}
	for n := f.parents[x]; n != nil; n = f.parents[n] {
		switch q := n.(type) {
		case *ast.ArrayType:
			if q.Len != nil && contains(q.Len, id) {
				return "is an array length at " + f.pos(id)
			}
		case *ast.GenDecl:
			if q.Tok == token.CONST {
				return "is used by another constant at " + f.pos(id)
			}
		case *ast.KeyValueExpr:
			if contains(q.Key, id) {
				if cl, ok := f.parents[q].(*ast.CompositeLit); ok {
					switch f.info.TypeOf(cl).Underlying().(type) {
					case *types.Array, *types.Slice:
						return "is an index key at " + f.pos(id)
					}
				}
			}
		case *ast.CaseClause:
			// case values need not be constant
		}
	}
	return ""
}

func (f *Facts) pos(n ast.Node) string {
	p := f.fset.Position(n.Pos())
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// UseSites returns, for a mutant that changes the value of the
// package-level constant c (declared by spec in decl) to the expression
// text value, a switched site at each use of c: the largest constant
// expression around the use, evaluated with value in place of c. It says
// why not instead when some use cannot be switched or would not see the
// same value: c is exported or named in the package's tests (uses there
// would keep the old value), repeated implicitly by the specs after it,
// used where a constant is required (another constant, an array length or
// index key) or in a context that keeps it untyped, or value names
// something a use's scope shadows.
func (f *Facts) UseSites(c *types.Const, spec *ast.ValueSpec, decl *ast.GenDecl, value string) ([]UseSite, string) {
	f.once.Do(f.index)
	if why := f.constWhyNot(c, spec, decl); why != "" {
		return nil, why
	}
	replacement, why := f.replacement(c, value)
	if why != "" {
		return nil, why
	}
	// the names the value uses must mean the same at every use
	var names []*ast.Ident
	ast.Inspect(spec.Values[0], func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && f.info.Uses[id] != nil {
			names = append(names, id)
		}
		return true
	})
	byExpr := map[ast.Expr][]*ast.Ident{}
	var order []ast.Expr
	for _, id := range f.uses[c] {
		e, why := f.useExpr(id, names)
		if why != "" {
			return nil, why
		}
		if _, seen := byExpr[e]; !seen {
			order = append(order, e)
		}
		byExpr[e] = append(byExpr[e], id)
	}
	var out []UseSite
	for _, e := range order {
		site, why := f.useSite(e, byExpr[e], replacement)
		if why != "" {
			return nil, why
		}
		out = append(out, site)
	}
	return out, ""
}

// constWhyNot says why the uses of c cannot be switched whatever its
// value: it is exported, named in the tests, or repeated implicitly by
// the specs after it.
func (f *Facts) constWhyNot(c *types.Const, spec *ast.ValueSpec, decl *ast.GenDecl) string {
	if c.Exported() {
		return "is exported"
	}
	if f.namedInTests(c.Name()) {
		return "switching its uses would leave the tests' uses at the old value"
	}
	after := false
	for _, s := range decl.Specs {
		vs := s.(*ast.ValueSpec)
		if vs == spec {
			after = true
			continue
		}
		if after && len(vs.Values) == 0 {
			return "is repeated implicitly by the specs after it"
		}
	}
	return ""
}

// replacement is what a use of c becomes: the value, converted to c's
// type when c is typed (a type of another package cannot be written).
func (f *Facts) replacement(c *types.Const, value string) (string, string) {
	typ := c.Type()
	if b, ok := typ.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return "(" + value + ")", ""
	}
	name := types.TypeString(typ, func(p *types.Package) string {
		if p.Path() == f.pkg.Path() {
			return ""
		}
		return "\x00"
	})
	if strings.Contains(name, "\x00") {
		return "", "has a type of another package"
	}
	return name + "(" + value + ")", ""
}

// useExpr is the largest constant expression around a use of the
// constant, or why the use cannot be switched: a name of the value means
// something else there, or a constant is required there (another
// constant, an array length, an index key).
func (f *Facts) useExpr(id *ast.Ident, names []*ast.Ident) (ast.Expr, string) {
	for _, n := range names {
		_, obj := f.pkg.Scope().Innermost(id.Pos()).LookupParent(n.Name, id.Pos())
		if obj != f.info.Uses[n] {
			return nil, fmt.Sprintf("uses %s, which means something else at %s", n.Name, f.pos(id))
		}
	}
	e := ast.Expr(id)
	for {
		p, ok := f.parents[e].(ast.Expr)
		if !ok {
			break
		}
		if _, kv := p.(*ast.KeyValueExpr); kv {
			break
		}
		if tv, ok := f.info.Types[p]; !ok || tv.Value == nil {
			break
		}
		e = p
	}
	for n := f.parents[e]; n != nil; n = f.parents[n] {
		switch q := n.(type) {
		case *ast.ArrayType:
			if q.Len != nil && contains(q.Len, e) {
				return nil, "is an array length at " + f.pos(id)
			}
		case *ast.GenDecl:
			if q.Tok == token.CONST {
				return nil, "is used by another constant at " + f.pos(id)
			}
		case *ast.KeyValueExpr:
			if contains(q.Key, e) {
				if cl, ok := f.parents[q].(*ast.CompositeLit); ok {
					switch f.info.TypeOf(cl).Underlying().(type) {
					case *types.Array, *types.Slice, *types.Struct:
						return nil, "is an index key at " + f.pos(id)
					}
				}
			}
		}
	}
	return e, ""
}

// useSite is the switched site of constant expression e, with every use
// ids of the constant in it replaced; or why its type cannot be written.
func (f *Facts) useSite(e ast.Expr, ids []*ast.Ident, replacement string) (UseSite, string) {
	t := f.info.Types[e].Type
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		switch {
		case b.Kind() == types.UntypedBool:
			t = types.Typ[types.Bool]
		case isShiftCount(f.parents[e], e) && b.Info()&types.IsInteger != 0:
			t = types.Typ[types.Uint]
		default:
			return UseSite{}, "is used where it stays untyped at " + f.pos(e)
		}
	}
	fi := f.fileIndex(e)
	if fi < 0 {
		return UseSite{}, "is used outside the package's files"
	}
	spelled := Spell(t, f.pkg, f.files[fi])
	if spelled == "" {
		return UseSite{}, fmt.Sprintf("is used as a %s, which cannot be written at %s", t, f.pos(e))
	}
	tf := f.fset.File(e.Pos())
	start, end := tf.Offset(e.Pos()), tf.Offset(e.End())
	src := f.srcs[fi]
	var text strings.Builder
	cur := start
	sort.Slice(ids, func(i, j int) bool { return ids[i].Pos() < ids[j].Pos() }) //gathermut:equivalent(boundary) distinct identifiers have distinct positions
	for _, id := range ids {
		text.Write(src[cur:tf.Offset(id.Pos())])
		text.WriteString(replacement)
		cur = tf.Offset(id.End())
	}
	text.Write(src[cur:end])
	return UseSite{File: f.rels[fi], Start: start, End: end, Type: spelled, Text: text.String()}, ""
}

// UseSite is one switched use of a constant.
type UseSite struct {
	File       string
	Start, End int
	Type, Text string
}

func (f *Facts) fileIndex(n ast.Node) int {
	for i, file := range f.files {
		if file.FileStart <= n.Pos() && n.Pos() <= file.FileEnd { //gathermut:equivalent(boundary) a use is never at a file's first byte (the package clause) nor at its end
			return i
		}
	}
	return -1
}
