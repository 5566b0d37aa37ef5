package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// The review loop's bench (issue 24): "bench loop" times, on a copy of the
// module, a plain full run of everything the tree has (-j 2), a full
// --incremental run that seeds the cache, then incremental runs with no
// change, after a comment-only change and after a same-behaviour rewrite
// of one decoder's function, each with where the time went and how many
// mutants it judged again. "bench pair" runs two full runs side by side on
// the same cores and compares their verdicts. The full runs start with
// empty discovery and baseline caches; the --incremental runs share one
// cache dir, as a reviewer's loop does (its discovery, baselines and the
// references between declarations kept from run to run, the first of
// them seeding it). Every run comes after the module's tests were compiled
// once (a warm build cache).

// loopEdits are the bench's changes to its copy of the module: the file,
// the text replaced and its replacement.
var (
	commentEdits = [][3]string{
		{"gguf/reader.go", "package gguf\n", "package gguf\n\n// (a comment line the bench adds)\n"},
		{"gather/legacy.go", "\t\tfor j := range 16 {\n", "\t\t// low nibbles first, then the high ones\n\t\tfor j := range 16 {\n"},
	}
	functionEdits = [][3]string{
		// decodeQ4_0, written another way with the same behaviour
		{"gather/legacy.go", "\t\t\ty[j+16] = t[q>>4]\n", "\t\t\ty[16+j] = t[q>>4]\n"},
	}
)

type loopRow struct {
	name     string
	wall     time.Duration
	exit     int
	summary  outcome.Summary
	timing   report.Timing
	baseline report.BaselineInfo
	note     string
}

func benchLoop(root string, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "gathermut-bench-loop-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tool, copyDir, err := benchSetup(root, tmp, stderr)
	if err != nil {
		return err
	}
	inc := filepath.Join(tmp, "incremental.json.gz")
	loopCache := filepath.Join(tmp, "loop-cache")
	var rows []loopRow
	step := func(name string, args ...string) error {
		fmt.Fprintf(stderr, "bench loop: %s\n", name)
		cache := "" // a full run: empty caches
		if len(args) > 0 {
			cache = loopCache
		}
		row, err := benchRun(tool, copyDir, tmp, cache, name, args...)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	}
	if err := step("full row (plain all)"); err != nil {
		return err
	}
	if err := step("full row, --incremental (seeds the cache)", "--incremental="+inc); err != nil {
		return err
	}
	if err := step("--incremental, no change", "--incremental="+inc); err != nil {
		return err
	}
	if err := editFiles(copyDir, commentEdits); err != nil {
		return err
	}
	if err := step("--incremental, comment-only change", "--incremental="+inc); err != nil {
		return err
	}
	if err := editFiles(copyDir, functionEdits); err != nil {
		return err
	}
	if err := step("--incremental, one function rewritten (decodeQ4_0)", "--incremental="+inc); err != nil {
		return err
	}
	return printLoop(stdout, rows)
}

// benchSetup builds the tool, copies the module and compiles its tests once.
func benchSetup(root, tmp string, stderr io.Writer) (tool, dir string, err error) {
	tool = filepath.Join(tmp, "mutate")
	fmt.Fprintln(stderr, "bench: building the tool")
	build := osexec.Command("go", "build", "-o", tool, "./mutate")
	build.Dir, build.Env = root, load.Env()
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", exitcode.Fail(exitcode.Config, "bench: build: %v %s", err, out)
	}
	dir = filepath.Join(tmp, "module")
	fmt.Fprintf(stderr, "bench: copying %s\n", root)
	if err := copyModule(root, dir); err != nil {
		return "", "", err
	}
	warm := osexec.Command("go", "test", "-count=1", "-run", "^$", "./...")
	warm.Dir, warm.Env = dir, load.Env()
	if out, err := warm.CombinedOutput(); err != nil {
		return "", "", exitcode.Fail(exitcode.Config, "bench: go test: %v\n%s", err, out)
	}
	return tool, dir, nil
}

// copyModule copies the module's files, without .git and build outputs
// (the committed reports come too: documents link to them, and the docs
// tests check those links).
func copyModule(root, dst string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case ".git", "bin", ".gathermut", filepath.Join("hipkern", "build"):
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

func editFiles(dir string, edits [][3]string) error {
	for _, e := range edits {
		path := filepath.Join(dir, filepath.FromSlash(e[0]))
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte(e[1])) {
			return exitcode.Fail(exitcode.Config, "bench: %s no longer has %q: the bench's edit needs updating", e[0], e[1])
		}
		if err := os.WriteFile(path, bytes.Replace(data, []byte(e[1]), []byte(e[2]), 1), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchRun runs "all" on the copy with -j 2 and the cache dir given
// ("": an empty one).
func benchRun(tool, dir, tmp, cache, name string, args ...string) (loopRow, error) {
	row, _, err := benchReport(tool, dir, tmp, cache, name, args...)
	return row, err
}

// benchReport is benchRun, with the run's report.
func benchReport(tool, dir, tmp, cache, name string, args ...string) (loopRow, *report.Report, error) {
	if cache == "" {
		var err error
		if cache, err = os.MkdirTemp(tmp, "cache-"); err != nil {
			return loopRow{}, nil, err
		}
	}
	reports := filepath.Join(tmp, "reports")
	reportName := fmt.Sprintf("loop-%d", time.Now().UnixNano())
	cmd := osexec.Command(tool, append([]string{"all", "-j", "2", "--report-dir", reports, "--name", reportName}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GATHERMUT_CACHE="+cache)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return loopRow{}, nil, err
	}
	r, rerr := report.Read(filepath.Join(reports, reportName+".json"))
	if rerr != nil {
		return loopRow{}, nil, fmt.Errorf("%s: %v\n%s", name, rerr, out)
	}
	g := r.Gathermut
	return loopRow{name: name, wall: wall, exit: int(g.ExitCode), summary: g.Summary, timing: g.Timing, baseline: g.Baseline,
		note: lastLineOf(string(out))}, r, nil
}

func lastLineOf(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

func printLoop(w io.Writer, rows []loopRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\twall s\tmutants\tjudged again\treused\tdiscovery\tbaselines\tschema builds\ttest processes\treruns of timeouts\ttimeouts (confirmed)\tslow\texit")
	for _, r := range rows {
		t := r.timing
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%d\t%.1f\t%.1f (%d tests)\t%.1f (%d)\t%.1f (%d)\t%.1f (%d)\t%d (%d)\t%d\t%d\n", r.name, r.wall.Seconds(), r.summary.Total,
			r.summary.Tested, r.summary.Reused, t.Discovery, t.Baseline, r.baseline.Tests, t.SchemaBuilds, t.SchemaRounds,
			t.TestProcesses, t.Processes, t.TimeoutReruns, t.Reruns, r.summary.Counts[mutant.TimedOut], r.summary.Confirmed, r.summary.Slow, r.exit)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "discovery, schema builds: wall seconds; baselines: each package's baseline wall, summed (they overlap the mutants);")
	fmt.Fprintln(tw, "test processes and reruns of timeouts: seconds summed over workers (count); judged again: mutants built or tested;")
	fmt.Fprintln(tw, "every run: -j 2, a warm build cache; the full plain run with empty caches, the --incremental runs sharing one cache dir")
	return tw.Flush()
}

// benchPair runs two full runs of the module side by side and compares
// their verdicts, mutant by mutant.
func benchPair(root string, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "gathermut-bench-pair-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tool, dir, err := benchSetup(root, tmp, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "bench pair: two full runs side by side")
	type result struct {
		row      loopRow
		verdicts map[string]string
		err      error
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row, r, err := benchReport(tool, dir, tmp, "", fmt.Sprintf("full run %d of a pair side by side", i+1))
			if err != nil {
				results[i].err = err
				return
			}
			outcomes, err := r.Outcomes()
			if err != nil {
				results[i].err = err
				return
			}
			v := map[string]string{}
			for _, o := range outcomes {
				v[o.Mutant.ID] = string(o.Result.Status)
			}
			results[i] = result{row: row, verdicts: v}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.err != nil {
			return r.err
		}
	}
	var differ []string
	for id, a := range results[0].verdicts {
		if b := results[1].verdicts[id]; a != b {
			differ = append(differ, fmt.Sprintf("%s: %s vs %s", id, a, b))
		}
	}
	for id := range results[1].verdicts {
		if _, ok := results[0].verdicts[id]; !ok {
			differ = append(differ, id+": only in the second run")
		}
	}
	sort.Strings(differ)
	if err := printLoop(stdout, []loopRow{results[0].row, results[1].row}); err != nil {
		return err
	}
	if len(differ) == 0 {
		fmt.Fprintf(stdout, "\nthe two runs side by side gave identical verdicts (%d mutants)\n", len(results[0].verdicts))
		return nil
	}
	fmt.Fprintf(stdout, "\nthe two runs differ on %d mutants:\n%s\n", len(differ), strings.Join(differ, "\n"))
	return exitcode.Fail(exitcode.Survivors, "bench pair: %d verdicts differ between two runs side by side", len(differ))
}
