package schedule

import (
	"context"
	"slices"
	"sync"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/internal/selection"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
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
	// NoGPU, when set, says why the machine has no GPU (no nvidia-smi or
	// rocminfo GPU found): a GPU compiler on PATH (hipcc installed for
	// compile checks) then builds no GPU backend, whose tests would run
	// only their parts that need no device.
	NoGPU string
	// NoCache: --no-cache; the kernel schema library is then built, not
	// read from the cache.
	NoCache bool
	// Race are the project file's -race package patterns (raceArgs): a
	// mutant's own build and the kernel package's test binary take them
	// too.
	Race []string
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
	// evidence, in an --incremental run, gathers what each mutant's test
	// processes ran (evidence.go).
	evidence *evidenceLog
	// aloneMu makes one rerun of a timed-out process at a time take
	// the GPU slots (holdConfirm); startup is the slowest test binary
	// start-up
	// measured for the timeout floor, 0 when the floor was given.
	aloneMu sync.Mutex
	startup time.Duration
	// Killers, when set, is the run's killer map: a Go mutant runs its
	// predicted killers first and teaches the map what killed it
	// (package selection). Running, when set, is told of each tail test
	// a worker runs, until the func it returns is called (the progress
	// line names them).
	Killers *selection.Map
	Running func(test string) func()
	// drained is closed once every mutant of Run has been taken by a
	// worker: a timeout's confirmation waits for it (timeouts.go); nil
	// outside Run.
	drained chan struct{}
}

// timing adds up where workers spent their time.
type timing struct {
	mu                   sync.Mutex
	overlayBuilds, tests time.Duration
	builds, runs         int
	kernelSchema         time.Duration
	reruns               time.Duration // timed-out processes run again alone (timeouts.go)
	rerunCount           int
	order                report.OrderTiming // test processes by the step of a mutant's order
}

// Steps of a mutant's order a test process runs in (timing.addStep).
const (
	stepPredicted = "predicted"
	stepTier      = ""
	stepTail      = "tail"
)

// addStep counts one test process of a step, and whether it decided
// its mutant.
func (t *timing) addStep(step string, d time.Duration, decided bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	if decided {
		n = 1
	}
	o := &t.order
	switch step {
	case stepPredicted:
		o.Predicted, o.PredictedSeconds, o.PredictedKills = o.Predicted+1, o.PredictedSeconds+d.Seconds(), o.PredictedKills+n
	case stepTail:
		o.Tail, o.TailSeconds, o.TailKills = o.Tail+1, o.TailSeconds+d.Seconds(), o.TailKills+n
	default:
		o.Tiers, o.TierSeconds, o.TierKills = o.Tiers+1, o.TierSeconds+d.Seconds(), o.TierKills+n
	}
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
		if m.Kind == mutant.Kernel && m.Runs() {
			r.kernelMutants = append(r.kernelMutants, m)
		}
	}
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	out := make([]mutant.Outcome, len(ms))
	var mu sync.Mutex
	q := r.newQueue(ms)
	next := r.trackDrain(func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		return q.next()
	}, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(q.pending) == 0
	})
	runWorkers(ctx, r.Opts.Jobs, next, func(ctx context.Context, i int) {
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
	})
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
		q.kernel[i] = m.Kind == mutant.Kernel && m.Runs()
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

// trackDrain wraps a queue's next so that r.drained closes once empty
// says every item has been taken (awaitDrained waits for it).
func (r *Runner) trackDrain(next func() (int, bool), empty func() bool) func() (int, bool) {
	r.drained = make(chan struct{})
	var once sync.Once
	return func() (int, bool) {
		i, ok := next()
		if !ok || empty() {
			once.Do(func() { close(r.drained) })
		}
		return i, ok
	}
}

// firstPackage is the package whose baseline a mutant needs first, or ""
// when it needs none (decided without tests, or a kernel mutant).
func (r *Runner) firstPackage(m mutant.Mutant) string {
	if m.Kind != mutant.Go || !m.Runs() {
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

// one judges one mutant: discovery's decision when it made one (static),
// else its backend's verdict.
func (r *Runner) one(ctx context.Context, m mutant.Mutant) mutant.Result {
	if !m.Runs() {
		return static(m)
	}
	return r.backendFor(m).judge(ctx, m)
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
