package main

import (
	"bytes"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/cxx"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/goasm"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/report"
)

// The tests of how the tool speaks to a module that is not this
// repository (issue 25, point 4): rerun commands that work there, the
// report folder outside the module, progress on a stderr that is not a
// terminal, no temp dir left by list, help with the module's defaults,
// --version and the operators command.

// shell runs a command line from a report with sh in dir, as a user
// pastes it, with the built tool on PATH only when onPath says so.
func shell(t *testing.T, dir, line string, onPath bool) runResult {
	t.Helper()
	cmd := osexec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if onPath {
		cmd.Env = append(cmd.Env, pathWithTool(t))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := exitcode.OK
	if ee, ok := err.(*osexec.ExitError); ok {
		code = exitcode.Code(ee.ExitCode())
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return runResult{code, stdout.String(), stderr.String()}
}

// rerunVerdict runs a report's rerun command for one mutant and returns
// the verdict its own report gives that mutant.
func rerunVerdict(t *testing.T, dir, line, id string, onPath bool) mutant.Status {
	t.Helper()
	res := shell(t, dir, line, onPath)
	if res.code != exitcode.OK && res.code != exitcode.Survivors {
		t.Fatalf("%s: exit %d\n%s%s", line, res.code, res.stdout, res.stderr)
	}
	r, err := report.Read(reportsLine(t, res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := r.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Mutant.ID != id {
		t.Fatalf("%s judged %d mutants, want %s alone", line, len(outcomes), id)
	}
	return outcomes[0].Result.Status
}

var rerunLine = regexp.MustCompile("(?m)^Rerun: `([^`]+)`$")

// TestForeignRerunCommands: the rerun commands of a run in a module that
// is not this repository work there, pasted into a shell at the module
// root, however the tool was started: by its name on PATH, by a path
// from a subdirectory, and with go run from a checkout of this
// repository. Each rerun judges its mutant as the full run did. The same
// run writes its reports outside the module and, with stderr not a
// terminal, prints where it is while it works.
func TestForeignRerunCommands(t *testing.T) {
	dir := copyTree(t, foreignFixture)
	res := runTool(t, dir, []string{"GATHERMUT_PROGRESS_EVERY=200ms"}, "all", "-j", "2")
	if res.code != exitcode.Survivors {
		t.Fatalf("mutate all: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	jsonPath := reportsLine(t, res.stdout)
	if _, err := os.Stat(filepath.Join(dir, "reports")); !os.IsNotExist(err) {
		t.Errorf("the run wrote reports/ into the module (%v)", err)
	}
	r, outcomes := readReport(t, jsonPath)
	checkForeignRunLines(t, res)

	// by name on PATH: the markdown's reruns say "mutate run <id>"
	md, err := os.ReadFile(strings.TrimSuffix(jsonPath, ".json") + ".md")
	if err != nil {
		t.Fatal(err)
	}
	reruns := rerunLine.FindAllStringSubmatch(string(md), -1)
	if len(reruns) != 2 {
		t.Fatalf("%d rerun commands in the markdown, want one per survivor (2)", len(reruns))
	}
	var survivor, killed mutant.Outcome
	for _, o := range outcomes {
		switch {
		case o.Result.Status == mutant.Survived && survivor.Mutant.ID == "":
			survivor = o
		case o.Result.Status == mutant.Killed && killed.Mutant.ID == "":
			killed = o
		}
	}
	for _, m := range reruns {
		if !strings.HasPrefix(m[1], "mutate run ") {
			t.Errorf("rerun %q does not start with the binary's name", m[1])
		}
	}
	for _, o := range []mutant.Outcome{survivor, killed} {
		line := report.RerunCommand(r.Gathermut, o.Mutant)
		if o.Result.Status == mutant.Survived && !strings.Contains(string(md), "Rerun: `"+line+"`") {
			t.Errorf("the markdown does not give %q", line)
		}
		if got := rerunVerdict(t, dir, line, o.Mutant.ID, true); got != o.Result.Status {
			t.Errorf("%s: %s, the full run said %s", line, got, o.Result.Status)
		}
	}

	checkRerunByPath(t, dir, survivor)
	checkRerunViaGoRun(t, dir, killed)
}

// checkForeignRunLines checks what the foreign run printed: the summary
// line with the survivors and the mutants no test covers apart, and, with
// stderr not a terminal, progress as lines of their own in plain words.
func checkForeignRunLines(t *testing.T, res runResult) {
	t.Helper()
	if !strings.Contains(res.stdout, "43 killed, 2 survived, 0 not covered, ") {
		t.Errorf("the summary line does not count the survivors and the mutants no test covers apart:\n%s", res.stdout)
	}

	// stderr is a buffer here: progress comes as lines of their own, the
	// heartbeat's during the silent builds, then each phase's last state
	for _, re := range []string{
		`(?m)^mutate: building the test binaries and running the baseline \(\d+s; \d+s in all\)$`,
		`(?m)^mutate: 47/47 judged  killed 43  survived 2  not covered 0  timed out 0  .*ETA 0s$`,
	} {
		if !regexp.MustCompile(re).MatchString(res.stderr) {
			t.Errorf("stderr has no line matching %s:\n%s", re, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "\r") || strings.Contains(res.stderr, "schemata") || strings.Contains(res.stderr, "switched") {
		t.Errorf("stderr redraws a line or speaks of schemata in a module without a catalog:\n%s", res.stderr)
	}
}

// checkRerunByPath starts the tool by a path, from a subdirectory: the
// rerun names the binary's absolute path (one a user can paste anywhere,
// not ../bin/mutate), and works without PATH.
func checkRerunByPath(t *testing.T, dir string, survivor mutant.Outcome) {
	t.Helper()
	bin := filepath.Join(dir, "bin", "mutate")
	copyFile(t, toolBinary(t), bin, 0o755)
	cmd := osexec.Command(bin, "run", survivor.Mutant.ID, "-j", "2")
	cmd.Args[0] = "../bin/mutate"
	cmd.Dir = filepath.Join(dir, "stack")
	out, err := cmd.Output()
	if ee, ok := err.(*osexec.ExitError); err != nil && (!ok || ee.ExitCode() != int(exitcode.Survivors)) {
		t.Fatalf("../bin/mutate run: %v\n%s", err, out)
	}
	byPath, err := report.Read(reportsLine(t, string(out)))
	if err != nil {
		t.Fatal(err)
	}
	line := report.RerunCommand(byPath.Gathermut, survivor.Mutant)
	if want := filepath.ToSlash(bin) + " run " + survivor.Mutant.ID; line != want {
		t.Errorf("rerun by path %q, want %q", line, want)
	}
	if got := rerunVerdict(t, dir, line, survivor.Mutant.ID, false); got != mutant.Survived {
		t.Errorf("%s: %s, want survived", line, got)
	}
}

// checkRerunViaGoRun runs go run from a checkout of this repository, on
// the module elsewhere: the rerun goes back to the checkout (go run -C)
// and names the module (--dir), both relative, so that it works from the
// module root.
func checkRerunViaGoRun(t *testing.T, dir string, killed mutant.Outcome) {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goRun := osexec.Command("go", "run", "./mutate", "run", killed.Mutant.ID, "--dir", dir, "-j", "2")
	goRun.Dir = repo
	out, err := goRun.Output()
	if err != nil {
		t.Fatalf("go run ./mutate run --dir: %v\n%s", err, out)
	}
	viaGoRun, err := report.Read(reportsLine(t, string(out)))
	if err != nil {
		t.Fatal(err)
	}
	line := report.RerunCommand(viaGoRun.Gathermut, killed.Mutant)
	there, _ := filepath.Rel(dir, repo)
	back, _ := filepath.Rel(repo, dir)
	if want := "go run -C " + filepath.ToSlash(there) + " ./mutate run " + killed.Mutant.ID + " --dir " + filepath.ToSlash(back); line != want {
		t.Errorf("rerun after go run from the checkout %q, want %q", line, want)
	}
	if got := rerunVerdict(t, dir, line, killed.Mutant.ID, false); got != mutant.Killed {
		t.Errorf("%s: %s, want killed", line, got)
	}
	if _, err := os.Stat(filepath.Join(repo, "mutate", "testdata", "foreign", "reports")); !os.IsNotExist(err) {
		t.Errorf("a run wrote reports into the fixture (%v)", err)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, mode); err != nil {
		t.Fatal(err)
	}
}

// TestListClosedStdout: "mutate list | head" stops cleanly when the pipe
// closes: the process is not killed by SIGPIPE, ends with its final line,
// and leaves no gathermut-NNN temp dir; list answered from the discovery
// cache makes none at all (GATHERMUT_KEEP_TMP would keep and announce
// one).
func TestListClosedStdout(t *testing.T) {
	dir := copyTree(t, foreignFixture)
	cache := "GATHERMUT_CACHE=" + t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		env  []string
	}{
		{"no cache", []string{"list", "--no-cache"}, nil},
		{"fill the cache", []string{"list"}, nil},
		{"from the cache", []string{"list"}, []string{"GATHERMUT_KEEP_TMP=1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := osexec.Command(toolBinary(t), c.args...)
			cmd.Args[0] = "mutate"
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp, cache), c.env...)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = w, &stderr
			if c.name == "fill the cache" {
				cmd.Stdout = io.Discard
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// the reader goes away before the tool writes its first line
			w.Close()
			r.Close()
			err = cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("killed by %v\n%s", ws.Signal(), stderr.String())
			}
			if err != nil {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			last := lastLine(stderr.String())
			if c.name != "fill the cache" && !regexp.MustCompile(`^exit 0: 47 mutants listed \(stdout closed after 0: .*broken pipe\)$`).MatchString(last) {
				t.Errorf("last line %q", last)
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "gathermut-*"))
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if c.name == "from the cache" && (!strings.Contains(stderr.String(), "from the discovery cache") || strings.Contains(stderr.String(), "keeping the run's temp dir")) {
				t.Errorf("list from the cache made a temp dir, or did not answer from the cache:\n%s", stderr.String())
			}
		})
	}
}

// TestHelpShowsModuleDefaults: the help text gives the defaults in force
// in the module it runs in (its project file's, else those of a module
// without one), --version names the tool, and "mutate operators" lists
// every operator on a line of its own with its set and whether it runs
// here.
func TestHelpShowsModuleDefaults(t *testing.T) {
	dir := copyTree(t, foreignFixture)
	help := runTool(t, dir, nil, "--help")
	cacheReports := filepath.Join(os.Getenv("GATHERMUT_CACHE"), "reports", "example.com_foreign-")
	for _, want := range []string{
		"here: module example.com/foreign (no .gathermut.json: the defaults of a module without one): packages ./...",
		"(default the default set;", "--report-dir DIR      where reports go (default " + cacheReports,
		"added to none from .gathermut.json)", "(default none)\n",
	} {
		if !strings.Contains(help.stdout, want) {
			t.Errorf("help in the foreign module lacks %q:\n%s", want, help.stdout)
		}
	}
	if regexp.MustCompile(`\./mutants|default all|--gpu-jobs|--catalog|kernel|bench`).MatchString(help.stdout) {
		t.Errorf("help in the foreign module gives this repository's defaults:\n%s", help.stdout)
	}
	project := `{"catalog": "./cat", "operators": ["default", "const-table"], "threshold": 80, "exclude": ["stack/limit_*.go"], "reportDir": "out/mutation"}`
	if err := os.WriteFile(filepath.Join(dir, ".gathermut.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	help = runTool(t, filepath.Join(dir, "stack"), nil, "all", "-h")
	for _, want := range []string{
		"here: module example.com/foreign (from its .gathermut.json)", "(default ./cat; empty: none)", "(default default,const-table;",
		"(default " + filepath.Join(dir, "out", "mutation") + ")", "added to those of .gathermut.json: stack/limit_*.go)", "(default 80%)",
	} {
		if !strings.Contains(help.stderr, want) {
			t.Errorf("help with a project file lacks %q:\n%s", want, help.stderr)
		}
	}
	checkRepoHelp(t)

	if v := runMutate(t, dir, nil, "--version"); v.code != exitcode.OK || !regexp.MustCompile(`^mutate \d+\.\d+\.\d+ \(gathermut/mutate in gathermut .*go1\.\d+.*\)\n$`).MatchString(v.stdout) {
		t.Errorf("--version: exit %d, %q", v.code, v.stdout)
	}

	ops := runTool(t, dir, nil, "operators")
	if ops.code != exitcode.OK || !strings.HasPrefix(ops.stdout, "operators here: default,const-table (module example.com/foreign: settings of this module's .gathermut.json)") {
		t.Errorf("operators: exit %d\n%s", ops.code, ops.stdout)
	}
	lines := operatorLines(ops.stdout) // by language, then name
	if n := len(lines["go"]) + len(lines["asm"]) + len(lines["kernel"]); n != len(operator.Operators)+len(goasm.Operators)+len(cxx.Operators) {
		t.Errorf("%d operator lines, want %d:\n%s", n, len(operator.Operators)+len(goasm.Operators)+len(cxx.Operators), ops.stdout)
	}
	for _, op := range operator.Operators {
		want := "default on"
		switch {
		case op.Name == "const-table":
			want = "opt-in on"
		case op.OptIn:
			want = "opt-in off"
		}
		if lines["go"][op.Name] != want {
			t.Errorf("operator %s: %q, want %q", op.Name, lines["go"][op.Name], want)
		}
	}
	// the default set holds every assembly and kernel operator
	for lang, names := range map[string][]string{"asm": {goasm.Operators[0].Name}, "kernel": {cxx.Operators[0].Name}} {
		for _, n := range names {
			if lines[lang][n] != "default on" {
				t.Errorf("%s operator %s: %q, want default on", lang, n, lines[lang][n])
			}
		}
	}
	// selectable by name: --operators with one assembly operator turns
	// every Go operator and every other assembly one off
	asmOne := runTool(t, dir, nil, "operators", "--operators", goasm.Operators[1].Name)
	one := operatorLines(asmOne.stdout)
	if asmOne.code != exitcode.OK || one["asm"][goasm.Operators[1].Name] != "default on" || one["asm"][goasm.Operators[0].Name] != "default off" ||
		one["go"]["arith"] != "default off" || one["kernel"][cxx.Operators[0].Name] != "default off" {
		t.Errorf("operators --operators %s: exit %d\n%s", goasm.Operators[1].Name, asmOne.code, asmOne.stdout)
	}
}

// checkRepoHelp: the help in this repository gives its project file's
// defaults (the row's operators named one by one), reports in reports/.
func checkRepoHelp(t *testing.T) {
	t.Helper()
	repo, _ := filepath.Abs("..")
	help := runTool(t, "..", nil, "help")
	row, err := config.ReadProject("..")
	if err != nil || row == nil || len(row.Operators) == 0 {
		t.Fatalf("this repository's project file: %+v, %v", row, err)
	}
	for _, want := range []string{"here: module gathermut (from its .gathermut.json)", "(default ./mutants;", "(default " + strings.Join(row.Operators, ",") + ";",
		"(default " + filepath.Join(repo, "reports") + ")"} {
		if !strings.Contains(help.stdout, want) {
			t.Errorf("help in this repository lacks %q", want)
		}
	}
}

// operatorLines reads "mutate operators": each family's heading names its
// language (--lang go|asm|kernel); each line under it gives an operator's
// name, set and whether it runs here ("default on").
func operatorLines(out string) map[string]map[string]string {
	lines := map[string]map[string]string{}
	lang := ""
	for _, l := range strings.Split(out, "\n") {
		if i := strings.LastIndex(l, "(--lang "); i >= 0 && !strings.HasPrefix(l, "  ") {
			lang = strings.TrimSuffix(l[i+len("(--lang "):], "):")
			lines[lang] = map[string]string{}
			continue
		}
		if f := strings.Fields(l); len(f) > 3 && strings.HasPrefix(l, "  ") && lang != "" {
			lines[lang][f[0]] = strings.Join(f[1:3], " ")
		}
	}
	return lines
}
