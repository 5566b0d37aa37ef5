package lab

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/cache"
	"gathermut/mutate/internal/discover"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/internal/schedule"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// Unit tests of the lab's steps on values built by hand: what list, diff
// and the summary print, what the report's meta and inputs hold, the
// run's temp dir and the project file's settings. The pipeline tests run
// the same code on whole modules, at the cost of builds.

// failAfter is a stdout that takes n writes, then fails as a closed pipe.
type failAfter struct {
	buf    bytes.Buffer
	n      int
	writes int // every call, the failing ones included
}

var errClosed = errors.New("broken pipe")

func (f *failAfter) Write(p []byte) (int, error) {
	f.writes++
	if f.n == 0 {
		return 0, errClosed
	}
	f.n--
	return f.buf.Write(p)
}

func exitOf(t *testing.T, err error) *exitcode.Exit {
	t.Helper()
	var e *exitcode.Exit
	if !errors.As(err, &e) {
		t.Fatalf("not an exit: %v", err)
	}
	return e
}

// twoMutants: a runnable mutant with its diff, and an invalid catalog
// entry without one.
func twoMutants() *discover.Discovery {
	return &discover.Discovery{Generic: []string{"m/a"}, Mutants: []mutant.Mutant{
		{ID: "negate:a/a.go:3:9:1", Operator: "negate", File: "a/a.go", Pos: mutant.Position{Line: 3, Column: 9}, Func: "F",
			Original: "x  ==\n y", Replacement: "x != y", Diff: "--- a/a.go\n+++ a/a.go\n"},
		{ID: "cat-entry", Operator: "catalog", File: "a/b.go", Pos: mutant.Position{Line: 7, Column: 2}, Func: "G",
			Original: "a", Replacement: "b", State: mutant.Invalid, Note: "no match"},
	}}
}

// TestListAndDiffs: list prints one line per mutant and diff each
// mutant's diff or why it has none; a stdout closed part-way ends either
// cleanly, the final line saying after how many.
func TestListAndDiffs(t *testing.T) {
	d := twoMutants()
	listed := "negate:a/a.go:3:9:1\tnegate\ta/a.go:3:9\tF\tx == y -> x != y\n" +
		"cat-entry\tcatalog\ta/b.go:7:2\tG\ta -> b\t[error: no match]\n"
	diffs := "# negate:a/a.go:3:9:1\n--- a/a.go\n+++ a/a.go\n# cat-entry: no match\n"
	for _, c := range []struct {
		name       string
		diff       bool
		writes     int
		out        string
		reason     string
		maxWritten int // the writes stdout may see: none after the first failure
	}{
		{"list", false, 10, listed, "2 mutants listed", 2},
		{"list to a closed pipe", false, 1, listed[:strings.Index(listed, "\n")+1], "2 mutants listed (stdout closed after 1: broken pipe)", 2},
		{"list to a pipe closed at once", false, 0, "", "2 mutants listed (stdout closed after 0: broken pipe)", 1},
		{"diff", true, 10, diffs, "2 diffs printed", 2},
		{"diff to a closed pipe", true, 1, "# negate:a/a.go:3:9:1\n--- a/a.go\n+++ a/a.go\n", "2 diffs printed (stdout closed after 1: broken pipe)", 2},
		{"diff to a pipe closed at once", true, 0, "", "2 diffs printed (stdout closed after 0: broken pipe)", 1},
	} {
		out := &failAfter{n: c.writes}
		var errOut bytes.Buffer
		l := &lab{stdout: out, stderr: &errOut, module: "m"}
		var err error
		if c.diff {
			err = l.diffs(d)
		} else {
			err = l.list(d)
		}
		e := exitOf(t, err)
		if e.Code != exitcode.OK || e.Reason != c.reason {
			t.Errorf("%s: exit %v %q, want OK %q", c.name, e.Code, e.Reason, c.reason)
		}
		if out.buf.String() != c.out {
			t.Errorf("%s: stdout\n%q\nwant\n%q", c.name, out.buf.String(), c.out)
		}
		if out.writes > c.maxWritten {
			t.Errorf("%s: %d writes to stdout, want at most %d", c.name, out.writes, c.maxWritten)
		}
		if !c.diff && errOut.String() != "2 mutants in m (1 package)\n" {
			t.Errorf("%s: stderr %q", c.name, errOut.String())
		}
	}
}

// TestClosedWriter: after the first failed write nothing reaches the
// writer and every write fails with that error.
func TestClosedWriter(t *testing.T) {
	w := &failAfter{n: 1}
	c := &closedWriter{w: w}
	if n, err := c.Write([]byte("abc")); n != 3 || err != nil || c.note(1) != "" {
		t.Fatalf("first write: %d, %v, note %q", n, err, c.note(1))
	}
	if n, err := c.Write([]byte("de")); n != 0 || err != errClosed {
		t.Fatalf("failing write: %d, %v", n, err)
	}
	w.n = 5 // the pipe would take more: the closed writer does not try
	if n, err := c.Write([]byte("fg")); n != 0 || err != errClosed || w.writes != 2 || w.buf.String() != "abc" {
		t.Fatalf("after the failure: %d, %v, %d writes, %q", n, err, w.writes, w.buf.String())
	}
	if got := c.note(1); got != " (stdout closed after 1: broken pipe)" {
		t.Errorf("note %q", got)
	}
}

// TestPrintSummary: the summary line, the backend line when there is
// one, the interrupted count and the mutants not run grouped by why, the
// largest group first, at most three ids each.
func TestPrintSummary(t *testing.T) {
	notRun := func(id, why string) mutant.Outcome {
		return mutant.Outcome{Mutant: mutant.Mutant{ID: id, File: "a.go"}, Result: mutant.Result{Status: mutant.NotRun, Why: why}}
	}
	killed := mutant.Outcome{Mutant: mutant.Mutant{ID: "k", File: "a.go"}, Result: mutant.Result{Status: mutant.Killed}}
	sum := func(total, judged, interrupted, killed, tested, reused int) outcome.Summary {
		return outcome.Summary{Total: total, Judged: judged, Interrupted: interrupted, Tested: tested, Reused: reused,
			Counts: map[mutant.Status]int{mutant.Killed: killed}}
	}
	counts := func(s outcome.Summary) string { return report.CountsText(s) }
	s1 := sum(3, 3, 0, 3, 3, 0)
	s1.Score, s1.Scored = 100, 3
	s2 := sum(10, 7, 3, 1, 0, 0)
	s2.Score, s2.Scored = 100, 1
	s3 := sum(8, 8, 0, 1, 1, 2)
	s3.Score, s3.Scored = 100, 1
	for _, c := range []struct {
		name     string
		meta     report.Meta
		outcomes []mutant.Outcome
		want     string
	}{
		{"tested", report.Meta{Summary: s1, WallSeconds: 12.34, Timing: report.Timing{Mutants: 30}}, []mutant.Outcome{killed},
			"3 mutants: " + counts(s1) + "; score 100.0%; 3 tested, 6.0/min; 12.3 s (-j 2)\n"},
		{"interrupted, nothing tested", report.Meta{Summary: s2, Interrupted: true, WallSeconds: 1}, nil,
			"interrupted: 7 of 10 judged: " + counts(s2) + "; score 100.0%; no mutant tested; 1.0 s (-j 2)\n" +
				"3 not judged because of the interrupt (status Pending in r.json)\n"},
		{"reused, not run, backends", report.Meta{Summary: s3, WallSeconds: 2, Timing: report.Timing{SchemaBuilds: 30, Mutants: 30}},
			[]mutant.Outcome{killed, notRun("n1", "no GPU"), notRun("n2", "skipped"), notRun("n3", "skipped"), notRun("n4", "skipped"),
				notRun("n5", "skipped"), notRun("n6", "skipped"),
				{Mutant: mutant.Mutant{ID: "kern", Kind: mutant.Kernel, File: "k.hip"}, Result: mutant.Result{Status: mutant.Killed, Backend: "kernel-emulation"}}},
			"8 mutants: " + counts(s3) + ", 2 reused; score 100.0%; 1 tested, 1.0/min; 2.0 s (-j 2)\n" +
				"by backend: go 100.0% (7 mutants, 6 not run); kernel-emulation 100.0% (1 mutants, 0 not run)\n" +
				"not run (5): skipped: n2, n3, n4 and 2 more (in r.json)\n" +
				"not run (1): no GPU: n1\n"},
		{"three not run", report.Meta{Summary: s3, WallSeconds: 2}, []mutant.Outcome{notRun("a", "w"), notRun("b", "w"), notRun("c", "w")},
			"8 mutants: " + counts(s3) + ", 2 reused; score 100.0%; no mutant tested; 2.0 s (-j 2)\n" +
				"not run (3): w: a, b, c\n"},
		{"one reused, one interrupted, groups of one size in the order met",
			report.Meta{Summary: outcome.Summary{Total: 3, Judged: 2, Interrupted: 1, Reused: 1, Counts: map[mutant.Status]int{}}, Interrupted: true, WallSeconds: 2},
			[]mutant.Outcome{notRun("a", "w2"), notRun("b", "w1")},
			"interrupted: 2 of 3 judged: " + counts(outcome.Summary{Counts: map[mutant.Status]int{}}) + ", 1 reused; score n/a; no mutant tested; 2.0 s (-j 2)\n" +
				"1 not judged because of the interrupt (status Pending in r.json)\n" +
				"not run (1): w2: a\n" + "not run (1): w1: b\n"},
		{"four not run", report.Meta{Summary: s3, WallSeconds: 2}, []mutant.Outcome{notRun("a", "w"), notRun("b", "w"), notRun("c", "w"), notRun("d", "w")},
			"8 mutants: " + counts(s3) + ", 2 reused; score 100.0%; no mutant tested; 2.0 s (-j 2)\n" +
				"not run (4): w: a, b, c and 1 more (in r.json)\n"},
	} {
		var out bytes.Buffer
		l := &lab{stdout: &out, cfg: config.Config{Jobs: 2}}
		l.printSummary(&report.Report{Gathermut: c.meta}, c.outcomes, "r.json")
		if out.String() != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, out.String(), c.want)
		}
	}
}

// TestMeta: the report's run-level part holds the discovery's and the
// judgement's numbers, and how many mutants each mode judged.
func TestMeta(t *testing.T) {
	d := &discover.Discovery{CatalogPath: "m/mutants", Seconds: 4.5, TypeCheckSeconds: 1.5}
	j := &schedule.Judgement{Interrupted: true, GPUOnly: []string{"g"}, Timing: report.Timing{Mutants: 9},
		Outcomes: []mutant.Outcome{
			{Result: mutant.Result{Mode: mutant.ModeSchema}}, {Result: mutant.Result{Mode: mutant.ModeSchema}},
			{Result: mutant.Result{Mode: mutant.ModeOverlay}}, {Result: mutant.Result{}},
		}}
	l := &lab{module: "m", cfg: config.Config{Jobs: 3, Patterns: []string{"./..."}}}
	m := l.meta(d, j, report.Machine{Hostname: "h"})
	if m.Module != "m" || m.Catalog != "m/mutants" || m.Jobs != 3 || m.Machine.Hostname != "h" || !m.Interrupted || len(m.GPUOnly) != 1 {
		t.Errorf("meta %+v", m)
	}
	if m.Timing.Discovery != 4.5 || m.Timing.TypeCheck != 1.5 || m.Timing.Mutants != 9 {
		t.Errorf("timing %+v", m.Timing)
	}
	if len(m.Modes) != 2 || m.Modes[mutant.ModeSchema] != 2 || m.Modes[mutant.ModeOverlay] != 1 {
		t.Errorf("modes %v, want schema 2, overlay 1", m.Modes)
	}
}

// TestInputs: each mutated file's source, read once, "" for a file gone.
func TestInputs(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := func(file string) mutant.Outcome { return mutant.Outcome{Mutant: mutant.Mutant{File: file}} }
	l := &lab{root: root}
	in := l.inputs(&discover.Discovery{}, []mutant.Outcome{o("a/a.go"), o("a/gone.go"), o("a/a.go")})
	if len(in.Sources) != 2 || in.Sources["a/a.go"] != "package a\n" || in.Sources["a/gone.go"] != "" {
		t.Errorf("sources %q", in.Sources)
	}
}

// TestTempDir: the run's temp dir is made once, under the system temp
// dir, and every child's temp files go into it; it is removed at the end
// unless GATHERMUT_KEEP_TMP keeps it (and says so).
func TestTempDir(t *testing.T) {
	for _, keep := range []string{"", "1"} {
		sys := t.TempDir()
		t.Setenv("TMPDIR", sys)
		t.Setenv("GOTMPDIR", "/go/tmp")
		t.Setenv("GATHERMUT_KEEP_TMP", keep)
		var errOut bytes.Buffer
		l := &lab{stderr: &errOut}
		tmp, err := l.temp()
		if err != nil {
			t.Fatal(err)
		}
		if tmp != l.tmp || filepath.Dir(tmp) != sys || !strings.HasPrefix(filepath.Base(tmp), "gathermut-") {
			t.Fatalf("temp dir %q (l.tmp %q), want gathermut-* in %s", tmp, l.tmp, sys)
		}
		if l.sysTemp != sys || l.sysGoTemp != "/go/tmp" {
			t.Errorf("system temp dirs %q %q", l.sysTemp, l.sysGoTemp)
		}
		for env, sub := range map[string]string{"TMPDIR": "tmp", "GOTMPDIR": "go"} {
			want := filepath.Join(tmp, sub)
			if os.Getenv(env) != want {
				t.Errorf("%s=%q, want %q", env, os.Getenv(env), want)
			}
			if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
				t.Errorf("%s: %v %v", want, fi, err)
			}
		}
		if err := l.ensureTemp(); err != nil || l.tmp != tmp || l.sysTemp != sys {
			t.Errorf("second ensureTemp: %v, %q, system %q", err, l.tmp, l.sysTemp)
		}
		if again, err := l.temp(); again != tmp || err != nil {
			t.Errorf("second temp: %q, %v", again, err)
		}
		said := strings.Contains(errOut.String(), "keeping the run's temp dir "+tmp)
		if said != (keep != "") || strings.Count(errOut.String(), "\n") > 1 {
			t.Errorf("keep %q: stderr %q", keep, errOut.String())
		}
		l.removeTemp()
		if _, err := os.Stat(tmp); (err == nil) != (keep != "") {
			t.Errorf("keep %q: after removeTemp, stat %v", keep, err)
		}
	}
	// without a temp dir made, removeTemp removes nothing
	t.Setenv("GATHERMUT_KEEP_TMP", "")
	(&lab{}).removeTemp()
}

// TestTempDirErrors: a system temp dir that does not exist, or a run's
// temp dir that cannot hold folders, is an error naming the step.
func TestTempDirErrors(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "none"))
	t.Setenv("GOTMPDIR", "")
	l := &lab{stderr: &bytes.Buffer{}}
	if tmp, err := l.temp(); err == nil || tmp != "" || !strings.Contains(err.Error(), "lab: temp dir:") {
		t.Errorf("missing system temp dir: %q, %v", tmp, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l = &lab{tmp: file}
	if err := l.useOwnTemp(); err == nil || !strings.HasPrefix(err.Error(), "lab: ") {
		t.Errorf("temp dir a file: %v", err)
	}
}

// TestPaths: the paths a report must not name are the go command's and
// the run's own.
func TestPaths(t *testing.T) {
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	goEnvOnce = sync.Once{} // asked again here, whichever test asked first
	l := &lab{root: "/r", tmp: "/t", sysTemp: "/sys", sysGoTemp: "/gosys"}
	p := l.paths()
	home, _ := os.UserHomeDir()
	want := report.Paths{Root: "/r", Temp: "/t", GoRoot: goEnv("GOROOT"), ModCache: goEnv("GOMODCACHE"), GoCache: goEnv("GOCACHE"),
		TempDir: "/sys", GoTempDir: "/gosys", Home: home}
	if p != want || p.GoRoot == "" {
		t.Errorf("paths %+v\nwant %+v", p, want)
	}
}

// TestGoVersion: the go command's version, or this binary's when there
// is no go command.
func TestGoVersion(t *testing.T) {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := goVersion(); got != strings.TrimSpace(string(out)) {
		t.Errorf("goVersion %q, want %q", got, out)
	}
	t.Setenv("PATH", t.TempDir())
	if got := goVersion(); got != runtime.Version() {
		t.Errorf("without go: %q, want %q", got, runtime.Version())
	}
}

// TestVersionLine: what --version prints for each way the tool was built.
func TestVersionLine(t *testing.T) {
	tail := runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	for _, c := range []struct {
		inv  Invocation
		want string
	}{
		{Invocation{Package: "gathermut/mutate", Module: "gathermut", Version: "(devel)"}, "gathermut/mutate in gathermut (devel), "},
		{Invocation{Package: "example.com/gm/mutate", Module: "example.com/gm"}, "example.com/gm/mutate in example.com/gm, "},
		{Invocation{}, ""},
	} {
		if got, want := versionLine(c.inv), "mutate "+cache.Version+" ("+c.want+tail; got != want {
			t.Errorf("%+v: %q, want %q", c.inv, got, want)
		}
	}
	if got := VersionLine(); !strings.HasPrefix(got, "mutate "+cache.Version+" (") || !strings.HasSuffix(got, tail) {
		t.Errorf("VersionLine %q", got)
	}
}

// projectModule makes a module m at a temp dir, with a project file when
// project is not "".
func projectModule(t *testing.T, project string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n"}
	if project != "" {
		files[config.ProjectFile] = project
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestApplyProject: the project file (or its set) fills in what the
// command line left open, the run's first line says what applies, and a
// set or an operator that does not exist is a configuration error.
func TestApplyProject(t *testing.T) {
	const project = `{"packages": ["./p/..."], "threshold": 80, "sets": {"asm": {"packages": ["./q"], "operators": ["asm-drop"]}}}`
	for _, c := range []struct {
		name, project, set string
		operators          []string
		err                string // "" for none
		patterns           string
		line               string
		ops                int // -1: nil, 0: some, n: exactly n
	}{
		{"no project file", "", "", nil, "", "./...", "mutate: module example.com/m: packages ./... (defaults for a module without .gathermut.json)\n", 0},
		{"project file", project, "", nil, "", "./p/...", "mutate: module example.com/m: packages ./p/...; threshold 80% (settings of this module's .gathermut.json)\n", 0},
		{"a set with assembly operators only", project, "asm", nil, "", "./q", "mutate: module example.com/m: packages ./q; operators asm-drop (settings of set asm in this module's .gathermut.json)\n", -1},
		{"one Go operator", project, "", []string{"negate"}, "", "./p/...", "", 1},
		{"two Go operators", project, "", []string{"arith", "asm-drop", "negate"}, "", "./p/...", "", 2},
		{"a set that does not exist", project, "none", nil, "--set none", "", "", 0},
		{"a set without a project file", "", "asm", nil, "--set asm", "", "", 0},
		{"a bad project file", "{", "", nil, config.ProjectFile, "", "", 0},
		{"an unknown operator", project, "", []string{"nope"}, `unknown operator "nope"`, "", "", 0},
	} {
		root := projectModule(t, c.project)
		var errOut bytes.Buffer
		cfg := config.Default()
		cfg.Set = c.set
		if c.operators != nil {
			cfg.Operators, cfg.Given.Operators = c.operators, true
		}
		l := &lab{cfg: cfg, stderr: &errOut, root: root, module: "example.com/m"}
		err := l.applyProject()
		if c.err != "" {
			if e := exitOf(t, err); e.Code != exitcode.Config || !strings.Contains(e.Reason, c.err) {
				t.Errorf("%s: exit %v %q, want a configuration error naming %q", c.name, e.Code, e.Reason, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if (l.project != nil) != (c.project != "") {
			t.Errorf("%s: project %+v", c.name, l.project)
		}
		if got := strings.Join(l.cfg.Patterns, " "); got != c.patterns {
			t.Errorf("%s: patterns %q, want %q", c.name, got, c.patterns)
		}
		if c.line != "" && errOut.String() != c.line {
			t.Errorf("%s: first line\n%q\nwant\n%q", c.name, errOut.String(), c.line)
		}
		switch {
		case c.ops < 0 && l.ops != nil:
			t.Errorf("%s: Go operators %d, want none", c.name, len(l.ops))
		case c.ops == 0 && len(l.ops) == 0:
			t.Errorf("%s: no Go operators, want the default set", c.name)
		case c.ops > 0 && len(l.ops) != c.ops:
			t.Errorf("%s: %d Go operators, want %d", c.name, len(l.ops), c.ops)
		}
	}
}

// TestModuleHere: the module at a directory with its project file
// applied, as a run there would see it; no module or a bad project file
// is an error.
func TestModuleHere(t *testing.T) {
	root := projectModule(t, `{"packages": ["./p/..."], "reportDir": "reps"}`)
	cfg := config.Default()
	cfg.Dir = root
	h, err := ModuleHere(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h.Root != root || h.Module != "example.com/m" || h.Project == nil || strings.Join(h.Config.Patterns, " ") != "./p/..." ||
		h.Config.ReportDir != filepath.Join(root, "reps") {
		t.Errorf("here %+v", h)
	}
	bare := projectModule(t, "")
	cfg.Dir = bare
	if h, err := ModuleHere(cfg); err != nil || h.Project != nil || h.Config.ReportDir != config.ReportCacheDir(cache.Dir(), bare, "example.com/m") {
		t.Errorf("without a project file: %+v, %v", h, err)
	}
	cfg.Dir = projectModule(t, "{")
	if _, err := ModuleHere(cfg); err == nil || !strings.Contains(err.Error(), config.ProjectFile) {
		t.Errorf("a bad project file: %v", err)
	}
	cfg.Dir = t.TempDir()
	if _, err := ModuleHere(cfg); err == nil {
		t.Errorf("no module: no error")
	}
}

// TestReportDirOutside: merge's report folder is the one given, or one
// of the current directory in the user cache.
func TestReportDirOutside(t *testing.T) {
	cfg := config.Default()
	wd, _ := os.Getwd()
	if got, want := ReportDirOutside(cfg), config.ReportCacheDir(cache.Dir(), wd, "merge"); got != want {
		t.Errorf("default %q, want %q", got, want)
	}
	cfg.ReportDir, cfg.Given.ReportDir = "/given", true
	if got := ReportDirOutside(cfg); got != "/given" {
		t.Errorf("given: %q", got)
	}
}

// fakeTools puts scripts of the given names on a PATH of their own.
func fakeTools(t *testing.T, scripts map[string]string) {
	t.Helper()
	bin := t.TempDir()
	for name, script := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
}

// TestGoEnvPaths: GOROOT, GOMODCACHE and GOCACHE as the go command says
// them; none when it is missing or answers with another number of lines.
func TestGoEnvPaths(t *testing.T) {
	var want [3]string
	for i, name := range []string{"GOROOT", "GOMODCACHE", "GOCACHE"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		want[i] = strings.TrimSpace(string(out))
	}
	if r, m, c := goEnvPaths(); [3]string{r, m, c} != want || r == "" {
		t.Errorf("goEnvPaths %q %q %q, want %q", r, m, c, want)
	}
	for name, script := range map[string]string{
		"no go command": "",
		"two lines":     "printf '/r\\n/m\\n'\n",
		"four lines":    "printf '/r\\n/m\\n/c\\n/x\\n'\n",
		"failing":       "printf '/r\\n/m\\n/c\\n'\nexit 1\n",
	} {
		scripts := map[string]string{}
		if script != "" {
			scripts["go"] = script
		}
		fakeTools(t, scripts)
		if r, m, c := goEnvPaths(); r != "" || m != "" || c != "" {
			t.Errorf("%s: %q %q %q, want none", name, r, m, c)
		}
	}
	fakeTools(t, map[string]string{"go": "printf ' /r \\n/m\\n/c\\n'\n"})
	if r, m, c := goEnvPaths(); r != "/r" || m != "/m" || c != "/c" {
		t.Errorf("three lines: %q %q %q", r, m, c)
	}
}

// TestCPUModel: the first "model name" of a cpuinfo file.
func TestCPUModel(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ data, want string }{
		"x86":      {"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU \nmodel name\t: other\n", "Intel(R) Xeon(R) CPU"},
		"no model": {"processor\t: 0\nmodel\t: 85\n", ""},
		"no colon": {"model name Xeon\n", ""},
	} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := cpuModelIn(file); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
	if got := cpuModelIn(filepath.Join(dir, "none")); got != "" {
		t.Errorf("no file: %q", got)
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(data), "model name") {
		if got := cpuModel(); got == "" || got != cpuModelIn("/proc/cpuinfo") {
			t.Errorf("this machine's CPU: %q", got)
		}
	}
}

// TestGPUToolOutput: a tool that fails is not believed, whatever it
// printed; rocminfo's GPU is an agent whose Name is gfx... followed by
// its Marketing Name, once.
func TestGPUToolOutput(t *testing.T) {
	fakeTools(t, map[string]string{
		"nvidia-smi": "echo 'NVIDIA H200, 9.0'\nexit 3\n",
		"rocminfo":   "printf '%s\\n' '  Name: gfx1100' '  Marketing Name: Radeon'\nexit 3\n",
	})
	if g := append(nvidiaGPUs(), amdGPUs()...); len(g) != 0 {
		t.Errorf("failing tools: %v", g)
	}
	fakeTools(t, map[string]string{"rocminfo": "printf '%s\\n' " +
		"'Name: gfx90a' 'Name: AMD EPYC' 'Marketing Name: AMD EPYC 9654' " + // a CPU agent after a GPU's Name
		"'Name: gfx1100' 'Marketing Name: Radeon RX 7900' 'Marketing Name: again' " + // one GPU per Name
		"'Name: gfx942' 'Name' 'Marketing Name: MI300X'\n"}) // a line without a colon is no field
	want := []report.GPU{{Name: "Radeon RX 7900", Arch: "gfx1100"}, {Name: "MI300X", Arch: "gfx942"}}
	if g := amdGPUs(); !slices.Equal(g, want) {
		t.Errorf("rocminfo: %+v, want %+v", g, want)
	}
}

// TestSelfInvocation: this process, as the rerun commands see it.
func TestSelfInvocation(t *testing.T) {
	inv := selfInvocation()
	wd, _ := os.Getwd()
	if inv.Arg0 != os.Args[0] || inv.Cwd != wd || inv.Module != "gathermut" || !strings.HasPrefix(inv.Package, "gathermut/mutate/internal/lab") || inv.GoRun {
		t.Errorf("invocation %+v (args %q, cwd %s)", inv, os.Args, wd)
	}
}

// TestRunRefuses: Run's errors before any work: a bad configuration is a
// usage error; no module, or a project file that does not read, a
// configuration error; no temp dir is left behind.
func TestRunRefuses(t *testing.T) {
	sys := t.TempDir()
	t.Setenv("TMPDIR", sys)
	t.Setenv("GOTMPDIR", "")
	bad := config.Default()
	bad.Jobs, bad.Dir = 0, t.TempDir() // refused before the module is looked for
	noModule := config.Default()
	noModule.Dir = t.TempDir()
	badProject := config.Default()
	badProject.Dir = projectModule(t, "{")
	badSet := config.Default()
	badSet.Dir, badSet.Set = projectModule(t, `{}`), "none"
	for _, c := range []struct {
		name string
		cfg  config.Config
		code exitcode.Code
		want string
	}{
		{"-j 0", bad, exitcode.Usage, "-j must be at least 1"},
		{"no module", noModule, exitcode.Config, "is not inside a Go module"},
		{"bad project file", badProject, exitcode.Config, config.ProjectFile},
		{"unknown set", badSet, exitcode.Config, "--set none"},
	} {
		var out, errOut bytes.Buffer
		e := exitOf(t, Run(t.Context(), c.cfg, &out, &errOut))
		if e.Code != c.code || !strings.Contains(e.Reason, c.want) {
			t.Errorf("%s: exit %v %q, want %v naming %q", c.name, e.Code, e.Reason, c.code, c.want)
		}
		if left, _ := os.ReadDir(sys); len(left) != 0 {
			t.Errorf("%s: left %v in the temp dir", c.name, left)
		}
	}
}

// TestTestLocations: where the tests the outcomes name are declared: the
// top-level functions of their packages' _test.go files, the first
// declaration winning; methods, files that do not parse and packages
// outside the module are passed over.
func TestTestLocations(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"p/p.go":          "package p\n",
		"p/a_test.go":     "package p\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n\ntype s struct{}\n\nfunc (s) TestM(t *testing.T) {}\n",
		"p/b_test.go":     "//go:build never\n\npackage p\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n\nfunc TestB(t *testing.T) {}\n",
		"q/q.go":          "package q\n",
		"q/q_test.go":     "package q\n\nimport \"testing\"\n\nfunc TestQ(t *testing.T) {}\n",
		"r/r.go":          "package r\n",
		"r/r_ext_test.go": "package r_test\n\nimport \"testing\"\n\nfunc TestR(t *testing.T) {}\n",
	}
	for name, data := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := load.LoadGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	// made after loading: a file that does not parse, before one that does
	for name, data := range map[string]string{"p/c_test.go": "package p\n\nfunc TestBroken(\n", "p/d_test.go": "package p\n\nfunc TestD() {}\n"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outcomes := []mutant.Outcome{
		{Result: mutant.Result{KilledBy: []string{"example.com/m/p.TestA", "not an id"}}},
		{Result: mutant.Result{CoveredBy: []string{"example.com/elsewhere.TestX"}}},
		{Mutant: mutant.Mutant{Expected: []mutant.TestID{{Package: "example.com/m/r", Name: "TestR"}}}},
	}
	want := map[string]report.TestLocation{
		"example.com/m/p.TestA": {File: "p/a_test.go", Line: 5},
		"example.com/m/p.TestB": {File: "p/b_test.go", Line: 9},
		"example.com/m/p.TestD": {File: "p/d_test.go", Line: 3},
		"example.com/m/r.TestR": {File: "r/r_ext_test.go", Line: 5},
	}
	got := testLocations(prog, outcomes)
	if len(got) != len(want) {
		t.Errorf("locations %v\nwant %v", got, want)
	}
	for id, loc := range want {
		if got[id] != loc {
			t.Errorf("%s: %+v, want %+v", id, got[id], loc)
		}
	}
	if got := testLocations(nil, outcomes); got == nil || len(got) != 0 {
		t.Errorf("without a program: %v, want none", got)
	}
	if got := testLocations(prog, []mutant.Outcome{{Result: mutant.Result{CoveredBy: []string{"example.com/m/q.TestQ"}}}}); len(got) != 1 || got["example.com/m/q.TestQ"] != (report.TestLocation{File: "q/q_test.go", Line: 5}) {
		t.Errorf("q: %v", got)
	}
}

// TestSetUp: the module, its project file, the report folder and the
// rerun command's prefix, before any temp dir.
func TestSetUp(t *testing.T) {
	root := projectModule(t, `{"reportDir": "reps"}`)
	cfg := config.Default()
	cfg.Dir = root
	l := &lab{cfg: cfg, stderr: &bytes.Buffer{}}
	if err := l.setUp(); err != nil {
		t.Fatal(err)
	}
	if l.root != root || l.module != "example.com/m" || l.project == nil || l.cfg.ReportDir != filepath.Join(root, "reps") || l.cfg.Tool == "" || l.tmp != "" {
		t.Errorf("set up: root %q module %q project %v reports %q tool %q temp %q", l.root, l.module, l.project, l.cfg.ReportDir, l.cfg.Tool, l.tmp)
	}
}

// TestRunCleansUp: all and run make the run's temp dir before finding
// the mutants, point the child processes into it, and Run removes it however the run ends:
// here a module without the packages its project file names.
func TestRunCleansUp(t *testing.T) {
	module := projectModule(t, `{"packages": ["./none/..."]}`)
	for _, c := range []struct {
		name string
		cmd  config.Command
		made bool // the run's temp dir was made
	}{
		{"all", config.CmdAll, true},
		{"run", config.CmdRun, true},
	} {
		sys := t.TempDir()
		t.Setenv("TMPDIR", sys)
		t.Setenv("GOTMPDIR", "") // Run points both into its temp dir: restored after the test
		t.Setenv("GATHERMUT_KEEP_TMP", "")
		cfg := config.Default()
		cfg.Command, cfg.Dir, cfg.NoCache = c.cmd, module, true
		var out, errOut bytes.Buffer
		e := exitOf(t, Run(t.Context(), cfg, &out, &errOut))
		if e.Code != exitcode.Config || !strings.Contains(e.Reason, "./none/...") {
			t.Errorf("%s: exit %v %q, want a configuration error naming ./none/...", c.name, e.Code, e.Reason)
		}
		tmp := os.Getenv("TMPDIR")
		if made := strings.HasPrefix(tmp, filepath.Join(sys, "gathermut-")); made != c.made {
			t.Errorf("%s: TMPDIR %q: temp dir made %v, want %v", c.name, tmp, made, c.made)
		}
		if left, _ := os.ReadDir(sys); len(left) != 0 {
			t.Errorf("%s: left %v in the temp dir", c.name, left)
		}
	}
	// no temp dir to be had
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "none"))
	cfg := config.Default()
	cfg.Command, cfg.Dir = config.CmdAll, module
	if err := Run(t.Context(), cfg, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "lab: temp dir:") {
		t.Errorf("no temp dir: %v", err)
	}
}

// TestFilesClosed: reading cpuinfo and go.mod leaves neither open.
func TestFilesClosed(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	gomod := filepath.Join(projectModule(t, ""), "go.mod")
	cpuinfo := filepath.Join(t.TempDir(), "cpuinfo")
	if err := os.WriteFile(cpuinfo, []byte("model name\t: X\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// no collection meanwhile: an unreachable *os.File's finalizer would
	// close what the code left open
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if goModRequires(gomod) == nil || cpuModelIn(cpuinfo) != "X" {
		t.Fatal("nothing read")
	}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); target == gomod || target == cpuinfo {
			t.Errorf("%s left open (fd %s)", target, fd.Name())
		}
	}
}

// TestFinishUnhashable: a tree that cannot be hashed again after the run
// ends it with a configuration error and no report.
func TestFinishUnhashable(t *testing.T) {
	reports := filepath.Join(t.TempDir(), "reports")
	var out bytes.Buffer
	l := &lab{stdout: &out, stderr: &bytes.Buffer{}, cfg: config.Config{ReportDir: reports, Jobs: 1}}
	e := exitOf(t, l.finish(&discover.Discovery{}, &schedule.Judgement{}, report.Machine{}))
	if e.Code != exitcode.Config || e.Reason == "" {
		t.Errorf("exit %v %q, want a configuration error", e.Code, e.Reason)
	}
	if _, err := os.Stat(reports); err == nil || out.Len() != 0 {
		t.Errorf("a report written (%v) or a summary printed: %q", err, out.String())
	}
}
