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
	n := nameable{pkg: pkg, seen: map[types.Type]bool{}, ok: true}
	n.visit(t)
	if !n.ok {
		return ""
	}
	ok := true
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

// nameable checks that code of pkg can name every part of a type: no
// unexported type or field of another package, no non-empty interface.
type nameable struct {
	pkg  *types.Package
	seen map[types.Type]bool
	ok   bool
}

// foreign reports whether obj is of another package and unexported.
func (n *nameable) foreign(obj types.Object) bool {
	return obj.Pkg() != nil && obj.Pkg().Path() != n.pkg.Path() && !obj.Exported()
}

func (n *nameable) visit(t types.Type) {
	if t == nil || n.seen[t] || !n.ok {
		return
	}
	n.seen[t] = true
	switch u := t.(type) {
	case *types.Named:
		if n.foreign(u.Obj()) {
			n.ok = false
		}
		if args := u.TypeArgs(); args != nil {
			for i := 0; i < args.Len(); i++ {
				n.visit(args.At(i))
			}
		}
	case *types.Alias:
		if n.foreign(u.Obj()) {
			n.ok = false
		}
	case *types.Pointer:
		n.visit(u.Elem())
	case *types.Slice:
		n.visit(u.Elem())
	case *types.Array:
		n.visit(u.Elem())
	case *types.Map:
		n.visit(u.Key())
		n.visit(u.Elem())
	case *types.Chan:
		n.visit(u.Elem())
	case *types.Signature:
		for i := 0; i < u.Params().Len(); i++ {
			n.visit(u.Params().At(i).Type())
		}
		for i := 0; i < u.Results().Len(); i++ {
			n.visit(u.Results().At(i).Type())
		}
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if n.foreign(f) {
				n.ok = false
			}
			n.visit(f.Type())
		}
	case *types.Interface:
		if !u.Empty() {
			n.ok = false // method sets with unexported names need care; rare
		}
	}
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
