package schema

import (
	"go/ast"
	"go/parser"
	"go/types"
	"regexp"
	"strconv"
)

var cgoType = regexp.MustCompile(`\b_Ctype_([A-Za-z0-9_]+)`)

// Spell writes t as code in file (of package pkg) can name it, or returns
// "" when it cannot: a named type of another package that is unexported,
// or whose package the file does not import. The names cmd/cgo gives C
// types (_Ctype_int) are written as the file writes them (C.int).
func Spell(t types.Type, pkg *types.Package, file *ast.File) string {
	ok := true
	var visit func(types.Type)
	seen := map[types.Type]bool{}
	visit = func(t types.Type) {
		if t == nil || seen[t] || !ok {
			return
		}
		seen[t] = true
		switch u := t.(type) {
		case *types.Named:
			obj := u.Obj()
			if obj.Pkg() != nil && obj.Pkg().Path() != pkg.Path() && !obj.Exported() {
				ok = false
			}
			if args := u.TypeArgs(); args != nil {
				for i := 0; i < args.Len(); i++ {
					visit(args.At(i))
				}
			}
		case *types.Alias:
			obj := u.Obj()
			if obj.Pkg() != nil && obj.Pkg().Path() != pkg.Path() && !obj.Exported() {
				ok = false
			}
		case *types.Pointer:
			visit(u.Elem())
		case *types.Slice:
			visit(u.Elem())
		case *types.Array:
			visit(u.Elem())
		case *types.Map:
			visit(u.Key())
			visit(u.Elem())
		case *types.Chan:
			visit(u.Elem())
		case *types.Signature:
			for i := 0; i < u.Params().Len(); i++ {
				visit(u.Params().At(i).Type())
			}
			for i := 0; i < u.Results().Len(); i++ {
				visit(u.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				f := u.Field(i)
				if f.Pkg() != nil && f.Pkg().Path() != pkg.Path() && !f.Exported() {
					ok = false
				}
				visit(f.Type())
			}
		case *types.Interface:
			if !u.Empty() {
				ok = false // method sets with unexported names need care; rare
			}
		}
	}
	visit(t)
	if !ok {
		return ""
	}
	qualifier := func(other *types.Package) string {
		if other.Path() == pkg.Path() {
			return ""
		}
		name, found := importName(file, other.Path(), other.Name())
		if !found {
			ok = false
		}
		return name
	}
	s := types.TypeString(t, qualifier)
	if !ok {
		return ""
	}
	s = cgoType.ReplaceAllString(s, "C.$1")
	if _, err := parser.ParseExpr(s); err != nil {
		return ""
	}
	return s
}

// importName returns the name under which file imports path.
func importName(file *ast.File, path, pkgName string) (string, bool) {
	for _, spec := range file.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || p != path {
			continue
		}
		if spec.Name != nil {
			if spec.Name.Name == "_" || spec.Name.Name == "." {
				return "", false
			}
			return spec.Name.Name, true
		}
		return pkgName, true
	}
	return "", false
}
