package incremental

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// listed is what go list says of one package.
type listed struct {
	ImportPath      string
	Name            string
	Dir             string
	GoFiles         []string
	CgoFiles        []string
	TestGoFiles     []string
	XTestGoFiles    []string
	SFiles          []string
	CFiles          []string
	HFiles          []string
	CXXFiles        []string
	SysoFiles       []string
	EmbedFiles      []string
	TestEmbedFiles  []string
	XTestEmbedFiles []string
	Imports         []string
	TestImports     []string
	XTestImports    []string
}

// hasGo reports whether the package has Go files of any kind: only
// those have declarations.
func (p listed) hasGo() bool {
	return len(p.GoFiles)+len(p.CgoFiles)+len(p.TestGoFiles)+len(p.XTestGoFiles) > 0
}

// node is one top-level declaration: a function or method, a type, a
// variable spec, or a whole const group (iota ties its specs together).
type node struct {
	key      string // "pkg.Name", "pkg.(T).M", "pkg.init#2"; xtest decls are in "pkg_test"
	pkg      string // the package it belongs to for tests' purposes (pkg for pkg_test)
	file     string // module-relative
	start    int    // byte offsets in the file
	end      int
	testCode bool // in a _test.go file or a test-only package
	// probed is set for a function with a body whose every entry the
	// schema of an incremental run counts (Probes): whether a test ran it
	// is then known, not only whether it could.
	probed   bool
	bodyless bool // a function declared without a body (assembly, linked)
	hash     [32]byte
}

// Probe is a place where an incremental run's schema counts that a
// declaration ran: the start of a function body (a function declaration's
// or a function literal's in it), just after its opening brace.
type Probe struct {
	Package string // import path
	File    string // module-relative
	At      int    // byte offset in the file
	Node    int32  // the declaration (Graph.NodeKey)
}

// Graph is the module's top-level declarations (nodes, parsed from the
// files on disk so that each has its exact text) and the references
// between them (edges, from the type-checked module: see linkTyped). A
// spurious edge only makes a mutant run again; a missing one could reuse
// a verdict that no longer holds, so where the analysis cannot tell, it
// adds the edge.
type Graph struct {
	root   string
	module string
	nodes  []node
	byKey  map[string]int
	edges  [][]int32
	redges [][]int32
	files  map[string][]int // module-relative file -> its nodes, by start offset

	tests     map[string]int    // test id "pkg.TestX" -> node
	testPkg   map[string]string // test id -> package path
	testMain  map[string][]int  // package path -> TestMain nodes (internal and external)
	inits     map[string][]int  // package path -> nodes that run at init (init funcs, vars whose initializer calls)
	binary    map[string][]string
	global    [32]byte
	src       map[string][]byte // module-relative file -> its bytes
	edgeCache string            // BuildCached's directory
	edgeKey   string
	env       []string
	edgesRead bool // the references came from the edge cache
	probes    []Probe
	texts     map[string]*textFile

	fwdTest  map[string][]int32 // test id -> Fwd closure (cached)
	testHash map[string][32]byte
	cands    map[int32][]string // node -> tests whose closure holds it
}

// Build reads the module at root: go list ./... for its packages and
// files, every Go file parsed, the references between declarations, and
// the hashes of everything a test binary reads besides Go code (assembly,
// C, embedded files, testdata, go.mod, go.sum). salt is folded into every
// key: the tool's version, the Go version and the judging flags.
func Build(root, module string, env []string, salt string) (*Graph, error) {
	return BuildCached(root, module, env, salt, "")
}

// BuildCached is Build with a directory that keeps the references between
// declarations, by the module's code without comments and formatting: a
// module whose code only differs from an earlier one in comments (or not
// at all) is not type-checked again. "" keeps nothing.
func BuildCached(root, module string, env []string, salt, edgeCache string) (*Graph, error) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Name,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,SFiles,CFiles,HFiles,CXXFiles,SysoFiles,EmbedFiles,TestEmbedFiles,XTestEmbedFiles,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = root
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("incremental: go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("incremental: go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	g := &Graph{
		root: root, module: module, edgeCache: edgeCache, env: env, byKey: map[string]int{}, files: map[string][]int{},
		tests: map[string]int{}, testPkg: map[string]string{}, testMain: map[string][]int{}, inits: map[string][]int{},
		binary: map[string][]string{}, src: map[string][]byte{}, texts: map[string]*textFile{}, fwdTest: map[string][]int32{}, testHash: map[string][32]byte{},
	}
	if err := g.read(pkgs, env); err != nil {
		return nil, err
	}
	g.globalHash(salt)
	return g, nil
}

// pkgSyntax is one package's parsed files and what their names resolve to.
type pkgSyntax struct {
	l      listed
	path   string // the decls' package ("p" or "p_test")
	test   string // the package whose tests these are (p)
	files  []parsedFile
	scope  map[string]int // package-level name -> node
	extras [32]byte       // hash of assembly and C sources, for bodyless and cgo decls
	embeds [32]byte       // hash of the embedded files
}

type parsedFile struct {
	rel  string
	src  []byte
	f    *ast.File
	test bool
	cgo  bool
}

func (g *Graph) read(pkgs []listed, env []string) error {
	inModule := map[string]bool{}
	for _, p := range pkgs {
		inModule[p.ImportPath] = true
	}
	testOnly := testOnlyPackages(pkgs)
	fset := token.NewFileSet()
	for _, p := range pkgs {
		if !p.hasGo() {
			continue
		}
		internal, external, err := g.parse(p, fset, testOnly[p.ImportPath])
		if err != nil {
			return err
		}
		for _, ps := range []*pkgSyntax{internal, external} {
			if len(ps.files) > 0 { //gathermut:equivalent(boundary) declare makes no node of a package without files
				g.declare(ps, fset)
			}
		}
		g.binary[p.ImportPath] = binaryPackages(p, pkgs, inModule)
	}
	g.edges = make([][]int32, len(g.nodes))
	if !g.loadEdges(pkgs) {
		if err := g.linkTyped(env); err != nil {
			return err
		}
		g.saveEdges()
	}
	g.redges = make([][]int32, len(g.nodes))
	for from, tos := range g.edges {
		tos = dedupe32(tos)
		g.edges[from] = tos
		for _, to := range tos {
			g.redges[to] = append(g.redges[to], int32(from))
		}
	}
	for file := range g.files {
		sort.Slice(g.files[file], func(i, j int) bool { return g.nodes[g.files[file][i]].start < g.nodes[g.files[file][j]].start }) //gathermut:equivalent(boundary) the declarations of a file start at distinct offsets
	}
	return nil
}

// parse reads a package's files: the package with its internal tests,
// and its external test package. The hashes of its assembly, C and
// embedded files, and of a cgo preamble, go with them.
func (g *Graph) parse(p listed, fset *token.FileSet, testOnly bool) (internal, external *pkgSyntax, err error) {
	internal = &pkgSyntax{l: p, path: p.ImportPath, test: p.ImportPath, scope: map[string]int{}}
	external = &pkgSyntax{l: p, path: p.ImportPath + "_test", test: p.ImportPath, scope: map[string]int{}}
	internal.extras = hashFiles(p.Dir, p.SFiles, p.CFiles, p.HFiles, p.CXXFiles, p.SysoFiles)
	internal.embeds = hashFiles(p.Dir, p.EmbedFiles, p.TestEmbedFiles)
	external.embeds = hashFiles(p.Dir, p.XTestEmbedFiles)
	groups := []struct {
		into  *pkgSyntax
		files []string
		test  bool
		cgo   bool
	}{{internal, p.GoFiles, false, false}, {internal, p.CgoFiles, false, true}, {internal, p.TestGoFiles, true, false}, {external, p.XTestGoFiles, true, false}}
	for _, grp := range groups {
		for _, name := range grp.files {
			path := filepath.Join(p.Dir, name)
			src, err := os.ReadFile(path)
			if err != nil {
				return nil, nil, fmt.Errorf("incremental: %w", err)
			}
			f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, nil, fmt.Errorf("incremental: %w", err)
			}
			rel, err := filepath.Rel(g.root, path)
			if err != nil {
				return nil, nil, fmt.Errorf("incremental: %w", err)
			}
			pf := parsedFile{rel: filepath.ToSlash(rel), src: src, f: f, test: grp.test || testOnly, cgo: grp.cgo}
			g.src[pf.rel] = src
			if grp.cgo {
				// the cgo preamble is the import "C" declaration's comment
				for _, imp := range f.Imports {
					if imp.Path.Value == `"C"` && imp.Doc != nil {
						internal.extras = sha256.Sum256(append(internal.extras[:], normalizeText([]byte(imp.Doc.Text()))...))
					}
					if gd := importDecl(f, imp); gd != nil && gd.Doc != nil {
						internal.extras = sha256.Sum256(append(internal.extras[:], normalizeText([]byte(gd.Doc.Text()))...))
					}
				}
			}
			grp.into.files = append(grp.into.files, pf)
		}
	}
	return internal, external, nil
}

// binaryPackages lists, sorted, the module packages linked into p's test
// binary: p and what it and its tests import, transitively.
func binaryPackages(p listed, pkgs []listed, inModule map[string]bool) []string {
	bin := []string{p.ImportPath}
	seen := map[string]bool{p.ImportPath: true}
	queue := append(append(append([]string(nil), p.Imports...), p.TestImports...), p.XTestImports...)
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if seen[q] || !inModule[q] {
			continue
		}
		seen[q] = true
		bin = append(bin, q)
		for _, o := range pkgs {
			if o.ImportPath == q {
				queue = append(queue, o.Imports...)
			}
		}
	}
	sort.Strings(bin)
	return bin
}

func importDecl(f *ast.File, imp *ast.ImportSpec) *ast.GenDecl {
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			for _, s := range gd.Specs {
				if s == imp {
					return gd
				}
			}
		}
	}
	return nil
}

// testOnlyPackages are the module packages that only tests import (test
// helpers such as a conformance suite): their code is test code.
func testOnlyPackages(pkgs []listed) map[string]bool {
	importedByTests := map[string]bool{}
	for _, p := range pkgs {
		for _, imp := range append(append([]string(nil), p.TestImports...), p.XTestImports...) {
			importedByTests[imp] = true
		}
	}
	out := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, p := range pkgs {
			if out[p.ImportPath] || !importedByTests[p.ImportPath] {
				continue
			}
			only := true
			for _, q := range pkgs {
				if out[q.ImportPath] || q.ImportPath == p.ImportPath {
					continue
				}
				for _, imp := range q.Imports {
					if imp == p.ImportPath {
						only = false
					}
				}
			}
			if only {
				out[p.ImportPath] = true
				changed = true
			}
		}
	}
	return out
}

// declare makes the nodes of a package's top-level declarations.
func (g *Graph) declare(ps *pkgSyntax, fset *token.FileSet) {
	d := &declarer{g: g, ps: ps, fset: fset}
	for _, pf := range ps.files {
		for _, decl := range pf.f.Decls {
			switch dd := decl.(type) {
			case *ast.FuncDecl:
				d.funcDecl(pf, dd)
			case *ast.GenDecl:
				d.genDecl(pf, dd)
			}
		}
	}
}

// declarer makes the nodes of one package's declarations.
type declarer struct {
	g     *Graph
	ps    *pkgSyntax
	fset  *token.FileSet
	inits int // init functions so far
}

// add makes the node of the source between from and to, hashed with
// extra.
func (d *declarer) add(key string, pf parsedFile, from, to token.Pos, extra ...[]byte) int {
	g := d.g
	start, end := d.fset.Position(from).Offset, d.fset.Position(to).Offset
	h := sha256.New()
	writeTokens(h, goTokens(pf.src[start:end]))
	for _, e := range extra {
		h.Write(e)
	}
	n := node{key: key, pkg: d.ps.test, file: pf.rel, start: start, end: end, testCode: pf.test}
	copy(n.hash[:], h.Sum(nil))
	for i := 2; ; i++ {
		if _, dup := g.byKey[n.key]; !dup {
			break
		}
		// the same name twice (blank variables, a test helper and a
		// function of another file set): numbered in file order
		n.key = key + "#" + strconv.Itoa(i)
	}
	key = n.key
	i := len(g.nodes)
	g.nodes = append(g.nodes, n)
	g.byKey[key] = i
	g.files[pf.rel] = append(g.files[pf.rel], i)
	return i
}

// funcDecl makes a function's or method's node (an init function's, a
// TestMain's and a test's are recorded as such).
func (d *declarer) funcDecl(pf parsedFile, fd *ast.FuncDecl) {
	g, ps := d.g, d.ps
	extra := directives(fd.Doc)
	if fd.Body == nil {
		extra = append(extra, ps.extras[:]...) // implemented in assembly (or linked)
	}
	if pf.cgo {
		extra = append(extra, ps.extras[:]...)
	}
	name := fd.Name.Name
	switch {
	case fd.Recv != nil && len(fd.Recv.List) > 0:
		name = "(" + recvType(fd.Recv.List[0].Type) + ")." + name
	case name == "init":
		d.inits++
		name = "init#" + strconv.Itoa(d.inits)
	}
	i := d.add(ps.path+"."+name, pf, fd.Pos(), fd.End(), extra)
	g.nodes[i].bodyless = fd.Body == nil
	if !pf.test && fd.Body != nil {
		if len(directives(fd.Doc)) == 0 {
			g.nodes[i].probed = true
			d.probe(pf, fd.Body.Lbrace, i)
		}
		d.literalProbes(pf, fd.Body, i)
	}
	switch {
	case fd.Recv == nil && fd.Name.Name == "init":
		g.inits[ps.test] = append(g.inits[ps.test], i)
	case fd.Recv == nil && fd.Name.Name == "TestMain" && pf.test:
		g.testMain[ps.test] = append(g.testMain[ps.test], i)
	case fd.Recv == nil && fd.Name.Name != "init":
		ps.scope[fd.Name.Name] = i
		if pf.test && isTest(fd) {
			id := ps.test + "." + fd.Name.Name
			if _, dup := g.tests[id]; !dup {
				g.tests[id] = i
				g.testPkg[id] = ps.test
			}
		}
	}
}

// genDecl makes the nodes of a const group (one for all: iota ties it),
// of each var spec (an initializer that calls anything runs at init) and
// of each type spec.
func (d *declarer) genDecl(pf parsedFile, gd *ast.GenDecl) {
	g, ps := d.g, d.ps
	extra := directives(gd.Doc)
	if pf.cgo {
		extra = append(extra, ps.extras[:]...)
	}
	switch gd.Tok {
	case token.CONST:
		i := d.add(ps.path+"."+firstName(gd), pf, gd.Pos(), gd.End(), extra)
		for _, s := range gd.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				ps.scope[n.Name] = i
			}
		}
	case token.VAR:
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			ex := append(append([]byte(nil), extra...), directives(vs.Doc)...)
			if strings.Contains(string(ex), "go:embed") || gd.Doc != nil && strings.Contains(gd.Doc.Text(), "go:embed") {
				ex = append(ex, ps.embeds[:]...)
			}
			from, to := vs.Pos(), vs.End()
			if len(gd.Specs) == 1 {
				from, to = gd.Pos(), gd.End()
			}
			i := d.add(ps.path+"."+vs.Names[0].Name, pf, from, to, ex)
			for _, n := range vs.Names {
				ps.scope[n.Name] = i
			}
			if !pf.test {
				for _, v := range vs.Values {
					d.literalProbes(pf, v, i)
				}
			}
			if callsAnything(vs.Values) {
				g.inits[ps.test] = append(g.inits[ps.test], i)
			}
		}
	case token.TYPE:
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			from, to := ts.Pos(), ts.End()
			if len(gd.Specs) == 1 {
				from, to = gd.Pos(), gd.End()
			}
			i := d.add(ps.path+"."+ts.Name.Name, pf, from, to, extra)
			ps.scope[ts.Name.Name] = i
		}
	}
}

// probe records a probe just after an opening brace, for node i.
func (d *declarer) probe(pf parsedFile, lbrace token.Pos, i int) {
	d.g.probes = append(d.g.probes, Probe{Package: d.ps.test, File: pf.rel, At: d.fset.Position(lbrace).Offset + 1, Node: int32(i)})
}

// literalProbes records a probe in every function literal's body under
// root, for node i (the declaration whose code the literal is).
func (d *declarer) literalProbes(pf parsedFile, root ast.Node, i int) {
	if root == nil {
		return
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok {
			d.probe(pf, lit.Body.Lbrace, i)
		}
		return true
	})
}

// EntryProbed reports whether declaration n is a function whose body's
// start is among the Probes: whether it ran is then known from them.
func (g *Graph) EntryProbed(n int32) bool {
	return n >= 0 && int(n) < len(g.nodes) && g.nodes[n].probed
}

// Probes returns the places an incremental run's schema counts which
// declarations ran: the start of every function body of the module's
// production code (not of test files or test-only packages; not of a
// function with a //go: directive, which a probe could break).
func (g *Graph) Probes() []Probe { return g.probes }

// directives returns the //go: lines of a doc comment (they change what
// a declaration compiles to: go:embed, go:linkname, go:noescape, ...).
func directives(doc *ast.CommentGroup) []byte {
	if doc == nil {
		return nil
	}
	var b []byte
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, "//go:") {
			b = append(b, c.Text...)
			b = append(b, '\n')
		}
	}
	return b
}

func isTest(d *ast.FuncDecl) bool {
	name := d.Name.Name
	for _, prefix := range []string{"Test", "Fuzz", "Example", "Benchmark"} {
		if strings.HasPrefix(name, prefix) && name != "TestMain" {
			return true
		}
	}
	return false
}

func firstName(d *ast.GenDecl) string {
	for _, s := range d.Specs {
		if vs, ok := s.(*ast.ValueSpec); ok && len(vs.Names) > 0 { //gathermut:equivalent(boundary) go/parser gives every const spec a name (one without does not parse)
			return vs.Names[0].Name
		}
	}
	return "const"
}

func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// callsAnything reports whether an initializer calls a function (or
// converts, which looks the same): then it runs code at init.
func callsAnything(values []ast.Expr) bool {
	found := false
	for _, v := range values {
		ast.Inspect(v, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit:
				return false // defined, not run
			case *ast.CallExpr:
				found = true
			}
			return !found
		})
	}
	return found
}

func (g *Graph) edge(from, to int) {
	if from >= 0 && to >= 0 && from != to {
		g.edges[from] = append(g.edges[from], int32(to))
	}
}

// nodeAt returns the node whose declaration spans offset in file, or -1.
func (g *Graph) nodeAt(file string, offset int) int {
	ns := g.files[file]
	best := -1
	for _, i := range ns {
		n := g.nodes[i]
		if n.start <= offset && offset < n.end {
			if best < 0 || n.end-n.start < g.nodes[best].end-g.nodes[best].start { //gathermut:equivalent(boundary) two declarations spanning one offset are never the same size: one holds the other, or they are the same range
				best = i
			}
		}
	}
	return best
}

func dedupe32(xs []int32) []int32 {
	if len(xs) < 2 {
		return xs
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] }) //gathermut:equivalent(boundary) equal ints are interchangeable: sorting by <= orders them as < does
	out := xs[:1]
	for _, x := range xs[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

// hashFiles hashes the named files of dir, in order: assembly and C
// sources without their comments and formatting (normalizeText), other
// files (syso objects, embedded files) as they are.
func hashFiles(dir string, lists ...[]string) [32]byte {
	h := sha256.New()
	for _, list := range lists {
		for _, name := range list {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil && isText(name) {
				data = normalizeText(data)
			}
			fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
			if err == nil {
				h.Write(data)
			}
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// globalHash folds in what every test binary depends on: the salt, go.mod,
// go.sum and every file under a testdata directory of the module (tests
// read them at run time, and which test reads which is not in the code).
func (g *Graph) globalHash(salt string) {
	h := sha256.New()
	fmt.Fprintf(h, "incremental v1\x00%s\x00%s\x00", g.module, salt)
	for _, name := range []string{"go.mod", "go.sum"} {
		data, _ := os.ReadFile(filepath.Join(g.root, name))
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	var testdata []string
	filepath.WalkDir(g.root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != g.root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != g.root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		rel, _ := filepath.Rel(g.root, path)
		rel = filepath.ToSlash(rel)
		if strings.Contains("/"+rel, "/testdata/") && d.Type().IsRegular() {
			testdata = append(testdata, rel)
		}
		return nil
	})
	sort.Strings(testdata)
	for _, rel := range testdata {
		data, _ := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(rel)))
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "%s\x00%x\x00", rel, sum)
	}
	copy(g.global[:], h.Sum(nil))
}

// isText reports whether a file is assembly or C/C++ source, hashed
// without comments and formatting.
func isText(name string) bool {
	switch filepath.Ext(name) {
	case ".s", ".S", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hip", ".cu", ".cuh":
		return true
	}
	return false
}
