package lab

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
	"sync"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/testbin"
)

// Options configure a Runner.
type Options struct {
	Jobs          int
	TimeoutFactor float64       // per-mutant timeout = factor * baseline time of the selected tests + floor
	TimeoutFloor  time.Duration //
	TempDir       string        // removed by the caller
	// BaselineTimeout limits a run of the unmutated kernel's killers.
	BaselineTimeout time.Duration
	Kernel          *catalog.Kernel
	// GPUJobs bounds the test processes that use the GPU at once.
	GPUJobs int
	// NoSchemata builds every kernel mutant on its own (the kernel schema
	// still gives the coverage).
	NoSchemata bool
}

// Runner runs mutants against the tests that can observe them.
type Runner struct {
	Prog     *load.Program
	Baseline *Baseline
	Opts     Options
	// Schema, when set, holds the schema binaries: a switched mutant runs
	// in them, and coverage is the schema sites each test ran.
	Schema *schemaRun

	// Red is the first failing package baseline met on the way (schema
	// runs make importers' baselines when a mutant first needs them); it
	// stops the run.
	Red *PackageBaseline

	kernel kernelState
	timing timing
	slots  slots
	redMu  sync.Mutex
	cancel context.CancelFunc

	// kernelMutants are the run's kernel mutants that are to be judged
	// (set by Run): the kernel schema holds them.
	kernelMutants []mutant.Mutant
	// gpuSlots bound the test processes that use the GPU at once (nil
	// where no GPU compiler is on PATH): a GPU serves few processes at
	// once, whatever -j.
	gpuSlots    slots
	slotsOnce   sync.Once
	kernelMu    sync.Mutex
	kernelNotes []string
}

// timing adds up where workers spent their time.
type timing struct {
	mu                   sync.Mutex
	overlayBuilds, tests time.Duration
	builds, runs         int
	kernelSchema         time.Duration
}

func (t *timing) addKernelSchema(d time.Duration) {
	t.mu.Lock()
	t.kernelSchema += d
	t.mu.Unlock()
}

func (t *timing) add(build, run time.Duration, builds, runs int) {
	t.mu.Lock()
	t.overlayBuilds += build
	t.tests += run
	t.builds += builds
	t.runs += runs
	t.mu.Unlock()
}

// Run runs every mutant in a pool of Opts.Jobs workers and calls done (from
// one goroutine at a time) as each finishes. Mutants not judged when ctx is
// cancelled are reported Interrupted (no verdict).
func (r *Runner) Run(ctx context.Context, ms []mutant.Mutant, done func(mutant.Outcome)) []mutant.Outcome {
	r.initSlots()
	r.kernelMutants = nil
	for _, m := range ms {
		if m.Kind == mutant.Kernel && m.Invalid == "" && m.Equivalent == "" && m.Unviable == "" {
			r.kernelMutants = append(r.kernelMutants, m)
		}
	}
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	out := make([]mutant.Outcome, len(ms))
	var mu sync.Mutex
	q := r.newQueue(ms)
	next := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		return q.next()
	}
	var wg sync.WaitGroup
	for w := 0; w < max(r.Opts.Jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := next()
				if !ok {
					return
				}
				m := ms[i]
				var res mutant.Result
				if ctx.Err() != nil {
					res = mutant.Result{Status: mutant.Interrupted, Why: "interrupted before it ran"}
				} else {
					res = r.One(ctx, m)
					if ctx.Err() != nil && res.Status != mutant.Killed {
						res = mutant.Result{Status: mutant.Interrupted, Why: "interrupted while it ran", Commands: res.Commands, Duration: res.Duration}
					}
				}
				mu.Lock()
				out[i] = mutant.Outcome{Mutant: m, Result: res}
				if done != nil {
					done(out[i])
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// queue hands out a run's mutants (by index) to free workers: each takes
// the next mutant whose first package's baseline is ready, so no worker
// waits on one package's baseline while another package's mutants could
// run; likewise a kernel mutant waits while another worker prepares the
// kernel. When none is ready, the next in order goes. Not safe for
// concurrent use.
type queue struct {
	pending []int
	first   []string // the package whose baseline each mutant needs first
	kernel  []bool   // each mutant is a kernel mutant that will run
	r       *Runner
}

func (r *Runner) newQueue(ms []mutant.Mutant) *queue {
	q := &queue{r: r, first: make([]string, len(ms)), kernel: make([]bool, len(ms))}
	for i, m := range ms {
		q.pending = append(q.pending, i)
		q.first[i] = r.firstPackage(m)
		q.kernel[i] = m.Kind == mutant.Kernel && m.Invalid == "" && m.Equivalent == "" && m.Unviable == ""
	}
	return q
}

func (q *queue) ready(i int) bool {
	if q.kernel[i] {
		return q.r.kernel.free()
	}
	return q.r.ready(q.first[i])
}

// next takes the next mutant to run; false when none is left.
func (q *queue) next() (int, bool) {
	if len(q.pending) == 0 {
		return 0, false
	}
	pick := 0
	for k, i := range q.pending {
		if q.ready(i) {
			pick = k
			break
		}
	}
	i := q.pending[pick]
	q.pending = append(q.pending[:pick], q.pending[pick+1:]...)
	if q.kernel[i] {
		q.r.kernel.claimed.Store(true)
	}
	return i, true
}

// firstPackage is the package whose baseline a mutant needs first, or ""
// when it needs none (decided without tests, or a kernel mutant).
func (r *Runner) firstPackage(m mutant.Mutant) string {
	if m.Kind != mutant.Go || m.Invalid != "" || m.Equivalent != "" || m.Unviable != "" {
		return ""
	}
	steps, _, _, ok := r.steps(m)
	if !ok || len(steps) == 0 {
		return ""
	}
	return steps[0].path
}

// ready reports whether a package's baseline is there without waiting.
func (r *Runner) ready(path string) bool {
	if path == "" || r.Schema == nil {
		return true
	}
	return r.Schema.baselineReady(path)
}

// One runs one mutant.
func (r *Runner) One(ctx context.Context, m mutant.Mutant) mutant.Result {
	start := time.Now()
	res := r.one(ctx, m)
	res.Duration = time.Since(start)
	if res.Mode == "" {
		res.Mode = mutant.ModeStatic
	}
	if res.Backend == "" {
		res.Backend = mutant.BackendOf(m, res)
	}
	if r.Schema != nil && m.Kind == mutant.Go && res.Mode == mutant.ModeOverlay && res.ModeNote == "" {
		res.ModeNote = r.Schema.whyNotSwitched(m)
	}
	return res
}

// covers reports whether test t of package baseline pb runs mutant m's
// code: on a schema binary, whether it ran the mutant's site.
func (r *Runner) covers(pb *PackageBaseline, t *TestBaseline, m mutant.Mutant) bool {
	if pb.covered != nil {
		return pb.covered[t.Name][m.ID]
	}
	if pb.render == nil {
		return t.Covers(m)
	}
	sites, ok := pb.render.site[m.ID]
	if !ok || (!m.InBody && (m.Schema == nil || m.Schema.Readers == nil)) {
		return true // no site, or computed when the binary starts
	}
	for _, s := range sites {
		if t.HitSite(s) {
			return true
		}
	}
	return false
}

// red stops the run at a failing baseline found on the way.
func (r *Runner) red(pb *PackageBaseline) {
	r.redMu.Lock()
	defer r.redMu.Unlock()
	if r.Red == nil {
		r.Red = pb
		if r.cancel != nil {
			r.cancel()
		}
	}
}

func (r *Runner) one(ctx context.Context, m mutant.Mutant) mutant.Result {
	switch {
	case m.Invalid != "":
		return mutant.Result{Status: mutant.Error, Why: m.Invalid}
	case m.Equivalent != "":
		return mutant.Result{Status: mutant.Ignored, Why: "equivalent: " + m.Equivalent}
	case m.Unviable != "":
		why := "does not type-check: " + firstLine(m.Unviable)
		if vet, ok := strings.CutPrefix(m.Unviable, operator.VetPrefix); ok {
			why = "fails the go vet checks go test runs: " + firstLine(vet)
		}
		return mutant.Result{Status: mutant.Unviable, Why: why, Excerpt: m.Unviable}
	case m.Kind == mutant.Kernel:
		return r.runKernel(ctx, m)
	}
	return r.execute(ctx, m)
}

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

// SplitTestID splits "pkgpath.TestName".
func SplitTestID(id string) (pkg, name string, err error) {
	i := strings.LastIndex(id, ".")
	if i <= 0 || i == len(id)-1 || strings.Contains(id[i+1:], "/") {
		return "", "", fmt.Errorf("test %q is not of the form pkgpath.TestName", id)
	}
	return id[:i], id[i+1:], nil
}

type verdict struct {
	failed   []string // "pkg.Test"
	ran      []string
	skipped  map[string]string // "pkg.Test" -> skip message
	timedOut string
	crashed  []string // packages whose binary failed with no failing test
	excerpt  strings.Builder
	exitCode int
	signal   string // the signal that ended a test process (a timeout's kill)
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
		pkg, name, err := SplitTestID(k)
		if err != nil {
			return nil, nil, mutant.Result{Status: mutant.Error, Why: err.Error()}, false
		}
		if expected[pkg] == nil {
			expected[pkg] = map[string]bool{}
		}
		expected[pkg][name] = true
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

func (r *Runner) execute(ctx context.Context, m mutant.Mutant) mutant.Result {
	steps, expectedByPkg, res, ok := r.steps(m)
	if !ok {
		return res
	}
	res = mutant.Result{Mode: mutant.ModeOverlay}
	expected := map[string]bool{}
	for _, k := range m.Expected {
		expected[k] = true
	}
	v := verdict{skipped: map[string]string{}}
	var overlay, dir string
	bins := map[string]string{} // package -> its overlay test binary, built once
	var buildTime, runTime time.Duration
	builds, runs, ran := 0, 0, false
	defer func() { r.timing.add(buildTime, runTime, builds, runs) }()
	for i, st := range steps {
		pb, err := r.pkgBaseline(ctx, st.path)
		if err != nil {
			if red, ok := isRed(err); ok {
				r.red(red)
			}
			if ctx.Err() != nil {
				return res
			}
			return mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: res.Mode, Commands: res.Commands}
		}
		if pb == nil {
			continue
		}
		p := r.selection(pb, st, m, expectedByPkg[st.path])
		if len(p.tests) == 0 {
			continue
		}
		ran = true
		res.CoveredBy = append(res.CoveredBy, prefixed(p.pkg.Path, p.names())...)
		var env []string
		bin, built := bins[st.path]
		if r.Schema != nil && !pb.plain && r.Schema.main.switched[m.ID] {
			b, err := r.Schema.binary(ctx, st.path)
			if err != nil {
				return mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: mutant.ModeSchema}
			}
			if b.r.switched[m.ID] {
				bin, built = b.path, true
				env = []string{fmt.Sprintf("GATHERMUT_MUTANT=%d", r.Schema.number[m.ID])}
				res.Mode = mutant.ModeSchema
				res.Commands = append(res.Commands, b.command)
			}
		}
		if !built && r.Schema != nil && res.ModeNote == "" {
			if why := r.Schema.unusableReason(st.path); why != "" {
				res.ModeNote = why
			}
		}
		if !built {
			if overlay == "" {
				if dir, err = os.MkdirTemp(r.Opts.TempDir, "mutant-"); err != nil {
					return mutant.Result{Status: mutant.Error, Why: err.Error()}
				}
				defer os.RemoveAll(dir)
				if overlay, err = writeOverlay(dir, r.Prog.Root, m); err != nil {
					return mutant.Result{Status: mutant.Error, Why: err.Error()}
				}
			}
			bin = filepath.Join(dir, fmt.Sprintf("p%d.test", i))
			if err := r.slots.acquire(ctx); err != nil {
				return res
			}
			t0 := time.Now()
			cmdline, out, err := testbin.Go(ctx, r.Prog.Root, "test", "-c", "-o", bin, "-overlay", overlay, p.pkg.Path)
			r.slots.release()
			buildTime += time.Since(t0)
			builds++
			res.Commands = append(res.Commands, cmdline)
			if ctx.Err() != nil {
				return res
			}
			if err != nil {
				res.Status, res.Why = mutant.Unviable, "does not compile: "+firstLine(compileError(out))
				res.Excerpt = testbin.Limit(out, 4<<10)
				res.ExitCode = testbin.ExitCode(err)
				return res
			}
			bins[st.path] = bin
		}
		stop := false
		for _, group := range byCost(p, st.killers) {
			gpu := r.gpuSlotsOf(group.pkg.Path)
			if gpu != nil {
				if err := gpu.acquire(ctx); err != nil {
					return res
				}
			}
			if err := r.slots.acquire(ctx); err != nil {
				if gpu != nil {
					gpu.release()
				}
				return res
			}
			t0 := time.Now()
			run, err := testbin.Run(ctx, testbin.Options{
				Binary:   bin,
				Dir:      group.pkg.Dir,
				Package:  group.pkg.Path,
				Run:      group.runPattern(),
				Failfast: m.Catalog == nil,
				Timeout:  timeoutFor(group.tests, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor),
				TestTimeout: func(name string) time.Duration {
					if t := group.pkg.Tests[name]; t != nil {
						return testTimeout(t, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor)
					}
					return r.Opts.TimeoutFloor
				},
				Env: env,
			})
			r.slots.release()
			if gpu != nil {
				gpu.release()
			}
			runTime += time.Since(t0)
			runs++
			if run != nil {
				res.Commands = append(res.Commands, run.Command)
			}
			if err != nil {
				if ctx.Err() != nil {
					return res
				}
				res.Status, res.Why = mutant.Error, err.Error()
				return res
			}
			v.add(group.pkg.Path, run)
			if v.timedOut != "" || (len(v.failed) > 0 && (m.Catalog == nil || anyIn(v.failed, expected))) {
				stop = true
				break
			}
		}
		if stop {
			break
		}
	}
	if !ran {
		return mutant.Result{Status: mutant.Survived, Why: "not covered by any test", Mode: mutant.ModeStatic}
	}
	return v.result(res, m, expected)
}

func (v *verdict) add(pkg string, run *testbin.Result) {
	if run.ExitCode != 0 && (v.exitCode == 0 || run.ExitCode > v.exitCode) {
		v.exitCode = run.ExitCode // -1 when a signal ended it
	}
	if run.Signal != "" {
		v.signal = run.Signal
	}
	var failedHere, running []string
	for name, t := range run.Tests {
		id := pkg + "." + name
		switch t.Action {
		case "fail":
			failedHere = append(failedHere, id)
			v.ran = append(v.ran, id)
			v.excerpt.WriteString(testbin.Limit(t.Output, 2<<10))
		case "pass":
			v.ran = append(v.ran, id)
		case "skip":
			v.skipped[id] = testbin.SkipMessage(t.Output)
		case "run":
			running = append(running, id)
		}
	}
	sort.Strings(failedHere)
	sort.Strings(running)
	if run.TimedOut {
		v.timedOut = fmt.Sprintf("%s after %s", pkg, run.Elapsed.Round(time.Millisecond))
		if run.TimedOutTest != "" {
			v.timedOut += ", " + pkg + "." + run.TimedOutTest + " past its own limit"
		} else if len(running) > 0 {
			v.timedOut += ", running " + strings.Join(running, ", ")
		}
		return
	}
	if run.ExitCode != 0 && len(failedHere) == 0 {
		// a crash: blame the tests that were running, else the binary
		if len(running) > 0 {
			failedHere = running
			v.ran = append(v.ran, running...)
		} else {
			failedHere = []string{pkg + " (test binary)"}
		}
		v.excerpt.WriteString(testbin.Limit(run.Output, 2<<10))
	}
	v.failed = append(v.failed, failedHere...)
}

func (v *verdict) result(res mutant.Result, m mutant.Mutant, expected map[string]bool) mutant.Result {
	sort.Strings(v.failed)
	res.ExitCode = v.exitCode
	res.Signal = v.signal
	res.TestsRun = len(v.ran)
	res.Excerpt = testbin.Limit(v.excerpt.String(), 4<<10)
	expectedRan := false
	for _, id := range v.ran {
		if expected[id] {
			expectedRan = true
		}
	}
	switch {
	case v.timedOut != "":
		res.Status, res.Why = mutant.TimedOut, "timed out: "+v.timedOut
		if v.signal != "" {
			res.Why += " (stopped with " + v.signal + ")"
		}
	case len(v.failed) > 0:
		res.Status, res.KilledBy = mutant.Killed, v.failed
		res.ExpectedKiller = anyIn(v.failed, expected)
		if m.Catalog != nil && !res.ExpectedKiller {
			res.Why = "killed by an unexpected test: " + strings.Join(v.failed, ", ") + "; expected " + strings.Join(m.Expected, ", ")
		}
	case m.Catalog != nil && !expectedRan && allSkipped(v.skipped, m.Expected):
		res.Status, res.Why = mutant.NotRun, firstSkip(v.skipped, m.Expected)
	case m.Catalog != nil && !expectedRan:
		res.Status, res.Why = mutant.Error, "no expected killer ran ("+strings.Join(m.Expected, ", ")+"): no such test, or -run matched nothing"
	case len(v.ran) == 0 && len(v.skipped) > 0:
		res.Status, res.Why = mutant.NotRun, firstSkip(v.skipped, nil)
	case len(v.ran) == 0:
		res.Status, res.Why = mutant.Error, "no test ran under the selection (go test -run matched nothing)"
	default:
		res.Status = mutant.Survived
		res.Why = fmt.Sprintf("every selected test passed (%d ran)", len(v.ran))
		if m.Catalog != nil {
			res.Why = "the expected killers passed (" + strings.Join(m.Expected, ", ") + ")"
		}
	}
	return res
}

func allSkipped(skipped map[string]string, ids []string) bool {
	for _, id := range ids {
		if _, ok := skipped[id]; !ok {
			return false
		}
	}
	return len(ids) > 0
}

// firstSkip names the first skipped test and its message, preferring ids.
func firstSkip(skipped map[string]string, ids []string) string {
	for _, id := range ids {
		if msg, ok := skipped[id]; ok {
			return "skipped: " + id + ": " + msg
		}
	}
	var names []string
	for id := range skipped {
		names = append(names, id)
	}
	sort.Strings(names)
	return "skipped: " + names[0] + ": " + skipped[names[0]]
}

func anyIn(ids []string, set map[string]bool) bool {
	for _, id := range ids {
		if set[id] {
			return true
		}
	}
	return false
}

func prefixed(pkg string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pkg + "." + n
	}
	return out
}

// writeOverlay writes the mutated source and the overlay that maps the
// original path to it; it returns the overlay's path.
func writeOverlay(dir, root string, m mutant.Mutant) (string, error) {
	orig := filepath.Join(root, filepath.FromSlash(m.File))
	mutated := filepath.Join(dir, filepath.Base(orig))
	data, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("lab: read %s: %w", m.File, err)
	}
	src, err := m.Apply(data)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		return "", fmt.Errorf("lab: write mutant: %w", err)
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// gpuSlotsOf returns the GPU slots a test process of package path takes:
// where a GPU compiler is on PATH (gpuSlots is set), the kernel package's
// and its importers' tests may run on the GPU.
func (r *Runner) gpuSlotsOf(path string) slots {
	if r.gpuSlots == nil || r.Opts.Kernel == nil {
		return nil
	}
	k := r.Opts.Kernel.Package
	if path == k || slices.Contains(r.Prog.Observers(k), path) {
		return r.gpuSlots
	}
	return nil
}

// initSlots makes the run's process slots and, where a GPU compiler is on
// PATH, its GPU slots.
func (r *Runner) initSlots() {
	r.slotsOnce.Do(func() {
		if r.slots == nil {
			r.slots = newSlots(r.Opts.Jobs)
		}
		if k := r.Opts.Kernel; k != nil {
			if _, ok := FindTool(k.Tools); ok {
				r.gpuSlots = newSlots(max(r.Opts.GPUJobs, 1))
			}
		}
	})
}
