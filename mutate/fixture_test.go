package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gathermut/mutate/exec"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// The fixture tests build the real command once and run it on the fixture
// module in testdata/fixture, whose every mutant has its expected verdict
// written next to its line: "// want <verdict> [operator=<verdict> ...]".

var mutateBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mutate-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mutateBin = filepath.Join(dir, "mutate")
	if out, err := osexec.Command("go", "build", "-o", mutateBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build mutate: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const fixture = "testdata/fixture"

// fastFlags keep the fixture runs short: two workers and a 2 s timeout
// floor (the spin mutants hang until it).
var fastFlags = []string{"-j", "2", "--timeout-floor", "2s"}

type runResult struct {
	code   int
	stdout string
	stderr string
}

func runMutate(t *testing.T, dir string, env []string, args ...string) runResult {
	t.Helper()
	cmd := osexec.Command(mutateBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*osexec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mutate %v: %v", args, err)
	}
	return runResult{code, stdout.String(), stderr.String()}
}

func readReport(t *testing.T, path string) (*report.Report, map[string]mutant.Outcome) {
	t.Helper()
	r, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := r.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]mutant.Outcome{}
	for _, o := range outcomes {
		byID[o.Mutant.ID] = o
	}
	return r, byID
}

func treeHash(t *testing.T, dir string) string {
	t.Helper()
	tree, err := exec.HashTree(dir, []string{"target/kernel/scale.kern"})
	if err != nil {
		t.Fatal(err)
	}
	return tree.Hash
}

// want is the expected verdict of the mutants on one line.
type want struct {
	def       mutant.Status
	operators map[string]mutant.Status
}

var wantWords = map[string]mutant.Status{
	"killed": mutant.Killed, "survived": mutant.Survived, "timeout": mutant.TimedOut, "unviable": mutant.Unviable,
	"notrun": mutant.NotRun, "ignored": mutant.Ignored, "error": mutant.Error,
}

var wantComment = regexp.MustCompile(`// want (.*)$`)

// readWants collects the fixture's annotations by "file:line".
func readWants(t *testing.T, root string) map[string]want {
	t.Helper()
	wants := map[string]want{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		sc := bufio.NewScanner(bytes.NewReader(data))
		for line := 1; sc.Scan(); line++ {
			m := wantComment.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			fields := strings.Fields(m[1])
			w := want{def: wantWords[fields[0]], operators: map[string]mutant.Status{}}
			if w.def == "" {
				t.Fatalf("%s:%d: unknown verdict %q", rel, line, fields[0])
			}
			for _, f := range fields[1:] {
				op, verdict, ok := strings.Cut(f, "=")
				if !ok || wantWords[verdict] == "" {
					t.Fatalf("%s:%d: bad override %q", rel, line, f)
				}
				w.operators[op] = wantWords[verdict]
			}
			wants[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), line)] = w
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return wants
}

// expected returns the annotated verdict of a mutant.
func expected(t *testing.T, wants map[string]want, m mutant.Mutant) mutant.Status {
	t.Helper()
	if m.ID == "kernel-scale" {
		return mutant.NotRun
	}
	w, ok := wants[fmt.Sprintf("%s:%d", m.File, m.Pos.Line)]
	if !ok {
		t.Errorf("%s: no // want annotation on %s:%d", m.ID, m.File, m.Pos.Line)
		return ""
	}
	if st, ok := w.operators[m.Operator]; ok {
		return st
	}
	return w.def
}

func checkVerdicts(t *testing.T, wants map[string]want, outcomes map[string]mutant.Outcome) {
	t.Helper()
	for id, o := range outcomes {
		want := expected(t, wants, o.Mutant)
		if o.Result.Status != want {
			t.Errorf("%s: %s (%s), want %s", id, o.Result.Status, o.Result.Why, want)
		}
		if o.Mutant.Catalog != nil && o.Result.Status == mutant.Killed && !o.Result.ExpectedKiller {
			t.Errorf("%s: killed by %v, not by its expected killers %v", id, o.Result.KilledBy, o.Mutant.Expected)
		}
	}
}

func TestFixtureFullRun(t *testing.T) {
	wants := readWants(t, fixture)
	before := treeHash(t, fixture)
	reports := t.TempDir()
	res := runMutate(t, fixture, nil, append([]string{"all", "./...", "--report-dir", reports}, fastFlags...)...)
	if res.code != report.ExitSurvivors {
		t.Fatalf("exit %d, want %d (survivors)\nstdout:\n%s\nstderr:\n%s", res.code, report.ExitSurvivors, res.stdout, res.stderr)
	}
	if after := treeHash(t, fixture); after != before {
		t.Errorf("fixture tree hash changed: %s -> %s", before, after)
	}
	for _, s := range []string{"survived", "timed out", "not run"} {
		if !strings.Contains(res.stderr, s) {
			t.Errorf("the one-line reason does not mention %q: %s", s, res.stderr)
		}
	}
	if !strings.Contains(res.stdout, "not run: kernel-scale: no compiler") {
		t.Errorf("stdout does not say plainly that the kernel mutant did not run:\n%s", res.stdout)
	}
	r, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	checkVerdicts(t, wants, outcomes)
	if len(outcomes) < 100 {
		t.Errorf("only %d mutants", len(outcomes))
	}

	// every catalog entry is there, with its verdict and evidence
	for id, st := range map[string]mutant.Status{
		"square-unregistered": mutant.Killed, "check-skipped": mutant.Killed, "large-limit-removed": mutant.Killed,
		"small-max-off-by-one": mutant.Killed, "version-bumped": mutant.Killed, "scale-adds": mutant.Killed, "kernel-scale": mutant.NotRun,
	} {
		o, ok := outcomes[id]
		if !ok || o.Result.Status != st {
			t.Errorf("catalog %s: %+v, want %s", id, o.Result, st)
			continue
		}
		if st == mutant.Killed && (len(o.Result.Commands) < 2 || o.Mutant.Diff == "" || o.Result.Excerpt == "" || o.Result.ExitCode == 0) {
			t.Errorf("catalog %s: evidence missing: commands %q, diff %q, excerpt %q, exit %d", id, o.Result.Commands, o.Mutant.Diff, o.Result.Excerpt, o.Result.ExitCode)
		}
	}
	if o := outcomes["kernel-scale"]; !strings.HasPrefix(o.Result.Why, "no compiler") {
		t.Errorf("kernel-scale: why %q, want no compiler", o.Result.Why)
	}

	// the schema fields viewers need
	g := r.Gathermut
	if r.SchemaVersion != "2" || r.Thresholds.High == 0 || g.TreeBefore != before || g.TreeAfter != before || g.Interrupted {
		t.Errorf("report header: schema %q thresholds %+v tree %s -> %s interrupted %v", r.SchemaVersion, r.Thresholds, g.TreeBefore, g.TreeAfter, g.Interrupted)
	}
	schemaStatuses := map[string]bool{"Killed": true, "Survived": true, "NoCoverage": true, "CompileError": true, "RuntimeError": true, "Timeout": true, "Ignored": true}
	for path, f := range r.Files {
		if f.Language == "" || f.Source == "" {
			t.Errorf("%s: language %q, source of %d bytes", path, f.Language, len(f.Source))
		}
		for _, m := range f.Mutants {
			if m.ID == "" || m.MutatorName == "" || m.Location.Start.Line < 1 || m.Location.Start.Column < 1 || !schemaStatuses[m.Status] {
				t.Errorf("%s: mutant %+v misses schema fields", path, m)
			}
			if m.Gathermut.Result.Status == mutant.NotRun && (m.Status != "Ignored" || !strings.HasPrefix(m.StatusReason, "not run: ")) {
				t.Errorf("%s: not run maps to %s %q", m.ID, m.Status, m.StatusReason)
			}
			if m.Status == "Killed" && len(m.KilledBy) == 0 {
				t.Errorf("%s: killed by nobody", m.ID)
			}
		}
	}
	// raw JSON keys, as a viewer reads them
	raw, _ := os.ReadFile(filepath.Join(reports, "mutation.json"))
	for _, key := range []string{`"schemaVersion": "2"`, `"mutatorName"`, `"location"`, `"killedBy"`, `"statusReason"`, `"projectRoot"`, `"framework"`, `"system"`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("JSON has no %s", key)
		}
	}
	md, _ := os.ReadFile(filepath.Join(reports, "mutation.md"))
	for _, s := range []string{"## Summary", "| Score |", "| Mutants per minute |", "| Tree before |", "(unchanged)", "| Go |", "| Machine |",
		"## By package", "## By operator", "## Catalog", "## Survivors", "<details><summary>diff</summary>", "## Timed out", "## Not run", "no compiler"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("Markdown has no %q", s)
		}
	}
}
