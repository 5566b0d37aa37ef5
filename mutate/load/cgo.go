package load

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
)

// Cgo is what a precise type check of a cgo package needs: the
// declarations cmd/cgo generated for the C names the package uses
// (_cgo_gotypes.go: _Ctype_int, _Cfunc_free, ...), and the spelling of each
// C.name in them. Rewrite turns the C.name selectors of a file into those
// names, so the package's own files check together with the declarations,
// with the C types cgo found (C.int is int32, C.free takes a pointer)
// instead of the unknown types a faked "C" import gives.
type Cgo struct {
	Decls *ast.File        // cmd/cgo's _cgo_gotypes.go
	names map[string]cname // C name -> its generated declaration
}

type cname struct {
	ident string
	deref bool // a C variable: C.v is *_Cvar_v
}

// newCgo finds the generated declarations among the compiled files of a
// cgo package and the generated names in its (cgo-compiled) types.
func newCgo(fset *token.FileSet, pkg *packages.Package) (*Cgo, error) {
	c := &Cgo{names: map[string]cname{}}
	for _, name := range pkg.CompiledGoFiles {
		if slices.Contains(pkg.GoFiles, name) {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("load: cgo output %s: %w", name, err)
		}
		for _, imp := range f.Imports {
			if imp.Name != nil && imp.Name.Name == "_cgopackage" {
				c.Decls = f
			}
		}
	}
	if c.Decls == nil {
		return nil, fmt.Errorf("load: %s: no _cgo_gotypes.go among the compiled files", pkg.PkgPath)
	}
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		for _, prefix := range []string{"_Ctype_", "_Cfunc_", "_Cvar_", "_Cmacro_"} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				c.names[rest] = cname{ident: name, deref: prefix == "_Cvar_"}
			}
		}
	}
	return c, nil
}

// Rewrite replaces every C.name selector of f by its generated name, in
// place, and returns the function that puts the selectors back. A C name
// cmd/cgo did not declare (a constant, which cgo inlines) is an error, and
// f is left as it was.
func (c *Cgo) Rewrite(f *ast.File) (restore func(), err error) {
	orig := map[ast.Node]ast.Node{}
	astutil.Apply(f, func(cur *astutil.Cursor) bool {
		sel, ok := cur.Node().(*ast.SelectorExpr)
		if !ok || err != nil {
			return err == nil
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Name != "C" {
			return true
		}
		n, ok := c.names[sel.Sel.Name]
		if !ok {
			err = fmt.Errorf("cmd/cgo generated no declaration for C.%s", sel.Sel.Name)
			return false
		}
		var repl ast.Expr = &ast.Ident{NamePos: sel.Pos(), Name: n.ident}
		if n.deref {
			repl = &ast.ParenExpr{Lparen: sel.Pos(), X: &ast.StarExpr{Star: sel.Pos(), X: repl}, Rparen: sel.End() - 1}
		}
		cur.Replace(repl)
		orig[repl] = sel
		return false
	}, nil)
	restore = func() {
		if len(orig) == 0 {
			return
		}
		astutil.Apply(f, func(cur *astutil.Cursor) bool {
			if sel, ok := orig[cur.Node()]; ok {
				cur.Replace(sel)
				return false
			}
			return true
		}, nil)
	}
	if err != nil {
		restore()
		return func() {}, err
	}
	return restore, nil
}

// CheckCgo type-checks the files of a cgo package whose C.name selectors
// were rewritten, with the generated declarations: "C" is imported as an
// empty package, and its being unused is not an error.
func CheckCgo(path string, fset *token.FileSet, files []*ast.File, c *Cgo, imports map[string]*types.Package, info *types.Info) (*types.Package, error) {
	var first error
	conf := types.Config{
		Importer: importerFunc(func(p string) (*types.Package, error) {
			if p == "C" {
				return types.NewPackage("C", "C"), nil
			}
			return importFrom(imports, p)
		}),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && IsUnusedC(te) {
				return
			}
			if first == nil {
				first = err
			}
		},
	}
	pkg, _ := conf.Check(path, fset, append(append([]*ast.File{}, files...), c.Decls), info)
	return pkg, first
}

// IsUnusedC reports whether err is `"C" imported and not used`, which a
// rewritten cgo file always gets.
func IsUnusedC(err types.Error) bool {
	return strings.HasPrefix(err.Msg, `"C" imported`) && strings.HasSuffix(err.Msg, "not used")
}
