package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/tree"
)

// execute runs the baseline and the mutants, then writes the reports.
func (l *lab) execute(ctx context.Context, d *discovery) error {
	meta := report.Meta{
		Name:       l.cfg.ReportName(),
		Module:     l.module,
		Root:       l.root,
		Patterns:   l.cfg.Patterns,
		Catalog:    l.catPath,
		Started:    l.started,
		Jobs:       l.cfg.Jobs,
		Machine:    describeMachine(),
		GoVersion:  goVersion(),
		Version:    Version,
		TreeBefore: d.before.Hash,
		Config:     l.cfg,
		Shard:      l.cfg.Shard.String(),
	}
	ms := d.mutants

	// The packages that can observe a mutant to run.
	observers := map[string]bool{}
	mutated := map[string]bool{}
	for _, m := range ms {
		if m.Kind != mutant.Go || m.Invalid != "" || m.Unviable != "" || m.Equivalent != "" {
			continue
		}
		mutated[m.Package] = true
		for _, p := range l.prog.Observers(m.Package) {
			observers[p] = true
		}
	}
	var base *Baseline
	var sr *schemaRun
	runner := &Runner{Prog: l.prog, slots: l.slots, Opts: Options{
		Jobs: l.cfg.Jobs, TimeoutFactor: l.cfg.TimeoutFactor, TimeoutFloor: l.cfg.TimeoutFloor.D(), TempDir: l.tmp, Kernel: l.cat.Kernel,
		BaselineTimeout: l.cfg.BaselineTimeout.D(),
	}}
	if l.cfg.Schemata && len(mutated) > 0 && runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		// The mutated packages' binaries and baselines are made up front;
		// an importer's when a mutant first needs it.
		var eager []string
		for p := range mutated {
			if observers[p] {
				eager = append(eager, p)
			}
		}
		sort.Strings(eager)
		l.progressf("mutate: %d mutants; schemata of %d packages, test binaries of %d\n", len(ms), len(mutated), len(eager))
		start := time.Now()
		var err error
		sr, err = l.newSchemaRun(ctx, ms, eager, d.before.Hash)
		switch {
		case ctx.Err() != nil:
			return Fail(exitcode.Interrupted, "interrupted during the schema build")
		case err != nil:
			fmt.Fprintf(l.stderr, "mutate: %v\nmutate: no schema: every mutant gets its own build (as --no-schemata)\n", err)
			sr = nil
		default:
			meta.Timing.SchemaBuilds, meta.Timing.SchemaRounds = time.Since(start).Seconds(), sr.rounds
			l.progressf("mutate: schema built in %.1f s (%d round(s)): %d of %d runnable mutants switched\n",
				meta.Timing.SchemaBuilds, sr.rounds, len(sr.main.switched), countRunnable(ms))
			// The mutated packages' baselines start now; mutants start at
			// once too, each waiting only for the baselines it needs.
			for _, obs := range eager {
				go sr.baseline(ctx, obs)
			}
			runner.Schema = sr
		}
	} else if l.cfg.Schemata && len(mutated) > 0 {
		fmt.Fprintf(l.stderr, "mutate: schemata need mmap (not on %s): every mutant gets its own build\n", runtime.GOOS)
	}
	if sr == nil {
		l.progressf("mutate: %d mutants; baseline of %d packages\n", len(ms), len(observers))
		bp := newProgress(l.stderr, 0, time.Now())
		baseStart := time.Now()
		var err error
		base, err = RunBaseline(ctx, l.prog, BaselineOptions{
			Jobs:     l.cfg.Jobs,
			TempDir:  l.tmp,
			Packages: sortedKeys(observers),
			Cover:    sortedKeys(mutated),
			Timeout:  l.cfg.BaselineTimeout.D(),
			Slots:    l.slots,
			Progress: func(done, total int) { bp.phase("baseline: tests run", done, total) },
		})
		bp.finish()
		meta.Timing.Baseline = time.Since(baseStart).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				return Fail(exitcode.Interrupted, "interrupted during the baseline")
			}
			return Fail(exitcode.Baseline, "%v", err)
		}
		runner.Baseline = base
		if len(base.Failing) > 0 {
			runner.Red = &PackageBaseline{Failing: base.Failing, Tests: map[string]*TestBaseline{}}
			for _, pb := range base.Packages {
				for name, t := range pb.Tests {
					runner.Red.Tests[pb.Path+"."+name] = t
				}
			}
		}
	}
	var outcomes []mutant.Outcome
	interrupted := false
	if runner.Red == nil {
		prog := newProgress(l.stderr, len(ms), time.Now())
		prog.verbose = l.cfg.Verbose
		runStart := time.Now()
		outcomes = runner.Run(ctx, ms, prog.update)
		prog.finish()
		meta.Timing.Mutants = time.Since(runStart).Seconds()
		meta.Timing.FallbackBuilds, meta.Timing.Builds = runner.timing.overlayBuilds.Seconds(), runner.timing.builds
		meta.Timing.TestProcesses, meta.Timing.Processes = runner.timing.tests.Seconds(), runner.timing.runs
		interrupted = ctx.Err() != nil
	}
	if sr != nil {
		base = sr.collectBaseline()
		meta.Timing.SchemaBuilds = sr.buildSeconds()
		meta.Timing.Baseline = base.Duration.Seconds() // summed over packages: they overlap the mutants
	}
	meta.Baseline = baselineInfo(base)
	if runner.Red != nil {
		outcomes, interrupted = nil, false
		failing := runner.Red.Failing
		if sr != nil {
			failing = base.Failing
		}
		fmt.Fprintf(l.stderr, "mutate: baseline failing: %s\n", strings.Join(failing, ", "))
		for _, p := range failing {
			pkg, name, _ := SplitTestID(p)
			if pb := base.Packages[pkg]; pb != nil {
				if t := pb.Tests[name]; t != nil && t.Output != "" {
					fmt.Fprintf(l.stderr, "--- %s\n%s\n", p, strings.TrimSpace(t.Output))
				}
			}
		}
	}
	meta.Modes = map[mutant.Mode]int{}
	for _, o := range outcomes {
		meta.Modes[o.Result.Mode]++
	}
	meta.Timing.Discovery, meta.Timing.TypeCheck = l.discoverySeconds, l.typeCheckSeconds

	after, err := tree.HashTree(l.root, kernelFiles(l.root, l.cat))
	if err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	meta.TreeAfter = after.Hash
	meta.TreeChanged = d.before.Changed(after)
	meta.Interrupted = interrupted
	meta.WallSeconds = time.Since(l.started).Seconds()
	sources := map[string]string{}
	for _, o := range outcomes {
		if _, ok := sources[o.Mutant.File]; !ok {
			data, _ := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(o.Mutant.File)))
			sources[o.Mutant.File] = string(data)
		}
	}
	rep := report.Build(meta, outcomes, sources)
	rep.Gathermut.ExitCode, rep.Gathermut.Reason = report.ExitCode(rep.Gathermut.Summary, report.Conditions{
		TreeChanged:    len(meta.TreeChanged) > 0,
		BaselineRed:    runner.Red != nil,
		Interrupted:    interrupted,
		BaselineNote:   strings.Join(base.Failing, ", "),
		StrictTimeouts: l.cfg.StrictTimeouts,
	})
	jsonPath, mdPath, err := report.Write(l.cfg.ReportDir, rep)
	if err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	sum := rep.Gathermut.Summary
	fmt.Fprintf(l.stdout, "%d mutants: %d killed, %d survived, %d timed out, %d unviable, %d not run, %d errors, %d ignored; score %s; %.1f s (-j %d)\n",
		sum.Total, sum.Counts[mutant.Killed], sum.Counts[mutant.Survived], sum.Counts[mutant.TimedOut], sum.Counts[mutant.Unviable],
		sum.Counts[mutant.NotRun], sum.Counts[mutant.Error], sum.Counts[mutant.Ignored], report.FormatScore(sum), meta.WallSeconds, l.cfg.Jobs)
	for _, o := range outcomes {
		if o.Result.Status == mutant.NotRun {
			fmt.Fprintf(l.stdout, "not run: %s: %s\n", o.Mutant.ID, o.Result.Why)
		}
	}
	fmt.Fprintf(l.stdout, "reports: %s, %s\n", jsonPath, mdPath)
	if rep.Gathermut.ExitCode != exitcode.OK {
		return Fail(rep.Gathermut.ExitCode, "%s", rep.Gathermut.Reason)
	}
	fmt.Fprintln(l.stdout, rep.Gathermut.Reason)
	return nil
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
