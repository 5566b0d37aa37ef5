package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strings"
)

// goSources is the Go files of a report parsed once for triage: what the
// rules need of a file beyond its lines (an if statement's branches and
// their comments, which functions only package initialisation reaches,
// which package variables hold their zero value for good).
type goSources struct {
	fset  *token.FileSet
	files map[string]*ast.File // module-relative path -> parsed file
	// per package directory: the functions run only at package
	// initialisation, and the variables declared without a value and
	// never assigned
	initOnly map[string]map[string]bool
	zeroVars map[string]map[string]bool
}

// parseGoSources parses the Go files of sources (those that parse; a
// file that does not is left to the line-based rules).
func parseGoSources(sources map[string]string) *goSources {
	g := &goSources{fset: token.NewFileSet(), files: map[string]*ast.File{}, initOnly: map[string]map[string]bool{}, zeroVars: map[string]map[string]bool{}}
	byDir := map[string][]*ast.File{}
	for p, src := range sources {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		f, err := parser.ParseFile(g.fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		g.files[p] = f
		byDir[path.Dir(p)] = append(byDir[path.Dir(p)], f)
	}
	for dir, files := range byDir {
		g.initOnly[dir] = initOnlyFuncs(files)
		g.zeroVars[dir] = zeroVars(files)
	}
	return g
}

// offset is the byte offset of a 1-based line and column in file p, or -1.
func (g *goSources) offset(p string, pos Location) (*ast.File, token.Pos) {
	f := g.files[p]
	if f == nil {
		return nil, token.NoPos
	}
	tf := g.fset.File(f.Pos())
	if pos.Start.Line < 1 || pos.Start.Line > tf.LineCount() {
		return nil, token.NoPos
	}
	return f, tf.LineStart(pos.Start.Line) + token.Pos(pos.Start.Column-1)
}

// ifAt is the if statement whose condition starts at the mutant's
// position in file p, or nil.
func (g *goSources) ifAt(p string, loc Location) (*ast.File, *ast.IfStmt) {
	f, at := g.offset(p, loc)
	if f == nil {
		return nil, nil
	}
	var found *ast.IfStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if found != nil || n == nil || n.Pos() > at || n.End() <= at {
			return found == nil
		}
		if s, ok := n.(*ast.IfStmt); ok && s.Cond.Pos() == at {
			found = s
		}
		return true
	})
	return f, found
}

// commentSays reports whether a comment inside node n of file f matches
// optimRE (calls the code an optimisation).
func commentSays(f *ast.File, n ast.Node) bool {
	if n == nil {
		return false
	}
	for _, cg := range f.Comments {
		if cg.Pos() >= n.Pos() && cg.End() <= n.End() && optimRE.MatchString(cg.Text()) {
			return true
		}
	}
	return false
}

// forcedToPlainSide reports whether branch-true or branch-false m forces
// its if statement away from a branch whose comment calls it an
// optimisation: the side left is the general path, which gives the same
// answers.
func (g *goSources) forcedToPlainSide(file string, op string, loc Location) bool {
	f, s := g.ifAt(file, loc)
	if s == nil {
		return false
	}
	switch op {
	case "branch-true":
		return s.Else != nil && commentSays(f, s.Else)
	case "branch-false":
		return commentSays(f, s.Body)
	}
	return false
}

// initOnlyFuncs are the functions of a package (its files) that only its
// initialisation runs: init, and the unexported functions referred to
// only from package-level variable initialisers, init or other such
// functions. Their effects are fixed before any test runs, from the
// machine they run on (a host id, a random seed): a survivor there is
// rarely a gap a test can close.
func initOnlyFuncs(files []*ast.File) map[string]bool {
	refs := map[string]map[string]bool{} // function -> where it is referred to from ("" for a variable's initialiser)
	decls := map[string]bool{}
	note := func(from string, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if refs[id.Name] == nil {
					refs[id.Name] = map[string]bool{}
				}
				refs[id.Name][from] = true
			}
			return true
		})
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					name = "(method) " + name
				} else {
					decls[name] = true
				}
				if d.Body != nil {
					note(name, d.Body)
				}
			case *ast.GenDecl:
				if d.Tok == token.VAR {
					for _, spec := range d.Specs {
						for _, v := range spec.(*ast.ValueSpec).Values {
							note("", v)
						}
					}
				} else {
					note("(decl)", d)
				}
			}
		}
	}
	only := map[string]bool{}
	for name := range decls {
		only[name] = name == "init" || (!ast.IsExported(name) && len(refs[name]) > 0)
	}
	for changed := true; changed; { // the largest set closed under "referred to only from init code"
		changed = false
		for name := range decls {
			if !only[name] || name == "init" {
				continue
			}
			for from := range refs[name] {
				if from != "" && from != "init" && !only[from] {
					only[name], changed = false, true
					break
				}
			}
		}
	}
	for name, ok := range only {
		if !ok {
			delete(only, name)
		}
	}
	return only
}

// zeroVars are a package's variables declared without a value and never
// assigned (nor their address taken): they hold their type's zero value
// for good.
func zeroVars(files []*ast.File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					if len(vs.Values) == 0 && vs.Type != nil {
						for _, n := range vs.Names {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	written := func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.Ident:
				delete(out, x.Name)
				return
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			case *ast.ParenExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			default:
				return
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					written(l)
				}
			case *ast.IncDecStmt:
				written(n.X)
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					written(n.X)
				}
			case *ast.RangeStmt:
				if n.Key != nil {
					written(n.Key)
				}
				if n.Value != nil {
					written(n.Value)
				}
			case *ast.CallExpr: // a method with a pointer receiver may write it: x.M()
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && out[id.Name] {
						delete(out, id.Name)
					}
				}
			}
			return true
		})
	}
	return out
}
