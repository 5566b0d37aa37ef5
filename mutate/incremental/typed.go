package incremental

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// implicitMethods are the methods the standard library calls on values it
// is handed (fmt, errors, sort, encoding, io): a use of a type reaches
// these of its methods even where no module code calls them.
var implicitMethods = map[string]bool{
	"String": true, "GoString": true, "Format": true, "Error": true, "Unwrap": true, "Is": true, "As": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true, "MarshalBinary": true, "UnmarshalBinary": true,
	"Len": true, "Less": true, "Swap": true, "Push": true, "Pop": true,
	"Read": true, "Write": true, "Close": true, "Seek": true, "ReadAt": true, "WriteAt": true, "ReadFrom": true, "WriteTo": true,
	"ReadByte": true, "WriteByte": true, "ReadRune": true, "WriteString": true, "ServeHTTP": true, "Scan": true,
}

// linker holds what linking needs across packages.
type linker struct {
	g    *Graph
	fset *token.FileSet
	// lines of the files as parsed for nodes, to map a position given by
	// line and column (cgo's generated files point back with //line).
	lines map[string][]int
	// each module type: the method names of *T, and the node each name
	// selects (promoted methods included)
	typeMethods map[int]map[string]int
	// functions whose value escapes (kept in a table, passed as a
	// callback, a method value, a func literal's enclosing declaration),
	// by signature
	escapes map[string][]int
	generic map[int][]int // escaping generic functions, by parameter count
	// dynamic call sites: the declaration and the callee's signature
	dynamic []dynCall
	// interface method calls: the declaration, the method and the
	// interface's method names
	dispatch []ifaceCall
}

type dynCall struct {
	from   int
	sig    string
	params int
}

type ifaceCall struct {
	from   int
	method string
	needs  []string
}

// linkTyped adds the edges: go/packages type-checks the module with its
// tests, and every use of a package-level object, every static call, every
// dynamic call (matched by signature against the functions whose value
// escapes), every interface method call (matched against the module
// types that have all the interface's method names) becomes an edge
// between the declarations. A function referred to as a value is not
// called by the referring declaration: the dynamic call sites that can
// reach it are.
func (g *Graph) linkTyped(env []string) error {
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Mode: packages.LoadFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Tests: true,
		Dir:   g.root,
		Env:   env,
		Fset:  fset,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return fmt.Errorf("incremental: load the module: %w", err)
	}
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("incremental: the module does not type-check: %s", strings.Join(errs, "; "))
	}
	g.link(pkgs, fset)
	return nil
}

// link adds the edges of the type-checked packages (see linkTyped).
func (g *Graph) link(pkgs []*packages.Package, fset *token.FileSet) {
	lk := &linker{g: g, fset: fset, lines: map[string][]int{}, typeMethods: map[int]map[string]int{}, escapes: map[string][]int{}, generic: map[int][]int{}}
	for _, p := range pkgs {
		lk.types(p)
	}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			lk.file(p, f)
		}
	}
	for _, d := range lk.dynamic {
		// production code calls test code only as a callback the test
		// hands it, and that test's code is in the key already
		prod := !g.nodes[d.from].testCode
		for _, to := range append(append([]int(nil), lk.escapes[d.sig]...), lk.generic[d.params]...) {
			if !prod || !g.nodes[to].testCode {
				g.edge(d.from, to)
			}
		}
	}
	for _, c := range lk.dispatch {
		for _, methods := range lk.typeMethods {
			if to, ok := methods[c.method]; ok && hasAll(methods, c.needs) {
				g.edge(c.from, to)
			}
		}
	}
	for t, methods := range lk.typeMethods {
		for name, to := range methods {
			if implicitMethods[name] {
				g.edge(t, to)
			}
		}
	}
}

func hasAll(methods map[string]int, names []string) bool {
	for _, n := range names {
		if _, ok := methods[n]; !ok {
			return false
		}
	}
	return true
}

// node maps a position to the declaration node holding it, or -1: by
// byte offset in a module file, or by line and column where a //line
// directive (cgo's output) points back into one.
func (lk *linker) node(pos token.Pos) int {
	if !pos.IsValid() {
		return -1
	}
	p := lk.fset.PositionFor(pos, false)
	if rel, ok := lk.rel(p.Filename); ok {
		if _, parsed := lk.g.files[rel]; parsed {
			return lk.g.nodeAt(rel, p.Offset)
		}
	}
	adj := lk.fset.PositionFor(pos, true)
	rel, ok := lk.rel(adj.Filename)
	if !ok {
		return -1
	}
	if _, parsed := lk.g.files[rel]; !parsed {
		return -1
	}
	starts := lk.lineStarts(rel)
	if adj.Line < 1 || adj.Line > len(starts) {
		return -1
	}
	return lk.g.nodeAt(rel, starts[adj.Line-1]+max(adj.Column-1, 0))
}

func (lk *linker) rel(filename string) (string, bool) {
	if filename == "" {
		return "", false
	}
	if !filepath.IsAbs(filename) {
		filename = filepath.Join(lk.g.root, filename)
	}
	rel, err := filepath.Rel(lk.g.root, filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func (lk *linker) lineStarts(rel string) []int {
	if s, ok := lk.lines[rel]; ok {
		return s
	}
	data, _ := os.ReadFile(filepath.Join(lk.g.root, filepath.FromSlash(rel)))
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	lk.lines[rel] = starts
	return starts
}

// types records the method names of every named type the package
// declares, and the method node each selects.
func (lk *linker) types(p *packages.Package) {
	if p.Types == nil {
		return
	}
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		t := lk.node(tn.Pos())
		if t < 0 {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if _, isIface := named.Underlying().(*types.Interface); isIface {
			continue
		}
		methods := lk.typeMethods[t]
		if methods == nil {
			methods = map[string]int{}
			lk.typeMethods[t] = methods
		}
		ms := types.NewMethodSet(types.NewPointer(named))
		for i := 0; i < ms.Len(); i++ {
			fn := ms.At(i).Obj()
			if m := lk.node(fn.Pos()); m >= 0 {
				methods[fn.Name()] = m
			}
		}
	}
}

// file walks the declarations of one type-checked file.
func (lk *linker) file(p *packages.Package, f *ast.File) {
	info := p.TypesInfo
	if info == nil {
		return
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			lk.walk(info, lk.node(d.Pos()), d)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if d.Tok == token.CONST {
				lk.walk(info, lk.node(d.Pos()), d)
				continue
			}
			for _, s := range d.Specs {
				lk.walk(info, lk.node(s.Pos()), s)
			}
		}
	}
}

func sigKey(t types.Type) (string, int, bool) {
	sig, ok := t.Underlying().(*types.Signature)
	if !ok {
		return "", 0, false
	}
	// parameter names are not part of a function's type
	q := func(p *types.Package) string { return p.Path() }
	var b strings.Builder
	b.WriteString("func(")
	for i := 0; i < sig.Params().Len(); i++ {
		if i > 0 {
			b.WriteString(",")
		}
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("...")
		}
		b.WriteString(types.TypeString(sig.Params().At(i).Type(), q))
	}
	b.WriteString(")(")
	for i := 0; i < sig.Results().Len(); i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(types.TypeString(sig.Results().At(i).Type(), q))
	}
	b.WriteString(")")
	return b.String(), sig.Params().Len(), sig.TypeParams().Len() > 0
}

// walk adds the references of one declaration (from: its node).
func (lk *linker) walk(info *types.Info, from int, root ast.Node) {
	if from < 0 {
		return
	}
	w := &declWalk{lk: lk, info: info, from: from, called: map[*ast.Ident]bool{}}
	ast.Inspect(root, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.FuncLit:
			// its body is this declaration's code; as a value it may be
			// called by any dynamic call of its signature
			w.escape(from, info.TypeOf(e))
		case *ast.CallExpr:
			w.call(e)
		case *ast.SelectorExpr:
			w.selector(e)
		case *ast.Ident:
			w.ident(e)
		}
		return true
	})
}

// declWalk is the walk of one declaration's syntax (pre-order: a call is
// seen before the name it calls).
type declWalk struct {
	lk     *linker
	info   *types.Info
	from   int
	called map[*ast.Ident]bool // identifiers in call position
}

// escape records a function value that leaves the declaration: any
// dynamic call of its signature may reach it.
func (w *declWalk) escape(to int, t types.Type) {
	key, params, generic := sigKey(t)
	if to < 0 || key == "" {
		return
	}
	if generic {
		w.lk.generic[params] = append(w.lk.generic[params], to)
	} else {
		w.lk.escapes[key] = append(w.lk.escapes[key], to)
	}
}

// call marks a static call's name as called, and records a dynamic call
// (through a function value) by its signature.
func (w *declWalk) call(e *ast.CallExpr) {
	info := w.info
	fun := ast.Unparen(e.Fun)
	// f[T](x) instantiates a generic function; fs[i](x) calls an
	// element of a slice or map of functions
	switch x := fun.(type) {
	case *ast.IndexExpr:
		if isFunc(info, x.X) {
			fun = x.X
		}
	case *ast.IndexListExpr:
		fun = x.X
	}
	static := false
	switch x := fun.(type) {
	case *ast.Ident:
		switch info.Uses[x].(type) {
		case *types.Func, *types.Builtin, *types.TypeName, nil:
			static = true
			w.called[x] = true
		}
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			if sel.Kind() != types.FieldVal {
				static = true
				w.called[x.Sel] = true
			}
		} else {
			switch info.Uses[x.Sel].(type) {
			case *types.Func, *types.Builtin, *types.TypeName, nil:
				static = true
				w.called[x.Sel] = true
			}
		}
	case *ast.FuncLit:
		static = true // its body is walked here
	case *ast.ArrayType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.MapType, *ast.StructType, *ast.StarExpr:
		static = true // a conversion
	}
	if !static {
		if tv, ok := info.Types[e.Fun]; ok && !tv.IsType() {
			if key, params, _ := sigKey(tv.Type); key != "" {
				w.lk.dynamic = append(w.lk.dynamic, dynCall{from: w.from, sig: key, params: params})
			}
		}
	}
}

// selector links a method: a call through an interface (or a type
// parameter's constraint) is dispatched later to every implementation;
// a concrete method is an edge, or an escape when not called.
func (w *declWalk) selector(e *ast.SelectorExpr) {
	sel, ok := w.info.Selections[e]
	if !ok || sel.Kind() == types.FieldVal {
		return
	}
	fn, ok := sel.Obj().(*types.Func)
	if !ok {
		return
	}
	recv := sel.Recv()
	if ptr, ok := recv.(*types.Pointer); ok {
		recv = ptr.Elem()
	}
	var iface *types.Interface
	switch r := recv.(type) {
	case *types.TypeParam:
		iface, _ = r.Constraint().Underlying().(*types.Interface)
	default:
		iface, _ = r.Underlying().(*types.Interface)
	}
	if iface != nil && sel.Kind() == types.MethodVal {
		var needs []string
		for i := 0; i < iface.NumMethods(); i++ {
			needs = append(needs, iface.Method(i).Name())
		}
		w.lk.dispatch = append(w.lk.dispatch, ifaceCall{from: w.from, method: fn.Name(), needs: needs})
		return
	}
	if to := w.lk.node(fn.Origin().Pos()); to >= 0 {
		w.lk.g.edge(w.from, to)
		if !w.called[e.Sel] {
			w.escape(to, w.info.TypeOf(e))
		}
	}
}

// ident links a package-level name: a function (an edge when called, an
// escape when used as a value) or a variable, constant or type.
func (w *declWalk) ident(e *ast.Ident) {
	obj := w.info.Uses[e]
	if obj == nil || obj.Pkg() == nil {
		return
	}
	if fn, ok := obj.(*types.Func); ok {
		if sig, _ := fn.Type().(*types.Signature); sig != nil && sig.Recv() != nil {
			return // methods: the selector case
		}
		to := w.lk.node(fn.Origin().Pos())
		if w.called[e] {
			w.lk.g.edge(w.from, to)
		} else {
			w.escape(to, fn.Type())
		}
		return
	}
	if obj.Parent() != obj.Pkg().Scope() {
		return // local
	}
	w.lk.g.edge(w.from, w.lk.node(obj.Pos()))
}

// isFunc reports whether e names a function (a generic one, when indexed).
func isFunc(info *types.Info, e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := info.Uses[x].(*types.Func)
		return ok
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok {
			return sel.Kind() != types.FieldVal
		}
		_, ok := info.Uses[x.Sel].(*types.Func)
		return ok
	}
	return false
}
