package schedule

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/load"
	"gathermut/mutate/schema"
	"gathermut/mutate/testbin"
)

// wrapModule is a package whose functions count hits by hand (sites 0-4,
// as a schema would) and whose tests cover every case of the single-pass
// baseline: plain tests, a skip, a cleanup, parallel subtests, a test that
// calls t.Parallel directly and one that calls it through a helper, a test
// that passes alone and fails after another (order-dependent), a TestMain
// and package initialization that make hits before any test, an external
// test package, a fuzz target and an example.
var wrapModule = map[string]string{
	"go.mod": "module m\n\ngo 1.26\n",
	"p/p.go": `package p

var initHit = func() int { gathermutHits[3] = 1; return 0 }()

var counter int

func A() int { gathermutHits[0] = 1; return 1 }

func B() int { gathermutHits[1] = 1; return 2 }

func C() int { gathermutHits[2] = 1; return 3 }

func Count() int { gathermutHits[4] = 1; counter++; return counter }

var table []int

// Table fills its cache once per process (site 5).
func Table() []int {
	if table == nil {
		gathermutHits[5] = 1
		table = []int{1, 2}
	}
	return table
}
`,
	"p/p_test.go": `package p

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	B()
	os.Exit(m.Run())
}

func TestA(t *testing.T) {
	if A() != 1 {
		t.Fatal("A")
	}
}

func TestAB(t *testing.T) { A(); B() }

func TestSkip(t *testing.T) {
	C()
	t.Skip("not here")
}

func TestCleanup(t *testing.T) { t.Cleanup(func() { C() }) }

func TestSubParallel(t *testing.T) {
	for i := 0; i < 2; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			Count()
		})
	}
}

func TestParallel(t *testing.T) {
	t.Parallel()
	C()
}

func TestOrder(t *testing.T) {
	if Count() != 1 {
		t.Fatal("another test counted first")
	}
}

func FuzzA(f *testing.F) {
	f.Add(1)
	f.Fuzz(func(t *testing.T, x int) { A() })
}

func TestTable1(t *testing.T) { Table() }

func TestTable2(t *testing.T) { Table() }

func parallel(t *testing.T) { t.Parallel() }

func TestHelperParallel(t *testing.T) {
	parallel(t)
	A()
}
`,
	"p/x_test.go": `package p_test

import (
	"fmt"
	"testing"

	"m/p"
)

func TestX(t *testing.T) { p.C() }

func ExampleA() {
	fmt.Println(p.A())
	// Output: 1
}
`,
}

// buildWrapModule writes wrapModule with a hand-made schema support
// file, wraps its tests and builds its test binary through the overlay.
func buildWrapModule(t *testing.T, sites int) (*load.Program, string, *wrapInfo) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range wrapModule {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pdir := filepath.Join(dir, "p")
	if err := os.WriteFile(filepath.Join(pdir, "0support.go"), schema.Support("p", schema.DefaultNames, sites), 0o644); err != nil {
		t.Fatal(err)
	}
	// the hand-written hits use the default names, which the wrap must
	// avoid: it picks its own prefix
	w, files, err := wrapPackageTests(pdir, sites)
	if err != nil || w == nil {
		t.Fatalf("wrap: %v %v", w, err)
	}
	var wrapped []string
	for name := range w.index {
		wrapped = append(wrapped, name)
	}
	sort.Strings(wrapped)
	if want := []string{"FuzzA", "TestA", "TestAB", "TestCleanup", "TestHelperParallel", "TestOrder", "TestSkip", "TestSubParallel", "TestTable1", "TestTable2", "TestX"}; !slices.Equal(wrapped, want) {
		t.Errorf("wrapped %v, want %v", wrapped, want)
	}
	replace := map[string]string{}
	for orig, src := range files {
		dst := filepath.Join(t.TempDir(), filepath.Base(orig))
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			t.Fatal(err)
		}
		replace[orig] = dst
	}
	overlay := filepath.Join(t.TempDir(), "overlay.json")
	if err := testbin.WriteOverlay(overlay, replace); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "p.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, "-overlay", overlay, "./p")
	cmd.Dir, cmd.Env = dir, load.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	prog, err := load.LoadGraph(dir)
	if err != nil {
		t.Fatal(err)
	}
	return prog, bin, w
}

// TestSinglePassBaseline: a package's baseline in one process gives each
// test the status and the schema hits its run alone gives (the mode before
// it), and runs again alone exactly the tests the process cannot vouch
// for: not wrapped (an example, a test calling t.Parallel), overlapped (a
// parallel test through a helper, and the tests that ran while it
// waited), failed with the others (the order-dependent test, then flaky
// in both modes).
func TestSinglePassBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	const sites = 8 // 0-5 used
	prog, bin, w := buildWrapModule(t, sites)
	ctx := context.Background()
	o := packageOptions{Binary: bin, Hits: sites, TempDir: t.TempDir(), Timeout: time.Minute, Slots: newSlots(2)}
	old, err := runPackageBaseline(ctx, prog, "m/p", o)
	if err != nil {
		t.Fatal(err)
	}
	one, err := runSinglePass(ctx, prog, "m/p", w, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(old.Names, one.Names) || len(old.Names) != 13 {
		t.Fatalf("tests %v, then %v", old.Names, one.Names)
	}
	same := func(one *PackageBaseline, lazy bool) {
		t.Helper()
		for _, name := range old.Names {
			a, b := old.Tests[name], one.Tests[name]
			if name == "TestTable2" && !lazy {
				// the documented difference: the cache TestTable1 filled
				// counts for it alone
				if a.hits[5] != 1 || b.hits[5] != 0 {
					t.Errorf("TestTable2: the once-filled cache: hits %v alone, %v in one pass", a.hits, b.hits)
				}
				continue
			}
			if a.Status != b.Status || string(a.hits) != string(b.hits) {
				t.Errorf("%s: %s with hits %v alone and together; %s with hits %v in one pass", name, a.Status, a.hits, b.Status, b.hits)
			}
		}
	}
	same(one, false)
	if s := one.Tests["TestOrder"].Status; s != BaseFlaky {
		t.Errorf("TestOrder: %s, want flaky (it passes alone only)", s)
	}
	if got := one.Tests["TestA"].hits; string(got) != string([]byte{1, 1, 0, 1, 0, 0, 0, 0}) {
		t.Errorf("TestA's hits %v: its own (0), TestMain's (1) and the package's initialization (3)", got)
	}
	// the example, TestParallel, TestOrder (failed with the others),
	// TestHelperParallel and TestX (which ran while it waited)
	if one.alone != 5 || len(one.Commands) != 6 {
		t.Errorf("%d tests run again alone, %d processes; want 5 and 6:\n%v", one.alone, len(one.Commands), one.Commands)
	}

	// GATHERMUT_CHECK_BASELINE: every test alone too, the difference said
	// and mended
	checked, err := runSinglePass(ctx, prog, "m/p", w, o)
	if err != nil {
		t.Fatal(err)
	}
	var again []string
	for _, name := range checked.Names {
		if _, ok := w.index[name]; !ok || name == "TestOrder" || name == "TestHelperParallel" || name == "TestX" {
			again = append(again, name)
		}
	}
	var said strings.Builder
	if err := checkSinglePass(ctx, prog, checked, checked.Names, again, o, &said); err != nil {
		t.Fatal(err)
	}
	same(checked, true)
	if !strings.Contains(said.String(), "m/p.TestTable2: pass alone, pass with the others; 1 sites ran alone only") ||
		!strings.Contains(said.String(), "m/p: 1 of 8 tests covered more alone") {
		t.Errorf("the check said:\n%s", said.String())
	}
}
