package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/lab"
	"gathermut/mutate/load"
	"gathermut/mutate/report"
)

// gremlinsModule is the version of the reference tool the bench compares
// against.
const gremlinsModule = "github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0"

// gremlinsFlags enable every gremlins mutator (six are off by default) and
// raise its timeout coefficient so it reports no false timeouts.
var gremlinsFlags = []string{"--timeout-coefficient", "50", "--invert-assignments", "--invert-bitwise", "--invert-bwassign",
	"--invert-logical", "--invert-loopctrl", "--remove-self-assignments"}

type benchRow struct {
	tool, target string
	jobs         int
	mutants      int
	executed     int // mutants whose tests ran: killed, survived with coverage, timed out
	wall         time.Duration
	note         string
}

// benchCmd times seconds per mutant: this tool on the fixture and on an
// eighth of ./gather/... with -j 1 and -j 2, and gremlins on the same
// fixture.
func benchCmd(cfg config.Config, stdout, stderr io.Writer) error {
	root, _, err := load.ModuleRoot(cfg.Dir)
	if err != nil {
		return lab.Fail(exitcode.Config, "%v", err)
	}
	fixtureDir := filepath.Join(root, "mutate", "testdata", "fixture")
	if _, err := os.Stat(fixtureDir); err != nil {
		return lab.Fail(exitcode.Config, "bench: no fixture at %s", fixtureDir)
	}
	tmp, err := os.MkdirTemp("", "gathermut-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tool := filepath.Join(tmp, "mutate")
	fmt.Fprintln(stderr, "bench: building the tool")
	build := osexec.Command("go", "build", "-o", tool, "./mutate")
	build.Dir, build.Env = root, load.Env()
	if out, err := build.CombinedOutput(); err != nil {
		return lab.Fail(exitcode.Config, "bench: build: %v %s", err, out)
	}
	var rows []benchRow
	type target struct {
		name, dir string
		args      []string
	}
	targets := []target{{"fixture", fixtureDir, []string{"./...", "--timeout-floor", "2s"}}}
	if _, err := os.Stat(filepath.Join(root, "gather")); err == nil {
		// A deterministic eighth of the package's ~2,000 mutants: enough
		// for a stable seconds-per-mutant figure at a fraction of a full run.
		targets = append(targets, target{"./gather/... (shard 0/8)", root, []string{"./gather/...", "--catalog=", "--shard", "0/8"}})
	} else {
		fmt.Fprintf(stderr, "bench: %s has no ./gather/...; skipping that target\n", root)
	}
	for _, t := range targets {
		for _, j := range []int{1, 2} {
			fmt.Fprintf(stderr, "bench: gathermut on %s with -j %d\n", t.name, j)
			row, err := benchOurs(tool, t.dir, tmp, t.name, j, t.args)
			if err != nil {
				return lab.Fail(exitcode.Config, "bench: %v", err)
			}
			rows = append(rows, row)
		}
	}
	var gremlinsErr error
	gremlins, err := installGremlins(tmp)
	if err != nil {
		gremlinsErr = err
	} else {
		for _, j := range []int{1, 2} {
			fmt.Fprintf(stderr, "bench: gremlins on fixture with --workers %d\n", j)
			row, err := benchGremlins(gremlins, fixtureDir, tmp, j)
			if err != nil {
				gremlinsErr = err
				break
			}
			rows = append(rows, row)
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\ttarget\t-j\tmutants\texecuted\twall s\ts/mutant\ts/executed\tnote")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.1f\t%s\t%s\t%s\n", r.tool, r.target, r.jobs, r.mutants, r.executed, r.wall.Seconds(),
			perMutant(r.wall, r.mutants), perMutant(r.wall, r.executed), r.note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if gremlinsErr != nil {
		// The bench is a comparison: without the reference tool's rows it
		// has not measured what it is for.
		return lab.Fail(exitcode.Config, "bench: gremlins: %v", gremlinsErr)
	}
	return nil
}

func perMutant(wall time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", wall.Seconds()/float64(n))
}

func benchOurs(tool, dir, tmp, name string, jobs int, args []string) (benchRow, error) {
	reports := filepath.Join(tmp, "reports")
	reportName := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	argv := append([]string{"all", "-j", fmt.Sprint(jobs), "--report-dir", reports, "--name", reportName}, args...)
	cmd := osexec.Command(tool, argv...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return benchRow{}, err
	}
	r, rerr := report.Read(filepath.Join(reports, reportName+".json"))
	if rerr != nil {
		return benchRow{}, fmt.Errorf("%s: %v\n%s", name, rerr, out)
	}
	s := r.Gathermut.Summary
	note := fmt.Sprintf("exit %d; %d killed, %d survived (%d not covered), %d timed out, %d unviable, %d not run, %d ignored",
		r.Gathermut.ExitCode, s.Counts["killed"], s.Counts["survived"], notCovered(r), s.Counts["timed out"], s.Counts["unviable"], s.Counts["not run"], s.Counts["ignored"])
	executed := s.Counts["killed"] + s.Counts["survived"] - notCovered(r) + s.Counts["timed out"]
	return benchRow{tool: "gathermut", target: name, jobs: jobs, mutants: s.Total, executed: executed, wall: wall, note: note}, nil
}

func notCovered(r *report.Report) int {
	n := 0
	for _, f := range r.Files {
		for _, m := range f.Mutants {
			if m.Status == "NoCoverage" {
				n++
			}
		}
	}
	return n
}

func installGremlins(tmp string) (string, error) {
	bin := filepath.Join(tmp, "bin")
	cmd := osexec.Command("go", "install", gremlinsModule)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s: %v: %s", gremlinsModule, err, strings.TrimSpace(string(out)))
	}
	return filepath.Join(bin, "gremlins"), nil
}

func benchGremlins(bin, dir, tmp string, jobs int) (benchRow, error) {
	out := filepath.Join(tmp, fmt.Sprintf("gremlins-%d.json", jobs))
	argv := append([]string{"unleash", "--workers", fmt.Sprint(jobs), "-o", out}, gremlinsFlags...)
	cmd := osexec.Command(bin, append(argv, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	start := time.Now()
	log, err := cmd.CombinedOutput()
	wall := time.Since(start)
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return benchRow{}, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return benchRow{}, fmt.Errorf("no results: %v\n%s", err, log)
	}
	var res struct {
		Files []struct {
			Mutations []struct{ Status string }
		}
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return benchRow{}, err
	}
	counts := map[string]int{}
	total := 0
	for _, f := range res.Files {
		for _, m := range f.Mutations {
			counts[m.Status]++
			total++
		}
	}
	note := fmt.Sprintf("%d killed, %d lived, %d not covered, %d timed out, %d not viable", counts["KILLED"], counts["LIVED"], counts["NOT COVERED"], counts["TIMED OUT"], counts["NOT VIABLE"])
	executed := counts["KILLED"] + counts["LIVED"] + counts["TIMED OUT"]
	return benchRow{tool: "gremlins v0.6.0", target: "fixture", jobs: jobs, mutants: total, executed: executed, wall: wall, note: note}, nil
}
