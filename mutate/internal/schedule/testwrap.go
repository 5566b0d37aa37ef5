package schedule

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gathermut/mutate/load"
	"gathermut/mutate/schema"
)

// One baseline pass per package. A schema baseline runs each observing
// package's tests in ONE process and still knows which schema sites each
// test ran: the render wraps every top-level test and fuzz target of the
// package's _test.go files (the original is renamed, and a function of the
// original name marks the test's start before calling it), so the test
// binary knows the running test. The hits file stays what the support file
// maps; a second file (GATHERMUT_TESTHITS) gets, per test, a copy of the
// hits its run left, the hits made before the first test (package
// initialization, TestMain: every test's alone run makes them too), and a
// status byte per test:
//
//	header   16 bytes: [0,4) tests running now, [4,8) the first test began
//	status   n bytes:  0 not begun, 1 running, 2 done alone, 3 overlapped
//	prelude  S bytes:  the hits made before the first test began
//	test i   S bytes:  the hits made while test i ran (its subtests and
//	                   cleanups included)
//
// where S is the hits file's size and n the number of wrapped tests. A
// test's window runs from its start to its last cleanup (registered
// first, so it runs after the test's own cleanups and parallel subtests).
// A test that starts while another one's window is open (a test that calls
// t.Parallel, or one called from another) marks both overlapped: their
// hits cannot be told apart. Tests that call t.Parallel directly are not
// wrapped at all. A test that is not wrapped (an example, a parallel
// test), overlapped, failed, or did not finish (a crash, the baseline
// timeout) in the shared process runs again alone, as every test did
// before; its status and coverage come from that run.
//
// What the shared process cannot give: a test whose coverage depends on
// what an earlier test left behind (a cache filled once per process, a
// sync.Once) shows less coverage than it would alone; the code runs for
// the first test that needs it. A mutant of such code still runs that
// first test, whose coverage has it.

// wrapInfo is an observing package's tests as a render wrapped them.
type wrapInfo struct {
	index map[string]int // wrapped test -> its index in the record file
	sites int            // S: the hits file's size
}

// recordSize is the size of the per-test record file.
func (w *wrapInfo) recordSize() int { return 16 + len(w.index) + (len(w.index)+1)*w.sites }

// testHits returns test i's hits from a record, with the prelude's, or
// nil when the test's window did not close alone.
func (w *wrapInfo) testHits(rec []byte, i int) []byte {
	n := len(w.index)
	if len(rec) < w.recordSize() || i < 0 || i >= n || rec[16+i] != 2 {
		return nil
	}
	prelude := rec[16+n : 16+n+w.sites]
	own := rec[16+n+(i+1)*w.sites : 16+n+(i+2)*w.sites]
	out := make([]byte, w.sites)
	for s := range out {
		out[s] = prelude[s] | own[s]
	}
	return out
}

// renderTestWrappers wraps the tests of every package that observes one
// of the render's packages (see the comment above) into the overlay
// replace; it returns each package's wrapped tests. A package whose test
// files do not parse is left as it is (its tests run alone).
func (sr *schemaRun) renderTestWrappers(r *render, replace map[string]string) (map[string]*wrapInfo, error) {
	observers := map[string]bool{}
	for p := range sr.byPkg {
		for _, o := range sr.s.prog.Observers(p) {
			observers[o] = true
		}
	}
	out := map[string]*wrapInfo{}
	for i, obs := range sortedKeys(observers) {
		dir := sr.s.prog.Dir(obs)
		if dir == "" {
			continue
		}
		w, files, err := wrapPackageTests(dir, r.sites)
		if err != nil || w == nil {
			continue
		}
		outDir := filepath.Join(r.dir, fmt.Sprintf("t%d", i))
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return nil, err
		}
		for orig, src := range files {
			dst := filepath.Join(outDir, filepath.Base(orig))
			if err := os.WriteFile(dst, src, 0o644); err != nil {
				return nil, err
			}
			replace[orig] = dst
			r.origin[dst] = wrapOrigin(sr.s.root, orig, obs)
		}
		out[obs] = w
	}
	return out, nil
}

// wrapOrigin says what a file of a package's wrapped tests is, in the
// user's terms: a test file of the module with its tests renamed, or the
// wrapper the tool adds.
func wrapOrigin(root, orig, pkg string) string {
	base := filepath.Base(orig)
	if strings.HasPrefix(base, "gathermut_wrap") || strings.HasPrefix(base, "gathermut_xwrap") {
		return "the test wrapper mutate adds to the tests of package " + pkg + " (" + base + ")"
	}
	rel, err := filepath.Rel(root, orig)
	if err != nil {
		rel = base
	}
	return filepath.ToSlash(rel) + " (as mutate rewrote it to wrap its tests)"
}

// testFunc is one test or fuzz target of a package's _test.go files.
type testFunc struct {
	name, param string
	external    bool
	start, end  int // the name's bytes
	parallel    bool
}

// testFile is one _test.go file and its tests.
type testFile struct {
	path  string
	src   []byte
	tests []testFunc
}

// testFiles is a package's parsed _test.go files: count says how often
// each test name is declared, pkgName the package name of the package's
// own test files (false) and of its external test package (true).
type testFiles struct {
	files   []testFile
	count   map[string]int
	pkgName map[bool]string
}

// wrapPackageTests renders a package's wrapped test files: it returns the
// tests wrapped and the files of the overlay (absolute path in the package
// directory -> content), or nil when no test is wrapped.
func wrapPackageTests(dir string, sites int) (*wrapInfo, map[string][]byte, error) {
	names, err := schemaNames(dir)
	if err != nil {
		return nil, nil, err
	}
	tf, err := parseTestFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	w := &wrapInfo{index: map[string]int{}, sites: sites}
	files, order := tf.rename(names, w)
	if len(order) == 0 {
		return nil, nil, nil
	}
	for _, external := range []bool{false, true} {
		var body strings.Builder
		for _, t := range order {
			if t.external == external {
				fmt.Fprintf(&body, "\nfunc %[1]s(tb *%[2]swtesting.%[3]s) { %[2]sWBegin(tb, %[4]d); %[2]sW%[1]s(tb) }\n",
					t.name, names.Prefix, t.param, w.index[t.name])
			}
		}
		if body.Len() == 0 {
			continue
		}
		base := "gathermut_wrap"
		if external {
			base = "gathermut_xwrap"
		}
		file := filepath.Join(dir, base+"_test.go")
		for j := 0; fileExists(file); j++ {
			file = filepath.Join(dir, fmt.Sprintf("%s%d_test.go", base, j))
		}
		files[file] = append(wrapSupport(tf.pkgName[external], names, sites, len(order)), body.String()...)
	}
	return w, files, nil
}

// parseTestFiles parses the _test.go files of dir that build here and
// finds their tests.
func parseTestFiles(dir string) (*testFiles, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(matches)
	out := &testFiles{count: map[string]int{}, pkgName: map[bool]string{}}
	fset := token.NewFileSet()
	for _, path := range matches {
		if ok, err := build.Default.MatchFile(dir, filepath.Base(path)); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		external := strings.HasSuffix(f.Name.Name, "_test")
		out.pkgName[external] = f.Name.Name
		tf := testFile{path: path, src: src}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			param, ok := testParam(fd)
			if !ok {
				continue
			}
			out.count[fd.Name.Name]++
			tf.tests = append(tf.tests, testFunc{name: fd.Name.Name, param: param, external: external,
				start: fset.Position(fd.Name.Pos()).Offset, end: fset.Position(fd.Name.End()).Offset, parallel: callsParallel(fd)})
		}
		out.files = append(out.files, tf)
	}
	return out, nil
}

// rename gives each test it wraps its private name in the files' text,
// numbering it in w; it returns the rewritten files and the wrapped tests
// in order. A test that calls t.Parallel, or a name declared twice (in the
// package and its external test package: one name to go test), is left as
// it is: it runs alone.
func (tf *testFiles) rename(names schema.Names, w *wrapInfo) (map[string][]byte, []testFunc) {
	var order []testFunc
	files := map[string][]byte{}
	for _, f := range tf.files {
		var b bytes.Buffer
		cur := 0
		for _, t := range f.tests {
			if t.parallel || tf.count[t.name] > 1 {
				continue
			}
			b.Write(f.src[cur:t.start])
			b.WriteString(names.Prefix + "W" + t.name)
			cur = t.end
			w.index[t.name] = len(order)
			order = append(order, t)
		}
		if cur > 0 {
			b.Write(f.src[cur:])
			files[f.path] = b.Bytes()
		}
	}
	return files, order
}

// testParam reports whether fd is a test or fuzz target go test runs (the
// rules of package load's test names), and its parameter's type name.
func testParam(fd *ast.FuncDecl) (string, bool) {
	if fd.Recv != nil || fd.Type.TypeParams != nil || fd.Body == nil || fd.Type.Params.NumFields() != 1 || fd.Type.Results.NumFields() != 0 {
		return "", false
	}
	name := fd.Name.Name
	var param string
	switch {
	case load.IsTestName(name, "Test") && name != "TestMain":
		param = "T"
	case load.IsTestName(name, "Fuzz"):
		param = "F"
	default:
		return "", false
	}
	star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return "", false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != param {
		return "", false
	}
	return param, true
}

// callsParallel reports whether a test's own body (not a function literal
// in it) calls Parallel on its parameter.
func callsParallel(fd *ast.FuncDecl) bool {
	params := fd.Type.Params.List[0].Names
	if len(params) == 0 {
		return false
	}
	param := params[0].Name
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == param {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// wrapSupport is the head of a package's wrapper file: the record's
// mapping and the function each wrapper calls first (wrapSupportText).
func wrapSupport(pkg string, names schema.Names, sites, tests int) []byte {
	return []byte(fmt.Sprintf(wrapSupportText, pkg, names.Prefix, max(sites, 1), tests))
}

// wrapSupportText is wrapSupport's file: %[1]s the package name, %[2]s the
// schema's prefix, %[3]d the hits file's size, %[4]d the wrapped tests.
// Like every file the tool adds to a user's package, it is Go 1.16: the
// go line of the module (none means go1.16) sets the language version of
// the files it builds with, overlays included, so no clear, min, max,
// range over an integer, generics or any (see mutate/doc.go, "Old go
// lines").
const wrapSupportText = `// Code generated by gathermut for a schema baseline; it exists only in a build overlay.

package %[1]s

import (
	%[2]swatomic "sync/atomic"
	%[2]swos "os"
	%[2]swsyscall "syscall"
	%[2]swtesting "testing"
	%[2]swunsafe "unsafe"
)

const (
	%[2]sWSites = %[3]d
	%[2]sWTests = %[4]d
)

// %[2]sWLive is the hits file every schema package maps; %[2]sWRec the
// per-test record (see mutate/internal/schedule/testwrap.go). Both nil unless
// GATHERMUT_TESTHITS names a record.
var %[2]sWLive, %[2]sWRec = %[2]sWMapAll()

func %[2]sWMapAll() ([]byte, []byte) {
	rec := %[2]swos.Getenv("GATHERMUT_TESTHITS")
	live := %[2]swos.Getenv("GATHERMUT_HITS")
	if rec == "" || live == "" {
		return nil, nil
	}
	l := %[2]sWMap(live, %[2]sWSites)
	r := %[2]sWMap(rec, 16+%[2]sWTests+(%[2]sWTests+1)*%[2]sWSites)
	if l == nil || r == nil {
		return nil, nil
	}
	return l, r
}

func %[2]sWMap(path string, size int) []byte {
	f, err := %[2]swos.OpenFile(path, %[2]swos.O_RDWR, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := %[2]swsyscall.Mmap(int(f.Fd()), 0, size, %[2]swsyscall.PROT_READ|%[2]swsyscall.PROT_WRITE, %[2]swsyscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// %[2]sWBegin opens test i's window: the hits start empty, and its first
// cleanup (so the last to run) copies them into the record.
func %[2]sWBegin(tb %[2]swtesting.TB, i int) {
	rec, live := %[2]sWRec, %[2]sWLive
	if rec == nil {
		return
	}
	running := (*uint32)(%[2]swunsafe.Pointer(&rec[0]))
	begun := (*uint32)(%[2]swunsafe.Pointer(&rec[4]))
	status := rec[16 : 16+%[2]sWTests]
	if %[2]swatomic.CompareAndSwapUint32(begun, 0, 1) {
		copy(rec[16+%[2]sWTests:16+%[2]sWTests+%[2]sWSites], live)
	}
	if %[2]swatomic.AddUint32(running, 1) > 1 {
		for j := range status {
			if status[j] == 1 {
				status[j] = 3
			}
		}
		status[i] = 3
	} else {
		status[i] = 1
	}
	for j := range live {
		live[j] = 0
	}
	tb.Cleanup(func() {
		copy(rec[16+%[2]sWTests+(i+1)*%[2]sWSites:16+%[2]sWTests+(i+2)*%[2]sWSites], live)
		if %[2]swatomic.AddUint32(running, ^uint32(0)) == 0 && status[i] == 1 {
			status[i] = 2
		} else {
			status[i] = 3
		}
	})
}
`

// runBaseline runs an observing package's baseline on its schema binary:
// in one pass when the render wrapped its tests, else each test alone and
// all together.
func (sr *schemaRun) runBaseline(ctx context.Context, obs string, b *binary) (*PackageBaseline, error) {
	o := packageOptions{
		Binary: b.path, Hits: b.r.sites, TempDir: sr.s.Temp, Timeout: sr.s.cfg.BaselineTimeout.D(), Slots: sr.s.slots,
		GPU: sr.gpu(obs), Overlay: b.r.overlay,
	}
	if w := b.r.tests[obs]; w != nil {
		return runSinglePass(ctx, sr.s.prog, obs, w, o)
	}
	return runPackageBaseline(ctx, sr.s.prog, obs, o)
}

// passNote says how a schema baseline ran its tests, for the progress
// line.
func (pb *PackageBaseline) passNote() string {
	if pb.single {
		return fmt.Sprintf(", one process, %d run again alone", pb.alone)
	}
	return ""
}
