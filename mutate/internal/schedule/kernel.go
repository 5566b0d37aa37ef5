package schedule

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gathermut/mutate/kernel"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/testbin"
)

// kernelState is built once per run: the kernel's sources, the kernel
// package's test binary, and per backend the schema library and the
// coverage baseline on it.
type kernelState struct {
	once     sync.Once
	src      *kernel.Sources
	bin      string
	err      string // every kernel mutant is an error, for this reason
	commands []string
	// numbers are the kernel mutants' numbers in the run (GATHERMUT_MUTANT
	// for the kernel package's plain test binary, which has no Go switch).
	numbers map[string]int
	// gpu is the GPU backend when a GPU compiler built the unmutated
	// library and the kernel's tests ran on a GPU; nil otherwise, and
	// gpuWhy says why. emulation is the host emulation, nil without its
	// compiler (emulationWhy).
	gpu, emulation       *backendState
	gpuWhy, emulationWhy string
	// compiled are the builds that compile each kernel mutant's code.
	compiled map[string][]string
	// claimed is set when a worker takes the run's first kernel mutant,
	// settled once the kernel is prepared: in between, the other workers
	// take other mutants rather than wait on once.
	claimed, settled atomic.Bool
}

// backendState is one backend's schema library and the baseline of the
// kernel package's tests on it (each test alone, with the kernel's hits).
type backendState struct {
	backend kernel.Backend
	env     string // the build environment (cxx Env name) of its compiler
	libEnv  string // the variable that points the tests at a library
	muts    []kernel.Numbered
	once    sync.Once
	lib     *kernel.Library
	dropped map[int]string // not switched: built on their own, and why
	base    *PackageBaseline
	err     string
}

// free reports whether a worker may take a kernel mutant without waiting
// on another worker's preparation of the kernel.
func (ks *kernelState) free() bool { return !ks.claimed.Load() || ks.settled.Load() }

// FindTool returns the first of tools found on PATH.
func FindTool(tools []string) (string, bool) {
	for _, t := range tools {
		if p, err := exec.LookPath(t); err == nil {
			return p, true
		}
	}
	return "", false
}

// kernelBackend judges a kernel mutant: on the GPU when one runs and its
// compiler compiles the mutant's code, else on the host emulation; switched
// in that backend's kernel schema when it could be, else in a library of
// its own; by its expected killers first (a catalog mutant), then by the
// kernel package's tests that ran its code, in rising cost.
type kernelBackend struct{ r *Runner }

func (kb kernelBackend) judge(ctx context.Context, m mutant.Mutant) mutant.Result {
	r := kb.r
	k, ks := r.Opts.Kernel, &r.kernel
	if k == nil {
		ks.settled.Store(true)
		return mutant.Result{Status: mutant.Error, Why: "kernel mutant, but the catalog has no Kernel recipe"}
	}
	ks.once.Do(func() { r.prepareKernel(ctx) })
	ks.settled.Store(true)
	res := mutant.Result{Mode: mutant.ModeKernel, Commands: append([]string(nil), ks.commands...)}
	if ks.err != "" {
		res.Status, res.Why = mutant.Error, ks.err
		return res
	}
	bs, why := ks.backendFor(m)
	if bs == nil {
		res.Status, res.Why = mutant.NotRun, why
		return res
	}
	bs.once.Do(func() { r.prepareBackend(ctx, bs) })
	res.Backend = "kernel-" + string(bs.backend)
	if bs.lib != nil {
		res.Commands = append(res.Commands, bs.lib.Command)
	}
	if bs.err != "" {
		res.Status, res.Why = mutant.Error, bs.err
		return res
	}
	n := ks.numbers[m.ID]
	env := []string{bs.libEnv + "=" + bs.lib.Path, fmt.Sprintf("GATHERMUT_MUTANT=%d", n)}
	if r.Opts.NoSchemata || !bs.lib.Switched[n] {
		res.ModeNote = "built on its own: " + bs.dropped[n]
		if r.Opts.NoSchemata {
			res.ModeNote = "built on its own: --no-schemata"
		}
		dir, err := os.MkdirTemp(r.Opts.TempDir, "kernel-")
		if err != nil {
			return mutant.Result{Status: mutant.Error, Why: err.Error()}
		}
		defer os.RemoveAll(dir)
		if err := r.slots.acquire(ctx); err != nil {
			return res
		}
		t0 := time.Now()
		lib, out, err := ks.src.BuildMutant(ctx, bs.backend, dir, &m)
		r.slots.release()
		r.timing.add(time.Since(t0), 0, 1, 0)
		if lib != nil {
			res.Commands = append(res.Commands, lib.Command)
		}
		if ctx.Err() != nil {
			return res
		}
		if err != nil {
			res.Status, res.Why, res.Excerpt = mutant.Unviable, "kernel build failed: "+firstLine(out), testbin.Limit(out, 4<<10)
			res.ExitCode = testbin.ExitCode(err)
			return res
		}
		env = []string{bs.libEnv + "=" + lib.Path}
	}
	return r.kernelTests(ctx, m, bs, n, env, res)
}

// backendFor picks the backend that judges m: the GPU when there is one
// and its compiler compiles m's code, else the host emulation when it
// compiles it. Without a parse of the kernel (a recipe with no Entry) every
// backend compiles everything.
func (ks *kernelState) backendFor(m mutant.Mutant) (*backendState, string) {
	compiled, parsed := ks.compiled[m.ID], ks.src != nil && ks.src.Units != nil
	compiles := func(bs *backendState) bool { return bs != nil && (!parsed || slices.Contains(compiled, bs.env)) }
	switch {
	case compiles(ks.gpu):
		return ks.gpu, ""
	case compiles(ks.emulation):
		return ks.emulation, ""
	case parsed && len(compiled) == 0:
		return nil, "no build of the kernel compiles this code"
	case ks.emulation == nil && ks.emulationWhy != "":
		return nil, ks.gpuWhy + "; " + ks.emulationWhy
	case ks.emulation == nil:
		return nil, ks.gpuWhy
	}
	return nil, fmt.Sprintf("only a GPU compiler compiles this code (%s), and no GPU runs here: %s", strings.Join(compiled, ", "), ks.gpuWhy)
}

// prepareKernel reads the kernel, builds the kernel package's test binary,
// numbers the run's kernel mutants, and finds the backends: the GPU when
// its compiler builds the unmutated library and the expected killers run
// on it (not skipped for want of a device), the host emulation when its
// compiler is there.
func (r *Runner) prepareKernel(ctx context.Context) {
	k, ks := r.Opts.Kernel, &r.kernel
	var err error
	if ks.src, err = kernel.Read(r.Prog.Root, k); err == nil {
		ks.src.Cache = !r.Opts.NoCache
	}
	if err != nil {
		ks.err = "kernel sources: " + err.Error()
		return
	}
	dir := r.Prog.Dir(k.Package)
	if dir == "" {
		ks.err = fmt.Sprintf("kernel package %s is not a package of module %s", k.Package, r.Prog.Module)
		return
	}
	ks.bin = filepath.Join(r.Opts.TempDir, "kernel.test")
	if err := r.slots.acquire(ctx); err != nil {
		return
	}
	cmdline, out, err := testbin.Go(ctx, r.Prog.Root, "test", "-c", "-o", ks.bin, k.Package)
	r.slots.release()
	ks.commands = append(ks.commands, cmdline)
	if err != nil {
		ks.err = "kernel package test build failed: " + firstLine(compileError(out))
		return
	}
	ks.numbers, ks.compiled = map[string]int{}, map[string][]string{}
	var muts []mutant.Mutant
	for _, m := range r.kernelMutants {
		mm := m
		if len(mm.Compiled) == 0 && mm.Edit != nil && ks.src.Units != nil {
			mm.Compiled = operator.Compiled(ks.src.Units, mm.File, mm.Edit.Start, mm.Edit.End)
		}
		ks.numbers[mm.ID] = len(ks.numbers) + 1
		ks.compiled[mm.ID] = mm.Compiled
		muts = append(muts, mm)
	}
	// Where the recipe has a host emulation, its GPU compiler makes a GPU
	// backend only on a machine with a GPU; a recipe without one (a
	// library the compiler builds for the host) is probed as it is.
	hasEmulation := len(k.Emulation) > 0 && k.EmulationEnv != ""
	if tool, ok := FindTool(k.Tools); ok && hasEmulation && r.Opts.NoGPU != "" {
		ks.gpuWhy = r.Opts.NoGPU
	} else if ok {
		r.probeGPU(ctx, tool)
	} else {
		ks.gpuWhy = fmt.Sprintf("no compiler (none of %s on PATH)", strings.Join(k.Tools, ", "))
	}
	switch _, ok := FindTool(k.EmulationTools); {
	case len(k.Emulation) == 0 || k.EmulationEnv == "":
		// the recipe has no emulation: the GPU alone judges
	case !ok:
		ks.emulationWhy = fmt.Sprintf("no host emulation compiler (none of %s on PATH)", strings.Join(k.EmulationTools, ", "))
	default:
		ks.emulation = &backendState{backend: kernel.Emulation, env: kernel.Emulation.Env(""), libEnv: k.EmulationEnv}
	}
	for i := range muts {
		if bs, _ := ks.backendFor(muts[i]); bs != nil {
			bs.muts = append(bs.muts, kernel.Numbered{Num: ks.numbers[muts[i].ID], Mutant: &muts[i]})
		}
	}
}

// probeGPU builds the unmutated GPU library and runs the kernel
// package's tests on it: when some run (not all skipped for want of a
// device), the GPU backend is there.
func (r *Runner) probeGPU(ctx context.Context, tool string) {
	k, ks := r.Opts.Kernel, &r.kernel
	dir := filepath.Join(r.Opts.TempDir, "kernel-probe")
	if err := r.slots.acquire(ctx); err != nil {
		return
	}
	lib, out, err := ks.src.Build(ctx, kernel.GPU, dir, nil)
	r.slots.release()
	if lib != nil {
		ks.commands = append(ks.commands, lib.Command)
	}
	if err != nil {
		ks.gpuWhy = "the unmutated kernel does not build with " + filepath.Base(tool) + ": " + firstLine(out)
		return
	}
	run, err := r.gpuRun(ctx, testbin.Options{Binary: ks.bin, Dir: r.Prog.Dir(k.Package), Package: k.Package,
		Env: []string{k.LibEnv + "=" + lib.Path}, Timeout: r.Opts.BaselineTimeout})
	if err != nil {
		ks.gpuWhy = err.Error()
		return
	}
	ks.commands = append(ks.commands, run.Command)
	if len(run.Ran()) == 0 {
		ks.gpuWhy = "the kernel's tests skip on the GPU library"
		for name, t := range run.Tests {
			if t.Action == "skip" {
				ks.gpuWhy = "skipped: " + k.Package + "." + name + ": " + testbin.SkipMessage(t.Output)
				break
			}
		}
		return
	}
	ks.gpu = &backendState{backend: kernel.GPU, env: kernel.GPU.Env(tool), libEnv: k.LibEnv}
}

// prepareBackend builds the backend's kernel schema (every mutant it
// judges that can be switched) and runs the kernel package's tests on it,
// each alone with the kernel's hits: a kernel mutant then runs the tests
// that ran its code.
func (r *Runner) prepareBackend(ctx context.Context, bs *backendState) {
	k, ks := r.Opts.Kernel, &r.kernel
	dir := filepath.Join(r.Opts.TempDir, "kernel-schema-"+string(bs.backend))
	if err := r.slots.acquire(ctx); err != nil {
		bs.err = "interrupted"
		return
	}
	t0 := time.Now()
	lib, dropped, out, err := ks.src.BuildSchema(ctx, bs.backend, bs.env, dir, bs.muts, 8)
	r.slots.release()
	r.timing.addKernelSchema(time.Since(t0))
	if err != nil {
		bs.err = fmt.Sprintf("kernel schema (%s) does not build: %v", bs.backend, err)
		if out != "" {
			bs.err += ": " + firstLine(out)
		}
		return
	}
	bs.lib, bs.dropped = lib, dropped
	pb, err := runPackageBaseline(ctx, r.Prog, k.Package, packageOptions{
		Binary: ks.bin, Hits: lib.Sites, HitsEnv: "GATHERMUT_KERNEL_HITS", Env: []string{bs.libEnv + "=" + lib.Path},
		TempDir: r.Opts.TempDir, Timeout: r.Opts.BaselineTimeout, Slots: r.slots, GPU: r.gpuSlotsFor(bs),
	})
	if err != nil {
		bs.err = fmt.Sprintf("kernel baseline (%s): %v", bs.backend, err)
		return
	}
	bs.base = pb
	r.kernelMu.Lock()
	defer r.kernelMu.Unlock()
	from := ""
	if lib.Cached {
		from = ", the library from the cache"
	}
	r.kernelNotes = append(r.kernelNotes, fmt.Sprintf("kernel on %s: schema of %d mutants in %d round(s) (%d built on their own%s), %d tests each alone (%.1f s)",
		bs.backend, len(lib.Switched), lib.Rounds, len(dropped), from, len(pb.Names), pb.Elapsed.Seconds()))
}

// gpuSlotsFor returns the GPU slots a backend's test processes take: the
// GPU's, nil for the emulation.
func (r *Runner) gpuSlotsFor(bs *backendState) slots {
	if bs.backend == kernel.GPU {
		return r.gpuSlots
	}
	return nil
}

// gpuRun runs a test process that uses the GPU, in one of the run's GPU
// slots: a GPU serves few processes at once, whatever -j.
func (r *Runner) gpuRun(ctx context.Context, o testbin.Options) (*testbin.Result, error) {
	if r.gpuSlots != nil {
		if err := r.gpuSlots.acquire(ctx); err != nil {
			return nil, err
		}
		defer r.gpuSlots.release()
	}
	if err := r.slots.acquire(ctx); err != nil {
		return nil, err
	}
	defer r.slots.release()
	return testbin.Run(ctx, o)
}

// kernelTests runs a kernel mutant's tests: its expected killers alone
// first (a catalog mutant), then the kernel package's other tests that
// ran its code on the backend's schema (its site, or for a mutant built
// on its own its function's probe), in processes of rising cost. A
// process that times out is run again with twice the time once the
// queue has drained, in one slot (and every GPU slot, for the GPU
// backend), before its timeout counts (timeouts.go): a GPU shared by
// many processes can slow a correct test past its limit.
func (r *Runner) kernelTests(ctx context.Context, m mutant.Mutant, bs *backendState, n int, env []string, res mutant.Result) mutant.Result {
	pb := bs.base
	expected, killers, err := kernelKillers(m, r.Opts.Kernel.Package)
	if err != nil {
		return mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: res.Mode}
	}
	first, rest := kernelCandidates(bs, n, killers)
	res.CoveredBy = append(prefixed(pb.Path, first.names()), prefixed(pb.Path, rest.names())...)
	var groups []pkgRun
	if len(first.tests) > 0 {
		groups = append(groups, first)
	}
	if pred, whole, ok := r.kernelPredicted(m, rest); ok {
		groups = append(groups, pred)
		rest.tests = slices.DeleteFunc(slices.Clone(rest.tests), func(t *TestBaseline) bool { return whole[t.Name] })
	}
	if len(rest.tests) > 0 {
		groups = append(groups, byCost(rest, false)...)
	}
	if len(groups) == 0 {
		res.Status, res.Why, res.Mode = mutant.Survived, "not covered by any test", mutant.ModeStatic
		res.CoveredBy = nil
		return res
	}
	v := verdict{skipped: map[string]string{}}
	slowWhy := ""
	for _, g := range groups {
		opts := r.kernelOptions(pb, g, m, env)
		t0 := time.Now()
		run, err := r.kernelRun(ctx, bs, opts)
		r.timing.add(0, time.Since(t0), 0, 1)
		if err == nil {
			r.timing.addStep(g.step, time.Since(t0), run.TimedOut || run.ExitCode != 0)
		}
		if run != nil {
			res.Commands = append(res.Commands, run.Command)
		}
		if err != nil {
			if ctx.Err() == nil {
				res.Status, res.Why = mutant.Error, err.Error()
			}
			return res
		}
		if run.TimedOut {
			if run, err = r.confirmTimeout(ctx, bs.gpu(r), pb.Path, opts, run, &res, &slowWhy); err != nil {
				if ctx.Err() == nil {
					res.Status, res.Why = mutant.Error, err.Error()
				}
				return res
			}
		}
		v.add(pb.Path, run)
		if v.timedOut != "" || (len(v.failed) > 0 && (m.Catalog == nil || anyIn(v.failed, expected))) {
			break
		}
	}
	out := timeoutVerdict(v.result(res, m, expected), slowWhy)
	r.learn(m, out, &v)
	return out
}

// kernelPredicted is a generic kernel mutant's predicted killers among
// the tests that ran its code (rest), as one process (package selection;
// tail tests only from the mutant's own entry); false when the run has
// no killer map or none of them covers it. whole are the tests it runs
// whole: the tiers leave them out.
func (r *Runner) kernelPredicted(m mutant.Mutant, rest pkgRun) (p pkgRun, whole map[string]bool, ok bool) {
	if r.Killers == nil || m.Catalog != nil {
		return pkgRun{}, nil, false
	}
	preds, own := r.Killers.Predict(killerKey(m))
	return predictedGroup(rest, preds, own)
}

// kernelKillers returns a kernel mutant's expected killers, by TestID
// (expected) and by test name (killers); each must be a test of the
// kernel package pkg.
func kernelKillers(m mutant.Mutant, pkg string) (expected, killers map[string]bool, err error) {
	expected, killers = map[string]bool{}, map[string]bool{}
	for _, e := range m.Expected {
		expected[e.String()] = true
		if e.Package != pkg {
			return nil, nil, fmt.Errorf("expected killer %s is not a test of the kernel package %s", e, pkg)
		}
		killers[e.Name] = true
	}
	return expected, killers, nil
}

// kernelCandidates splits the kernel package's tests that passed or
// skipped in the backend's baseline into the expected killers (first;
// a killer the baseline lacks is there as gone) and the other tests that
// ran mutant n's code (rest): its site's, or for a mutant without one
// (built on its own) every test that hit its function's probe.
func kernelCandidates(bs *backendState, n int, killers map[string]bool) (first, rest pkgRun) {
	pb := bs.base
	site, hasSite := bs.lib.SiteOf[n]
	first.pkg, rest.pkg = pb, pb
	for _, name := range pb.Names {
		t := pb.Tests[name]
		if t.Status != BasePass && t.Status != BaseSkip {
			continue
		}
		switch {
		case killers[name]:
			first.tests = append(first.tests, t)
		case hasSite && t.HitSite(site), !hasSite && t.hitAny():
			rest.tests = append(rest.tests, t)
		}
	}
	for name := range killers {
		if _, ok := pb.Tests[name]; !ok {
			first.tests = append(first.tests, &TestBaseline{Name: name, Status: BaseGone})
		}
	}
	return first, rest
}

// kernelOptions are the options of the test process that runs group g
// against the kernel's test binary: stopping at the first failure unless
// m is a catalog mutant, each test's time limit from its baseline.
func (r *Runner) kernelOptions(pb *PackageBaseline, g pkgRun, m mutant.Mutant, env []string) testbin.Options {
	return testbin.Options{Binary: r.kernel.bin, Dir: pb.Dir, Package: pb.Path, Run: g.runPattern(), Failfast: m.Catalog == nil,
		Env: env, Timeout: timeoutFor(g.tests, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor),
		TestTimeout: func(name string) time.Duration {
			if t := pb.Tests[name]; t != nil {
				return testTimeout(t, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor)
			}
			return r.Opts.TimeoutFloor
		}}
}

// kernelRun runs a kernel mutant's test process: a GPU backend's in a GPU
// slot.
func (r *Runner) kernelRun(ctx context.Context, bs *backendState, o testbin.Options) (*testbin.Result, error) {
	if bs.backend == kernel.GPU {
		return r.gpuRun(ctx, o)
	}
	if err := r.slots.acquire(ctx); err != nil {
		return nil, err
	}
	defer r.slots.release()
	return testbin.Run(ctx, o)
}

// gpu is the GPU slots a rerun alone of the backend's test process
// holds (timeouts.go): every one on the GPU, none on the emulation.
func (bs *backendState) gpu(r *Runner) slots {
	if bs.backend == kernel.GPU {
		return r.gpuSlots
	}
	return nil
}

// hitAny reports whether the test ran any kernel site (the kernel at all).
func (t *TestBaseline) hitAny() bool {
	for _, b := range t.hits {
		if b != 0 {
			return true
		}
	}
	return false
}

// KernelNotes are the lines the kernel preparation printed, sorted.
func (r *Runner) KernelNotes() []string {
	r.kernelMu.Lock()
	defer r.kernelMu.Unlock()
	out := append([]string(nil), r.kernelNotes...)
	sort.Strings(out)
	return out
}
