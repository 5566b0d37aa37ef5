package load

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
)

// Program is the loaded module under test.
type Program struct {
	Root    string // absolute module root directory
	Module  string // module path
	Fset    *token.FileSet
	Targets []*Package // packages matched by the patterns, sorted by import path

	byPath    map[string]*Package
	tests     map[string][]string // package path -> its top-level tests, sorted
	importers map[string][]string // package path -> module packages importing it directly
	imports   map[string][]string // package path -> module packages its non-test files import
	testOnly  map[string][]string // package path -> module packages only its test files import
	dirs      map[string]string   // package path -> directory, every module package
	names     map[string]string   // package path -> package name, every module package
}

// Package is one target package.
type Package struct {
	Path  string // import path
	Name  string
	Dir   string
	Files []*File // non-test Go files, in GoFiles order
	// Asm are the package's assembly files (.s) that the build for this
	// GOOS and GOARCH includes (cmd/go's OtherFiles less the excluded).
	Asm   []*File
	Types *types.Package
	Info  *types.Info
	Cgo   bool
	// CgoTypes is set for a cgo package whose C names resolved to the
	// declarations cmd/cgo generated: Types and Info then have the C types.
	// Nil for a cgo package checked with a faked "C" (unknown C types).
	CgoTypes *Cgo
	// Imports maps the import paths of the package's files to their types,
	// for type-checking a mutated file against the same dependencies.
	Imports map[string]*types.Package
}

// File is one non-test source file of a target package.
type File struct {
	Path      string // absolute path
	Rel       string // module-relative, slash-separated
	Syntax    *ast.File
	Src       []byte
	Generated bool
}

// Env is the environment every go command of the mutate tool runs in.
func Env() []string { return append(os.Environ(), "GOWORK=off") }

// ModuleRoot returns the module root directory and module path for dir.
func ModuleRoot(dir string) (root, module string, err error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}\t{{.Path}}")
	cmd.Dir = dir
	cmd.Env = Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("load: find module of %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	line := strings.TrimSpace(string(out))
	root, module, ok := strings.Cut(line, "\t")
	if !ok || root == "" {
		return "", "", fmt.Errorf("load: %s is not inside a Go module (go list -m printed %q)", dir, line)
	}
	return root, module, nil
}

// Load loads the module containing dir and the packages matching patterns
// (relative to dir).
func Load(dir string, patterns ...string) (*Program, error) {
	if len(patterns) == 0 {
		return nil, errors.New("load: no package patterns")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	root, module, err := ModuleRoot(abs)
	if err != nil {
		return nil, err
	}
	prog := &Program{
		Root:      root,
		Module:    module,
		Fset:      token.NewFileSet(),
		byPath:    map[string]*Package{},
		tests:     map[string][]string{},
		importers: map[string][]string{},
		imports:   map[string][]string{},
		testOnly:  map[string][]string{},
		dirs:      map[string]string{},
		names:     map[string]string{},
	}
	if err := prog.loadGraph(); err != nil {
		return nil, err
	}
	if err := prog.loadTargets(abs, patterns); err != nil {
		return nil, err
	}
	return prog, nil
}

// LoadGraph loads only the module's package graph and tests (what running
// mutants needs), without type-checking any package: it has no Targets.
func LoadGraph(dir string) (*Program, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	root, module, err := ModuleRoot(abs)
	if err != nil {
		return nil, err
	}
	prog := &Program{
		Root:      root,
		Module:    module,
		Fset:      token.NewFileSet(),
		byPath:    map[string]*Package{},
		tests:     map[string][]string{},
		importers: map[string][]string{},
		imports:   map[string][]string{},
		testOnly:  map[string][]string{},
		dirs:      map[string]string{},
		names:     map[string]string{},
	}
	if err := prog.loadGraph(); err != nil {
		return nil, err
	}
	return prog, nil
}

func (p *Program) inModule(path string) bool {
	return path == p.Module || strings.HasPrefix(path, p.Module+"/")
}

// loadGraph reads every module package with its tests: the import graph
// (both ways) and the top-level test names.
func (p *Program) loadGraph() error {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedForTest,
		Dir:   p.Root,
		Env:   Env(),
		Tests: true,
		Fset:  token.NewFileSet(),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return fmt.Errorf("load: module graph of %s: %w", p.Module, err)
	}
	g := graphEdges{importers: map[string]map[string]bool{}, forward: map[string]map[string]bool{}, tests: map[string]map[string]bool{}}
	seenFile := map[string]bool{}
	for _, pkg := range pkgs {
		if strings.HasSuffix(pkg.PkgPath, ".test") && pkg.Name == "main" {
			continue // the generated test main
		}
		owner := pkg.PkgPath
		if pkg.ForTest != "" {
			owner = pkg.ForTest
		}
		if !p.inModule(owner) {
			continue
		}
		if pkg.ForTest == "" && len(pkg.GoFiles) > 0 {
			p.dirs[owner] = filepath.Dir(pkg.GoFiles[0])
			p.names[owner] = pkg.Name
		}
		for _, imp := range pkg.Imports {
			if imp.PkgPath != owner && p.inModule(imp.PkgPath) {
				g.add(owner, imp.PkgPath, pkg.ForTest != "")
			}
		}
		if err := p.addTests(cfg.Fset, owner, pkg.GoFiles, seenFile); err != nil {
			return err
		}
	}
	for path, names := range p.tests {
		sort.Strings(names)
		p.tests[path] = slices.Compact(names)
	}
	g.into(p)
	return nil
}

// addTests records the top-level tests of a package's _test.go files
// (each file once: the test variants share them).
func (p *Program) addTests(fset *token.FileSet, owner string, files []string, seen map[string]bool) error {
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") || seen[f] {
			continue
		}
		seen[f] = true
		names, err := testNames(fset, f)
		if err != nil {
			return err
		}
		if p.dirs[owner] == "" {
			p.dirs[owner] = filepath.Dir(f)
		}
		p.tests[owner] = append(p.tests[owner], names...)
	}
	return nil
}

// graphEdges collects the module's import edges as packages are read.
type graphEdges struct {
	importers map[string]map[string]bool // imported -> importers
	forward   map[string]map[string]bool // importer -> imported, by non-test files
	tests     map[string]map[string]bool // importer -> imported, by any file of its tests
}

func (g graphEdges) add(owner, imported string, test bool) {
	set := func(m map[string]map[string]bool, k, v string) {
		if m[k] == nil {
			m[k] = map[string]bool{}
		}
		m[k][v] = true
	}
	set(g.importers, imported, owner)
	if test {
		set(g.tests, owner, imported)
	} else {
		set(g.forward, owner, imported)
	}
}

// into stores the edges in p, sorted: importers, imports, test-only
// imports.
func (g graphEdges) into(p *Program) {
	for imp, set := range g.importers {
		p.importers[imp] = slices.Sorted(maps.Keys(set))
	}
	for owner, set := range g.forward {
		p.imports[owner] = slices.Sorted(maps.Keys(set))
	}
	for owner, set := range g.tests {
		for imp := range set {
			if !g.forward[owner][imp] {
				p.testOnly[owner] = append(p.testOnly[owner], imp)
			}
		}
		sort.Strings(p.testOnly[owner])
	}
}

// testNames returns the top-level tests that go test runs from one file.
func testNames(fset *token.FileSet, path string) ([]string, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	var names []string
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Type.TypeParams != nil {
			continue
		}
		name := fd.Name.Name
		switch {
		case IsTestName(name, "Test") && len(fd.Type.Params.List) == 1 && name != "TestMain":
			names = append(names, name)
		case IsTestName(name, "Fuzz") && len(fd.Type.Params.List) == 1:
			names = append(names, name)
		case IsTestName(name, "Example") && fd.Type.Params.NumFields() == 0 && hasOutput(f, fd):
			names = append(names, name)
		}
	}
	return names, nil
}

// IsTestName applies go test's rule: the prefix, then nothing or a
// character that is not a lower-case letter.
func IsTestName(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	if len(name) == len(prefix) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(name[len(prefix):])
	return !unicode.IsLower(r)
}

var outputComment = regexp.MustCompile(`(?i)^[[:space:]]*(unordered )?output:`)

// hasOutput applies go test's rule: the last comment in the example's body
// starts with "Output:" or "Unordered output:".
func hasOutput(f *ast.File, fd *ast.FuncDecl) bool {
	if fd.Body == nil {
		return false
	}
	var last *ast.CommentGroup
	for _, group := range f.Comments {
		if group.Pos() > fd.Body.Lbrace && group.End() < fd.Body.Rbrace {
			last = group
		}
	}
	return last != nil && outputComment.MatchString(last.Text())
}

var generatedRule = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// IsGenerated applies the standard rule to a parsed file.
func IsGenerated(f *ast.File) bool {
	for _, group := range f.Comments {
		if group.Pos() > f.Package {
			break
		}
		for _, c := range group.List {
			if generatedRule.MatchString(c.Text) {
				return true
			}
		}
	}
	return false
}

func (p *Program) loadTargets(dir string, patterns []string) error {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  dir,
		Env:  Env(),
		Fset: p.Fset,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			return parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
		},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return fmt.Errorf("load: %s: %w", strings.Join(patterns, " "), err)
	}
	var errs []string
	for _, pkg := range pkgs {
		for _, e := range pkg.Errors {
			errs = append(errs, e.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("load: %s", strings.Join(errs, "; "))
	}
	for _, pkg := range pkgs {
		if !p.inModule(pkg.PkgPath) || len(pkg.GoFiles) == 0 {
			continue
		}
		t, err := p.target(pkg)
		if err != nil {
			return err
		}
		p.byPath[t.Path] = t
		p.Targets = append(p.Targets, t)
	}
	if len(p.Targets) == 0 {
		return fmt.Errorf("load: no package of module %s matches %s", p.Module, strings.Join(patterns, " "))
	}
	sort.Slice(p.Targets, func(i, j int) bool { return p.Targets[i].Path < p.Targets[j].Path })
	return nil
}

// target makes the Package of a loaded package: its types (a cgo
// package's checked again from its own files), its Go files and its
// assembly files.
func (p *Program) target(pkg *packages.Package) (*Package, error) {
	t := &Package{
		Path:    pkg.PkgPath,
		Name:    pkg.Name,
		Dir:     filepath.Dir(pkg.GoFiles[0]),
		Imports: map[string]*types.Package{},
		Cgo:     !slices.Equal(pkg.GoFiles, pkg.CompiledGoFiles),
	}
	for _, imp := range pkg.Types.Imports() {
		t.Imports[imp.Path()] = imp
	}
	syntax := pkg.Syntax
	if t.Cgo {
		var err error
		if syntax, err = p.checkCgoPackage(t, pkg); err != nil {
			return nil, err
		}
	} else {
		t.Types, t.Info = pkg.Types, pkg.TypesInfo
	}
	for i, f := range syntax {
		name := pkg.GoFiles[i]
		src, rel, err := p.readFile(name)
		if err != nil {
			return nil, err
		}
		t.Files = append(t.Files, &File{
			Path:      name,
			Rel:       rel,
			Syntax:    f,
			Src:       src,
			Generated: IsGenerated(f),
		})
	}
	for _, name := range pkg.OtherFiles {
		if !strings.HasSuffix(name, ".s") || slices.Contains(pkg.IgnoredFiles, name) {
			continue
		}
		src, rel, err := p.readFile(name)
		if err != nil {
			return nil, err
		}
		t.Asm = append(t.Asm, &File{Path: name, Rel: rel, Src: src})
	}
	return t, nil
}

// readFile reads a package's file and returns it with its path relative
// to the module root, with forward slashes.
func (p *Program) readFile(name string) (src []byte, rel string, err error) {
	src, err = os.ReadFile(name)
	if err != nil {
		return nil, "", fmt.Errorf("load: %w", err)
	}
	rel, err = filepath.Rel(p.Root, name)
	if err != nil {
		return nil, "", fmt.Errorf("load: %w", err)
	}
	return src, filepath.ToSlash(rel), nil
}

// checkCgoPackage parses a cgo package's own files (the loader's syntax
// is of cmd/cgo's output) and type-checks them into t: with the types
// cmd/cgo found for C names, or when those are not to be had (a C
// constant), with a faked "C" whose names have unknown types. It returns
// the files.
func (p *Program) checkCgoPackage(t *Package, pkg *packages.Package) ([]*ast.File, error) {
	var syntax []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(p.Fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		syntax = append(syntax, f)
	}
	if cg, err := newCgo(p.Fset, pkg); err == nil {
		p.checkWithCgoTypes(t, syntax, cg)
	}
	if t.CgoTypes == nil {
		info := NewInfo()
		tp, err := Check(t.Path, p.Fset, syntax, t.Imports, true, info)
		if err != nil {
			return nil, fmt.Errorf("load: type-check %s: %w", t.Path, err)
		}
		t.Types, t.Info = tp, info
	}
	return syntax, nil
}

// checkWithCgoTypes type-checks syntax with the C names rewritten to
// cmd/cgo's types, setting t's types, info and CgoTypes when that
// succeeds; the files are restored either way.
func (p *Program) checkWithCgoTypes(t *Package, syntax []*ast.File, cg *Cgo) {
	var restores []func()
	defer func() {
		for _, restore := range restores {
			restore()
		}
	}()
	for _, f := range syntax {
		restore, err := cg.Rewrite(f)
		restores = append(restores, restore)
		if err != nil {
			return
		}
	}
	info := NewInfo()
	if tp, err := CheckCgo(t.Path, p.Fset, syntax, cg, t.Imports, info); err == nil {
		t.Types, t.Info, t.CgoTypes = tp, info, cg
	}
}

// NewInfo returns a types.Info with every map the operators use.
func NewInfo() *types.Info {
	return &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
	}
}

// Check type-checks files as package path with the given imports; it
// returns the first error.
func Check(path string, fset *token.FileSet, files []*ast.File, imports map[string]*types.Package, cgo bool, info *types.Info) (*types.Package, error) {
	var first error
	conf := types.Config{
		Importer:    importerFunc(func(p string) (*types.Package, error) { return importFrom(imports, p) }),
		FakeImportC: cgo,
		Error: func(err error) {
			if first == nil {
				first = err
			}
		},
	}
	pkg, _ := conf.Check(path, fset, files, info)
	return pkg, first
}

// Importer returns an importer that resolves exactly the given packages
// (and unsafe).
func Importer(imports map[string]*types.Package) types.Importer {
	return importerFunc(func(p string) (*types.Package, error) { return importFrom(imports, p) })
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func importFrom(imports map[string]*types.Package, path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if pkg, ok := imports[path]; ok {
		return pkg, nil
	}
	return nil, fmt.Errorf("package %q is not imported by the original package", path)
}

// Package returns the target package with the given import path.
func (p *Program) Package(path string) (*Package, bool) {
	pkg, ok := p.byPath[path]
	return pkg, ok
}

// Tests returns the top-level tests of a module package, sorted.
func (p *Program) Tests(path string) []string { return p.tests[path] }

// Dir returns the directory of a module package.
func (p *Program) Dir(path string) string { return p.dirs[path] }

// Name returns the package name of a module package.
func (p *Program) Name(path string) string { return p.names[path] }

// Importers returns the module packages that import path directly (test
// files included), sorted.
func (p *Program) Importers(path string) []string { return p.importers[path] }

// Imports returns the module packages that path's non-test files import
// directly, sorted.
func (p *Program) Imports(path string) []string { return p.imports[path] }

// TestImports returns the module packages that only path's test files
// (internal and external) import directly, sorted.
func (p *Program) TestImports(path string) []string { return p.testOnly[path] }

// Observers returns the packages whose tests can observe a change in path:
// path itself, then its transitive importers in the module, sorted; only
// packages that have tests are listed.
func (p *Program) Observers(path string) []string {
	seen := map[string]bool{path: true}
	queue := []string{path}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, imp := range p.importers[cur] {
			if !seen[imp] {
				seen[imp] = true
				queue = append(queue, imp)
			}
		}
	}
	var others []string
	for pkg := range seen {
		if pkg != path && len(p.tests[pkg]) > 0 {
			others = append(others, pkg)
		}
	}
	sort.Strings(others)
	if len(p.tests[path]) > 0 {
		return append([]string{path}, others...)
	}
	return others
}

// File returns the target file with the given module-relative path.
func (p *Program) File(rel string) (*Package, *File, bool) {
	for _, pkg := range p.Targets {
		for _, f := range pkg.Files {
			if f.Rel == rel {
				return pkg, f, true
			}
		}
	}
	return nil, nil, false
}
