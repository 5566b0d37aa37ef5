package schedule

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// raceArgs are the go test -c flags that build the test binary of the
// package at import path pkg with the race detector: ["-race"] where one
// of race (the project file's "race": package patterns relative to the
// module root, "./x" or "./x/..."; config.Config.Race) names it, else
// none. A surviving mutant's recheck (raceRecheck) builds with them; a
// race the detector reports fails the test it happens in (the testing
// package does so), which kills the mutant like any other failure.
func raceArgs(race []string, module, pkg string) []string {
	for _, pat := range race {
		rel := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(pat, "."), "/"), "/")
		path := module
		if rel != "" {
			path = module + "/" + rel
		}
		if base, ok := strings.CutSuffix(path, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return []string{"-race"}
			}
			continue
		}
		if pkg == path {
			return []string{"-race"}
		}
	}
	return nil
}

// raceSlowdown scales a test's limit under the race detector.
const raceSlowdown = 10

// raceRecheck judges a generic Go mutant that survived its covering
// tests again under the race detector, in each observing package the
// project file's "race" names (see the package doc); killed reports
// whether a test failed there, which j.v then holds.
func (j *goJudging) raceRecheck(ctx context.Context, steps []step) (killed bool) {
	if len(j.Opts.Race) == 0 || j.m.Catalog != nil {
		return false
	}
	for i, st := range steps {
		if st.killers || raceArgs(j.Opts.Race, j.Prog.Module, st.path) == nil {
			continue
		}
		pb, err := j.pkgBaseline(ctx, st.path)
		if err != nil || pb == nil {
			continue
		}
		p := j.selection(pb, st, j.m, nil)
		if len(p.tests) == 0 {
			continue
		}
		bin, ok := j.raceBuild(ctx, i, p)
		if !ok {
			continue
		}
		opts := j.testOptions(testBinary{path: bin, overlay: j.overlay}, p)
		opts.Timeout *= raceSlowdown
		if base := opts.TestTimeout; base != nil {
			opts.TestTimeout = func(name string) time.Duration { return raceSlowdown * base(name) }
		}
		t0 := time.Now()
		run, err := j.testProcess(ctx, p.pkg.Path, opts)
		j.runTime += time.Since(t0)
		j.runs++
		if err != nil || run.TimedOut {
			continue
		}
		j.res.Commands = append(j.res.Commands, run.Command)
		j.v.add(p.pkg.Path, run)
		if len(j.v.failed) > 0 {
			return true
		}
	}
	return false
}

// raceBuild builds an observing package's test binary with -race and
// the mutant; false when it does not build (the mutant keeps its
// verdict).
func (j *goJudging) raceBuild(ctx context.Context, i int, p pkgRun) (string, bool) {
	if err := j.ensureOverlay(); err != nil {
		return "", false
	}
	bin := filepath.Join(j.dir, fmt.Sprintf("race%d.test", i))
	if err := j.slots.acquire(ctx); err != nil {
		return "", false
	}
	t0 := time.Now()
	cmdline, _, err := testbin.Go(ctx, j.Prog.Root, "test", "-c", "-race", "-o", bin, "-overlay", j.overlay, p.pkg.Path)
	j.slots.release()
	j.buildTime += time.Since(t0)
	j.builds++
	j.res.Commands = append(j.res.Commands, cmdline)
	return bin, err == nil
}

// raceVerdict words a mutant the race recheck killed.
func raceVerdict(res mutant.Result) mutant.Result {
	res.Why = "killed under the race detector (-race): " + strings.Join(res.KilledBy, ", ")
	return res
}
