package main

import (
	"encoding/json"
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
	tool, mode, target string
	jobs               int
	mutants            int
	executed           int // mutants whose tests ran: killed, survived with coverage, timed out
	wall               time.Duration
	timing             *report.Timing
	note               string
}

// benchTarget is code both tools mutate: a module dir, gathermut's
// arguments, and gremlins' (its path argument and file exclusions).
type benchTarget struct {
	name     string
	dir      string
	ours     []string
	gremlins []string
	warm     []string // packages whose tests are built once first, so both tools start from a warm build cache
}

// benchCmd times this tool, with and without schemata, and gremlins on
// the same code: the fixture, two files of gather (bf16.go, fp4.go) and a
// shard of gather (halves.go, registry.go, tensor.go: about an eighth of
// its mutants), each with -j 1 and -j 2. Every run of this
// tool starts with an empty discovery cache; all start with the module's
// tests compiled once (a warm build cache).
func benchCmd(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	root, _, err := load.ModuleRoot(cfg.Dir)
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	switch {
	case cfg.Set != "":
		// the arguments are packages of the set (benchSet)
	case len(args) == 1 && args[0] == "loop":
		return benchLoop(root, stdout, stderr)
	case len(args) == 1 && args[0] == "pair":
		return benchPair(root, stdout, stderr)
	case len(args) > 0:
		return exitcode.Fail(exitcode.Usage, "bench takes no argument, loop or pair; packages (%s) need --set: the comparison with gremlins runs on fixed targets", strings.Join(args, " "))
	}
	fixtureDir := filepath.Join(root, "mutate", "testdata", "fixture")
	if _, err := os.Stat(fixtureDir); err != nil {
		return exitcode.Fail(exitcode.Config, "bench: no fixture at %s", fixtureDir)
	}
	tmp, err := os.MkdirTemp("", "gathermut-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tool := filepath.Join(tmp, "mutate")
	fmt.Fprintln(stderr, "bench: building the tool and gremlins")
	build := osexec.Command("go", "build", "-o", tool, "./mutate")
	build.Dir, build.Env = root, load.Env()
	if out, err := build.CombinedOutput(); err != nil {
		return exitcode.Fail(exitcode.Config, "bench: build: %v %s", err, out)
	}
	if cfg.Set != "" {
		return benchSet(cfg, root, tool, tmp, stdout, stderr)
	}
	gremlins, err := installGremlins(tmp)
	if err != nil {
		// The bench is a comparison: without the reference tool's rows it
		// has not measured what it is for.
		return exitcode.Fail(exitcode.Config, "bench: gremlins: %v", err)
	}
	targets := []benchTarget{{
		name: "fixture", dir: fixtureDir, ours: []string{"all", "./...", "--timeout-floor", "2s"},
		gremlins: []string{"."}, warm: []string{"./..."},
	}}
	if files, err := gatherFiles(root); err == nil && len(files) > 0 {
		targets = append(targets, gatherTarget(root, "gather bf16.go+fp4.go", files, func(i int, f string) bool { return f == "bf16.go" || f == "fp4.go" }))
		shard := map[string]bool{"halves.go": true, "registry.go": true, "tensor.go": true}
		targets = append(targets, gatherTarget(root, "gather shard", files, func(i int, f string) bool { return shard[f] }))
	} else {
		fmt.Fprintf(stderr, "bench: %s has no ./gather: only the fixture\n", root)
	}
	var rows []benchRow
	for _, t := range targets {
		fmt.Fprintf(stderr, "bench: %s: warming the build cache\n", t.name)
		warm := osexec.Command("go", append([]string{"test", "-count=1", "-run", "^$"}, t.warm...)...)
		warm.Dir, warm.Env = t.dir, load.Env()
		if out, err := warm.CombinedOutput(); err != nil {
			return exitcode.Fail(exitcode.Config, "bench: %s: go test: %v\n%s", t.name, err, out)
		}
		for _, j := range []int{1, 2} {
			for _, mode := range []string{"schemata", "no-schemata"} {
				fmt.Fprintf(stderr, "bench: gathermut (%s) on %s with -j %d\n", mode, t.name, j)
				row, err := benchOurs(tool, t, tmp, mode, j)
				if err != nil {
					return exitcode.Fail(exitcode.Config, "bench: %v", err)
				}
				rows = append(rows, row)
			}
			fmt.Fprintf(stderr, "bench: gremlins on %s with --workers %d\n", t.name, j)
			row, err := benchGremlins(gremlins, t, tmp, j)
			if err != nil {
				return exitcode.Fail(exitcode.Config, "bench: gremlins: %v", err)
			}
			rows = append(rows, row)
		}
	}
	return printBench(stdout, rows)
}

func printBench(w io.Writer, rows []benchRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\ttool\tmode\t-j\tmutants\texecuted\twall s\ts/executed\tdiscovery\ttype check\tbaseline\tschema builds\tfallback builds\ttest processes\tnote")
	for _, r := range rows {
		split := "-\t-\t-\t-\t-\t-"
		if t := r.timing; t != nil {
			split = fmt.Sprintf("%.1f\t%.1f\t%.1f\t%.1f (%d)\t%.1f (%d)\t%.1f (%d)", t.Discovery, t.TypeCheck, t.Baseline, t.SchemaBuilds, t.SchemaRounds, t.FallbackBuilds, t.Builds, t.TestProcesses, t.Processes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%.1f\t%s\t%s\t%s\n", r.target, r.tool, r.mode, r.jobs, r.mutants, r.executed, r.wall.Seconds(),
			perMutant(r.wall, r.executed), split, r.note)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "discovery, type check, baseline, schema builds: wall seconds; fallback builds and test processes: seconds summed over workers (count);")
	fmt.Fprintln(tw, "s/executed: wall seconds per mutant whose tests ran (killed, survived with coverage, timed out)")
	return tw.Flush()
}

// gatherFiles lists gather's non-test Go files, sorted.
func gatherFiles(root string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(root, "gather", "*.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			out = append(out, filepath.Base(m))
		}
	}
	sort.Strings(out)
	return out, nil
}

// gatherTarget mutates the files of package gather that keep selects: this
// tool through run with an id glob, gremlins by excluding the others and
// gather's subpackages.
func gatherTarget(root, name string, files []string, keep func(int, string) bool) benchTarget {
	var globs []string
	gremlins := []string{"./gather", "-E", "^gathertest/", "-E", "^internal/"}
	for i, f := range files {
		if keep(i, f) {
			globs = append(globs, "*:gather/"+f+":*")
		} else {
			gremlins = append(gremlins, "-E", "^"+strings.ReplaceAll(f, ".", `\.`)+"$")
		}
	}
	return benchTarget{
		name: name + " (" + strings.Join(filesKept(files, keep), " ") + ")", dir: root,
		ours:     []string{"run", strings.Join(globs, ","), "./gather", "--catalog="},
		gremlins: gremlins, warm: []string{"./gather", "./engine", "./hipkern"},
	}
}

func filesKept(files []string, keep func(int, string) bool) []string {
	var out []string
	for i, f := range files {
		if keep(i, f) {
			out = append(out, f)
		}
	}
	return out
}

func perMutant(wall time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", wall.Seconds()/float64(n))
}

func benchOurs(tool string, t benchTarget, tmp, mode string, jobs int) (benchRow, error) {
	reports := filepath.Join(tmp, "reports")
	reportName := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	cache, err := os.MkdirTemp(tmp, "cache-")
	if err != nil {
		return benchRow{}, err
	}
	argv := append(append([]string(nil), t.ours...), "-j", fmt.Sprint(jobs), "--report-dir", reports, "--name", reportName)
	if mode == "no-schemata" {
		argv = append(argv, "--no-schemata")
	}
	cmd := osexec.Command(tool, argv...)
	cmd.Dir = t.dir
	cmd.Env = append(os.Environ(), "GATHERMUT_CACHE="+cache)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return benchRow{}, err
	}
	r, rerr := report.Read(filepath.Join(reports, reportName+".json"))
	if rerr != nil {
		return benchRow{}, fmt.Errorf("%s: %v\n%s", t.name, rerr, out)
	}
	s := r.Gathermut.Summary
	note := fmt.Sprintf("exit %d; %d killed, %d survived (%d not covered), %d timed out, %d unviable, %d not run, %d ignored",
		r.Gathermut.ExitCode, s.Counts["killed"], s.Counts["survived"], notCovered(r), s.Counts["timed out"], s.Counts["unviable"], s.Counts["not run"], s.Counts["ignored"])
	if len(r.Gathermut.Modes) > 0 {
		var modes []string
		for m, n := range r.Gathermut.Modes {
			modes = append(modes, fmt.Sprintf("%s %d", m, n))
		}
		sort.Strings(modes)
		note += "; modes: " + strings.Join(modes, ", ")
	}
	executed := s.Counts["killed"] + s.Counts["survived"] - notCovered(r) + s.Counts["timed out"]
	timing := r.Gathermut.Timing
	return benchRow{tool: "gathermut", mode: mode, target: t.name, jobs: jobs, mutants: s.Total, executed: executed, wall: wall, timing: &timing, note: note}, nil
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

// benchGremlins runs gremlins with every mutator on, uncached test runs
// (GOFLAGS=-count=1: otherwise its timeouts come from a cached coverage
// run and it reports false timeouts).
func benchGremlins(bin string, t benchTarget, tmp string, jobs int) (benchRow, error) {
	out := filepath.Join(tmp, fmt.Sprintf("gremlins-%d.json", time.Now().UnixNano()))
	path, excludes := t.gremlins[0], t.gremlins[1:]
	argv := append(append([]string{"unleash", "--workers", fmt.Sprint(jobs), "-o", out}, gremlinsFlags...), excludes...)
	cmd := osexec.Command(bin, append(argv, path)...)
	cmd.Dir = t.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-count=1")
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
	return benchRow{tool: "gremlins v0.6.0", mode: "-", target: t.name, jobs: jobs, mutants: total, executed: executed, wall: wall, note: note}, nil
}
