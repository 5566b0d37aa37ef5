package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/report/schematest"
	"gathermut/mutate/tree"
)

// The fixture tests run the command on the fixture module in
// testdata/fixture, whose every mutant has its expected verdict written
// next to its line: "// want <verdict> [operator=<verdict> ...]". Most run
// it in this process (runTool); those about the command as a process
// (exit codes, signals, a closed stdout, rerun commands in a shell, go
// run) run the one built binary the package's test processes share
// (runMutate, toolBinary).

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mutate-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// the runs' discovery and baseline caches stay inside the test
	os.Setenv("GATHERMUT_CACHE", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const fixture = "testdata/fixture"

// pathWithTool is PATH with the built tool's folder first.
func pathWithTool(t *testing.T) string {
	return "PATH=" + filepath.Dir(toolBinary(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// fastFlags keep the fixture runs short: two workers and a 2 s timeout
// floor (the spin mutants hang until it).
var fastFlags = []string{"-j", "2", "--timeout-floor", "2s"}

type runResult struct {
	code   exitcode.Code
	stdout string
	stderr string
}

// runMutate runs the built tool in dir as a user with it on PATH would
// ("mutate" is its os.Args[0], and PATH finds it), so that the rerun
// commands its reports give ("mutate run <id>") run as they are.
func runMutate(t *testing.T, dir string, env []string, args ...string) runResult {
	t.Helper()
	cmd := osexec.Command(toolBinary(t), args...)
	cmd.Args[0] = "mutate"
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), pathWithTool(t)), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := exitcode.OK
	if ee, ok := err.(*osexec.ExitError); ok {
		code = exitcode.Code(ee.ExitCode())
	} else if err != nil {
		t.Fatalf("mutate %v: %v", args, err)
	}
	return runResult{code, stdout.String(), stderr.String()}
}

// readReport reads a report a fixture run wrote, after checking it and
// the report its HTML page carries against the pinned
// mutation-testing-report-schema: every report the tests write is
// validated. No path of this checkout or of the test's
// temp dirs may appear in it, nor its markdown twin.
func readReport(t *testing.T, path string) (*report.Report, map[string]mutant.Outcome) {
	t.Helper()
	abs, _ := filepath.Abs(".")
	forbidden := []string{filepath.Dir(abs), os.TempDir() + "/"}
	if err := schematest.ValidateFile(path, forbidden...); err != nil {
		t.Error(err)
	}
	if page, err := os.ReadFile(report.HTMLPath(path)); err != nil {
		t.Error(err)
	} else if err := schematest.ValidateHTML(page, forbidden...); err != nil {
		t.Errorf("%s: %v", report.HTMLPath(path), err)
	}
	md, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".md")
	if err != nil {
		t.Error(err)
	}
	if len(md) > report.MaxMarkdown {
		t.Errorf("%s: %d bytes", path, len(md))
	}
	for _, p := range forbidden {
		if bytes.Contains(md, []byte(p)) {
			t.Errorf("the markdown next to %s names %s", path, p)
		}
	}
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

// treeHash is the fixture's tree hash. A run judges every file of the
// fixture (all its packages are mutated, and the catalog, kernel and
// project file count), so it is also the hash its reports record.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	tree, err := tree.HashTree(dir, []string{"target/kernel/scale.kern", ".gathermut.json"})
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

// TestFixtureFullRun runs the whole fixture with schemata, in process:
// every mutant gets the verdict annotated on its line, the spin mutants'
// processes are killed and nothing is left in the temp dir, the tree is
// unchanged, the reports are valid and say what they must, and the run
// shows every mode: most mutants switched in the schema binary, some
// built on their own because they cannot be switched and because the
// schema build rejected them, and some decided without tests. (The
// verdicts without schemata are compared with these on small modules:
// internal/lab's TestPipelineTiny, TestPipelineAssembly, TestPipelineKernel
// and TestPipelineFallbackModes.)
func TestFixtureFullRun(t *testing.T) {
	wants := readWants(t, fixture)
	before := treeHash(t, fixture)
	reports := t.TempDir()
	tmp := t.TempDir()
	res := runTool(t, fixture, []string{"TMPDIR=" + tmp}, append([]string{"all", "./...", "--report-dir", reports}, fastFlags...)...)
	if res.code != exitcode.Survivors {
		t.Fatalf("exit %d, want %d (survivors)\nstdout:\n%s\nstderr:\n%s", res.code, exitcode.Survivors, res.stdout, res.stderr)
	}
	// the spin mutants hang: their test processes must have been killed,
	// and nothing of the run stays in the temp dir
	for _, p := range processesUnder(t, tmp) {
		t.Errorf("process left running after the run: %s", p)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temp dir: %v", left)
	}
	if !strings.HasPrefix(lastLine(res.stderr), "exit 1: ") {
		t.Errorf("the last line does not name the outcome and its code: %q", lastLine(res.stderr))
	}
	if after := treeHash(t, fixture); after != before {
		t.Errorf("fixture tree hash changed: %s -> %s", before, after)
	}
	for _, s := range []string{"not covered by any test", "timed out", "not run"} {
		if !strings.Contains(res.stderr, s) {
			t.Errorf("the one-line reason does not mention %q: %s", s, res.stderr)
		}
	}
	if !strings.Contains(res.stdout, "not run (1): no compiler (none of fixture-kernel-cc-never-installed on PATH): kernel-scale") {
		t.Errorf("stdout does not say plainly that the kernel mutant did not run:\n%s", res.stdout)
	}
	r, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	checkVerdicts(t, wants, outcomes)
	if len(outcomes) < 100 {
		t.Errorf("only %d mutants", len(outcomes))
	}
	checkCatalogEvidence(t, outcomes)
	checkModes(t, outcomes)
	g := r.Gathermut
	if r.SchemaVersion != "2" || r.Thresholds.High == 0 || g.TreeBefore != before || g.TreeAfter != before || g.Interrupted {
		t.Errorf("report header: schema %q thresholds %+v tree %s -> %s interrupted %v", r.SchemaVersion, r.Thresholds, g.TreeBefore, g.TreeAfter, g.Interrupted)
	}
	checkSchemaFields(t, r)
	checkReportText(t, reports)
}

// checkModes: a schema run of the fixture shows every mode: most mutants
// switched in the schema binary, mutants built on their own because they
// cannot be switched and because the schema build rejected them, and
// mutants decided without tests.
func checkModes(t *testing.T, outcomes map[string]mutant.Outcome) {
	t.Helper()
	modes := map[mutant.Mode]int{}
	notes := map[string]int{}
	for _, s := range outcomes {
		modes[s.Result.Mode]++
		switch note := s.Result.ModeNote; {
		case strings.HasPrefix(note, "the schema build rejected it"):
			notes["rejected"]++
		case strings.HasPrefix(note, "not switched"):
			notes["not switched"]++
		}
	}
	if modes[mutant.ModeSchema] < len(outcomes)/2 || modes[mutant.ModeOverlay] == 0 || modes[mutant.ModeStatic] == 0 || notes["rejected"] == 0 || notes["not switched"] == 0 {
		t.Errorf("modes of the schema run %v, notes %v: want most switched, and some of every other kind", modes, notes)
	}
}

// checkCatalogEvidence: every catalog entry of the fixture is there, with
// its verdict and evidence.
func checkCatalogEvidence(t *testing.T, outcomes map[string]mutant.Outcome) {
	t.Helper()
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
}

// checkSchemaFields: the schema fields viewers need are there for every
// mutant.
func checkSchemaFields(t *testing.T, r *report.Report) {
	t.Helper()
	schemaStatuses := map[string]bool{"Killed": true, "Survived": true, "NoCoverage": true, "CompileError": true, "RuntimeError": true, "Timeout": true, "Ignored": true, "Pending": true}
	for path, f := range r.Files {
		if f.Language == "" || f.Source == "" {
			t.Errorf("%s: language %q, source of %d bytes", path, f.Language, len(f.Source))
		}
		for _, m := range f.Mutants {
			if m.ID == "" || m.MutatorName == "" || m.Location.Start.Line < 1 || m.Location.Start.Column < 1 || !schemaStatuses[m.Status] {
				t.Errorf("%s: mutant %+v misses schema fields", path, m)
			}
			if m.Gathermut.Result.Status == mutant.NotRun && (m.Status != "Pending" || !strings.HasPrefix(m.StatusReason, "not run: ")) {
				t.Errorf("%s: not run maps to %s %q", m.ID, m.Status, m.StatusReason)
			}
			if m.Status == "Killed" && len(m.KilledBy) == 0 {
				t.Errorf("%s: killed by nobody", m.ID)
			}
			if m.Status == "Timeout" && (m.Gathermut.Result.ExitCode == 0 || m.Gathermut.Result.Signal == "") {
				t.Errorf("%s: a timeout records exit %d, signal %q", m.ID, m.Gathermut.Result.ExitCode, m.Gathermut.Result.Signal)
			}
		}
	}
}

// checkReportText: the raw JSON keys a viewer reads, and the markdown's
// sections.
func checkReportText(t *testing.T, reports string) {
	t.Helper()
	raw, _ := os.ReadFile(filepath.Join(reports, "mutation.json"))
	for _, key := range []string{`"schemaVersion":"2"`, `"mutatorName"`, `"location"`, `"killedBy"`, `"statusReason"`, `"projectRoot":"."`, `"framework"`, `"system"`, `"testFiles"`, `"performance"`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("JSON has no %s", key)
		}
	}
	md, _ := os.ReadFile(filepath.Join(reports, "mutation.md"))
	for _, s := range []string{"**Exit 1**: ", "| Score |", "per minute", "(unchanged after the run)", "Machine: ",
		"## To act on", "### Mutants not covered by any test (", "| Not covered |", "<details><summary>diff</summary>", "Rerun: `mutate run ", "## Scores by package", "## Scores by file",
		"## Catalog", "## Scores by operator", "**Timed out**", "**Not run**", "no compiler"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("Markdown has no %q", s)
		}
	}
}

// listIDs runs mutate list and returns the ids it prints.
func listIDs(t *testing.T, args ...string) []string {
	t.Helper()
	res := runTool(t, fixture, nil, append([]string{"list"}, args...)...)
	if res.code != 0 {
		t.Fatalf("list: exit %d: %s", res.code, res.stderr)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		id, _, _ := strings.Cut(line, "\t")
		ids = append(ids, id)
	}
	return ids
}

// shardArgs keep the shard runs small but varied: a timeout (spin's
// loop), kills, ignored mutants (strong's clamp) and survivors not
// covered (weak), a dozen mutants in all.
var shardArgs = []string{"./strong", "./spin", "./weak", "--operators", "boundary,incdec"}

// TestFixtureShardsAndStableIDs: list gives the same ids from the cache
// and from scratch; three shards judge every mutant of a selection once
// between them, each with its annotated verdict; merge rebuilds one
// report from them.
func TestFixtureShardsAndStableIDs(t *testing.T) {
	first := listIDs(t, "./...")
	second := listIDs(t, "./...", "--no-cache")
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Fatalf("ids differ between two runs of list")
	}
	full := listIDs(t, append([]string{"--only-catalog=false"}, shardArgs...)...)
	wants := readWants(t, fixture)
	before := treeHash(t, fixture)
	reports := t.TempDir()
	union := map[string]mutant.Outcome{}
	var paths []string
	for k := 0; k < 3; k++ {
		shard := fmt.Sprintf("%d/3", k)
		args := append([]string{"all", "--shard", shard, "--report-dir", reports}, append(fastFlags, shardArgs...)...)
		res := runTool(t, fixture, nil, args...)
		if res.code == exitcode.Usage || res.code == exitcode.Config || res.code == exitcode.Baseline {
			t.Fatalf("shard %s: exit %d\n%s", shard, res.code, res.stderr)
		}
		path := filepath.Join(reports, fmt.Sprintf("mutation-shard-%d-of-3.json", k))
		paths = append(paths, path)
		r, outcomes := readReport(t, path)
		if r.Gathermut.Shard != shard {
			t.Errorf("shard report says shard %q, want %q", r.Gathermut.Shard, shard)
		}
		for id, o := range outcomes {
			if _, dup := union[id]; dup {
				t.Errorf("%s is in two shards", id)
			}
			union[id] = o
		}
	}
	var got []string
	for id := range union {
		got = append(got, id)
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(full, "\n") {
		t.Errorf("union of the shards:\n%s\nfull list:\n%s", strings.Join(got, "\n"), strings.Join(full, "\n"))
	}
	for _, id := range full {
		if !slicesContains(first, id) {
			t.Errorf("%s of the selection is not in the full list", id)
		}
	}
	checkVerdicts(t, wants, union)
	if after := treeHash(t, fixture); after != before {
		t.Errorf("fixture tree hash changed: %s -> %s", before, after)
	}

	// merge rebuilds one report from the shards
	res := runTool(t, ".", nil, append([]string{"merge", "--report-dir", reports, "--name", "merged"}, paths...)...)
	if res.code != exitcode.Survivors {
		t.Fatalf("merge: exit %d, want %d\n%s%s", res.code, exitcode.Survivors, res.stdout, res.stderr)
	}
	if !regexp.MustCompile(`(?m)^merged: total worker time \d+\.\d s over 3 shards; longest shard \d+\.\d s \(mutation-shard-\d-of-3, shard \d/3\)$`).MatchString(res.stdout) {
		t.Errorf("merge does not report the worker time and the longest shard:\n%s", res.stdout)
	}
	_, merged := readReport(t, filepath.Join(reports, "merged.json"))
	if len(merged) != len(union) {
		t.Errorf("merged report has %d mutants, shards %d", len(merged), len(union))
	}
	for id, o := range union {
		if merged[id].Result.Status != o.Result.Status || merged[id].Mutant.Diff != o.Mutant.Diff {
			t.Errorf("%s: merged %s, shard %s", id, merged[id].Result.Status, o.Result.Status)
		}
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// interruptRun starts mutate with args in dir, sends SIGINT when signal
// says so (it sees every stderr line; nil: when the file ready exists),
// and returns the exit code and the output.
func interruptRun(t *testing.T, dir string, env []string, signal func(line string) bool, ready string, args ...string) runResult {
	t.Helper()
	cmd := osexec.Command(toolBinary(t), args...)
	cmd.Args[0] = "mutate"
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), pathWithTool(t)), env...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	var mu sync.Mutex
	sent := false
	send := func() {
		mu.Lock()
		defer mu.Unlock()
		if !sent {
			sent = true
			cmd.Process.Signal(os.Interrupt)
		}
	}
	done := make(chan struct{})
	defer close(done)
	if signal == nil {
		// the deadline only keeps a broken run from hanging the test
		go func() {
			for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				select {
				case <-done:
					return
				default:
				}
				if _, err := os.Stat(ready); err == nil {
					send()
					return
				}
			}
		}()
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		errOut.WriteString(line + "\n")
		if signal != nil && signal(line) {
			send()
		}
	}
	err = cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	code := exitcode.OK
	if ee, ok := err.(*osexec.ExitError); ok {
		code = exitcode.Code(ee.ExitCode())
	} else if err != nil {
		t.Fatal(err)
	}
	if !sent {
		t.Fatalf("the run ended before the interrupt was sent:\n%s", errOut.String())
	}
	return runResult{code, stdout.String(), errOut.String()}
}

// TestFixtureInterrupted: Ctrl-C while mutants run. The summary, the
// score and the rate cover the judged mutants and say how many of all
// were judged; the unjudged ones are a count, Pending in the JSON; the
// temp dir is left empty and no process survives.
func TestFixtureInterrupted(t *testing.T) {
	before := treeHash(t, fixture)
	reports := t.TempDir()
	tmp := t.TempDir()
	results := 0
	res := interruptRun(t, fixture, []string{"TMPDIR=" + tmp}, func(line string) bool {
		if strings.HasPrefix(line, "killed: ") || strings.HasPrefix(line, "survived: ") {
			results++
		}
		return results == 3
	}, "", "all", "./strong", "./spin", "-v", "--report-dir", reports, "-j", "1", "--timeout-floor", "2s")
	if res.code != exitcode.Interrupted {
		t.Fatalf("after SIGINT: exit %d, want %d\n%s%s", res.code, exitcode.Interrupted, res.stdout, res.stderr)
	}
	if after := treeHash(t, fixture); after != before {
		t.Errorf("fixture tree hash changed by the interrupted run: %s -> %s", before, after)
	}
	r, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	g := r.Gathermut
	s := g.Summary
	if !g.Interrupted || s.Judged < 3 || s.Interrupted == 0 || s.Judged+s.Interrupted != s.Total || s.Total != len(outcomes) {
		t.Errorf("partial report: interrupted %v, %d judged + %d interrupted of %d (%d outcomes)", g.Interrupted, s.Judged, s.Interrupted, s.Total, len(outcomes))
	}
	counted := 0
	for _, st := range mutant.Statuses {
		counted += s.Counts[st]
	}
	if counted != s.Judged {
		t.Errorf("counts %v add up to %d, not the %d judged", s.Counts, counted, s.Judged)
	}
	for id, o := range outcomes {
		if o.Result.Status == mutant.NotRun && strings.Contains(o.Result.Why, "interrupted") {
			t.Errorf("%s: an unjudged mutant counted as not run", id)
		}
	}
	for _, f := range r.Files {
		for _, m := range f.Mutants {
			if m.Gathermut.Result.Status == mutant.Interrupted && m.Status != "Pending" {
				t.Errorf("%s: unjudged, schema status %s", m.ID, m.Status)
			}
		}
	}
	if g.Timing.Mutants <= 0 || g.Timing.Mutants > g.WallSeconds {
		t.Errorf("time spent judging %.1f s of a %.1f s run", g.Timing.Mutants, g.WallSeconds)
	}
	lead := fmt.Sprintf("interrupted: %d of %d judged: ", s.Judged, s.Total)
	if !strings.HasPrefix(res.stdout, lead) {
		t.Errorf("stdout does not start with %q:\n%s", lead, res.stdout)
	}
	if want := fmt.Sprintf("%d not judged because of the interrupt", s.Interrupted); !strings.Contains(res.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
	}
	// The summary, the per-backend line, the interrupt count, one line per
	// kind of "not run" and the reports line: a handful, never one per
	// unjudged mutant.
	if strings.Count(res.stdout, "\n") > 6 || strings.Contains(res.stdout, "interrupted before it ran") {
		t.Errorf("the unjudged mutants are listed one by one:\n%s", res.stdout)
	}
	if want := fmt.Sprintf("exit 130: interrupted: %d of %d judged", s.Judged, s.Total); !strings.HasPrefix(lastLine(res.stderr), want) {
		t.Errorf("last line %q, want %q", lastLine(res.stderr), want)
	}
	md, _ := os.ReadFile(filepath.Join(reports, "mutation.md"))
	if want := fmt.Sprintf("**Interrupted: %d of %d mutants judged.**", s.Judged, s.Total); !bytes.Contains(md, []byte(want)) {
		t.Errorf("markdown lacks %q", want)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temp dir after the interrupt: %v", left)
	}
	for _, p := range processesUnder(t, tmp) {
		t.Errorf("process left running after the interrupt: %s", p)
	}
}

const slowPackage = `package slow

// Two is what the test checks.
func Two() int { return 2 } // want killed
`

// slowTest stops in the baseline until the run is interrupted: it
// writes a marker first, so the test knows the baseline has started.
const slowTest = `package slow

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSlow(t *testing.T) {
	if dir := os.Getenv("FIXTURE_SLOW_MARK"); dir != "" {
		os.WriteFile(filepath.Join(dir, "started"), nil, 0o644)
		time.Sleep(5 * time.Minute)
	}
	if Two() != 2 {
		t.Fatal("Two")
	}
}
`

// TestFixtureBaselineInterrupted: Ctrl-C during the baseline still
// writes the partial report, with no mutant judged, and leaves nothing
// in the temp dir.
func TestFixtureBaselineInterrupted(t *testing.T) {
	dir := copyFixture(t)
	if err := os.MkdirAll(filepath.Join(dir, "slow"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"slow.go": slowPackage, "slow_test.go": slowTest} {
		if err := os.WriteFile(filepath.Join(dir, "slow", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mark, tmp, reports := t.TempDir(), t.TempDir(), t.TempDir()
	started := filepath.Join(mark, "started")
	// the slow test writes started when the baseline runs it
	res := interruptRun(t, dir, []string{"TMPDIR=" + tmp, "FIXTURE_SLOW_MARK=" + mark}, nil, started, "all", "./slow", "--catalog=", "--report-dir", reports)
	if res.code != exitcode.Interrupted {
		t.Fatalf("exit %d, want %d\n%s%s", res.code, exitcode.Interrupted, res.stdout, res.stderr)
	}
	r, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	g := r.Gathermut
	if !g.Interrupted || !g.Baseline.Interrupted || g.Summary.Judged != 0 || g.Summary.Interrupted != len(outcomes) || len(outcomes) == 0 {
		t.Errorf("report after an interrupted baseline: interrupted %v, baseline %+v, summary %+v", g.Interrupted, g.Baseline, g.Summary)
	}
	if !strings.HasPrefix(lastLine(res.stderr), "exit 130: interrupted: 0 of ") {
		t.Errorf("last line %q", lastLine(res.stderr))
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temp dir after the interrupt: %v", left)
	}
	for _, p := range processesUnder(t, tmp) {
		t.Errorf("process left running after the interrupt: %s", p)
	}
}

// processesUnder lists the running processes whose command line names a
// path under dir (the test binaries a run builds in its temp dir), after
// giving exiting ones two seconds. Without /proc it finds none.
func processesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	for try := 0; try < 20; try++ {
		found = nil
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			cmdline, err := os.ReadFile(p)
			if err == nil && bytes.Contains(cmdline, []byte(dir)) {
				found = append(found, strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "))
			}
		}
		if len(found) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return found
}

// copyFixture copies the fixture into a temp dir for a variant run.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := copyTree(t, fixture)
	// the copy is outside this module: point its replace at it
	abs, _ := filepath.Abs("..")
	gomod := filepath.Join(dst, "go.mod")
	data, _ := os.ReadFile(gomod)
	data = bytes.ReplaceAll(data, []byte("=> ../../.."), []byte("=> "+abs))
	if err := os.WriteFile(gomod, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

const badCatalog = `package mutants

import "gathermut/mutate/catalog"

func Catalog() catalog.Catalog {
	return catalog.Catalog{Entries: []catalog.Entry{
		{ID: "empty-diff", Operator: catalog.ReplaceExpr, Killers: []string{"fixture/target.TestScale"},
			Target: catalog.Target{Package: "fixture/target", Func: "Scale", Match: "x * factor"}, Replacement: "x*factor"},
		{ID: "unexpected-killer", Operator: catalog.DeleteElement, Killers: []string{"fixture/target.TestVersion"},
			Target: catalog.Target{Package: "fixture/target", Func: "Limits", Match: ` + "`\"large\"`" + `}},
		{ID: "no-test-ran", Operator: catalog.ReplaceExpr, Killers: []string{"fixture/target.TestGhost"},
			Target: catalog.Target{Package: "fixture/target", Func: "Unused", Match: "x + 1"}, Replacement: "x + 2"},
		{ID: "missing-target", Operator: catalog.DeleteCall, Killers: []string{"fixture/target.TestScale"},
			Target: catalog.Target{Package: "fixture/target", Func: "NoSuchFunc", Match: "f"}},
		{ID: "ambiguous-target", Operator: catalog.DeleteCall, Killers: []string{"fixture/target.TestApplySquare"},
			Target: catalog.Target{Package: "fixture/target", Func: "init", Match: "register"}},
	}}
}
`

func TestFixtureCatalogErrors(t *testing.T) {
	dir := copyFixture(t)
	if err := os.WriteFile(filepath.Join(dir, "mutants", "mutants.go"), []byte(badCatalog), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := t.TempDir()
	res := runTool(t, dir, nil, append([]string{"all", "--only-catalog", "--report-dir", reports}, fastFlags...)...)
	if res.code != exitcode.Catalog {
		t.Fatalf("exit %d, want %d\n%s%s", res.code, exitcode.Catalog, res.stdout, res.stderr)
	}
	_, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	for id, want := range map[string]struct {
		status mutant.Status
		why    string
	}{
		"empty-diff":        {mutant.Error, "empty diff"},
		"unexpected-killer": {mutant.Killed, "killed by an unexpected test: fixture/target.TestLimits"},
		"no-test-ran":       {mutant.Error, "no expected killer ran"},
		"missing-target":    {mutant.Error, "no function, method, var or const NoSuchFunc"},
		"ambiguous-target":  {mutant.Error, "is ambiguous"},
	} {
		o := outcomes[id]
		if o.Result.Status != want.status || !strings.Contains(o.Result.Why, want.why) {
			t.Errorf("%s: %s %q, want %s %q", id, o.Result.Status, o.Result.Why, want.status, want.why)
		}
	}
	if o := outcomes["unexpected-killer"]; o.Result.ExpectedKiller {
		t.Errorf("unexpected-killer counted as killed by its expected test")
	}
}

func TestFixtureSuppressionWithoutReason(t *testing.T) {
	dir := copyFixture(t)
	bad := "package weak\n\nfunc Triple(x int) int {\n\t//gathermut:equivalent\n\treturn 3 * x\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "weak", "bad.go"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, dir, nil, "list", "./weak")
	if res.code != exitcode.Config || !strings.Contains(res.stderr, "weak/bad.go:4: //gathermut:equivalent needs a reason") {
		t.Errorf("exit %d, stderr %q; want %d and the file:line", res.code, res.stderr, exitcode.Config)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"frobnicate"}, {"all", "--shard", "3/3"}, {"all", "-j", "0"}, {"run"}, {"merge"}} {
		if res := runMutate(t, fixture, nil, args...); res.code != exitcode.Usage {
			t.Errorf("mutate %v: exit %d, want %d (%s)", args, res.code, exitcode.Usage, res.stderr)
		}
	}
}

const kernelCatalog = `package mutants

import "gathermut/mutate/catalog"

func Catalog() catalog.Catalog {
	return catalog.Catalog{
		Entries: []catalog.Entry{
			{ID: "kernel-factor", Operator: catalog.KernelText, Killers: []string{"fixture/target.TestKernel"},
				Target: catalog.Target{File: "target/kernel/scale.kern", Match: "* 2"}, Replacement: "* 3"},
			{ID: "kernel-broken", Operator: catalog.KernelText, Killers: []string{"fixture/target.TestKernel"},
				Target: catalog.Target{File: "target/kernel/scale.kern", Match: "y = "}, Replacement: "z = "},
		},
		Kernel: &catalog.Kernel{
			Sources: []string{"target/kernel/*.kern"},
			Build:   []string{"sh", "-c", "grep -q '^y' {src}/target/kernel/scale.kern && cp {src}/target/kernel/scale.kern {out}"},
			LibEnv:  "FIXTURE_KERNEL_LIB",
			Package: "fixture/target",
			Tools:   []string{"sh"},
		},
	}
}
`

// With a "compiler" on PATH the kernel path runs for real: the sources are
// copied with the rewrite, built, and the named test reads the library.
func TestFixtureKernelBuilt(t *testing.T) {
	dir := copyFixture(t)
	if err := os.WriteFile(filepath.Join(dir, "mutants", "mutants.go"), []byte(kernelCatalog), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	reports := t.TempDir()
	res := runTool(t, dir, nil, append([]string{"all", "--only-catalog", "--report-dir", reports}, fastFlags...)...)
	if res.code != exitcode.Catalog {
		t.Fatalf("exit %d, want %d (the broken build is a catalog failure)\n%s%s", res.code, exitcode.Catalog, res.stdout, res.stderr)
	}
	_, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	if o := outcomes["kernel-factor"]; o.Result.Status != mutant.Killed || !o.Result.ExpectedKiller || !strings.Contains(o.Result.Excerpt, `kernel = "y = x * 3\n"`) {
		t.Errorf("kernel-factor: %+v", o.Result)
	}
	if o := outcomes["kernel-broken"]; o.Result.Status != mutant.Unviable || !strings.Contains(o.Result.Why, "kernel build failed") {
		t.Errorf("kernel-broken: %+v", o.Result)
	}
	if after := treeHash(t, dir); after != before {
		t.Errorf("the kernel run changed the tree")
	}
}

// TestFixtureDirRunDiff drives the tool from outside the fixture module
// with --dir: run with a glob judges exactly the matching mutants, diff
// prints them, and without package patterns the fixture's project file
// gives the defaults.
func TestFixtureDirRunDiff(t *testing.T) {
	wants := readWants(t, fixture)
	const glob = "boundary:strong/*"
	var ids []string
	for _, id := range listIDs(t, "./strong", "--operators", "boundary") {
		if strings.HasPrefix(id, "boundary:strong/") {
			ids = append(ids, id)
		}
	}
	if len(ids) < 2 {
		t.Fatalf("only %d boundary mutants in strong", len(ids))
	}
	// the reports of a whole run are there: run, diff and list must
	// leave them alone
	reports := t.TempDir()
	whole := map[string]string{"mutation.json": "{}", "mutation.md": "# the last all"}
	for name, text := range whole {
		if err := os.WriteFile(filepath.Join(reports, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runTool(t, ".", nil, append([]string{"run", glob, "./strong", "--dir", fixture, "--report-dir", reports}, fastFlags...)...)
	if res.code != exitcode.OK {
		t.Fatalf("run %s: exit %d\n%s%s", glob, res.code, res.stdout, res.stderr)
	}
	if !strings.HasPrefix(lastLine(res.stderr), "exit 0: ok: ") {
		t.Errorf("run's last line: %q", lastLine(res.stderr))
	}
	_, outcomes := readReport(t, filepath.Join(reports, "run.json"))
	if len(outcomes) != len(ids) {
		t.Errorf("run judged %d mutants, the glob matches %d", len(outcomes), len(ids))
	}
	for _, id := range ids {
		if _, ok := outcomes[id]; !ok {
			t.Errorf("%s matches %s but was not run", id, glob)
		}
	}
	checkVerdicts(t, wants, outcomes)

	res = runTool(t, ".", nil, "diff", ids[0], "./strong", "--dir", fixture, "--report-dir", reports)
	if res.code != 0 || !strings.HasPrefix(res.stdout, "# "+ids[0]+"\n") || !strings.Contains(res.stdout, "--- a/strong/strong.go") || strings.Count(res.stdout, "\n# ") != 0 {
		t.Errorf("diff %s: exit %d\n%s%s", ids[0], res.code, res.stdout, res.stderr)
	}
	if lastLine(res.stderr) != "exit 0: 1 diff printed" {
		t.Errorf("diff's last line: %q", lastLine(res.stderr))
	}
	listIDs(t, "./strong", "--report-dir", reports)
	for name, text := range whole {
		if data, _ := os.ReadFile(filepath.Join(reports, name)); string(data) != text {
			t.Errorf("run, diff or list overwrote %s", name)
		}
	}
	if entries, _ := os.ReadDir(reports); len(entries) != 6 {
		t.Errorf("report dir after run, diff and list: %v (want the two of all and run.json, run.evidence.json, run.md, run.html)", entries)
	}

	// without package patterns the fixture's .gathermut.json decides: all
	// its packages (it names none) and its catalog; the first line says so
	res = runTool(t, ".", nil, "list", "--dir", fixture)
	first, _, _ := strings.Cut(res.stderr, "\n")
	if res.code != exitcode.OK || first != "mutate: module fixture: packages ./...; catalog ./mutants (settings of this module's .gathermut.json)" {
		t.Errorf("list with the fixture's defaults: exit %d, %s", res.code, res.stderr)
	}
	if !strings.HasPrefix(lastLine(res.stderr), "exit 0: ") {
		t.Errorf("list's last line: %q", lastLine(res.stderr))
	}
	if !strings.Contains(res.stdout, "square-unregistered\t") || !strings.Contains(res.stdout, "spin/spin.go") {
		t.Errorf("list with the fixture's defaults lacks the catalog or a package:\n%s", res.stdout)
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

// TestFixtureIncremental: --incremental reruns only what a change can
// affect, and its verdicts equal a run from scratch. A one-line change to
// one function reruns the mutants of that function alone; a new test
// reruns the mutants it can reach; the rest are reused and marked so.
func TestFixtureIncremental(t *testing.T) {
	dir := copyFixture(t)
	cache := filepath.Join(t.TempDir(), "incremental.json.gz")
	run := func(name string, incremental bool) (*report.Report, map[string]mutant.Outcome) {
		t.Helper()
		reports := t.TempDir()
		args := append([]string{"all", "./strong", "./weak", "--catalog=", "--report-dir", reports, "--name", name}, fastFlags...)
		if incremental {
			args = append(args, "--incremental="+cache)
		}
		res := runTool(t, dir, nil, args...)
		if res.code != exitcode.Survivors && res.code != exitcode.OK {
			t.Fatalf("%s: exit %d\n%s%s", name, res.code, res.stdout, res.stderr)
		}
		return readReport(t, filepath.Join(reports, name+".json"))
	}

	_, first := run("first", true)
	if len(executed(first)) < 30 {
		t.Fatalf("the first run tested only %d mutants", len(executed(first)))
	}
	r, again := run("again", true)
	checkUnchanged(t, r, again, first)

	// comments and formatting judge nothing again
	strongGo := filepath.Join(dir, "strong", "strong.go")
	commentStrong(t, strongGo)
	r, commented := run("commented", true)
	if n := len(executed(commented)); n != 0 || r.Gathermut.Summary.Reused < len(executed(first)) {
		t.Errorf("after comments and formatting: %d mutants tested, %d reused; want 0 tested", n, r.Gathermut.Summary.Reused)
	}
	// the ids moved with the lines: the verdicts are compared in file order
	if got, want := inFileOrder(commented), inFileOrder(first); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after comments the verdicts differ:\n%s\nfrom the first run's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// a one-line change to one function: only its own mutants run
	edit(t, strongGo, "return f * 0.5 // want killed", "return f / 2 // want killed")
	r, changed := run("changed", true)
	checkOnlyHalveRan(t, changed)
	_, scratch := run("scratch-1", false)
	sameVerdicts(t, "after the change", changed, scratch)
	if r.Gathermut.Incremental == nil || r.Gathermut.Incremental.Reused != r.Gathermut.Summary.Reused || strings.Contains(r.Gathermut.Incremental.Cache, dir) {
		t.Errorf("incremental record %+v", r.Gathermut.Incremental)
	}

	// a same-behaviour rewrite of a function other tests run too (Mean
	// calls Sum): its mutants are judged again, and of the others those
	// whose tests ran it; the verdicts equal a run from scratch
	edit(t, strongGo, "\ttotal := 0 // want killed\n\tfor _, x := range xs {", "\ttotal := 0 // want killed\n\tfor i := range xs {\n\t\tx := xs[i]")
	_, rewritten := run("rewritten", true)
	checkSumRewrite(t, rewritten)
	_, scratch = run("scratch-sum", false)
	sameVerdicts(t, "after the rewrite of Sum", rewritten, scratch)

	// the reviewer's loop: a test for the weak package's survivors
	test := "package weak\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(3) != 6 || Double(9) != 9 {\n\t\tt.Error(\"Double\")\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "weak", "weak_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	_, looped := run("looped", true)
	killedNow := 0
	for id, o := range looped {
		weak := strings.HasPrefix(o.Mutant.File, "weak/")
		if outcome.Tested(o) != (weak && o.Mutant.State != mutant.Unbuildable && o.Mutant.State != mutant.Equivalent) {
			t.Errorf("after a new test in weak: %s tested %v", id, outcome.Tested(o))
		}
		if weak && o.Result.Status == mutant.Killed {
			killedNow++
		}
	}
	if killedNow == 0 {
		t.Errorf("the new test killed nothing in weak")
	}
	_, scratch = run("scratch-2", false)
	sameVerdicts(t, "after the new test", looped, scratch)
}

// checkUnchanged: on an unchanged tree every verdict is reused, the
// same as the first run's, and marked so in its statusReason.
func checkUnchanged(t *testing.T, r *report.Report, again, first map[string]mutant.Outcome) {
	t.Helper()
	if n := len(executed(again)); n != 0 || r.Gathermut.Summary.Reused == 0 {
		t.Errorf("an unchanged tree: %d mutants tested, %d reused; want 0 tested", n, r.Gathermut.Summary.Reused)
	}
	sameVerdicts(t, "unchanged", again, first)
	for _, f := range r.Files {
		for _, m := range f.Mutants {
			if m.Gathermut.Result.Reused && !strings.HasSuffix(m.StatusReason, "(reused from the incremental cache)") {
				t.Errorf("%s: a reused verdict not marked in statusReason: %q", m.ID, m.StatusReason)
			}
		}
	}
}

// commentStrong adds comments to strong.go and reformats a line: a
// comment line above a function, one inside it, a block comment beside
// an expression, blanks removed around an operator.
func commentStrong(t *testing.T, strongGo string) {
	t.Helper()
	edit(t, strongGo, "// Mean is the integer mean of the values.", "// Mean is the integer mean of the values.\n//\n// (It rounds toward zero.)\n")
	edit(t, strongGo, "\treturn Sum(xs) / len(xs), nil", "\t// the sum, divided\n\treturn Sum(xs)/len(xs), nil")
	edit(t, strongGo, "\treturn v ^ m // want killed", "\treturn v^m /* flips */ // want killed")
}

// inFileOrder lists a run's verdicts in file order, without their ids
// and positions (a comment line moves them).
func inFileOrder(outcomes map[string]mutant.Outcome) []string {
	var out []string
	for _, o := range outcomes {
		m := o.Mutant
		out = append(out, fmt.Sprintf("%s:%06d:%06d %s %s %s %v", m.File, m.Pos.Line, m.Pos.Column, m.Func, m.Operator, o.Result.Status, o.Result.KilledBy))
	}
	sort.Strings(out)
	for i := range out {
		_, out[i], _ = strings.Cut(out[i], " ") // the position only sorts
	}
	return out
}

// checkSumRewrite: after a change to Sum, none of its mutants (but those
// decided without tests) is reused; of the others, only those whose
// tests ran Sum (TestSum, TestMean) are judged again, and some are; and
// a mutant of Mean that never calls Sum (it returns before the call, or
// replaces the call's line) keeps its verdict although Mean calls Sum:
// the key follows what ran, not what could.
func checkSumRewrite(t *testing.T, rewritten map[string]mutant.Outcome) {
	t.Helper()
	runsSum := map[string]bool{"fixture/strong.TestSum": true, "fixture/strong.TestMean": true}
	tested, others, meanReused := 0, 0, 0
	for id, o := range rewritten {
		own := o.Mutant.File == "strong/strong.go" && o.Mutant.Func == "Sum"
		if o.Mutant.Func == "Mean" && o.Result.Reused {
			meanReused++
		}
		ranSum := false
		for _, k := range append(append([]string(nil), o.Result.KilledBy...), o.Result.CoveredBy...) {
			ranSum = ranSum || runsSum[k]
		}
		if own && o.Mutant.Runs() && o.Result.Reused {
			t.Errorf("after a change to Sum: %s (%s) reused", id, o.Mutant.Func)
		}
		if !outcome.Tested(o) {
			continue
		}
		tested++
		if !own && !ranSum {
			t.Errorf("after a change to Sum: %s (%s) judged again, but none of its tests runs Sum", id, o.Mutant.Func)
		}
		if !own {
			others++
		}
	}
	if tested < 4 || others == 0 || others == tested || meanReused == 0 {
		t.Errorf("after a change to Sum: %d mutants judged again, %d outside Sum; %d of Mean reused", tested, others, meanReused)
	}
}

// executed lists the mutants a run built or tested, not reused.
func executed(outcomes map[string]mutant.Outcome) map[string]bool {
	out := map[string]bool{}
	for id, o := range outcomes {
		if outcome.Tested(o) {
			out[id] = true
		}
	}
	return out
}

// sameVerdicts: an incremental run's verdicts and killers are a run from
// scratch's.
func sameVerdicts(t *testing.T, what string, got, want map[string]mutant.Outcome) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d mutants, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		g := got[id]
		if g.Result.Status != w.Result.Status || strings.Join(g.Result.KilledBy, ",") != strings.Join(w.Result.KilledBy, ",") {
			t.Errorf("%s: %s: %s by %v, from scratch %s by %v", what, id, g.Result.Status, g.Result.KilledBy, w.Result.Status, w.Result.KilledBy)
		}
	}
}

// checkOnlyHalveRan: after a change to Halve, only its mutants were
// tested, and every other verdict (but those decided without tests) was
// reused.
func checkOnlyHalveRan(t *testing.T, changed map[string]mutant.Outcome) {
	t.Helper()
	halve := 0
	for id, o := range changed {
		inHalve := o.Mutant.File == "strong/strong.go" && o.Mutant.Func == "Halve"
		if inHalve {
			halve++
		}
		if outcome.Tested(o) != inHalve {
			t.Errorf("after a change to Halve: %s (%s) tested %v", id, o.Mutant.Func, outcome.Tested(o))
		}
		if o.Result.Reused == (inHalve || o.Mutant.State == mutant.Unbuildable || o.Mutant.State == mutant.Equivalent) {
			t.Errorf("after a change to Halve: %s reused %v", id, o.Result.Reused)
		}
	}
	if halve < 2 {
		t.Errorf("only %d mutants in Halve", halve)
	}
}

func edit(t *testing.T, path, old, repl string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(repl), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFixtureRunFromCaches: after a list, run takes its discovery from the
// cache; a second run of the same mutants (strong's boundary mutants: a
// few are enough) on the same tree also takes the baseline from it, and
// judges them alike. Without --timeout-floor, the first run's floor comes
// from the machine: five times the test binaries' start-up, at least
// 0.2 s.
func TestFixtureRunFromCaches(t *testing.T) {
	cache := []string{"GATHERMUT_CACHE=" + t.TempDir()}
	reports := t.TempDir()
	if res := runTool(t, fixture, cache, "list", "./strong"); res.code != 0 || strings.Contains(res.stderr, "from the discovery cache") {
		t.Fatalf("list: exit %d\n%s", res.code, res.stderr)
	}
	var runs []map[string]mutant.Outcome
	for i := 0; i < 2; i++ {
		name := fmt.Sprintf("run%d", i)
		res := runTool(t, fixture, cache, "run", "boundary:strong/strong.go:*", "./strong", "--report-dir", reports, "--name", name, "-j", "2")
		if res.code != exitcode.OK {
			t.Fatalf("run %d: exit %d\n%s%s", i, res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stderr, "from the discovery cache") || strings.Contains(res.stderr, "from the baseline cache") != (i == 1) {
			t.Errorf("run %d: the caches were not used as they should:\n%s", i, res.stderr)
		}
		r, outcomes := readReport(t, filepath.Join(reports, name+".json"))
		if tm := r.Gathermut.Timing; i == 0 && (!strings.Contains(res.stderr, "mutate: timeout floor ") || tm.Startup <= 0 || math.Abs(tm.TimeoutFloor-max(5*tm.Startup, 0.2)) > 1e-6) {
			t.Errorf("floor %v s from a start-up of %v s\n%s", tm.TimeoutFloor, tm.Startup, res.stderr)
		}
		runs = append(runs, outcomes)
	}
	if len(runs[0]) < 2 || len(runs[0]) != len(runs[1]) {
		t.Fatalf("%d and %d mutants", len(runs[0]), len(runs[1]))
	}
	for id, o := range runs[0] {
		if runs[1][id].Result.Status != o.Result.Status {
			t.Errorf("%s: %s, then %s from the caches", id, o.Result.Status, runs[1][id].Result.Status)
		}
	}
}

// TestFixtureDiscoveryAfterComments: after a change to comments and
// formatting, or inside a function body, the discovery keeps the cached
// mutants of the packages none of whose files changed and makes again
// only the changed package's (and those of mutants whose schema data
// can point into it: a constant's uses); the mutants listed equal a
// discovery from scratch of the changed tree. A new declaration is a
// whole discovery.
func TestFixtureDiscoveryAfterComments(t *testing.T) {
	dir := copyFixture(t)
	cache := []string{"GATHERMUT_CACHE=" + t.TempDir()}
	if res := runTool(t, dir, cache, "list"); res.code != exitcode.OK {
		t.Fatalf("list: exit %d\n%s", res.code, res.stderr)
	}
	strongGo := filepath.Join(dir, "strong", "strong.go")
	for _, c := range []struct {
		name, old, repl string
		reuse           bool
	}{
		{"comments", "// Sign is -1, 0 or 1.", "// Sign is -1, 0 or 1:\n// the sign of x.", true},
		{"formatting", "\treturn v ^ m // want killed", "\treturn v^m /* flips */ // want killed", true},
		{"a function body", "return f * 0.5 // want killed", "return f / 2 // want killed", true},
		{"a new declaration", "// Halve halves a float.", "// Third is a third of f.\nfunc Third(f float64) float64 { return f / 3 }\n\n// Halve halves a float.", false},
	} {
		edit(t, strongGo, c.old, c.repl)
		res := runTool(t, dir, cache, "list")
		reused := strings.Contains(res.stderr, "kept from the discovery of a tree of the same shape")
		if res.code != exitcode.OK || reused != c.reuse {
			t.Fatalf("list after %s: exit %d, reused %v\n%s", c.name, res.code, reused, res.stderr)
		}
		scratch := runTool(t, dir, cache, "list", "--no-cache")
		if scratch.code != exitcode.OK || strings.Contains(scratch.stderr, "made again") {
			t.Fatalf("list --no-cache: exit %d\n%s", scratch.code, scratch.stderr)
		}
		if res.stdout != scratch.stdout || !strings.Contains(res.stdout, "strong/strong.go:") {
			t.Errorf("the mutants after %s differ from a discovery from scratch:\n%s\nvs\n%s", c.name, res.stdout, scratch.stdout)
		}
	}
}
