package schedule

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// Timeouts that mean something.
//
// The floor of every test's limit: a mutant's test is held to
// --timeout-factor times its baseline time plus the floor; the floor
// covers what a test process pays whatever the test: starting the binary
// (and test2json), the package's initialization, the scheduler of a busy
// machine. Unless --timeout-floor gives it, it is derived from the
// machine: each test binary the run builds first (the mutated packages'
// schema binaries, or the baseline binaries without schemata) is started
// startupRuns times with no test selected, and the floor is floorFactor
// times the slowest start-up, at least minFloor. A loaded machine starts
// binaries slower and gets a larger floor.
//
// A test process that still passes its limit among the others (a Go
// mutant's tier, a kernel mutant's process, expected killers or not) runs
// again with twice the time before its timeout counts. The rerun waits
// until every mutant of the run has been taken by a worker, its worker's
// turn lent meanwhile (awaitDrained), then runs in one process slot (and
// every GPU slot, for tests that use the GPU: holdConfirm): the other
// workers go on judging meanwhile instead of idling behind it (the row's
// 51 confirmations, each once holding all 16 slots, took 18% of a run).
// A mutant whose timeout an earlier run confirmed on the same judged
// tree (the killer map records it: selection.Map.LearnHang) is not run
// again: its verdict says so. Then: if it passes the doubled limit again the verdict is
// "timed out (confirmed)"; if it finishes, that run decides and the
// verdict is "slow, then killed" or "slow, then survived"
// (Result.Timeout says which; package outcome counts them apart).
const (
	startupRuns = 3
	floorFactor = 5
	minFloor    = 200 * time.Millisecond
)

// startupBinary is a test binary to time the start-up of.
type startupBinary struct {
	path, dir, pkg string
}

// deriveFloor sets the runner's timeout floor when the configuration
// leaves it to the machine (0), from the start-up of bins.
func (s *scheduler) deriveFloor(ctx context.Context, runner *Runner, bins []startupBinary) {
	if s.cfg.TimeoutFloor != 0 {
		return
	}
	runner.startup = measureStartup(ctx, s.slots, bins)
	runner.Opts.TimeoutFloor = floorFor(runner.startup)
	s.progressf("mutate: timeout floor %s (%d× the slowest test binary start-up, %s)\n",
		runner.Opts.TimeoutFloor.Round(time.Millisecond), floorFactor, runner.startup.Round(time.Millisecond))
}

// floorFor is the floor for a start-up time.
func floorFor(startup time.Duration) time.Duration {
	return max(floorFactor*startup, minFloor)
}

// measureStartup starts each binary startupRuns times with no test
// selected, in the run's slots, and returns the slowest start-up (0 when
// none ran).
func measureStartup(ctx context.Context, s slots, bins []startupBinary) time.Duration {
	var mu sync.Mutex
	var slowest time.Duration
	var wg sync.WaitGroup
	for _, b := range bins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range startupRuns {
				if err := s.acquire(ctx); err != nil {
					return
				}
				res, err := testbin.Run(ctx, testbin.Options{Binary: b.path, Dir: b.dir, Package: b.pkg, Run: "^$", Timeout: time.Minute,
					Env: []string{"GATHERMUT_MUTANT=0"}})
				s.release()
				if err != nil || res.ExitCode != 0 {
					return
				}
				mu.Lock()
				slowest = max(slowest, res.Elapsed)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return slowest
}

// eagerBinaries are the schema binaries built before the mutants start.
func (sr *schemaRun) eagerBinaries() []startupBinary {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	var out []startupBinary
	for obs, f := range sr.binaries {
		if f.done.Load() && f.v != nil {
			out = append(out, startupBinary{path: f.v.path, dir: sr.s.prog.Dir(obs), pkg: obs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pkg < out[j].pkg })
	return out
}

// confirmTimeout runs a test process that timed out (first) again alone
// with twice the time (rerunAlone) and returns the run that decides: the
// rerun, or first when the rerun could not be made (err then says why,
// nil on an interrupt). It records what the rerun gave in res.Timeout (a
// confirmed timeout wins over a slow process of an earlier tier) and, for
// the first slow process, where it timed out in slowWhy.
func (r *Runner) confirmTimeout(ctx context.Context, gpu slots, id, pkg string, o testbin.Options, first *testbin.Result, res *mutant.Result, slowWhy *string) (*testbin.Result, error) {
	if r.Killers != nil && r.Killers.HungOn(id, r.Tree) {
		if res.Timeout == "" {
			res.Timeout = mutant.TimeoutKnown
		}
		return first, nil
	}
	again, err := r.rerunAlone(ctx, gpu, o)
	if again != nil {
		res.Commands = append(res.Commands, again.Command)
	}
	if err != nil || again == nil {
		return first, err
	}
	switch {
	case again.TimedOut:
		res.Timeout = mutant.TimeoutConfirmed
	case res.Timeout == "":
		res.Timeout, *slowWhy = mutant.TimeoutSlow, timeoutText(pkg, first)
	}
	return again, nil
}

// timeoutText says where a test process ran past its limit.
func timeoutText(pkg string, run *testbin.Result) string {
	s := fmt.Sprintf("%s after %s", pkg, run.Elapsed.Round(time.Millisecond))
	if run.TimedOutTest != "" {
		s += " (" + pkg + "." + run.TimedOutTest + " past its own limit)"
	}
	return s
}

// timeoutVerdict words the verdict of a mutant whose test process timed
// out and ran again alone: a timeout that held is "timed out (confirmed)";
// one that finished the second time is "slow, then killed" or "slow, then
// survived", with where it first timed out.
func timeoutVerdict(res mutant.Result, slowWhy string) mutant.Result {
	switch {
	case res.Timeout == mutant.TimeoutConfirmed && res.Status == mutant.TimedOut:
		res.Why = "timed out (confirmed): " + strings.TrimPrefix(res.Why, "timed out: ") + "; run again alone with twice the time, it timed out again"
	case res.Timeout == mutant.TimeoutKnown && res.Status == mutant.TimedOut:
		res.Why = "timed out (confirmed by an earlier run of this tree): " + strings.TrimPrefix(res.Why, "timed out: ") + "; not run again alone: the killer map records that it timed out again alone on this judged tree"
	case res.Timeout == mutant.TimeoutSlow:
		why := fmt.Sprintf("slow, then %s: %s timed out among other processes, then finished alone with twice the time", res.Status, slowWhy)
		if res.Why != "" {
			why += "; " + res.Why
		} else if res.Status == mutant.Killed {
			why += "; killed by " + strings.Join(res.KilledBy, ", ")
		}
		res.Why = why
	}
	return res
}

// rerunAlone runs a test process again with twice its time, with every
// process slot of the run (and every GPU slot in gpu, for tests that use
// the GPU) held, so that no other process runs beside it: what it gives
// is the mutant's behaviour, not the machine's load.
func (r *Runner) rerunAlone(ctx context.Context, gpu slots, o testbin.Options) (*testbin.Result, error) {
	o.Timeout *= 2
	if base := o.TestTimeout; base != nil {
		o.TestTimeout = func(name string) time.Duration { return 2 * base(name) }
	}
	r.awaitDrained(ctx)
	release, err := r.holdConfirm(ctx, gpu)
	if err != nil {
		return nil, err
	}
	defer release()
	t0 := time.Now()
	run, err := testbin.Run(ctx, o)
	r.timing.addRerun(time.Since(t0))
	return run, err
}

// holdConfirm takes the slots a confirmation runs in: once every mutant
// has been taken (awaitDrained), the process slot it needs and, for a
// test that uses the GPU, every GPU slot. A hung mutant spins on one
// core; twice its limit on a machine no busier than when it first timed
// out tells a hang from a slow test, and the confirmations left at the
// end of a run so run side by side instead of one at a time with every
// slot (the row's 49 took 108 s of a 143 s run on 16 cores that way).
func (r *Runner) holdConfirm(ctx context.Context, gpu slots) (func(), error) {
	var held []slots
	release := func() {
		for _, s := range held {
			s.release()
		}
	}
	if gpu != nil {
		r.aloneMu.Lock()
		defer r.aloneMu.Unlock()
		for range cap(gpu) {
			if err := gpu.acquire(ctx); err != nil {
				release()
				return nil, err
			}
			held = append(held, gpu)
		}
	}
	if err := r.slots.acquire(ctx); err != nil {
		release()
		return nil, err
	}
	held = append(held, r.slots)
	return release, nil
}

// awaitDrained waits, with the caller's turn lent to another worker,
// until every mutant of the run has been taken (or ctx ends); outside
// Run it returns at once.
func (r *Runner) awaitDrained(ctx context.Context) {
	if r.drained == nil {
		return
	}
	select {
	case <-r.drained:
		return
	default:
	}
	lend(ctx, func() {
		select {
		case <-r.drained:
		case <-ctx.Done():
		}
	})
}

func (t *timing) addRerun(d time.Duration) {
	t.mu.Lock()
	t.reruns += d
	t.rerunCount++
	t.mu.Unlock()
}
