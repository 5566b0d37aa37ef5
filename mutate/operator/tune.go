package operator

import (
	"go/ast"
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
// indexed with (a[i+1], s[:n]) on the way: such a value decides.

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
		child := path[i-1]
		switch a := path[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.UnaryExpr:
			if a.Op == token.SUB || a.Op == token.ADD || a.Op == token.XOR {
				continue
			}
			return useOther, nil
		case *ast.BinaryExpr:
			switch a.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				return useDecides, nil
			case token.LAND, token.LOR:
				return useOther, nil
			}
			continue // arithmetic: the result carries the value on
		case *ast.IndexExpr:
			if child == a.Index {
				return useDecides, nil
			}
			return useOther, nil
		case *ast.IndexListExpr:
			return useOther, nil
		case *ast.SliceExpr:
			if child == a.Low || child == a.High || child == a.Max {
				return useDecides, nil
			}
			return useOther, nil
		case *ast.CaseClause:
			return useDecides, nil // a case value is compared with the tag
		case *ast.SwitchStmt:
			if child == a.Tag {
				return useDecides, nil
			}
			return useOther, nil
		case *ast.ArrayType:
			if child == a.Len {
				return useSize, nil
			}
			return useOther, nil
		case *ast.CallExpr:
			if tv, ok := info.Types[a.Fun]; ok && tv.IsType() {
				continue // a conversion
			}
			if makeSize(info, a, child) {
				return useSize, nil
			}
			return useOther, nil
		case *ast.KeyValueExpr:
			continue // up to its composite literal
		case *ast.CompositeLit:
			if child == a.Type {
				return useOther, nil
			}
			for _, outer := range path[i+1:] {
				switch outer.(type) {
				case *ast.FuncDecl, *ast.FuncLit:
					return useOther, nil // built at run time: a value, not a table
				}
			}
			return useTable, structField(info, a, child)
		case *ast.ValueSpec:
			for k, v := range a.Values {
				if v == child && len(a.Names) == len(a.Values) {
					return useNamed, info.Defs[a.Names[k]]
				}
			}
			return useOther, nil
		default:
			return useOther, nil
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
		// a struct field of a table row tunes unless the package
		// compares or indexes with the field (a threshold, a bound)
		return obj == nil || !t.fieldDecides(obj)
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
// is compared or indexed with (x.f > n, a[x.f]).
func (t *tuner) fieldDecides(field types.Object) bool {
	for _, id := range t.usesOf(field) {
		path := t.pathTo(id)
		if len(path) < 2 {
			continue
		}
		if sel, ok := path[1].(*ast.SelectorExpr); ok && sel.Sel == id {
			path = path[1:]
		}
		if use, _ := follow(t.info, path); use == useDecides {
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
