package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// benchSet times one of the project file's sets (bench --set NAME, with
// its packages or those on the command line): a whole run of the built
// tool with an empty discovery and baseline cache, after the set's tests
// were built once, at -j as given. It prints the run's row (the phases:
// discovery, type check, baseline, schema builds, fallback builds, test
// processes) and where the mutants' time went, package by package: the
// seconds their judging took (summed over workers), how many ran tests,
// and the score. This repository's set mutate-self is the tool on itself.
func benchSet(cfg config.Config, root, tool, tmp string, stdout, stderr io.Writer) error {
	args := []string{"all", "--set", cfg.Set, "-j", fmt.Sprint(cfg.Jobs)}
	if cfg.Given.Packages {
		args = append(args, cfg.Patterns...)
	}
	warm := []string{"test", "-count=1", "-run", "^$", "./..."}
	if cfg.Given.Packages {
		warm = append(warm[:4], cfg.Patterns...)
	}
	fmt.Fprintf(stderr, "bench: set %s: warming the build cache\n", cfg.Set)
	w := osexec.Command("go", warm...)
	w.Dir, w.Env = root, load.Env()
	if out, err := w.CombinedOutput(); err != nil {
		return exitcode.Fail(exitcode.Config, "bench: go test: %v\n%s", err, out)
	}
	cache, err := os.MkdirTemp(tmp, "cache-")
	if err != nil {
		return err
	}
	reports := filepath.Join(tmp, "reports")
	name := "bench-" + cfg.Set
	args = append(args, "--report-dir", reports, "--name", name)
	fmt.Fprintf(stderr, "bench: mutate %s\n", strings.Join(args, " "))
	cmd := osexec.Command(tool, args...)
	cmd.Dir = root
	cmd.Env = append(load.Env(), "GATHERMUT_CACHE="+cache)
	cmd.Stderr = stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return exitcode.Fail(exitcode.Config, "bench: %v", err)
	}
	r, err := report.Read(filepath.Join(reports, name+".json"))
	if err != nil {
		return exitcode.Fail(exitcode.Config, "bench: %v\n%s", err, out)
	}
	outcomes, err := r.Outcomes()
	if err != nil {
		return exitcode.Fail(exitcode.Config, "bench: %v", err)
	}
	s := r.Gathermut.Summary
	timing := r.Gathermut.Timing
	executed := s.Counts[mutant.Killed] + s.Counts[mutant.Survived] - notCovered(r) + s.Counts[mutant.TimedOut]
	row := benchRow{tool: "gathermut", mode: "schemata", target: "set " + cfg.Set, jobs: cfg.Jobs, mutants: s.Total, executed: executed, wall: wall, timing: &timing,
		note: fmt.Sprintf("exit %d; score %.1f%%", r.Gathermut.ExitCode, s.Score)}
	if err := printBench(stdout, []benchRow{row}); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	return printPackageTimes(stdout, outcomes)
}

// packageTime is where one package's mutants spent the run's time.
type packageTime struct {
	pkg                                   string
	mutants, tested, killed, survived, to int
	seconds                               float64 // judging time, summed over workers
}

// packageTimes sums the outcomes' judging time and verdicts per package,
// the costliest first.
func packageTimes(outcomes []mutant.Outcome) ([]packageTime, float64) {
	by := map[string]*packageTime{}
	total := 0.0
	for _, o := range outcomes {
		pkg := o.Mutant.Package
		if pkg == "" {
			pkg = "(" + string(o.Mutant.Kind) + ")"
		}
		p := by[pkg]
		if p == nil {
			p = &packageTime{pkg: pkg}
			by[pkg] = p
		}
		p.mutants++
		if outcome.Tested(o) {
			p.tested++
		}
		switch o.Result.Status {
		case mutant.Killed:
			p.killed++
		case mutant.Survived:
			p.survived++
		case mutant.TimedOut:
			p.to++
		}
		p.seconds += o.Result.Duration.Seconds()
		total += o.Result.Duration.Seconds()
	}
	out := make([]packageTime, 0, len(by))
	for _, p := range by {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].seconds != out[j].seconds {
			return out[i].seconds > out[j].seconds
		}
		return out[i].pkg < out[j].pkg
	})
	return out, total
}

// printPackageTimes writes packageTimes as a table.
func printPackageTimes(w io.Writer, outcomes []mutant.Outcome) error {
	rows, total := packageTimes(outcomes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\tmutants\ttested\tkilled\tsurvived\ttimed out\tscore\tmutant s\tshare\ts/tested")
	for _, p := range rows {
		score, share, per := "-", "-", "-"
		if n := p.killed + p.survived + p.to; n > 0 {
			score = fmt.Sprintf("%.1f%%", 100*float64(p.killed+p.to)/float64(n))
		}
		if total > 0 {
			share = fmt.Sprintf("%.1f%%", 100*p.seconds/total)
		}
		if p.tested > 0 {
			per = fmt.Sprintf("%.2f", p.seconds/float64(p.tested))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%.1f\t%s\t%s\n", p.pkg, p.mutants, p.tested, p.killed, p.survived, p.to, score, p.seconds, share, per)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "mutant s: seconds from a mutant's start to its verdict, summed over its package's mutants and over workers (waits for a baseline included)")
	return tw.Flush()
}
