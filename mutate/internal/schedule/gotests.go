package schedule

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// pkgRun is the selection of tests of one observing package.
type pkgRun struct {
	pkg   *PackageBaseline
	tests []*TestBaseline
}

func (p pkgRun) names() []string {
	var out []string
	for _, t := range p.tests {
		out = append(out, t.Name)
	}
	return out
}

func (p pkgRun) runPattern() string {
	var quoted []string
	for _, n := range p.names() {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// Cost tiers of a mutant's selected tests, by baseline time. go test runs
// the tests of one process in source order whatever -test.run says, and
// -test.failfast stops at the first failure, so a killed mutant pays for
// every test before its killer in that order. A mutant's selection of one
// package therefore runs in processes of rising cost, each only if the
// ones before did not decide the mutant: the tiny tests (below tinyTest),
// then the other quick ones (below slowTest), then each slow test alone,
// quickest first. A process costs about as much as a tiny test (10-30 ms
// on the row), little next to a quick or slow one.
const (
	tinyTest = 25 * time.Millisecond
	slowTest = 250 * time.Millisecond
)

// byCost splits a selection into its cost tiers (see tinyTest), in the
// order they run; empty tiers are left out, and ties among slow tests keep
// the selection's order, so the split depends only on the baseline.
// Expected killers stay together in one process: they must all run.
func byCost(p pkgRun, killers bool) []pkgRun {
	if killers || len(p.tests) < 2 {
		return []pkgRun{p}
	}
	tiny, quick := pkgRun{pkg: p.pkg}, pkgRun{pkg: p.pkg}
	var slow []*TestBaseline
	for _, t := range p.tests {
		switch {
		case t.Elapsed < tinyTest:
			tiny.tests = append(tiny.tests, t)
		case t.Elapsed < slowTest:
			quick.tests = append(quick.tests, t)
		default:
			slow = append(slow, t)
		}
	}
	slices.SortStableFunc(slow, func(a, b *TestBaseline) int { return cmp.Compare(a.Elapsed, b.Elapsed) })
	var out []pkgRun
	for _, g := range []pkgRun{tiny, quick} {
		if len(g.tests) > 0 {
			out = append(out, g)
		}
	}
	for _, t := range slow {
		out = append(out, pkgRun{pkg: p.pkg, tests: []*TestBaseline{t}})
	}
	return out
}

// step is one run of a mutant's tests in one observing package: its
// expected killers alone, or the other tests that execute it.
type step struct {
	path    string
	killers bool // only the expected killers of this package
}

// steps orders a mutant's runs: the packages of its expected killers
// first (those killers alone: a panic in another test would end the
// binary before a killer ran), then every observing package's other
// covering tests, the mutated package first, then its importers.
func (r *Runner) steps(m mutant.Mutant) ([]step, map[string]map[string]bool, mutant.Result, bool) {
	expected := map[string]map[string]bool{}
	for _, k := range m.Expected {
		if expected[k.Package] == nil {
			expected[k.Package] = map[string]bool{}
		}
		expected[k.Package][k.Name] = true
	}
	observers := r.Prog.Observers(m.Package)
	for pkg := range expected {
		if !slices.Contains(observers, pkg) {
			return nil, nil, mutant.Result{Status: mutant.Error, Why: fmt.Sprintf("expected killer package %s cannot observe %s (it does not import it)", pkg, m.Package)}, false
		}
	}
	var out []step
	for _, path := range observers {
		if len(expected[path]) > 0 {
			out = append(out, step{path: path, killers: true})
		}
	}
	for _, path := range observers {
		out = append(out, step{path: path})
	}
	return out, expected, mutant.Result{}, true
}

// pkgBaseline returns an observing package's baseline: from the schema
// run (made on first use) or the baseline run up front.
func (r *Runner) pkgBaseline(ctx context.Context, path string) (*PackageBaseline, error) {
	if r.Schema != nil {
		return r.Schema.baseline(ctx, path)
	}
	return r.Baseline.Packages[path], nil
}

// selection picks a step's tests from the package's baseline.
func (r *Runner) selection(pb *PackageBaseline, st step, m mutant.Mutant, expected map[string]bool) pkgRun {
	run := pkgRun{pkg: pb}
	for _, name := range pb.Names {
		t := pb.Tests[name]
		if t.Status != BasePass && t.Status != BaseSkip {
			continue // failing, flaky or absent tests cannot decide
		}
		if st.killers {
			if expected[name] {
				run.tests = append(run.tests, t)
			}
			continue
		}
		if !expected[name] && r.covers(pb, t, m) {
			run.tests = append(run.tests, t)
		}
	}
	if st.killers {
		// an expected killer the baseline does not know still runs: the
		// test binary then shows whether it exists
		var missing []string
		for name := range expected {
			if _, known := pb.Tests[name]; !known {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		for _, name := range missing {
			run.tests = append(run.tests, &TestBaseline{Name: name, Status: BaseGone})
		}
	}
	return run
}

// writeOverlay writes the mutated source and the overlay that maps the
// original path to it; it returns the overlay's path.
func writeOverlay(dir, root string, m mutant.Mutant) (string, error) {
	orig := filepath.Join(root, filepath.FromSlash(m.File))
	mutated := filepath.Join(dir, filepath.Base(orig))
	data, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("schedule: read %s: %w", m.File, err)
	}
	src, err := m.Apply(data)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		return "", fmt.Errorf("schedule: write mutant: %w", err)
	}
	path := filepath.Join(dir, "overlay.json")
	return path, testbin.WriteOverlay(path, map[string]string{orig: mutated})
}

// compileError keeps the compiler's messages from go test -c output.
func compileError(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ".go:") || strings.Contains(line, ".s:") {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(out)
}

// goTests is the backend of a Go mutant: its observing packages' tests,
// step by step (steps), each on the package's schema test binary when
// the mutant is switched in it, else on a build of its own through
// -overlay. The verdict does not depend on which: the same tests run in
// the same order.
type goTests struct{ r *Runner }

func (g goTests) judge(ctx context.Context, m mutant.Mutant) mutant.Result {
	steps, expectedByPkg, res, ok := g.r.steps(m)
	if !ok {
		return res
	}
	j := &goJudging{Runner: g.r, m: m, expected: expectedSet(m), v: verdict{skipped: map[string]string{}},
		res: mutant.Result{Mode: mutant.ModeOverlay}, bins: map[string]string{}}
	defer j.close()
	for i, st := range steps {
		if final, done := j.step(ctx, i, st, expectedByPkg[st.path]); done {
			return final
		}
		if j.stop {
			break
		}
	}
	if !j.ran {
		return mutant.Result{Status: mutant.Survived, Why: mutant.NotCovered, Mode: mutant.ModeStatic}
	}
	return timeoutVerdict(j.v.result(j.res, m, j.expected), j.slowWhy)
}

// goJudging is one Go mutant's judging in progress.
type goJudging struct {
	*Runner
	m        mutant.Mutant
	expected map[string]bool // "pkgpath.TestName"
	v        verdict
	res      mutant.Result
	bins     map[string]string // package -> its overlay test binary, built once
	dir      string            // the mutant's temp dir, with its overlay
	overlay  string

	buildTime, runTime time.Duration
	builds, runs       int
	ran                bool   // a selection was not empty
	stop               bool   // the mutant is decided: no more steps
	slowWhy            string // where a slow test process first timed out (timeouts.go)
}

// close removes the mutant's temp dir and adds its time to the run's.
func (j *goJudging) close() {
	if j.dir != "" {
		os.RemoveAll(j.dir)
	}
	j.timing.add(j.buildTime, j.runTime, j.builds, j.runs)
}

// step runs one step's selection of tests; done when the mutant's
// result is final (an error, an interrupt, a build that fails).
func (j *goJudging) step(ctx context.Context, i int, st step, expected map[string]bool) (mutant.Result, bool) {
	pb, err := j.pkgBaseline(ctx, st.path)
	if err != nil {
		if red, ok := isRed(err); ok {
			j.red(red)
		}
		if ctx.Err() != nil {
			return j.res, true
		}
		return mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: j.res.Mode, Commands: j.res.Commands}, true
	}
	if pb == nil {
		return mutant.Result{}, false
	}
	p := j.selection(pb, st, j.m, expected)
	if len(p.tests) == 0 {
		return mutant.Result{}, false
	}
	j.ran = true
	j.res.CoveredBy = append(j.res.CoveredBy, prefixed(p.pkg.Path, p.names())...)
	tb, final, done := j.binary(ctx, i, st, pb, p)
	if done {
		return final, true
	}
	return j.runTiers(ctx, tb, p, st.killers)
}

// testBinary is the test binary a step runs, the environment that
// selects its mutant and the overlay it was built from (the go commands
// its tests run build with it too: testbin.Options.Overlay).
type testBinary struct {
	path    string
	env     []string
	overlay string
	r       *render // the schema render of a schema binary, else nil
}

// binary is the test binary a step runs: the package's schema binary
// when the mutant is switched in it (with the switch's environment),
// else the package's build of its own with the mutant.
func (j *goJudging) binary(ctx context.Context, i int, st step, pb *PackageBaseline, p pkgRun) (testBinary, mutant.Result, bool) {
	bin, built := j.bins[st.path]
	tb := testBinary{path: bin, overlay: j.overlay}
	if sch := j.Schema; sch != nil && !pb.plain && sch.main.switched[j.m.ID] {
		b, err := sch.binary(ctx, st.path)
		if err != nil {
			return tb, mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: mutant.ModeSchema}, true
		}
		if b.r.switched[j.m.ID] {
			built = true
			tb = testBinary{path: b.path, overlay: b.r.overlay, env: []string{fmt.Sprintf("GATHERMUT_MUTANT=%d", sch.number[j.m.ID])}, r: b.r}
			j.res.Mode = mutant.ModeSchema
			j.res.Commands = append(j.res.Commands, b.command)
		}
	}
	if !built && j.Schema != nil && j.res.ModeNote == "" {
		if why := j.Schema.unusableReason(st.path); why != "" {
			j.res.ModeNote = why
		}
	}
	if built {
		return tb, mutant.Result{}, false
	}
	bin, final, done := j.ownBuild(ctx, i, st, p)
	return testBinary{path: bin, overlay: j.overlay}, final, done
}

// ownBuild builds the observing package's test binary with the mutant
// through -overlay; a build that fails makes the mutant unviable.
func (j *goJudging) ownBuild(ctx context.Context, i int, st step, p pkgRun) (string, mutant.Result, bool) {
	if j.overlay == "" {
		var err error
		if j.dir, err = os.MkdirTemp(j.Opts.TempDir, "mutant-"); err != nil {
			return "", mutant.Result{Status: mutant.Error, Why: err.Error()}, true
		}
		if j.overlay, err = writeOverlay(j.dir, j.Prog.Root, j.m); err != nil {
			return "", mutant.Result{Status: mutant.Error, Why: err.Error()}, true
		}
	}
	bin := filepath.Join(j.dir, fmt.Sprintf("p%d.test", i))
	if err := j.slots.acquire(ctx); err != nil {
		return "", j.res, true
	}
	t0 := time.Now()
	cmdline, out, err := testbin.Go(ctx, j.Prog.Root, "test", "-c", "-o", bin, "-overlay", j.overlay, p.pkg.Path)
	j.slots.release()
	j.buildTime += time.Since(t0)
	j.builds++
	j.res.Commands = append(j.res.Commands, cmdline)
	if ctx.Err() != nil {
		return "", j.res, true
	}
	if err != nil {
		j.res.Status, j.res.Why = mutant.Unviable, "does not compile: "+firstLine(compileError(out))
		j.res.Excerpt = testbin.Limit(out, 4<<10)
		j.res.ExitCode = testbin.ExitCode(err)
		return "", j.res, true
	}
	j.bins[st.path] = bin
	return bin, mutant.Result{}, false
}

// runTiers runs a step's tests in their cost tiers (byCost), each only
// if the ones before did not decide the mutant; it sets stop when one
// did, and is done when the result is final (an error, an interrupt).
func (j *goJudging) runTiers(ctx context.Context, tb testBinary, p pkgRun, killers bool) (mutant.Result, bool) {
	for _, group := range byCost(p, killers) {
		t0 := time.Now()
		opts := j.testOptions(tb, group)
		hitsFile, hitsEnv := j.evidenceHits(tb.r)
		opts.Env = append(append([]string(nil), tb.env...), hitsEnv...)
		run, err := j.testProcess(ctx, group.pkg.Path, opts)
		j.noteEvidence(j.m, group.pkg.Path, run, tb.r, hitsFile)
		j.runTime += time.Since(t0)
		j.runs++
		if run != nil {
			j.res.Commands = append(j.res.Commands, run.Command)
		}
		if err == nil && run.TimedOut {
			// the rerun alone counts what it ran with a hits file of its own
			hitsFile, hitsEnv = j.evidenceHits(tb.r)
			opts.Env = append(append([]string(nil), tb.env...), hitsEnv...)
			run, err = j.confirmTimeout(ctx, j.gpuSlotsOf(group.pkg.Path), group.pkg.Path, opts, run, &j.res, &j.slowWhy)
			j.noteEvidence(j.m, group.pkg.Path, run, tb.r, hitsFile)
		}
		if err != nil {
			if ctx.Err() != nil {
				return j.res, true
			}
			j.res.Status, j.res.Why = mutant.Error, err.Error()
			return j.res, true
		}
		j.v.add(group.pkg.Path, run)
		if j.v.timedOut != "" || (len(j.v.failed) > 0 && (j.m.Catalog == nil || anyIn(j.v.failed, j.expected))) {
			j.stop = true
			break
		}
	}
	return mutant.Result{}, false
}

// testOptions runs one tier: its tests alone, each held to its own
// limit, the process to their sum (timeoutFor); generic mutants stop at
// the first failure.
func (j *goJudging) testOptions(tb testBinary, group pkgRun) testbin.Options {
	return testbin.Options{
		Binary:   tb.path,
		Dir:      group.pkg.Dir,
		Package:  group.pkg.Path,
		Run:      group.runPattern(),
		Failfast: j.m.Catalog == nil,
		Timeout:  timeoutFor(group.tests, j.Opts.TimeoutFactor, j.Opts.TimeoutFloor),
		TestTimeout: func(name string) time.Duration {
			if t := group.pkg.Tests[name]; t != nil {
				return testTimeout(t, j.Opts.TimeoutFactor, j.Opts.TimeoutFloor)
			}
			return j.Opts.TimeoutFloor
		},
		Env:     tb.env,
		Overlay: tb.overlay,
	}
}

// testProcess runs one test process of package path in a slot, and in a
// GPU slot too where the package's tests may use the GPU (gpuSlotsOf).
func (r *Runner) testProcess(ctx context.Context, path string, o testbin.Options) (*testbin.Result, error) {
	if gpu := r.gpuSlotsOf(path); gpu != nil {
		if err := gpu.acquire(ctx); err != nil {
			return nil, err
		}
		defer gpu.release()
	}
	if err := r.slots.acquire(ctx); err != nil {
		return nil, err
	}
	defer r.slots.release()
	return testbin.Run(ctx, o)
}
