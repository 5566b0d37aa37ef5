package schedule

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc/pool"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// Test statuses in the baseline.
const (
	BasePass  = "pass"
	BaseFail  = "fail"  // failed in both runs: the baseline is red
	BaseSkip  = "skip"  // skipped in both runs
	BaseFlaky = "flaky" // different results in the two runs: excluded
	BaseGone  = "absent"
)

// Baseline is the unmutated test suite of every observing package, run
// twice: once test by test with per-test coverage, once all together.
type Baseline struct {
	Packages map[string]*PackageBaseline
	Flaky    []string // "pkg.Test"
	Failing  []string // "pkg.Test"
	Duration time.Duration
	Commands []string
	// binaries are the test binaries RunBaseline built, to time their
	// start-up (timeouts.go).
	binaries []startupBinary
}

// PackageBaseline holds one observing package's tests.
type PackageBaseline struct {
	Path     string
	Dir      string
	Tests    map[string]*TestBaseline
	Names    []string // sorted
	Flaky    []string // "pkg.Test (...)"
	Failing  []string // "pkg.Test"
	Commands []string
	Elapsed  time.Duration
	// render is the schema the hits of a schema baseline refer to.
	render *render
	// covered, for a baseline from the cache, is each test's covered
	// mutant ids.
	covered map[string]map[string]bool
	// plain is set for a baseline run without the schema (a test failed
	// only on the schema binary): its mutants run on builds of their own.
	plain bool
	// single is set for a baseline of one process (singlepass.go); alone
	// counts the tests it ran again alone.
	single bool
	alone  int
}

// TestBaseline is one top-level test's baseline.
type TestBaseline struct {
	Name    string
	Status  string
	Elapsed time.Duration // the longer of the two runs
	Skip    string        // the skip message
	Output  string        // for failing and flaky tests
	blocks  map[string][]block
	hits    []byte // schema sites the test ran (schemata)
}

// HitSite reports whether the test ran schema site s.
func (t *TestBaseline) HitSite(s int) bool { return s >= 0 && s < len(t.hits) && t.hits[s] != 0 }

type block struct {
	sl, sc, el, ec int
	hit            bool
}

// Red reports whether the baseline has failing tests.
func (b *Baseline) Red() bool { return len(b.Failing) > 0 }

// Covers reports whether the test executed the mutant's position in its
// baseline run. Positions outside function bodies (package-level
// initializers) are executed before any test, so every test covers them,
// and so does an assembly mutant, whose routine a coverage profile cannot
// show.
// A position no coverage block spans (a switch case expression, which the
// cover tool leaves between blocks) counts as executed when the test
// executed any block of the enclosing function body.
func (t *TestBaseline) Covers(m mutant.Mutant) bool {
	if !m.InBody || m.Assembly() {
		// Go's coverage does not see assembly: every test may enter the
		// routine (with schemata, the routine's hits tell which did)
		return true
	}
	instrumented := false
	for _, b := range t.blocks[m.File] {
		// blocks and mutants are [start, end) ranges of (line, column)
		if before(b.sl, b.sc, m.End.Line, m.End.Column) && before(m.Pos.Line, m.Pos.Column, b.el, b.ec) {
			if b.hit {
				return true
			}
			instrumented = true
		}
	}
	if instrumented {
		return false
	}
	for _, b := range t.blocks[m.File] {
		if b.hit && !before(b.sl, b.sc, m.BodyStart.Line, m.BodyStart.Column) && !before(m.BodyEnd.Line, m.BodyEnd.Column, b.el, b.ec) {
			return true
		}
	}
	return false
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || (l1 == l2 && c1 < c2) }

// BaselineOptions configure RunBaseline.
type BaselineOptions struct {
	Jobs     int
	TempDir  string
	Packages []string      // observing packages
	Cover    []string      // packages to collect coverage of (the mutated ones)
	Timeout  time.Duration // the limit on each baseline process
	Slots    slots         // shared process slots (nil: Jobs of its own)
	// Progress is called as tests finish (done of total), from one
	// goroutine at a time.
	Progress func(done, total int)
}

// RunBaseline builds every observing package's test binary once with
// coverage and runs its tests twice (the mode without schemata).
func RunBaseline(ctx context.Context, prog *load.Program, o BaselineOptions) (*Baseline, error) {
	start := time.Now()
	if o.Slots == nil {
		o.Slots = newSlots(o.Jobs)
	}
	b := &Baseline{Packages: map[string]*PackageBaseline{}}
	var mu sync.Mutex
	bins := map[string]string{}
	p := pool.New().WithErrors().WithContext(ctx).WithCancelOnError()
	for i, path := range o.Packages {
		bin := filepath.Join(o.TempDir, fmt.Sprintf("base%d.test", i))
		p.Go(func(ctx context.Context) error {
			cover := coverFor(prog, path, o.Cover)
			args := []string{"test", "-c", "-o", bin}
			if len(cover) > 0 {
				args = append(args, "-cover", "-covermode=set", "-coverpkg="+strings.Join(cover, ","))
			}
			args = append(args, path)
			if err := o.Slots.acquire(ctx); err != nil {
				return err
			}
			cmdline, out, err := testbin.Go(ctx, prog.Root, args...)
			o.Slots.release()
			mu.Lock()
			defer mu.Unlock()
			b.Commands = append(b.Commands, cmdline)
			if err != nil {
				return fmt.Errorf("schedule: baseline build of %s failed: %v\n%s", path, err, out)
			}
			bins[path] = bin
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	for _, path := range o.Packages {
		b.binaries = append(b.binaries, startupBinary{path: bins[path], dir: prog.Dir(path), pkg: path})
	}
	total, done := 0, 0
	for _, path := range o.Packages {
		if n := len(prog.Tests(path)); n > 0 {
			total += n + 1
		}
	}
	progress := func() {
		mu.Lock()
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
		mu.Unlock()
	}
	p = pool.New().WithErrors().WithContext(ctx).WithCancelOnError()
	for _, path := range o.Packages {
		p.Go(func(ctx context.Context) error {
			pb, err := runPackageBaseline(ctx, prog, path, packageOptions{
				Binary: bins[path], Cover: true, TempDir: o.TempDir, Timeout: o.Timeout, Slots: o.Slots, Progress: progress,
				CoverPkgs: coverFor(prog, path, o.Cover),
			})
			if err != nil {
				return err
			}
			mu.Lock()
			b.add(pb)
			mu.Unlock()
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	b.sort()
	b.Duration = time.Since(start)
	return b, nil
}

// add takes in one package's baseline.
func (b *Baseline) add(pb *PackageBaseline) {
	b.Packages[pb.Path] = pb
	b.Flaky = append(b.Flaky, pb.Flaky...)
	b.Failing = append(b.Failing, pb.Failing...)
	b.Commands = append(b.Commands, pb.Commands...)
}

func (b *Baseline) sort() {
	sort.Strings(b.Flaky)
	sort.Strings(b.Failing)
	sort.Strings(b.Commands)
}

// packageOptions configure one package's baseline.
type packageOptions struct {
	Binary string
	Cover  bool // the binary was built with -cover: each test writes a profile
	Hits   int  // a schema binary: each test maps a hits file of this size
	// HitsEnv names the variable the hits file is given in (default
	// GATHERMUT_HITS; the kernel schema's is GATHERMUT_KERNEL_HITS).
	HitsEnv string
	Env     []string // more environment for every test process
	TempDir string
	Timeout time.Duration
	Slots   slots
	// GPU, when set, are slots each test process also takes (its tests
	// use the GPU).
	GPU slots
	// Progress is called after each test process.
	Progress func()
	// Overlay is the -overlay the binary was built from (a schema's): the
	// go commands its tests run build with it too (testbin.Options.Overlay).
	Overlay string
	// CoverPkgs, with Cover, are the packages whose coverage the binaries
	// the tests build report (testbin.Options.NestedCover).
	CoverPkgs []string
}

var profiles atomic.Int64

// runPackageBaseline runs one observing package's tests twice: each alone
// (with its coverage profile or schema hits), then all together. A test
// with different results in the two runs is flaky; one failing in both
// makes the baseline red.
func runPackageBaseline(ctx context.Context, prog *load.Program, path string, o packageOptions) (*PackageBaseline, error) {
	start := time.Now()
	pr := &packageRun{prog: prog, o: o, pb: &PackageBaseline{Path: path, Dir: prog.Dir(path), Tests: map[string]*TestBaseline{}}, firsts: map[string]*firstRun{}}
	names := prog.Tests(path)
	if len(names) == 0 {
		return pr.pb, nil
	}
	p := pool.New().WithErrors().WithContext(ctx).WithCancelOnError()
	for _, name := range names {
		p.Go(func(ctx context.Context) error { return pr.alone(ctx, name) })
	}
	p.Go(pr.together)
	if err := p.Wait(); err != nil {
		return nil, err
	}
	pb := pr.pb
	for _, name := range names {
		pr.judge(name)
	}
	sort.Strings(pb.Names)
	sort.Strings(pb.Flaky)
	sort.Strings(pb.Failing)
	pb.Elapsed = time.Since(start)
	return pb, nil
}

// packageRun is one package's baseline in progress.
type packageRun struct {
	prog *load.Program
	o    packageOptions
	pb   *PackageBaseline

	mu     sync.Mutex
	firsts map[string]*firstRun // each test's run alone
	all    *testbin.Result      // the run of every test together
}

// firstRun is a test's run alone: its result, and what it covered.
type firstRun struct {
	action, output string
	elapsed        time.Duration
	blocks         map[string][]block
	hits           []byte
}

// run runs one test process in a slot.
func (pr *packageRun) run(ctx context.Context, opts testbin.Options) (*testbin.Result, error) {
	if pr.o.GPU != nil {
		if err := pr.o.GPU.acquire(ctx); err != nil {
			return nil, err
		}
		defer pr.o.GPU.release()
	}
	if err := pr.o.Slots.acquire(ctx); err != nil {
		return nil, err
	}
	defer pr.o.Slots.release()
	opts.Env = append(append([]string(nil), pr.o.Env...), opts.Env...)
	opts.Overlay = pr.o.Overlay
	res, err := testbin.Run(ctx, opts)
	if pr.o.Progress != nil {
		pr.o.Progress()
	}
	return res, err
}

// alone runs one test by itself, recording what it covered: the schema
// sites it hit, or its coverage profile.
func (pr *packageRun) alone(ctx context.Context, name string) error {
	o, pb := pr.o, pr.pb
	profile := filepath.Join(o.TempDir, fmt.Sprintf("cover%d.out", profiles.Add(1)))
	opts := testbin.Options{Binary: o.Binary, Dir: pb.Dir, Package: pb.Path, Run: "^" + regexp.QuoteMeta(name) + "$", Timeout: o.Timeout}
	switch {
	case o.Hits > 0:
		if err := os.WriteFile(profile, make([]byte, o.Hits), 0o644); err != nil {
			return err
		}
		hitsEnv := o.HitsEnv
		if hitsEnv == "" {
			hitsEnv = "GATHERMUT_HITS"
		}
		opts.Env = []string{hitsEnv + "=" + profile, "GATHERMUT_MUTANT=0"}
	case o.Cover:
		opts.Cover, opts.NestedCover = profile, pr.o.CoverPkgs
	}
	res, err := pr.run(ctx, opts)
	if err != nil {
		return err
	}
	f := &firstRun{action: BaseGone}
	if t, ok := res.Tests[name]; ok {
		f.action, f.output, f.elapsed = t.Action, t.Output, t.Elapsed
	}
	if f.action == "run" {
		f.action = BaseFail // crashed mid-test, or hung
		f.output += res.Output
		if res.TimedOut {
			f.output += fmt.Sprintf("\n[stopped after %s, the baseline timeout]", o.Timeout)
		}
	}
	switch {
	case o.Hits > 0:
		f.hits, err = os.ReadFile(profile)
		os.Remove(profile)
	case o.Cover:
		f.blocks, err = readProfile(profile, pr.prog.Module)
		os.Remove(profile)
	}
	if err != nil {
		return err
	}
	pr.mu.Lock()
	pr.firsts[name] = f
	pb.Commands = append(pb.Commands, res.Command)
	pr.mu.Unlock()
	return nil
}

// together runs every test of the package in one process.
func (pr *packageRun) together(ctx context.Context) error {
	res, err := pr.run(ctx, testbin.Options{Binary: pr.o.Binary, Dir: pr.pb.Dir, Package: pr.pb.Path, Timeout: pr.o.Timeout})
	if err != nil {
		return err
	}
	pr.mu.Lock()
	pr.all = res
	pr.pb.Commands = append(pr.pb.Commands, res.Command)
	pr.mu.Unlock()
	return nil
}

// judge sets a test's baseline status from its two runs: flaky when they
// differ, else what both say.
func (pr *packageRun) judge(name string) {
	pb, f := pr.pb, pr.firsts[name]
	t := &TestBaseline{Name: name, Elapsed: f.elapsed, blocks: f.blocks, hits: f.hits, Output: f.output}
	second := BaseGone
	if s, ok := pr.all.Tests[name]; ok {
		second = s.Action
		if second == "run" {
			second = BaseFail
		}
		t.Elapsed = max(t.Elapsed, s.Elapsed)
		if second != f.action {
			t.Output += s.Output
		}
	}
	pb.file(t, f.action, second, f.output)
}

// file sets a test's status from its two results (alone and with the
// others) and files it in the package baseline: different results make it
// flaky, a failure in both makes the baseline red; skipOutput holds a
// skip's message.
func (pb *PackageBaseline) file(t *TestBaseline, alone, together, skipOutput string) {
	switch {
	case alone != together:
		t.Status = BaseFlaky
		pb.Flaky = append(pb.Flaky, fmt.Sprintf("%s.%s (%s alone, %s with the others)", pb.Path, t.Name, alone, together))
	default:
		t.Status = alone
	}
	if t.Status == BaseFail {
		pb.Failing = append(pb.Failing, pb.Path+"."+t.Name)
	}
	if t.Status == BaseSkip {
		t.Skip = testbin.SkipMessage(skipOutput)
	}
	pb.Tests[t.Name] = t
	pb.Names = append(pb.Names, t.Name)
}

// slots bounds the child processes a run has at once: baseline tests,
// builds and mutant tests share them.
type slots chan struct{}

func newSlots(n int) slots { return make(slots, max(n, 1)) }

func (s slots) acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s slots) release() { <-s }

// coverFor lists the mutated packages whose code the observing package's
// tests can reach.
func coverFor(prog *load.Program, observer string, mutated []string) []string {
	var out []string
	for _, m := range mutated {
		for _, o := range prog.Observers(m) {
			if o == observer {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// readProfile reads a "mode: set" coverage profile: every block, executed
// or not, by module-relative file.
func readProfile(path, module string) (map[string][]block, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil // the binary covers nothing (no -coverpkg match)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// name.go:12.3,14.5 2 1
		fileAndRange, rest, ok := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("exec: coverage profile %s: bad line %q", path, line)
		}
		bl := block{hit: fields[2] != "0"}
		if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &bl.sl, &bl.sc, &bl.el, &bl.ec); err != nil {
			return nil, fmt.Errorf("exec: coverage profile %s: bad range in %q", path, line)
		}
		rel := strings.TrimPrefix(fileAndRange, module+"/")
		out[rel] = append(out[rel], bl)
	}
	return out, sc.Err()
}

// testTimeout is one test's limit in a mutant's run: factor times its
// baseline time, plus the floor.
func testTimeout(t *TestBaseline, factor float64, floor time.Duration) time.Duration {
	return time.Duration(factor*float64(t.Elapsed)) + floor
}

// timeoutFor is a mutant run's limit: its tests' limits, plus the floor
// once more for starting the binary. Each test is also held to its own
// limit as it runs (testbin.Options.TestTimeout), so a hang costs about
// its own test's limit.
func timeoutFor(tests []*TestBaseline, factor float64, floor time.Duration) time.Duration {
	sum := floor
	for _, t := range tests {
		sum += testTimeout(t, factor, floor)
	}
	return sum
}
