package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/cache"
	"gathermut/mutate/internal/discover"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/internal/schedule"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// finish is the outcome step: it hashes the tree again (the safety
// check), tallies the verdicts and decides the exit code (package
// outcome), writes the reports (package report), prints the summary and
// returns the run's exit.
func (l *lab) finish(d *discover.Discovery, j *schedule.Judgement, machine report.Machine) error {
	meta := l.meta(d, j, machine)
	after, err := d.HashNow()
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	meta.TreeAfter = d.JudgedHash(after)
	meta.TreeChanged = d.Before.Changed(after)
	meta.WallSeconds = time.Since(l.started).Seconds()
	cond := outcome.Conditions{Interrupted: true}
	if j.InterruptedIn == "" {
		cond = outcome.Conditions{BaselineRed: j.Red, BaselineNote: strings.Join(j.Failing, ", "), Interrupted: j.Interrupted, StrictTimeouts: l.cfg.StrictTimeouts}
	}
	cond.TreeChanged = meta.TreeChanged
	rep := report.Build(meta, j.Outcomes, l.inputs(d, j.Outcomes))
	rep.Decide(cond)
	jsonPath, mdPath, err := report.Write(l.cfg.ReportDir, rep)
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	if err := report.WriteExtras(l.cfg, rep, l.stdout); err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	l.printSummary(rep, j.Outcomes, jsonPath)
	fmt.Fprintf(l.stdout, "reports: %s, %s, %s\n", jsonPath, mdPath, report.HTMLPath(jsonPath))
	return &exitcode.Exit{Code: rep.Gathermut.ExitCode, Reason: rep.Gathermut.Reason}
}

// meta is the run-level part of the report: what ran where, on which
// tree, and where the time went.
func (l *lab) meta(d *discover.Discovery, j *schedule.Judgement, machine report.Machine) report.Meta {
	meta := report.Meta{
		Name:        l.cfg.ReportName(),
		Module:      l.module,
		Patterns:    l.cfg.Patterns,
		Catalog:     d.CatalogPath,
		Started:     l.started,
		Jobs:        l.cfg.Jobs,
		Machine:     machine,
		GoVersion:   goVersion(),
		Version:     cache.Version,
		TreeBefore:  d.JudgedHash(d.Before),
		Config:      l.cfg,
		Shard:       l.cfg.Shard.String(),
		Paths:       l.paths(),
		Timing:      j.Timing,
		Baseline:    j.Baseline,
		Incremental: j.Incremental,
		Interrupted: j.Interrupted,
		Modes:       map[mutant.Mode]int{},
		GPUOnly:     j.GPUOnly,
	}
	meta.Timing.Discovery, meta.Timing.TypeCheck = d.Seconds, d.TypeCheckSeconds
	for _, o := range j.Outcomes {
		if o.Result.Mode != "" {
			meta.Modes[o.Result.Mode]++
		}
	}
	return meta
}

// inputs are what the report holds besides the outcomes: each mutated
// file's original source and where the tests it names are declared.
func (l *lab) inputs(d *discover.Discovery, outcomes []mutant.Outcome) report.Inputs {
	in := report.Inputs{Sources: map[string]string{}, Tests: testLocations(d.Prog, outcomes)}
	for _, o := range outcomes {
		if _, ok := in.Sources[o.Mutant.File]; !ok {
			data, _ := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(o.Mutant.File)))
			in.Sources[o.Mutant.File] = string(data)
		}
	}
	return in
}

// printSummary prints the counts of the judged mutants (the survivors no
// test covers apart: report.CountsText), the rate, and
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
		lead, report.CountsText(sum), reused, outcome.ScoreText(sum, l.cfg.Threshold), rate, g.WallSeconds, l.cfg.Jobs)
	if line := backendLine(outcomes); line != "" {
		fmt.Fprintln(l.stdout, line)
	}
	if sum.Interrupted > 0 {
		fmt.Fprintf(l.stdout, "%d not judged because of the interrupt (status Pending in %s)\n", sum.Interrupted, jsonPath)
	}
	for _, line := range report.SurvivorSummary(rep, 3) {
		fmt.Fprintln(l.stdout, line)
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
	// the largest group first; groups of one size in the order met
	sort.SliceStable(whys, func(i, j int) bool { return len(byWhy[whys[i]]) > len(byWhy[whys[j]]) })
	for _, why := range whys {
		ids := byWhy[why]
		list := strings.Join(ids, ", ")
		if len(ids) > 3 {
			list = strings.Join(ids[:3], ", ") + fmt.Sprintf(" and %d more (in %s)", len(ids)-3, jsonPath)
		}
		fmt.Fprintf(l.stdout, "not run (%d): %s: %s\n", len(ids), why, list)
	}
}

// backendLine gives the score per backend (Go, assembly, the kernel on
// the emulation or a GPU) when the run had any but Go: "by backend: go
// 98.2% (4,321 mutants, 0 not run); ...".
func backendLine(outcomes []mutant.Outcome) string {
	by := map[string][]mutant.Outcome{}
	for _, o := range outcomes {
		k := mutant.BackendOf(o.Mutant, o.Result)
		by[k] = append(by[k], o)
	}
	if _, goOnly := by["go"]; len(by) == 0 || (len(by) == 1 && goOnly) {
		return "" // a Go module's run: the line above says it all
	}
	var keys []string
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		s := outcome.Summarize(by[k])
		score := "no score"
		if s.Scored > 0 {
			score = fmt.Sprintf("%.1f%%", s.Score)
		}
		parts = append(parts, fmt.Sprintf("%s %s (%d mutants, %d not run)", k, score, s.Total, s.Counts[mutant.NotRun]))
	}
	return "by backend: " + strings.Join(parts, "; ")
}
