package schedule

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/cxx"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/discover"
	"gathermut/mutate/internal/progress"
	"gathermut/mutate/internal/selection"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/report"
)

// Input is what scheduling needs from the run.
type Input struct {
	Config    config.Config
	Discovery *discover.Discovery // its Prog is loaded (all, run)
	Temp      string              // the run's temp dir, removed by the caller
	Stderr    io.Writer           // progress and phase lines
	Machine   report.Machine      // the GPUs found: part of an incremental verdict's key
	GoVersion string
	Paths     report.Paths // paths an incremental cache entry must not name
}

// Judgement is what the step decided.
type Judgement struct {
	// Outcomes are the verdicts reused from the incremental cache, then
	// one per mutant to judge, in the discovery's order. None when the
	// baseline is red.
	Outcomes []mutant.Outcome
	Baseline report.BaselineInfo
	// Timing holds the phases this step times: schema builds, baseline,
	// mutants, builds and test processes.
	Timing report.Timing
	// Red: the baseline is failing, so no mutant was judged; Failing
	// lists the tests that fail without any mutant.
	Red     bool
	Failing []string
	// Interrupted: Ctrl-C came before every mutant was judged; the
	// unjudged ones are in Outcomes as mutant.Interrupted. InterruptedIn
	// names the phase when it came before any mutant ran.
	Interrupted   bool
	InterruptedIn string
	Incremental   *report.IncrementalInfo
	// GPUOnly are the kernel mutants left out because no backend here
	// compiles their code (see withoutGPUOnly).
	GPUOnly []string
}

// scheduler is one run's scheduling state, shared by the baselines, the
// schema and the runner.
type scheduler struct {
	Input
	cfg   config.Config
	prog  *load.Program
	root  string
	slots slots // the child processes the run has at once
	// incr is the run's --incremental state (graph, cache, evidence), nil
	// without --incremental; with it the schema renders function probes
	// (probes.go).
	incr *incrementalRun
}

// Judge runs the baselines and the mutants: the verdicts the incremental
// cache still holds are reused; the packages that can observe a mutant
// to run get a baseline (on their schema binary, or without schemata one
// up front); then a pool of -j workers judges each mutant with its
// backend (backend.go). A red baseline judges no mutant (Failing says
// why); an interrupt leaves the rest unjudged.
func Judge(ctx context.Context, in Input) (*Judgement, error) {
	s := &scheduler{Input: in, cfg: in.Config, prog: in.Discovery.Prog, root: in.Discovery.Prog.Root, slots: newSlots(in.Config.Jobs)}
	j := &Judgement{}
	ms := in.Discovery.Mutants
	ms, j.GPUOnly = s.withoutGPUOnly(ms)
	var inc *incrementalRun
	var reused []mutant.Outcome
	if s.cfg.Incremental != "" {
		inc, reused, ms = s.openIncremental(ms)
		s.incr = inc
	}
	runner := s.newRunner()
	inc.watch(runner)
	sr, err := s.prepare(ctx, ms, runner, j)
	if err != nil {
		return nil, err
	}
	if j.InterruptedIn != "" {
		// the report still comes (the doc promises one): every mutant
		// unjudged but those the incremental cache gave
		fmt.Fprintf(s.Stderr, "mutate: interrupted during %s\n", j.InterruptedIn)
		j.Outcomes, j.Interrupted = interrupted(reused, ms, j.InterruptedIn), true
		j.Baseline = report.BaselineInfo{Interrupted: true, Seconds: j.Timing.Baseline}
		return j, nil
	}
	outcomes := s.runMutants(ctx, ms, runner, j)
	base := runner.Baseline
	if sr != nil {
		base = sr.collectBaseline()
		j.Timing.SchemaBuilds = sr.buildSeconds()
		j.Timing.Baseline = base.Duration.Seconds() // summed over packages: they overlap the mutants
	}
	j.Baseline = baselineInfo(base)
	if j.Interrupted && sr != nil && sr.baselineCut() {
		j.Baseline.Interrupted = true
	}
	if runner.Red != nil {
		outcomes, j.Interrupted, j.Red = nil, false, true
		j.Failing = runner.Red.Failing
		if sr != nil {
			j.Failing = base.Failing
		}
		s.printFailing(j.Failing, base)
	}
	j.Outcomes = append(reused, outcomes...)
	if runner.Red == nil && inc != nil {
		j.Incremental = s.storeIncremental(inc, j.Outcomes, j.Interrupted)
	}
	return j, nil
}

// newRunner makes the runner of the run's mutants.
func (s *scheduler) newRunner() *Runner {
	r := &Runner{Prog: s.prog, slots: s.slots, Opts: Options{
		Jobs: s.cfg.Jobs, TimeoutFactor: s.cfg.TimeoutFactor, TimeoutFloor: s.cfg.TimeoutFloor.D(), TempDir: s.Temp,
		Kernel: s.Discovery.Catalog.Kernel, BaselineTimeout: s.cfg.BaselineTimeout.D(),
		GPUJobs: s.cfg.GPUJobs, NoSchemata: !s.cfg.Schemata, NoCache: s.cfg.NoCache, Race: s.cfg.Race,
	}}
	if len(s.Machine.GPUs) == 0 {
		r.Opts.NoGPU = "no GPU on this machine (" + s.Machine.GPUNote + ")"
	}
	r.initSlots()
	return r
}

// observing lists the packages the runnable Go mutants are in and the
// packages whose tests can observe them.
func (s *scheduler) observing(ms []mutant.Mutant) (mutated, observers map[string]bool) {
	mutated, observers = map[string]bool{}, map[string]bool{}
	for _, m := range ms {
		if m.Kind != mutant.Go || !m.Runs() {
			continue
		}
		mutated[m.Package] = true
		for _, p := range s.prog.Observers(m.Package) {
			observers[p] = true
		}
	}
	return mutated, observers
}

// prepare makes what the mutants need before any runs: with schemata the
// schema binaries of the mutated packages (their baselines then start
// next to the mutants), else every observing package's baseline up
// front. An interrupt here sets j.InterruptedIn.
func (s *scheduler) prepare(ctx context.Context, ms []mutant.Mutant, runner *Runner, j *Judgement) (*schemaRun, error) {
	mutated, observers := s.observing(ms)
	var sr *schemaRun
	switch {
	case s.cfg.Schemata && len(mutated) > 0 && runtime.GOOS != "windows" && runtime.GOOS != "plan9":
		sr = s.startSchema(ctx, ms, mutated, observers, runner, j)
		if j.InterruptedIn != "" {
			return nil, nil
		}
		runner.Schema = sr
	case s.cfg.Schemata && len(mutated) > 0:
		fmt.Fprintf(s.Stderr, "mutate: schemata need mmap (not on %s): every mutant gets its own build\n", runtime.GOOS)
	}
	if sr == nil {
		return nil, s.plainBaseline(ctx, ms, mutated, observers, runner, j)
	}
	return sr, nil
}

// startSchema builds the schema binaries of the mutated packages that
// have tests and starts their baselines; nil when the schema does not
// build (every mutant then gets its own build, as --no-schemata).
func (s *scheduler) startSchema(ctx context.Context, ms []mutant.Mutant, mutated, observers map[string]bool, runner *Runner, j *Judgement) *schemaRun {
	var eager []string
	for p := range mutated {
		if observers[p] {
			eager = append(eager, p)
		}
	}
	sort.Strings(eager)
	s.progressf("%s", s.schemaStartLine(len(ms), len(mutated), len(eager)))
	start := time.Now()
	sr, err := s.newSchemaRun(ctx, ms, eager, s.Discovery.Before.Hash)
	switch {
	case ctx.Err() != nil:
		j.InterruptedIn = "the schema build"
		return nil
	case err != nil:
		fmt.Fprintf(s.Stderr, "mutate: %v\nmutate: no schema: every mutant gets its own build (as --no-schemata)\n", err)
		return nil
	}
	j.Timing.SchemaBuilds, j.Timing.SchemaRounds = time.Since(start).Seconds(), sr.rounds
	s.progressf("%s", s.schemaBuiltLine(j.Timing.SchemaBuilds, sr.rounds, len(sr.main.switched), countRunnable(ms)))
	// The mutated packages' baselines start now (in GPU slots where they
	// use the GPU); mutants start at once too, each waiting only for the
	// baselines it needs.
	sr.runner = runner
	s.deriveFloor(ctx, runner, sr.eagerBinaries())
	for _, obs := range eager {
		go sr.baseline(ctx, obs)
	}
	return sr
}

// plainBaseline runs every observing package's baseline up front, with
// coverage (the mode without schemata).
func (s *scheduler) plainBaseline(ctx context.Context, ms []mutant.Mutant, mutated, observers map[string]bool, runner *Runner, j *Judgement) error {
	s.progressf("mutate: %d mutants; baseline of %d packages\n", len(ms), len(observers))
	line := progress.New(s.Stderr, 0, time.Now())
	start := time.Now()
	base, err := RunBaseline(ctx, s.prog, BaselineOptions{
		Jobs:     s.cfg.Jobs,
		TempDir:  s.Temp,
		Packages: sortedKeys(observers),
		Cover:    sortedKeys(mutated),
		Timeout:  s.cfg.BaselineTimeout.D(),
		Slots:    s.slots,
		Progress: func(done, total int) { line.Phase("baseline: tests run", done, total) },
	})
	line.Finish()
	j.Timing.Baseline = time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			j.InterruptedIn = "the baseline"
			return nil
		}
		return exitcode.Fail(exitcode.Baseline, "%v", err)
	}
	runner.Baseline = base
	s.deriveFloor(ctx, runner, base.binaries)
	if len(base.Failing) > 0 {
		runner.Red = &PackageBaseline{Failing: base.Failing, Tests: map[string]*TestBaseline{}}
		for _, pb := range base.Packages {
			for name, t := range pb.Tests {
				runner.Red.Tests[pb.Path+"."+name] = t
			}
		}
	}
	return nil
}

// runMutants judges the mutants in a pool of -j workers with the
// progress line, unless the baseline is already red.
func (s *scheduler) runMutants(ctx context.Context, ms []mutant.Mutant, runner *Runner, j *Judgement) []mutant.Outcome {
	if runner.Red != nil {
		return nil
	}
	line := progress.New(s.Stderr, len(ms), time.Now())
	line.Verbose = s.cfg.Verbose
	runner.Running = line.Running
	if !s.cfg.NoKillerMap {
		runner.Killers = selection.Open(s.prog.Module, s.root)
	}
	stopWatch := line.Watch(ctx)
	outcomes := runner.Run(ctx, ms, line.Update)
	stopWatch()
	line.Finish()
	if runner.Killers != nil {
		if err := runner.Killers.Save(); err != nil {
			s.progressf("mutate: killer map not saved (the next run orders its tests without it): %v\n", err)
		}
	}
	// the time spent judging: up to the interrupt, if one came
	j.Timing.Mutants = line.JudgingTime().Seconds()
	j.Timing.FallbackBuilds, j.Timing.Builds = runner.timing.overlayBuilds.Seconds(), runner.timing.builds
	j.Timing.TestProcesses, j.Timing.Processes = runner.timing.tests.Seconds(), runner.timing.runs
	j.Timing.KernelSchema = runner.timing.kernelSchema.Seconds()
	j.Timing.TimeoutFloor, j.Timing.Startup = runner.Opts.TimeoutFloor.Seconds(), runner.startup.Seconds()
	j.Timing.TimeoutReruns, j.Timing.Reruns = runner.timing.reruns.Seconds(), runner.timing.rerunCount
	order := runner.timing.order
	j.Timing.Order = &order
	for _, note := range runner.KernelNotes() {
		s.progressf("mutate: %s\n", note)
	}
	j.Interrupted = ctx.Err() != nil
	return outcomes
}

// interrupted is the outcomes of a run interrupted before any mutant
// ran: every mutant unjudged but those the incremental cache gave.
func interrupted(reused []mutant.Outcome, ms []mutant.Mutant, phase string) []mutant.Outcome {
	outcomes := append([]mutant.Outcome(nil), reused...)
	for _, m := range ms {
		outcomes = append(outcomes, mutant.Outcome{Mutant: m, Result: mutant.Result{Status: mutant.Interrupted, Why: "interrupted during " + phase}})
	}
	return outcomes
}

// printFailing names the failing baseline tests on stderr, each with its
// output.
func (s *scheduler) printFailing(failing []string, base *Baseline) {
	fmt.Fprintf(s.Stderr, "mutate: baseline failing: %s\n", strings.Join(failing, ", "))
	for _, p := range failing {
		id, _ := mutant.ParseTestID(p)
		if pb := base.Packages[id.Package]; pb != nil {
			if t := pb.Tests[id.Name]; t != nil && t.Output != "" {
				fmt.Fprintf(s.Stderr, "--- %s\n%s\n", p, strings.TrimSpace(t.Output))
			}
		}
	}
}

// progressf prints a phase line on stderr.
func (s *scheduler) progressf(format string, args ...any) {
	fmt.Fprintf(s.Stderr, format, args...)
}

func baselineInfo(b *Baseline) report.BaselineInfo {
	info := report.BaselineInfo{Packages: len(b.Packages), Flaky: b.Flaky, Failing: b.Failing, Seconds: b.Duration.Seconds()}
	for _, p := range b.Packages {
		info.Tests += len(p.Tests)
		for _, name := range p.Names {
			if t := p.Tests[name]; t.Status == BaseSkip {
				info.Skipped = append(info.Skipped, p.Path+"."+name+" ("+t.Skip+")")
			}
		}
	}
	sort.Strings(info.Skipped)
	return info
}

func countRunnable(ms []mutant.Mutant) int {
	n := 0
	for _, m := range ms {
		if schemaMutant(m) {
			n++
		}
	}
	return n
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withoutGPUOnly leaves out, where no GPU compiler of the kernel recipe is
// on PATH, the kernel mutants whose code no other build compiles (inline
// PTX under #if defined(__CUDA_ARCH__)): no backend here can judge them, and
// a GPU run does. It returns the rest and the ids left out.
func (s *scheduler) withoutGPUOnly(ms []mutant.Mutant) ([]mutant.Mutant, []string) {
	k := s.Discovery.Catalog.Kernel
	if k == nil || k.Entry == "" {
		return ms, nil
	}
	if _, ok := FindTool(k.Tools); ok {
		return ms, nil
	}
	var units map[string][]*cxx.Source
	files, err := operator.KernelSources(s.root, k)
	if err == nil {
		units, err = operator.KernelUnits(files, k.Entry)
	}
	if err != nil {
		return ms, nil // the kernel's preparation reports it
	}
	var kept []mutant.Mutant
	var out []string
	for _, m := range ms {
		if m.Kind == mutant.Kernel && m.Edit != nil {
			compiled := m.Compiled
			if len(compiled) == 0 {
				compiled = operator.Compiled(units, m.File, m.Edit.Start, m.Edit.End)
			}
			if len(compiled) > 0 && !slices.Contains(compiled, cxx.Emulation.Name) {
				out = append(out, m.ID)
				continue
			}
		}
		kept = append(kept, m)
	}
	if len(out) > 0 {
		s.progressf("mutate: %d kernel mutants of code only a GPU compiler sees are left to GPU runs: %s\n", len(out), strings.Join(out, ", "))
	}
	return kept, out
}
