package operator

import (
	"go/ast"
	"go/token"
	"go/types"
)

// errorType is the predeclared error interface.
var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// implementsError reports whether a value of type t can be used as an error.
func implementsError(t types.Type) bool {
	return t != nil && types.Implements(t, errorType)
}

// discardedResults returns the results of ret that a caller, by Go
// convention, must not look at: every result but the last when the
// function's last result is an error and the returned error is certainly
// non-nil (nonNilError). A result with a call in it (other than a
// conversion or a pure builtin) is kept: the call may have effects. stack
// holds ret's ancestors, outermost first. No generic mutant is made inside
// a discarded result, and zero-return does not zero one: whatever it
// becomes, a caller that follows the convention sees the same program.
func discardedResults(info *types.Info, files []*ast.File, stack []ast.Node, ret *ast.ReturnStmt) []ast.Expr {
	n := len(ret.Results)
	if n < 2 {
		return nil
	}
	sig := signatureOf(info, stack)
	if sig == nil || sig.Results().Len() != n || !implementsError(sig.Results().At(n-1).Type()) {
		return nil
	}
	if !nonNilError(info, files, stack, ret.Results[n-1]) {
		return nil
	}
	var out []ast.Expr
	for _, r := range ret.Results[:n-1] {
		if !hasEffectfulCall(info, r) {
			out = append(out, r)
		}
	}
	return out
}

// signatureOf returns the signature of the innermost function on stack.
func signatureOf(info *types.Info, stack []ast.Node) *types.Signature {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncLit:
			sig, _ := info.TypeOf(f).(*types.Signature)
			return sig
		case *ast.FuncDecl:
			obj := info.Defs[f.Name]
			if obj == nil {
				return nil
			}
			sig, _ := obj.Type().(*types.Signature)
			return sig
		}
	}
	return nil
}

// nonNilError reports whether the error expression e (returned at the end
// of stack) is certainly non-nil:
//   - a value of a concrete (non-interface) type, such as &parseError{...}
//     or a struct value: as an error it is a non-nil interface value, even
//     when it is a nil pointer;
//   - a call of fmt.Errorf or errors.New, which never return nil;
//   - a variable v returned inside the body of "if v != nil" (or a
//     condition v != nil && ...) that the body does not assign;
//   - a package-level sentinel: a variable initialized with errors.New or
//     fmt.Errorf that no file of the package (files) assigns.
func nonNilError(info *types.Info, files []*ast.File, stack []ast.Node, e ast.Expr) bool {
	e = ast.Unparen(e)
	tv, ok := info.Types[e]
	if !ok || tv.Type == nil || tv.IsNil() {
		return false
	}
	if _, iface := tv.Type.Underlying().(*types.Interface); !iface {
		return implementsError(tv.Type)
	}
	if call, ok := e.(*ast.CallExpr); ok {
		return isFunc(info, call.Fun, "fmt", "Errorf") || isFunc(info, call.Fun, "errors", "New")
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok {
		return false
	}
	if v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
		return sentinel(info, files, v)
	}
	// the innermost if (within the function) whose body holds the return
	for i := len(stack) - 1; i > 0; i-- {
		switch s := stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.BlockStmt:
			if ifs, ok := stack[i-1].(*ast.IfStmt); ok && ifs.Body == s {
				if guardsNonNil(info, ifs.Cond, v) && !assigns(info, s, v) {
					return true
				}
			}
		}
	}
	return false
}

// sentinel reports whether the package-level variable v is initialized
// with a call of errors.New or fmt.Errorf in its declaration and assigned
// nowhere in files.
func sentinel(info *types.Info, files []*ast.File, v *types.Var) bool {
	initialized := false
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for k, name := range vs.Names {
					if info.Defs[name] != v || len(vs.Values) != len(vs.Names) {
						continue
					}
					call, ok := ast.Unparen(vs.Values[k]).(*ast.CallExpr)
					initialized = ok && (isFunc(info, call.Fun, "fmt", "Errorf") || isFunc(info, call.Fun, "errors", "New"))
				}
			}
		}
	}
	if !initialized {
		return false
	}
	for _, f := range files {
		if assigns(info, f, v) {
			return false
		}
	}
	return true
}

// isFunc reports whether fun names the function pkg.name.
func isFunc(info *types.Info, fun ast.Expr, pkg, name string) bool {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	f, ok := info.Uses[sel.Sel].(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == pkg && f.Name() == name
}

// guardsNonNil reports whether cond being true implies v != nil: cond is
// v != nil, nil != v, or a && of conditions one of which is.
func guardsNonNil(info *types.Info, cond ast.Expr, v *types.Var) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.LAND:
		return guardsNonNil(info, b.X, v) || guardsNonNil(info, b.Y, v)
	case token.NEQ:
		isV := func(e ast.Expr) bool {
			id, ok := ast.Unparen(e).(*ast.Ident)
			return ok && info.Uses[id] == v
		}
		isNil := func(e ast.Expr) bool {
			tv, ok := info.Types[ast.Unparen(e)]
			return ok && tv.IsNil()
		}
		return (isV(b.X) && isNil(b.Y)) || (isNil(b.X) && isV(b.Y))
	}
	return false
}

// assigns reports whether body may change v: an assignment or ++/-- to
// it, or its address taken (after which anything may write it).
func assigns(info *types.Info, body ast.Node, v *types.Var) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.ObjectOf(id) == v
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				found = found || is(l)
			}
		case *ast.IncDecStmt:
			found = found || is(s.X)
		case *ast.RangeStmt:
			found = found || (s.Key != nil && is(s.Key)) || (s.Value != nil && is(s.Value))
		case *ast.UnaryExpr:
			found = found || (s.Op == token.AND && is(s.X))
		}
		return !found
	})
	return found
}

// pureBuiltins are the builtins whose calls have no effect but their value.
var pureBuiltins = map[string]bool{"len": true, "cap": true, "min": true, "max": true, "complex": true, "real": true, "imag": true}

// hasEffectfulCall reports whether e holds a call other than a type
// conversion or a pure builtin.
func hasEffectfulCall(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if tv, ok := info.Types[ast.Unparen(call.Fun)]; ok && tv.IsType() {
			return true
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
			if b, ok := info.Uses[id].(*types.Builtin); ok && pureBuiltins[b.Name()] {
				return true
			}
		}
		found = true
		return false
	})
	return found
}
