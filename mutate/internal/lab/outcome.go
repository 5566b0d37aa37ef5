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
		Paths:      l.paths(),
	}
	ms := d.mutants
	var inc *incrementalRun
	var reused []mutant.Outcome
	if l.cfg.Incremental != "" {
		inc, reused, ms = l.openIncremental(ms, meta.Machine)
	}

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
		l.progressf("%s", l.schemaStartLine(len(ms), len(mutated), len(eager)))
		start := time.Now()
		var err error
		sr, err = l.newSchemaRun(ctx, ms, eager, d.before.Hash)
		switch {
		case ctx.Err() != nil:
			return l.interruptedBefore(meta, d, reused, ms, "the schema build")
		case err != nil:
			fmt.Fprintf(l.stderr, "mutate: %v\nmutate: no schema: every mutant gets its own build (as --no-schemata)\n", err)
			sr = nil
		default:
			meta.Timing.SchemaBuilds, meta.Timing.SchemaRounds = time.Since(start).Seconds(), sr.rounds
			l.progressf("%s", l.schemaBuiltLine(meta.Timing.SchemaBuilds, sr.rounds, len(sr.main.switched), countRunnable(ms)))
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
				return l.interruptedBefore(meta, d, reused, ms, "the baseline")
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
		stopWatch := prog.watch(ctx)
		outcomes = runner.Run(ctx, ms, prog.update)
		stopWatch()
		prog.finish()
		// the time spent judging: up to the interrupt, if one came
		meta.Timing.Mutants = prog.judgingTime().Seconds()
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
	if interrupted && sr != nil && sr.baselineCut() {
		meta.Baseline.Interrupted = true
	}
	var failing []string
	if runner.Red != nil {
		outcomes, interrupted = nil, false
		failing = runner.Red.Failing
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
	outcomes = append(reused, outcomes...)
	if runner.Red == nil && inc != nil {
		meta.Incremental = l.storeIncremental(inc, outcomes, interrupted)
	}
	return l.finish(meta, d, outcomes, interrupted, report.Conditions{
		BaselineRed:    runner.Red != nil,
		BaselineNote:   strings.Join(failing, ", "),
		Interrupted:    interrupted,
		StrictTimeouts: l.cfg.StrictTimeouts,
	})
}

// interruptedBefore writes the partial report of a run interrupted before
// any mutant ran (the doc promises one): every mutant unjudged but those
// the incremental cache gave.
func (l *lab) interruptedBefore(meta report.Meta, d *discovery, reused []mutant.Outcome, ms []mutant.Mutant, phase string) error {
	meta.Baseline = report.BaselineInfo{Interrupted: true, Seconds: meta.Timing.Baseline}
	outcomes := append([]mutant.Outcome(nil), reused...)
	for _, m := range ms {
		outcomes = append(outcomes, mutant.Outcome{Mutant: m, Result: mutant.Result{Status: mutant.Interrupted, Why: "interrupted during " + phase}})
	}
	fmt.Fprintf(l.stderr, "mutate: interrupted during %s\n", phase)
	return l.finish(meta, d, outcomes, true, report.Conditions{Interrupted: true})
}

// finish hashes the tree again, writes the reports, prints the summary
// and returns the run's exit.
func (l *lab) finish(meta report.Meta, d *discovery, outcomes []mutant.Outcome, interrupted bool, cond report.Conditions) error {
	after, err := tree.HashTree(l.root, kernelFiles(l.root, l.cat))
	if err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	meta.TreeAfter = after.Hash
	meta.TreeChanged = d.before.Changed(after)
	meta.Interrupted = interrupted
	meta.WallSeconds = time.Since(l.started).Seconds()
	cond.TreeChanged = meta.TreeChanged
	meta.Modes = map[mutant.Mode]int{}
	for _, o := range outcomes {
		if o.Result.Mode != "" {
			meta.Modes[o.Result.Mode]++
		}
	}
	meta.Timing.Discovery, meta.Timing.TypeCheck = l.discoverySeconds, l.typeCheckSeconds
	in := report.Inputs{Sources: map[string]string{}, Tests: testLocations(l.prog, outcomes)}
	for _, o := range outcomes {
		if _, ok := in.Sources[o.Mutant.File]; !ok {
			data, _ := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(o.Mutant.File)))
			in.Sources[o.Mutant.File] = string(data)
		}
	}
	rep := report.Build(meta, outcomes, in)
	rep.Decide(cond)
	jsonPath, mdPath, err := report.Write(l.cfg.ReportDir, rep)
	if err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	if err := report.WriteExtras(l.cfg, rep, l.stdout); err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	l.printSummary(rep, outcomes, jsonPath)
	fmt.Fprintf(l.stdout, "reports: %s, %s, %s\n", jsonPath, mdPath, report.HTMLPath(jsonPath))
	return &Exit{Code: rep.Gathermut.ExitCode, Reason: rep.Gathermut.Reason}
}

// printSummary prints the counts of the judged mutants, the rate, and
// what did not run as counts by reason (the ids are in the JSON).
func (l *lab) printSummary(rep *report.Report, outcomes []mutant.Outcome, jsonPath string) {
	g := rep.Gathermut
	sum := g.Summary
	lead := fmt.Sprintf("%d mutants", sum.Total)
	if g.Interrupted {
		lead = fmt.Sprintf("interrupted: %d of %d judged", sum.Judged, sum.Total)
	}
	rate := "no mutant tested"
	if r := report.Rate(sum, g.Timing); r > 0 {
		rate = fmt.Sprintf("%d tested, %.1f/min", sum.Tested, r)
	}
	reused := ""
	if sum.Reused > 0 {
		reused = fmt.Sprintf(", %d reused", sum.Reused)
	}
	fmt.Fprintf(l.stdout, "%s: %s%s; score %s; %s; %.1f s (-j %d)\n",
		lead, report.CountsText(sum), reused, report.ScoreText(sum, l.cfg.Threshold), rate, g.WallSeconds, l.cfg.Jobs)
	if sum.Interrupted > 0 {
		fmt.Fprintf(l.stdout, "%d not judged because of the interrupt (status Pending in %s)\n", sum.Interrupted, jsonPath)
	}
	byWhy := map[string][]string{}
	var whys []string
	for _, o := range outcomes {
		if o.Result.Status != mutant.NotRun {
			continue
		}
		why := l.paths().Clean(o.Result.Why)
		if _, ok := byWhy[why]; !ok {
			whys = append(whys, why)
		}
		byWhy[why] = append(byWhy[why], o.Mutant.ID)
	}
	sort.Slice(whys, func(i, j int) bool { return len(byWhy[whys[i]]) > len(byWhy[whys[j]]) })
	for _, why := range whys {
		ids := byWhy[why]
		list := strings.Join(ids, ", ")
		if len(ids) > 3 {
			list = strings.Join(ids[:3], ", ") + fmt.Sprintf(" and %d more (in %s)", len(ids)-3, jsonPath)
		}
		fmt.Fprintf(l.stdout, "not run (%d): %s: %s\n", len(ids), why, list)
	}
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

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
