package operator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
)

// ZeroValue returns an expression for the zero value of t as seen from file
// (of package pkg), or nil when t cannot be written there (an unexported
// type of another package, a package the file does not import, an unnamed
// struct). Untyped forms (0, "", false, nil) are used where they convert
// implicitly; TypedZero wraps them for contexts that infer a type.
func ZeroValue(t types.Type, pkg *types.Package, file *ast.File) ast.Expr {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return ast.NewIdent("false")
		case u.Info()&types.IsString != 0:
			return &ast.BasicLit{Kind: token.STRING, Value: `""`}
		case u.Info()&types.IsNumeric != 0:
			return &ast.BasicLit{Kind: token.INT, Value: "0"}
		case u.Kind() == types.UnsafePointer:
			return ast.NewIdent("nil")
		}
		return nil
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		if _, isParam := t.(*types.TypeParam); isParam {
			return typeParamZero(t, pkg, file)
		}
		return ast.NewIdent("nil")
	case *types.Struct, *types.Array:
		if _, named := t.(*types.Named); !named {
			if _, isArray := u.(*types.Array); !isArray {
				return nil
			}
		}
		typ := TypeExpr(t, pkg, file)
		if typ == nil {
			return nil
		}
		return &ast.CompositeLit{Type: typ}
	}
	return nil
}

func typeParamZero(t types.Type, pkg *types.Package, file *ast.File) ast.Expr {
	typ := TypeExpr(t, pkg, file)
	if typ == nil {
		return nil
	}
	return &ast.StarExpr{X: &ast.CallExpr{Fun: ast.NewIdent("new"), Args: []ast.Expr{typ}}}
}

// TypedZero returns the zero value of t with its type spelled out, e.g.
// error(nil) or int(0), for := and other places that infer a type.
func TypedZero(t types.Type, pkg *types.Package, file *ast.File) ast.Expr {
	zero := ZeroValue(t, pkg, file)
	if zero == nil {
		return nil
	}
	if _, ok := zero.(*ast.CompositeLit); ok {
		return zero
	}
	if _, ok := zero.(*ast.StarExpr); ok {
		return zero
	}
	typ := TypeExpr(t, pkg, file)
	if typ == nil {
		return nil
	}
	if needsParens(typ) {
		typ = &ast.ParenExpr{X: typ}
	}
	return &ast.CallExpr{Fun: typ, Args: []ast.Expr{zero}}
}

func needsParens(e ast.Expr) bool {
	switch e.(type) {
	case *ast.StarExpr, *ast.FuncType, *ast.ChanType:
		return true
	}
	return false
}

// TypeExpr spells t as it would be written in file, or returns nil when it
// cannot be written there.
func TypeExpr(t types.Type, pkg *types.Package, file *ast.File) ast.Expr {
	ok := true
	qualifier := func(other *types.Package) string {
		if other == pkg {
			return ""
		}
		name, found := importName(file, other)
		if !found {
			ok = false
		}
		return name
	}
	s := types.TypeString(t, qualifier)
	if !ok || !exportedOrLocal(t, pkg) {
		return nil
	}
	e, err := parser.ParseExpr(s)
	if err != nil {
		return nil
	}
	setPos(e, token.NoPos)
	return e
}

func exportedOrLocal(t types.Type, pkg *types.Package) bool {
	named, ok := t.(*types.Named)
	if !ok {
		return true
	}
	obj := named.Obj()
	return obj.Pkg() == nil || obj.Pkg() == pkg || obj.Exported()
}

// importName returns the name under which file imports pkg.
func importName(file *ast.File, pkg *types.Package) (string, bool) {
	for _, spec := range file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path != pkg.Path() {
			continue
		}
		if spec.Name != nil {
			if spec.Name.Name == "_" || spec.Name.Name == "." {
				return "", false
			}
			return spec.Name.Name, true
		}
		return pkg.Name(), true
	}
	return "", false
}

// setPos moves every position in the tree e to pos, so a node made
// elsewhere prints in place without disturbing comments. CallExpr.Ellipsis
// carries meaning (it marks f(x...)), so it only moves when it is set.
func setPos(e ast.Node, pos token.Pos) {
	posType := reflect.TypeOf(token.NoPos)
	ast.Inspect(e, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return true
		}
		v = v.Elem()
		if v.Kind() != reflect.Struct {
			return true
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if v.Type().Field(i).Name == "Ellipsis" && f.Int() == int64(token.NoPos) {
				continue
			}
			if f.Type() == posType && f.CanSet() {
				f.SetInt(int64(pos))
			}
		}
		return true
	})
}
