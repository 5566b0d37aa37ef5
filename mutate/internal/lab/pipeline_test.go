package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// The pipeline tests (ported from wt-self's 2926782 to the lab in named
// steps) run the whole pipeline in process (Run, as the command calls it) on tinyModule, a module of two packages whose every
// mutant has its verdict written on its line ("// want <verdict>
// [operator=<verdict>]"). They are the lab's end-to-end tests: the
// command's own (package mutate) build the tool and run it on larger
// fixtures.
var tinyModule = map[string]string{
	"go.mod": "module tiny\n\ngo 1.26\n",
	"calc/calc.go": `// Package calc is the in-process pipeline tests' module.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b } // want killed

// Sign names the sign of n.
func Sign(n int) string {
	if n < 0 { // want killed
		return "negative" // want killed
	}
	return "non-negative" // want killed
}

// Double is tested only by package use.
func Double(n int) int { return 2 * n } // want killed

// Unused is called by no test.
func Unused() int { return 7 } // want survived
`,
	"calc/calc_test.go": `package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Error("Add")
	}
}

func TestSign(t *testing.T) {
	if Sign(-1) != "negative" || Sign(0) != "non-negative" {
		t.Error("Sign")
	}
}
`,
	"use/use.go": `// Package use imports calc.
package use

import "tiny/calc"

// Quad is four times n.
func Quad(n int) int { return calc.Double(calc.Double(n)) } // want killed zero-return=unviable
`,
	"use/use_test.go": `package use

import "testing"

func TestQuad(t *testing.T) {
	if Quad(3) != 12 {
		t.Error("Quad")
	}
}
`,
}

// writeModule writes files into a new temp dir and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var wantAnnotation = regexp.MustCompile(`// want (\w+)((?: [\w-]+=\w+)*)\s*$`)

// wantedVerdicts reads the annotations of a module's files: file:line ->
// operator ("" for the default) -> verdict.
func wantedVerdicts(files map[string]string) map[string]map[string]mutant.Status {
	out := map[string]map[string]mutant.Status{}
	for rel, src := range files {
		for i, line := range strings.Split(src, "\n") {
			m := wantAnnotation.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			w := map[string]mutant.Status{"": verdictWord(m[1])}
			for _, o := range strings.Fields(m[2]) {
				op, v, _ := strings.Cut(o, "=")
				w[op] = verdictWord(v)
			}
			out[rel+":"+strconv.Itoa(i+1)] = w
		}
	}
	return out
}

// verdictWord reads an annotation's verdict: a status, or one word for
// those of two ("timeout", "notrun").
func verdictWord(w string) mutant.Status {
	switch w {
	case "timeout":
		return mutant.TimedOut
	case "notrun":
		return mutant.NotRun
	}
	return mutant.Status(w)
}

// pipelineRun is one in-process run's outcome.
type pipelineRun struct {
	code     exitcode.Code
	reason   string
	stdout   string
	stderr   string
	report   *report.Report
	outcomes map[string]mutant.Outcome
	// reportDir is where the run wrote its reports
	reportDir string
}

// runPipeline runs the command in process on the module in dir with its
// own temp dir, caches and report dir; name is the reports' base name.
func runPipeline(t *testing.T, dir string, cfg config.Config) pipelineRun {
	t.Helper()
	return runPipelineWith(t, dir, cfg, "")
}

// runPipelineWith is runPipeline with the discovery and baseline caches in
// cache ("": a fresh directory).
func runPipelineWith(t *testing.T, dir string, cfg config.Config, cache string) pipelineRun {
	t.Helper()
	// Run points TMPDIR and GOTMPDIR into its own temp dir, which it
	// removes: each run starts from a fresh one, restored at the end
	for _, v := range []string{"TMPDIR", "GOTMPDIR", "GATHERMUT_CACHE"} {
		t.Setenv(v, os.Getenv(v))
	}
	os.Setenv("TMPDIR", t.TempDir())
	os.Unsetenv("GOTMPDIR")
	if cache == "" {
		cache = t.TempDir()
	}
	os.Setenv("GATHERMUT_CACHE", cache)
	cfg.Dir = dir
	if cfg.ReportDir == "reports" || cfg.ReportDir == "" {
		cfg.ReportDir = t.TempDir()
	}
	cfg.Given.ReportDir = true // as --report-dir: else reports go to the user cache (config.ReportDirFor)
	cfg.Given.Packages = len(cfg.Patterns) > 0
	var stdout, stderr bytes.Buffer
	// as a user who has the tool on PATH starts it: the test binary's
	// own path would be the rerun lines' command (an absolute path,
	// which no report may hold)
	arg0 := os.Args[0]
	os.Args[0] = "mutate"
	defer func() { os.Args[0] = arg0 }()
	err := Run(context.Background(), cfg, &stdout, &stderr)
	res := pipelineRun{code: exitcode.Of(err), stdout: stdout.String(), stderr: stderr.String(), reportDir: cfg.ReportDir}
	if err != nil {
		res.reason = err.Error()
	}
	if !cfg.Command.Judges() {
		return res
	}
	path := filepath.Join(cfg.ReportDir, cfg.ReportName()+".json")
	if _, err := os.Stat(path); err != nil && res.code == exitcode.Config {
		return res // a configuration error writes no report
	}
	r, rerr := report.Read(path)
	if rerr != nil {
		t.Fatalf("%s: exit %d (%s): %v\nstdout:\n%s\nstderr:\n%s", cfg.Command, res.code, res.reason, rerr, res.stdout, res.stderr)
	}
	outcomes, rerr := r.Outcomes()
	if rerr != nil {
		t.Fatal(rerr)
	}
	res.report, res.outcomes = r, map[string]mutant.Outcome{}
	for _, o := range outcomes {
		res.outcomes[o.Mutant.ID] = o
	}
	return res
}

// checkWanted compares each outcome with the verdict on its line.
func checkWanted(t *testing.T, what string, wants map[string]map[string]mutant.Status, outcomes map[string]mutant.Outcome) {
	t.Helper()
	for id, o := range outcomes {
		w, ok := wants[o.Mutant.File+":"+strconv.Itoa(o.Mutant.Pos.Line)]
		if !ok {
			t.Errorf("%s: %s: no annotation on %s:%d", what, id, o.Mutant.File, o.Mutant.Pos.Line)
			continue
		}
		want := w[""]
		if v, ok := w[o.Mutant.Operator]; ok {
			want = v
		}
		if o.Result.Status != want {
			t.Errorf("%s: %s: %s (%s), want %s", what, id, o.Result.Status, o.Result.Why, want)
		}
	}
}

// TestPipelineTiny runs the tiny module with schemata and without: every
// mutant gets its annotated verdict in both modes, the mutants of Double
// are killed by the importer's test (its baseline made when they
// survive calc's own tests), Unused's survive as not covered, the
// reports and the summary say so, and the exit is 1.
func TestPipelineTiny(t *testing.T) {
	dir := writeModule(t, tinyModule)
	wants := wantedVerdicts(tinyModule)
	runs := map[string]pipelineRun{}
	for _, mode := range []string{"schema", "overlay"} {
		cfg := config.Default()
		cfg.Jobs = 2
		cfg.Name = mode
		cfg.Schemata = mode == "schema"
		res := runPipeline(t, dir, cfg)
		runs[mode] = res
		if res.code != exitcode.Survivors || !strings.Contains(res.reason, "3 mutants not covered by any test") {
			t.Fatalf("%s: exit %d (%s), want 1 for 3 survivors no test covers\n%s%s", mode, res.code, res.reason, res.stdout, res.stderr)
		}
		if len(res.outcomes) != 17 {
			t.Errorf("%s: %d mutants, want 17", mode, len(res.outcomes))
		}
		checkWanted(t, mode, wants, res.outcomes)
		if !strings.HasPrefix(res.stdout, "17 mutants: 13 killed, ") || !strings.Contains(res.stdout, "score 81.2%") {
			t.Errorf("%s: summary %q", mode, strings.SplitN(res.stdout, "\n", 2)[0])
		}
		if !strings.Contains(res.stderr, "mutate: module tiny: packages ./... (defaults for a module without .gathermut.json)") {
			t.Errorf("%s: the first line does not say what applies:\n%s", mode, res.stderr)
		}
		s := res.report.Gathermut.Summary
		if s.Total != 17 || s.Counts[mutant.Killed] != 13 || s.Counts[mutant.Survived] != 3 || s.Counts[mutant.Unviable] != 1 || s.Tested != 13 || s.Scored != 16 {
			t.Errorf("%s: summary %+v", mode, s)
		}
		if g := res.report.Gathermut; g.TreeBefore == "" || g.TreeBefore != g.TreeAfter || len(g.TreeChanged) != 0 || g.Interrupted {
			t.Errorf("%s: tree %s -> %s, changed %v, interrupted %v", mode, g.TreeBefore, g.TreeAfter, g.TreeChanged, g.Interrupted)
		}
		for id, o := range res.outcomes {
			switch {
			case o.Mutant.Func == "Double" && o.Result.Status == mutant.Killed:
				if strings.Join(o.Result.KilledBy, ",") != "tiny/use.TestQuad" {
					t.Errorf("%s: %s killed by %v, want tiny/use.TestQuad", mode, id, o.Result.KilledBy)
				}
			case o.Mutant.Func == "Unused":
				if o.Result.Why != "not covered by any test" || o.Result.Mode != mutant.ModeStatic {
					t.Errorf("%s: %s: %s (%s)", mode, id, o.Result.Why, o.Result.Mode)
				}
			case o.Result.Status == mutant.Killed:
				if o.Result.Mode != map[string]mutant.Mode{"schema": mutant.ModeSchema, "overlay": mutant.ModeOverlay}[mode] || len(o.Result.Commands) == 0 || o.Result.TestsRun == 0 {
					t.Errorf("%s: %s: mode %s, %d commands, %d tests run", mode, id, o.Result.Mode, len(o.Result.Commands), o.Result.TestsRun)
				}
			}
		}
	}
	for id, s := range runs["schema"].outcomes {
		o := runs["overlay"].outcomes[id]
		if s.Result.Status != o.Result.Status || strings.Join(s.Result.KilledBy, ",") != strings.Join(o.Result.KilledBy, ",") {
			t.Errorf("%s: %s by %v with schemata, %s by %v without", id, s.Result.Status, s.Result.KilledBy, o.Result.Status, o.Result.KilledBy)
		}
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("left in the temp dir: %v", left)
		}
	}
}

// TestPipelineListDiffRun: list prints every mutant with its note, diff
// prints the diffs of the mutants a glob matches, and run judges only
// those and names its reports run.*.
func TestPipelineListDiffRun(t *testing.T) {
	dir := writeModule(t, tinyModule)
	cfg := config.Default()
	cfg.Command = config.CmdList
	res := runPipeline(t, dir, cfg)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if res.code != exitcode.OK || res.reason != "17 mutants listed" || len(lines) != 17 {
		t.Fatalf("list: exit %d (%s), %d lines\n%s", res.code, res.reason, len(lines), res.stdout)
	}
	ids := make([]string, len(lines))
	for i, line := range lines {
		fields := strings.Split(line, "\t")
		if len(fields) != 5 && len(fields) != 6 {
			t.Errorf("list line %q", line)
			continue
		}
		ids[i] = fields[0]
	}
	if !sort.StringsAreSorted(ids) {
		t.Errorf("list is not sorted by id: %v", ids)
	}
	if !strings.Contains(res.stdout, "zero-return:use/use.go:7:") || !strings.Contains(res.stdout, "\t[unviable: use/use.go:4:8: \"tiny/calc\" imported and not used]") {
		t.Errorf("list lacks the unviable mutant and its note:\n%s", res.stdout)
	}
	if !strings.Contains(res.stderr, "17 mutants in tiny (2 packages)") {
		t.Errorf("list stderr:\n%s", res.stderr)
	}

	cfg = config.Default()
	cfg.Command, cfg.Select = config.CmdDiff, "arith:*"
	res = runPipeline(t, dir, cfg)
	if res.code != exitcode.OK || res.reason != "2 diffs printed" || strings.Count(res.stdout, "# arith:calc/calc.go:") != 2 ||
		!strings.Contains(res.stdout, "-func Add(a, b int) int { return a + b } // want killed\n+func Add(a, b int) int { return a - b } // want killed\n") {
		t.Errorf("diff: exit %d (%s)\n%s", res.code, res.reason, res.stdout)
	}

	cfg = config.Default()
	cfg.Command, cfg.Select, cfg.Jobs = config.CmdRun, "*:calc/calc.go:5:*", 2
	res = runPipeline(t, dir, cfg)
	if res.code != exitcode.OK || len(res.outcomes) != 2 || res.report.Gathermut.Name != "run" {
		t.Errorf("run: exit %d (%s), %d mutants\n%s%s", res.code, res.reason, len(res.outcomes), res.stdout, res.stderr)
	}
	for id, o := range res.outcomes {
		if o.Mutant.Func != "Add" || o.Result.Status != mutant.Killed || strings.Join(o.Result.KilledBy, ",") != "tiny/calc.TestAdd" {
			t.Errorf("run: %s: %s by %v", id, o.Result.Status, o.Result.KilledBy)
		}
	}
}
