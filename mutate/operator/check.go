package operator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// VetPrefix starts the Note of an Unbuildable mutant that type-checks but
// fails the go vet checks go test runs before any test.
const VetPrefix = "vet: "

// checkAll decides, for every candidate, whether its mutant compiles:
// an Unbuildable mutant's Note is the first error. A mutant inside a function body is
// checked by adding a renamed copy of the mutated function to the package
// as loaded (an incremental go/types Checker: the package is checked once
// per worker, then each copy alone); the file's imports count as used when
// the rest of the file uses them. A package-level mutant may change
// anything that refers to it, so the whole package is checked with the
// mutated file. The go vet "bools" check, which go test runs and which
// operators can trip (x == a || x == a), runs on the mutated code too.
func checkAll(prog *load.Program, cands []*candidate, workers int, progress func(done, total int)) {
	workers = max(workers, 1)
	const chunk = 256
	type job struct {
		pkg string
		cs  []*candidate
	}
	byPkg := map[string][]*candidate{}
	var order []string
	for _, c := range cands {
		if c.m.State == mutant.Equivalent {
			continue // ignored either way: no need to check
		}
		if byPkg[c.fm.pkg.Path] == nil {
			order = append(order, c.fm.pkg.Path)
		}
		byPkg[c.fm.pkg.Path] = append(byPkg[c.fm.pkg.Path], c)
	}
	jobs := make(chan job)
	total, done := 0, 0
	for _, p := range order {
		total += len(byPkg[p])
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkers := map[string]*pkgChecker{}
			for j := range jobs {
				chk := checkers[j.pkg]
				if chk == nil {
					chk = newPkgChecker(prog, j.cs[0].fm.pkg)
					checkers[j.pkg] = chk
				}
				for _, c := range j.cs {
					if why := chk.check(c); why != "" {
						c.m.Decide(mutant.Unbuildable, why)
					}
				}
				if progress != nil {
					mu.Lock()
					done += len(j.cs)
					progress(done, total)
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range order {
		cs := byPkg[p]
		for i := 0; i < len(cs); i += chunk {
			jobs <- job{pkg: p, cs: cs[i:min(i+chunk, len(cs))]}
		}
	}
	close(jobs)
	wg.Wait()
}

// pkgChecker checks mutants of one package.
type pkgChecker struct {
	prog    *load.Program
	pkg     *load.Package
	conf    types.Config
	info    *types.Info
	checked *types.Package
	ok      bool // the package checked alone: function copies can be checked against it
	errs    []types.Error
	copies  int
	uses    map[*token.File][]pkgUse // uses of imported package names, by file
	// cgoFiles are the package's files with C names rewritten, for a cgo
	// package whose C types are known
	cgoFiles map[*load.File]*ast.File
}

type pkgUse struct {
	pos  token.Pos
	path string
}

func newPkgChecker(prog *load.Program, pkg *load.Package) *pkgChecker {
	c := &pkgChecker{prog: prog, pkg: pkg, info: load.NewInfo(), uses: map[*token.File][]pkgUse{}}
	c.conf = types.Config{
		Importer:    load.Importer(pkg.Imports),
		FakeImportC: pkg.Cgo && pkg.CgoTypes == nil,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && !(pkg.CgoTypes != nil && load.IsUnusedC(te)) {
				c.errs = append(c.errs, te)
			}
		},
	}
	c.checked = types.NewPackage(pkg.Path, pkg.Name)
	var files []*ast.File
	if pkg.CgoTypes != nil {
		// this checker's own copies of the files, with C names rewritten
		// to cmd/cgo's declarations, which join the package
		imports := map[string]*types.Package{"C": types.NewPackage("C", "C")}
		for p, ip := range pkg.Imports {
			imports[p] = ip
		}
		c.conf.Importer = load.Importer(imports)
		c.cgoFiles = map[*load.File]*ast.File{}
		for _, f := range pkg.Files {
			cp, err := parser.ParseFile(prog.Fset, f.Path, f.Src, parser.SkipObjectResolution)
			if err == nil {
				_, err = pkg.CgoTypes.Rewrite(cp)
			}
			if err != nil {
				c.errs = append(c.errs, types.Error{Msg: err.Error()})
				break
			}
			c.cgoFiles[f] = cp
			files = append(files, cp)
		}
		files = append(files, pkg.CgoTypes.Decls)
	} else {
		for _, f := range pkg.Files {
			files = append(files, f.Syntax)
		}
	}
	err := types.NewChecker(&c.conf, prog.Fset, c.checked, c.info).Files(files)
	c.ok = err == nil && len(c.errs) == 0
	c.clearInfo()
	for id, obj := range pkg.Info.Uses {
		if pn, ok := obj.(*types.PkgName); ok {
			tf := prog.Fset.File(id.Pos())
			c.uses[tf] = append(c.uses[tf], pkgUse{id.Pos(), pn.Imported().Path()})
		}
	}
	return c
}

func (c *pkgChecker) clearInfo() {
	clear(c.info.Types)
	clear(c.info.Defs)
	clear(c.info.Uses)
	clear(c.info.Implicits)
	clear(c.info.Selections)
	clear(c.info.Scopes)
}

func (c *pkgChecker) check(cand *candidate) string {
	if cand.decl != nil && c.ok {
		return c.checkFunc(cand)
	}
	return c.checkPackage(cand)
}

// usedOutside reports whether file uses the import path outside the
// function declaration fd.
func (c *pkgChecker) usedOutside(tf *token.File, fd *ast.FuncDecl, path string) bool {
	for _, u := range c.uses[tf] {
		if u.path == path && (u.pos < fd.Pos() || u.pos >= fd.End()) {
			return true
		}
	}
	return false
}

// checkFunc type-checks a renamed copy of the mutated function.
func (c *pkgChecker) checkFunc(cand *candidate) string {
	text, ok := c.funcCopy(cand)
	if !ok {
		return c.checkPackage(cand)
	}
	fm, fd := cand.fm, cand.decl
	f, err := parser.ParseFile(c.prog.Fset, fm.file.Path+".gathermut-check", text, parser.SkipObjectResolution)
	if err != nil {
		return c.relative(err.Error())
	}
	if c.pkg.CgoTypes != nil {
		if _, err := c.pkg.CgoTypes.Rewrite(f); err != nil {
			return c.relative(err.Error())
		}
	}
	c.errs = c.errs[:0]
	// A fresh Checker per copy, on the package as checked: names resolve to
	// the package's objects, whose types are known, so only the copy is
	// checked (one long-lived Checker would redo the package's
	// initialization order for every copy it has seen).
	types.NewChecker(&c.conf, c.prog.Fset, c.checked, c.info).Files([]*ast.File{f})
	defer c.clearInfo()
	for _, te := range c.errs {
		if strings.Contains(te.Msg, "imported") && strings.Contains(te.Msg, "not used") {
			if spec := importAt(f, te.Pos); spec != nil {
				path := strings.Trim(spec.Path.Value, "`\"")
				if (spec.Name != nil && spec.Name.Name == ".") || path == "C" || c.usedOutside(fm.tf, fd, path) {
					continue
				}
				if orig := importAt(fm.file.Syntax, token.NoPos, path); orig != nil {
					return c.relative(c.prog.Fset.Position(orig.Pos()).String() + ": " + te.Msg)
				}
			}
		}
		return c.relative(te.Error())
	}
	if strings.Contains(text, "&&") || strings.Contains(text, "||") {
		if d := vetBools(c.prog.Fset, []*ast.File{f}, c.checked, c.info); d != "" {
			return c.relative(VetPrefix + d)
		}
	}
	return ""
}

// funcCopy writes the mutated function as a file of its own: the file's
// imports, then the function renamed (a method as a function taking its
// receiver first: a fresh Checker cannot add methods to the package's
// types), positions kept by a //line directive. false when the edit
// reaches its name or beyond it, or it is generic: the whole package is
// checked then.
func (c *pkgChecker) funcCopy(cand *candidate) (string, bool) {
	fm, fd, e := cand.fm, cand.decl, *cand.m.Edit
	src := fm.file.Src
	start, end, nameAt := fm.tf.Offset(fd.Pos()), fm.tf.Offset(fd.End()), fm.tf.Offset(fd.Name.Pos())
	if e.Start < nameAt+len(fd.Name.Name) || e.End > end {
		return "", false
	}
	if fd.Recv != nil && (fd.Type.TypeParams != nil || recvGeneric(fd)) {
		return "", false
	}
	c.copies++
	var b strings.Builder
	b.WriteString("package " + c.pkg.Name + "\n\n")
	for _, imp := range fm.file.Syntax.Imports {
		b.WriteString("import ")
		if imp.Name != nil {
			b.WriteString(imp.Name.Name + " ")
		}
		b.WriteString(imp.Path.Value + "\n")
	}
	p := c.prog.Fset.Position(fd.Pos())
	fmt.Fprintf(&b, "\n//line %s:%d:%d\n", fm.file.Path, p.Line, p.Column)
	rest := nameAt + len(fd.Name.Name)
	if fd.Recv == nil {
		b.Write(src[start:nameAt])
		fmt.Fprintf(&b, "gathermutCheck%d", c.copies)
	} else {
		recv := fd.Recv.List[0]
		fmt.Fprintf(&b, "func gathermutCheck%d(", c.copies)
		if len(recv.Names) == 0 {
			b.WriteString("_ ")
		}
		b.Write(src[fm.tf.Offset(fd.Recv.Opening)+1 : fm.tf.Offset(fd.Recv.Closing)])
		params := src[fm.tf.Offset(fd.Type.Params.Opening)+1 : fm.tf.Offset(fd.Type.Params.Closing)]
		if len(strings.TrimSpace(string(params))) > 0 {
			b.WriteString(", ")
		}
		b.Write(params)
		rest = fm.tf.Offset(fd.Type.Params.Closing)
	}
	b.Write(src[rest:e.Start])
	b.WriteString(e.Text)
	b.Write(src[e.End:end])
	b.WriteString("\n")
	return b.String(), true
}

// checkPackage type-checks the whole package with the mutated file.
func (c *pkgChecker) checkPackage(cand *candidate) string {
	fm := cand.fm
	src, err := cand.m.Edit.Apply(fm.file.Src)
	if err != nil {
		return err.Error()
	}
	f, err := parser.ParseFile(c.prog.Fset, fm.file.Path, src, parser.SkipObjectResolution)
	if err != nil {
		return c.relative(err.Error())
	}
	files := []*ast.File{f}
	info := load.NewInfo()
	var tp *types.Package
	if c.pkg.CgoTypes != nil {
		if _, err := c.pkg.CgoTypes.Rewrite(f); err != nil {
			return c.relative(err.Error())
		}
		for _, other := range c.pkg.Files {
			if other != fm.file && c.cgoFiles[other] != nil {
				files = append(files, c.cgoFiles[other])
			}
		}
		tp, err = load.CheckCgo(c.pkg.Path, c.prog.Fset, files, c.pkg.CgoTypes, c.pkg.Imports, info)
	} else {
		for _, other := range c.pkg.Files {
			if other != fm.file {
				files = append(files, other.Syntax)
			}
		}
		tp, err = load.Check(c.pkg.Path, c.prog.Fset, files, c.pkg.Imports, c.pkg.Cgo, info)
	}
	if err != nil {
		return c.relative(err.Error())
	}
	if strings.Contains(string(src), "&&") || strings.Contains(string(src), "||") {
		if d := vetBools(c.prog.Fset, []*ast.File{f}, tp, info); d != "" {
			return c.relative(VetPrefix + d)
		}
	}
	return ""
}

func (c *pkgChecker) relative(msg string) string {
	return strings.ReplaceAll(msg, c.prog.Root+string(filepath.Separator), "")
}

// importAt returns the import spec of f at pos, or (pos invalid) the one
// importing path.
func importAt(f *ast.File, pos token.Pos, path ...string) *ast.ImportSpec {
	for _, spec := range f.Imports {
		if pos.IsValid() && spec.Pos() <= pos && pos < spec.End() {
			return spec
		}
		if len(path) > 0 && strings.Trim(spec.Path.Value, "`\"") == path[0] {
			return spec
		}
	}
	return nil
}

// vetBools runs go vet's bools analyzer (part of what go test runs) on
// files and returns its first diagnostic, or "".
func vetBools(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info) string {
	var diags []string
	pass := &analysis.Pass{
		Analyzer:  bools.Analyzer,
		Fset:      fset,
		Files:     files,
		Pkg:       pkg,
		TypesInfo: info,
		ResultOf:  map[*analysis.Analyzer]any{inspect.Analyzer: inspector.New(files)},
		Report: func(d analysis.Diagnostic) {
			diags = append(diags, fset.Position(d.Pos).String()+": "+d.Message)
		},
	}
	if _, err := bools.Analyzer.Run(pass); err != nil {
		return ""
	}
	sort.Strings(diags)
	if len(diags) == 0 {
		return ""
	}
	return diags[0]
}

// recvGeneric reports whether fd is a method of a generic type.
func recvGeneric(fd *ast.FuncDecl) bool {
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch t.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}
