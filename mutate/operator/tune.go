package operator

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// An integer literal's value either decides what the code does or only
// tunes it: how big a buffer is, how a table row reads, how deep a stack
// is recorded. const-int leaves the tuning ones to the opt-in const-tune
// operator (the package doc has the measurements). A literal tunes when
// the value, followed up through parentheses, signs, arithmetic and
// conversions, ends in
//
//   - an element, key or field of a composite literal outside any function
//     (a package-level table: its rows are right or wrong as a whole),
//     unless it sets a struct field that the package compares or indexes
//     with somewhere (a threshold column: {2 * time.Minute, "1 minute"}
//     read as rows[i].D > d);
//   - a size argument of make: a slice's capacity, a map's size hint, a
//     channel's buffer;
//   - the initializer of a named constant or package-level variable, not
//     exported, each of whose uses is one of these or an array length
//     (a depth or a size by name);
//
// and never when the value is compared (==, <, a switch case...) or
// indexed with (a[i+1], s[:n]) on the way, nor when what the package
// reads of the table (the field the entry sets, or the table's elements,
// as t[k] or by range) is compared or indexed with, directly or through
// up to maxFlow local variables (m, ok := t[k]; max = m; max > 1): such a
// value decides.

// valueUse is where a value ends up.
type valueUse int

const (
	useOther   valueUse = iota // anything else: the value decides
	useDecides                 // compared, or an index or slice bound
	useTable                   // an element of a package-level composite literal
	useSize                    // a make size or capacity, or an array length
	useNamed                   // the initializer of a named constant or variable (see tunes)
)

// follow classifies where the expression path[0] ends up; path runs from
// it outwards (as astutil.PathEnclosingInterval gives it). For useNamed it
// also returns the object named.
func follow(info *types.Info, path []ast.Node) (valueUse, types.Object) {
	for i := 1; i < len(path); i++ {
		use, obj, carried := followStep(info, path, i)
		if !carried {
			return use, obj
		}
	}
	return useOther, nil
}

// followStep says what path[i] does with the value of path[i-1]: carries it
// on to path[i+1] (parentheses, signs, arithmetic, conversions, a key:
// value pair), or ends it in a use.
func followStep(info *types.Info, path []ast.Node, i int) (use valueUse, obj types.Object, carried bool) {
	child := path[i-1]
	switch a := path[i].(type) {
	case *ast.ParenExpr, *ast.KeyValueExpr:
		return useOther, nil, true // a pair: up to its composite literal
	case *ast.UnaryExpr:
		return useOther, nil, a.Op == token.SUB || a.Op == token.ADD || a.Op == token.XOR
	case *ast.BinaryExpr:
		switch a.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return useDecides, nil, false
		case token.LAND, token.LOR:
			return useOther, nil, false
		}
		return useOther, nil, true // arithmetic: the result carries the value on
	case *ast.CallExpr:
		if tv, ok := info.Types[a.Fun]; ok && tv.IsType() {
			return useOther, nil, true // a conversion
		}
		if makeSize(info, a, child) {
			return useSize, nil, false
		}
		return useOther, nil, false
	case *ast.CompositeLit:
		use, obj := literalUse(info, a, child, path[i+1:])
		return use, obj, false
	case *ast.ValueSpec:
		use, obj := specUse(info, a, child)
		return use, obj, false
	case *ast.AssignStmt:
		use, obj := assignUse(info, a, child)
		return use, obj, false
	}
	return boundUse(path[i], child), nil, false
}

// boundUse is the use of child in n where it is a bound, an index, a
// compared value or an array length, and useOther elsewhere.
func boundUse(n, child ast.Node) valueUse {
	switch a := n.(type) {
	case *ast.IndexExpr:
		if child == a.Index {
			return useDecides
		}
	case *ast.SliceExpr:
		if child == a.Low || child == a.High || child == a.Max {
			return useDecides
		}
	case *ast.CaseClause:
		return useDecides // a case value is compared with the tag
	case *ast.SwitchStmt:
		if child == a.Tag {
			return useDecides
		}
	case *ast.ArrayType:
		if child == a.Len {
			return useSize
		}
	}
	return useOther
}

// literalUse is the use of child, an element of lit: a table entry (with
// the struct field it sets) when lit is built outside any function (outer
// runs from lit outwards), else a value.
func literalUse(info *types.Info, lit *ast.CompositeLit, child ast.Node, outer []ast.Node) (valueUse, types.Object) {
	if child == lit.Type {
		return useOther, nil
	}
	for _, o := range outer {
		switch o.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return useOther, nil // built at run time: a value, not a table
		}
	}
	return useTable, structField(info, lit, child)
}

// specUse is the use of child in a var or const spec: the initializer of
// the name it pairs with.
func specUse(info *types.Info, spec *ast.ValueSpec, child ast.Node) (valueUse, types.Object) {
	for k, v := range spec.Values {
		if v == child && len(spec.Names) == len(spec.Values) {
			return useNamed, info.Defs[spec.Names[k]]
		}
	}
	return useOther, nil
}

// assignUse is the use of child on an assignment's right: x := v, x = v,
// and v, ok := m[k] (the value's variable) name it.
func assignUse(info *types.Info, as *ast.AssignStmt, child ast.Node) (valueUse, types.Object) {
	for k, r := range as.Rhs {
		if r != child {
			continue
		}
		if len(as.Lhs) == len(as.Rhs) || (k == 0 && len(as.Rhs) == 1) {
			if id, ok := as.Lhs[k].(*ast.Ident); ok && (as.Tok == token.DEFINE || as.Tok == token.ASSIGN) {
				return useNamed, info.ObjectOf(id)
			}
		}
	}
	return useOther, nil
}

// structField returns the field of a struct literal lit that its element
// elt (a value, or a key: value pair) sets; nil when lit is no struct
// literal.
func structField(info *types.Info, lit *ast.CompositeLit, elt ast.Node) types.Object {
	t := info.TypeOf(lit)
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for k, e := range lit.Elts {
		if e != elt {
			continue
		}
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				return info.Uses[id]
			}
			return nil
		}
		if k < st.NumFields() {
			return st.Field(k)
		}
	}
	return nil
}

// makeSize reports whether arg is a size argument of a call of the
// builtin make that only sizes storage: a slice's capacity (not its
// length, which the code sees), a map's size hint, a channel's buffer.
func makeSize(info *types.Info, call *ast.CallExpr, arg ast.Node) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || len(call.Args) < 2 {
		return false
	}
	if b, ok := info.Uses[id].(*types.Builtin); !ok || b.Name() != "make" {
		return false
	}
	t := info.TypeOf(call.Args[0])
	if t == nil {
		return false
	}
	switch t.Underlying().(type) {
	case *types.Slice:
		return len(call.Args) == 3 && arg == call.Args[2]
	case *types.Map, *types.Chan:
		return arg == call.Args[1]
	}
	return false
}

// tuner answers, for one package, whether an integer literal only tunes.
type tuner struct {
	info  *types.Info
	files []*ast.File
	uses  map[types.Object][]*ast.Ident // built on first need
}

// tunes reports whether the literal at the end of stack (outermost first,
// the literal last) only tunes (see the top of this file).
func (t *tuner) tunes(stack []ast.Node, lit ast.Node) bool {
	path := make([]ast.Node, 0, len(stack)+1)
	path = append(path, lit)
	for i := len(stack) - 1; i >= 0; i-- {
		path = append(path, stack[i])
	}
	use, obj := follow(t.info, path)
	switch use {
	case useTable:
		// a table entry tunes unless the package compares or indexes
		// with what it reads of it: the struct field the entry sets (a
		// threshold, a bound), else the table's elements
		if obj != nil {
			return !t.fieldDecides(obj)
		}
		return !t.elementsDecide(path)
	case useSize:
		return true // make's sizes (a literal in an array length is a type: never mutated)
	case useNamed:
		return t.namedTunes(obj)
	}
	return false
}

// namedTunes reports whether every use of a named constant or
// package-level variable is a tuning one; an exported name, whose uses
// elsewhere are unknown, a variable that is assigned, or a name that is
// not used, does not tune.
func (t *tuner) namedTunes(obj types.Object) bool {
	if obj == nil || obj.Exported() || obj.Name() == "_" {
		return false
	}
	switch o := obj.(type) {
	case *types.Const:
	case *types.Var:
		if o.Parent() != o.Pkg().Scope() {
			return false // a local variable: its value flows on through assignments
		}
	default:
		return false
	}
	ids := t.usesOf(obj)
	if len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		path := t.pathTo(id)
		if path == nil {
			return false
		}
		if _, isVar := obj.(*types.Var); isVar && assigned(path) {
			return false
		}
		switch use, _ := follow(t.info, path); use {
		case useTable, useSize:
		default:
			return false // compared, indexed, named again, or anything else
		}
	}
	return true
}

// fieldDecides reports whether some read of a struct field in the package
// is compared or indexed with (x.f > n, a[x.f]), directly or through
// local variables (decides).
func (t *tuner) fieldDecides(field types.Object) bool {
	for _, id := range t.usesOf(field) {
		path := t.pathTo(id)
		if len(path) < 2 {
			continue
		}
		if sel, ok := path[1].(*ast.SelectorExpr); ok && sel.Sel == id {
			path = path[1:]
		}
		if t.decides(path, 0) {
			return true
		}
	}
	return false
}

// elementsDecide reports whether the package compares or indexes with an
// element of the table that the literal at path[0] is an entry of: the
// package-level variable the outermost composite literal initializes,
// read as table[k] or ranged over. A table with no such variable, or
// passed elsewhere, does not decide here.
func (t *tuner) elementsDecide(path []ast.Node) bool {
	var table types.Object
	for i := len(path) - 1; i > 0; i-- {
		if vs, ok := path[i].(*ast.ValueSpec); ok {
			for k, v := range vs.Values {
				if v == path[i-1] && k < len(vs.Names) {
					table = t.info.Defs[vs.Names[k]]
				}
			}
			break
		}
	}
	if table == nil {
		return false
	}
	for _, id := range t.usesOf(table) {
		up := t.pathTo(id)
		if len(up) < 2 {
			continue
		}
		switch a := up[1].(type) {
		case *ast.IndexExpr:
			if a.X == id && t.decides(up[1:], 0) {
				return true
			}
		case *ast.RangeStmt:
			if a.X == id && a.Value != nil {
				if v, ok := a.Value.(*ast.Ident); ok && t.varDecides(t.info.ObjectOf(v), 0) {
					return true
				}
			}
		}
	}
	return false
}

// maxFlow bounds how many local variables decides follows a value
// through.
const maxFlow = 3

// decides reports whether the value at path[0] is compared or indexed
// with, directly or after assignments to local variables (x := v;
// if x > n), up to maxFlow of them.
func (t *tuner) decides(path []ast.Node, depth int) bool {
	use, obj := follow(t.info, path)
	switch use {
	case useDecides:
		return true
	case useNamed:
		return t.varDecides(obj, depth+1)
	}
	return false
}

// varDecides reports whether some read of the local variable obj decides
// (decides).
func (t *tuner) varDecides(obj types.Object, depth int) bool {
	v, ok := obj.(*types.Var)
	if !ok || depth > maxFlow || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	for _, id := range t.usesOf(v) {
		path := t.pathTo(id)
		if path == nil || assigned(path) {
			continue
		}
		if t.decides(path, depth) {
			return true
		}
	}
	return false
}

// usesOf returns the identifiers that refer to obj in the package.
func (t *tuner) usesOf(obj types.Object) []*ast.Ident {
	if t.uses == nil {
		t.uses = map[types.Object][]*ast.Ident{}
		for id, o := range t.info.Uses {
			t.uses[o] = append(t.uses[o], id)
		}
	}
	return t.uses[obj]
}

// pathTo returns the path from an identifier out to its file.
func (t *tuner) pathTo(id *ast.Ident) []ast.Node {
	for _, f := range t.files {
		if f.FileStart <= id.Pos() && id.End() <= f.FileEnd {
			path, exact := astutil.PathEnclosingInterval(f, id.Pos(), id.End())
			if !exact || len(path) == 0 || path[0] != id {
				return nil
			}
			return path
		}
	}
	return nil
}

// assigned reports whether the identifier path[0] is written: the left
// side of an assignment, an operand of ++ or --, or has its address taken.
func assigned(path []ast.Node) bool {
	if len(path) < 2 {
		return false
	}
	switch a := path[1].(type) {
	case *ast.AssignStmt:
		for _, l := range a.Lhs {
			if l == path[0] {
				return true
			}
		}
	case *ast.IncDecStmt:
		return true
	case *ast.UnaryExpr:
		return a.Op == token.AND
	}
	return false
}

// A literal whose value the package only compares with constants (after
// tables, struct fields and local variables: m, ok := t[k]; max = m;
// max > 1) has mutants that change no comparison: 2 -> 3 there is the
// same program for every input. const-int and const-tune make none of
// them (sameOutcome).

// comparison is one place the value is compared with a constant: value
// op c, the value on the left.
type comparison struct {
	op token.Token
	c  constant.Value
}

// sameOutcome reports whether every use of the integer literal (the node
// after stack) is a comparison with a constant whose outcome is the same
// for the values old and v.
func (t *tuner) sameOutcome(stack []ast.Node, lit ast.Node, old, v uint64) bool {
	path := make([]ast.Node, 0, len(stack)+1)
	path = append(path, lit)
	for i := len(stack) - 1; i >= 0; i-- {
		path = append(path, stack[i])
	}
	var cmps []comparison
	if !t.comparisons(path, 0, &cmps) || len(cmps) == 0 {
		return false
	}
	a, b := constant.MakeUint64(old), constant.MakeUint64(v)
	for _, c := range cmps {
		if constant.Compare(a, c.op, c.c) != constant.Compare(b, c.op, c.c) {
			return false
		}
	}
	return true
}

// comparisons collects where the value at path[0] goes; false when some
// place is not a comparison with a constant (then nothing is known).
func (t *tuner) comparisons(path []ast.Node, depth int, out *[]comparison) bool {
	if depth > maxFlow {
		return false
	}
	for i := 1; i < len(path); i++ {
		child := path[i-1]
		switch a := path[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.CallExpr:
			if tv, ok := t.info.Types[a.Fun]; ok && tv.IsType() {
				if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
					continue // an integer conversion keeps small values
				}
			}
			return false
		case *ast.BinaryExpr:
			other, op := a.Y, a.Op
			if child == a.Y {
				other, op = a.X, mirror(a.Op)
			}
			tv, ok := t.info.Types[other]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
				return false
			}
			switch op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				*out = append(*out, comparison{op: op, c: tv.Value})
				return true
			}
			return false
		case *ast.KeyValueExpr:
			if child != a.Value {
				return false
			}
			continue
		case *ast.CompositeLit:
			if f := structField(t.info, a, child); f != nil {
				return t.readsCompare(f, depth, out)
			}
			return t.elementReadsCompare(path[i:], depth, out)
		case *ast.ValueSpec, *ast.AssignStmt:
			use, obj := follow(t.info, path[i-1:])
			if use != useNamed || obj == nil {
				return false
			}
			if _, isConst := obj.(*types.Const); isConst || obj.Exported() {
				return false // a constant's uses may need it constant; exported ones are read elsewhere
			}
			return t.readsCompare(obj, depth, out)
		default:
			return false
		}
	}
	return false
}

// mirror turns a comparison c op x into x op' c.
func mirror(op token.Token) token.Token {
	switch op {
	case token.LSS:
		return token.GTR
	case token.LEQ:
		return token.GEQ
	case token.GTR:
		return token.LSS
	case token.GEQ:
		return token.LEQ
	}
	return op
}

// readsCompare collects the comparisons of every read of a variable or
// struct field; a write other than its definition, or an address taken,
// makes the value unknown.
func (t *tuner) readsCompare(obj types.Object, depth int, out *[]comparison) bool {
	if v, ok := obj.(*types.Var); !ok || v.Exported() {
		return false
	}
	ids := t.usesOf(obj)
	if len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		path := t.pathTo(id)
		if path == nil {
			return false
		}
		if sel, ok := path[1].(*ast.SelectorExpr); ok && sel.Sel == id {
			path = path[1:]
		}
		if assigned(path) {
			if a, ok := path[1].(*ast.AssignStmt); ok && a.Tok == token.ASSIGN {
				continue // another value written to it: not this one
			}
			if _, ok := path[1].(*ast.KeyValueExpr); !ok {
				return false
			}
		}
		if kv, ok := path[1].(*ast.KeyValueExpr); ok && kv.Key == path[0] {
			continue // a field key in a composite literal: a write
		}
		if !t.comparisons(path, depth+1, out) {
			return false
		}
	}
	return true
}

// elementReadsCompare collects the comparisons of every read of the table
// (path[0] is its outermost composite literal's element chain): the
// package-level variable it initializes, read as table[k].
func (t *tuner) elementReadsCompare(path []ast.Node, depth int, out *[]comparison) bool {
	var table types.Object
	for i := 1; i < len(path); i++ {
		switch a := path[i].(type) {
		case *ast.CompositeLit, *ast.KeyValueExpr:
			continue
		case *ast.ValueSpec:
			for k, v := range a.Values {
				if v == path[i-1] && k < len(a.Names) {
					table = t.info.Defs[a.Names[k]]
				}
			}
		}
		break
	}
	v, ok := table.(*types.Var)
	if !ok || v.Exported() || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return false
	}
	ids := t.usesOf(v)
	if len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		up := t.pathTo(id)
		if len(up) < 2 {
			return false
		}
		ix, ok := up[1].(*ast.IndexExpr)
		if !ok || ix.X != id || assigned(up[1:]) || !t.comparisons(up[1:], depth+1, out) {
			return false
		}
	}
	return true
}
