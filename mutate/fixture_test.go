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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/tree"
)

// The fixture tests build the real command once and run it on the fixture
// module in testdata/fixture, whose every mutant has its expected verdict
// written next to its line: "// want <verdict> [operator=<verdict> ...]".

var (
	mutateBin string
	// schemaReport is the report of TestFixtureFullRun (a schema run of
	// the whole fixture), kept for TestFixtureParity.
	schemaReport string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mutate-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mutateBin = filepath.Join(dir, "mutate")
	// the runs' discovery and baseline caches stay inside the test
	os.Setenv("GATHERMUT_CACHE", filepath.Join(dir, "cache"))
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
	code   exitcode.Code
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
	code := exitcode.OK
	if ee, ok := err.(*osexec.ExitError); ok {
		code = exitcode.Code(ee.ExitCode())
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
	tree, err := tree.HashTree(dir, []string{"target/kernel/scale.kern"})
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
	tmp := t.TempDir()
	res := runMutate(t, fixture, []string{"TMPDIR=" + tmp}, append([]string{"all", "./...", "--report-dir", reports}, fastFlags...)...)
	if res.code != exitcode.Survivors {
		t.Fatalf("exit %d, want %d (survivors)\nstdout:\n%s\nstderr:\n%s", res.code, exitcode.Survivors, res.stdout, res.stderr)
	}
	// the spin mutants hang: their test processes must have been killed
	for _, p := range processesUnder(t, tmp) {
		t.Errorf("process left running after the run: %s", p)
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
	if data, err := os.ReadFile(filepath.Join(reports, "mutation.json")); err == nil {
		kept := filepath.Join(filepath.Dir(mutateBin), "schema-run.json")
		if os.WriteFile(kept, data, 0o644) == nil {
			schemaReport = kept
		}
	}
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

// TestFixtureParity runs the fixture with schemata and without them
// (--no-schemata: one build per mutant) and requires the same verdict for
// every mutant, each the one annotated in the source. The schema run must
// show every mode: mutants switched in the schema binary, mutants built on
// their own because they cannot be switched and because the schema build
// rejected them, and mutants decided without tests.
func TestFixtureParity(t *testing.T) {
	wants := readWants(t, fixture)
	reports := t.TempDir()
	var wg sync.WaitGroup
	results := map[string]runResult{}
	var mu sync.Mutex
	runs := map[string][]string{"overlay": {"--no-schemata"}}
	schemaJSON := schemaReport // TestFixtureFullRun's, when it ran
	if schemaJSON == "" {
		runs["schema"] = nil
		schemaJSON = filepath.Join(reports, "schema.json")
	}
	for name, extra := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"all", "./...", "--report-dir", reports, "--name", name}, append(fastFlags, extra...)...)
			res := runMutate(t, fixture, nil, args...)
			mu.Lock()
			results[name] = res
			mu.Unlock()
		}()
	}
	wg.Wait()
	for name, res := range results {
		if res.code != exitcode.Survivors {
			t.Fatalf("%s run: exit %d, want %d\n%s%s", name, res.code, exitcode.Survivors, res.stdout, res.stderr)
		}
	}
	_, schemaRun := readReport(t, schemaJSON)
	_, overlayRun := readReport(t, filepath.Join(reports, "overlay.json"))
	checkVerdicts(t, wants, schemaRun)
	checkVerdicts(t, wants, overlayRun)
	if len(schemaRun) != len(overlayRun) {
		t.Errorf("%d mutants with schemata, %d without", len(schemaRun), len(overlayRun))
	}
	modes := map[mutant.Mode]int{}
	notes := map[string]int{}
	for id, s := range schemaRun {
		o, ok := overlayRun[id]
		if !ok {
			t.Errorf("%s: only in the schema run", id)
			continue
		}
		if s.Result.Status != o.Result.Status || s.Result.ExpectedKiller != o.Result.ExpectedKiller {
			t.Errorf("%s: %s (expected killer %v) with schemata, %s (%v) without", id, s.Result.Status, s.Result.ExpectedKiller, o.Result.Status, o.Result.ExpectedKiller)
		}
		if o.Result.Mode != mutant.ModeOverlay && o.Result.Mode != mutant.ModeStatic && o.Result.Mode != mutant.ModeKernel {
			t.Errorf("%s: mode %q without schemata", id, o.Result.Mode)
		}
		modes[s.Result.Mode]++
		switch note := s.Result.ModeNote; {
		case strings.HasPrefix(note, "the schema build rejected it"):
			notes["rejected"]++
		case strings.HasPrefix(note, "not switched"):
			notes["not switched"]++
		}
	}
	if modes[mutant.ModeSchema] < len(schemaRun)/2 || modes[mutant.ModeOverlay] == 0 || modes[mutant.ModeStatic] == 0 || notes["rejected"] == 0 || notes["not switched"] == 0 {
		t.Errorf("modes of the schema run %v, notes %v: want most switched, and some of every other kind", modes, notes)
	}
}

// listIDs runs mutate list and returns the ids it prints.
func listIDs(t *testing.T, args ...string) []string {
	t.Helper()
	res := runMutate(t, fixture, nil, append([]string{"list"}, args...)...)
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

// shardOperators keep the shard runs small but varied: a timeout, kills,
// an ignored mutant and survivors not covered.
var shardOperators = []string{"--operators", "boundary,incdec,logical,loop-control,shift,const-float,unary-not"}

func TestFixtureShardsAndStableIDs(t *testing.T) {
	first := listIDs(t, "./...")
	second := listIDs(t, "./...")
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Fatalf("ids differ between two runs of list")
	}
	full := listIDs(t, append([]string{"./...", "--only-catalog=false"}, shardOperators...)...)
	wants := readWants(t, fixture)
	before := treeHash(t, fixture)
	reports := t.TempDir()
	union := map[string]mutant.Outcome{}
	var paths []string
	for k := 0; k < 3; k++ {
		shard := fmt.Sprintf("%d/3", k)
		args := append([]string{"all", "./...", "--shard", shard, "--report-dir", reports}, append(fastFlags, shardOperators...)...)
		res := runMutate(t, fixture, nil, args...)
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
			t.Errorf("%s of the operator subset is not in the full list", id)
		}
	}
	checkVerdicts(t, wants, union)
	if after := treeHash(t, fixture); after != before {
		t.Errorf("fixture tree hash changed: %s -> %s", before, after)
	}

	// merge rebuilds one report from the shards
	res := runMutate(t, ".", nil, append([]string{"merge", "--report-dir", reports, "--name", "merged"}, paths...)...)
	if res.code != exitcode.Survivors {
		t.Fatalf("merge: exit %d, want %d\n%s%s", res.code, exitcode.Survivors, res.stdout, res.stderr)
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

func TestFixtureInterrupted(t *testing.T) {
	before := treeHash(t, fixture)
	reports := t.TempDir()
	tmp := t.TempDir()
	cmd := osexec.Command(mutateBin, append([]string{"all", "./strong", "./spin", "-v", "--report-dir", reports}, fastFlags...)...)
	cmd.Dir = fixture
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	results := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "killed: ") || strings.HasPrefix(line, "survived: ") {
			results++
			if results == 3 {
				if err := cmd.Process.Signal(os.Interrupt); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	err = cmd.Wait()
	ee, ok := err.(*osexec.ExitError)
	if !ok || exitcode.Code(ee.ExitCode()) != exitcode.Interrupted {
		t.Fatalf("after SIGINT: %v, want exit %d", err, exitcode.Interrupted)
	}
	if after := treeHash(t, fixture); after != before {
		t.Errorf("fixture tree hash changed by the interrupted run: %s -> %s", before, after)
	}
	r, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	if !r.Gathermut.Interrupted {
		t.Errorf("partial report not marked interrupted")
	}
	notRun := 0
	for _, o := range outcomes {
		if o.Result.Status == mutant.NotRun && strings.HasPrefix(o.Result.Why, "interrupted") {
			notRun++
		}
	}
	if notRun == 0 {
		t.Errorf("no mutant reported as not run because of the interrupt")
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		if !strings.HasPrefix(e.Name(), "go-build") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
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
	dst := t.TempDir()
	err := filepath.WalkDir(fixture, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixture, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
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

func TestFixtureOnlyCatalogExitsZero(t *testing.T) {
	reports := t.TempDir()
	res := runMutate(t, fixture, nil, append([]string{"all", "--only-catalog", "--report-dir", reports}, fastFlags...)...)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "not run: kernel-scale: no compiler") || !strings.Contains(res.stdout, "1 not run") {
		t.Errorf("stdout does not say what did not run:\n%s", res.stdout)
	}
	_, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	if len(outcomes) != 7 {
		t.Errorf("%d mutants, want the 7 catalog entries", len(outcomes))
	}
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
	res := runMutate(t, dir, nil, append([]string{"all", "--only-catalog", "--report-dir", reports}, fastFlags...)...)
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
	res := runMutate(t, dir, nil, "list", "./weak")
	if res.code != exitcode.Config || !strings.Contains(res.stderr, "weak/bad.go:4: //gathermut:equivalent needs a reason") {
		t.Errorf("exit %d, stderr %q; want %d and the file:line", res.code, res.stderr, exitcode.Config)
	}
}

func TestFixtureBaselineRed(t *testing.T) {
	dir := copyFixture(t)
	failing := "package spin\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { t.Fatal(\"broken on purpose\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "spin", "broken_test.go"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runMutate(t, dir, nil, append([]string{"all", "./spin", "--report-dir", t.TempDir()}, fastFlags...)...)
	if res.code != exitcode.Baseline || !strings.Contains(res.stderr, "fixture/spin.TestBroken") || !strings.Contains(res.stderr, "broken on purpose") {
		t.Errorf("exit %d, stderr:\n%s\nwant %d naming the failing test", res.code, res.stderr, exitcode.Baseline)
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
	res := runMutate(t, dir, nil, append([]string{"all", "--only-catalog", "--report-dir", reports}, fastFlags...)...)
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
// prints them, and without package patterns the row's defaults are asked
// for, which this module does not have.
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
	reports := t.TempDir()
	res := runMutate(t, ".", nil, append([]string{"run", glob, "./strong", "--dir", fixture, "--report-dir", reports, "--name", "run"}, fastFlags...)...)
	if res.code != exitcode.OK {
		t.Fatalf("run %s: exit %d\n%s%s", glob, res.code, res.stdout, res.stderr)
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

	res = runMutate(t, ".", nil, "diff", ids[0], "./strong", "--dir", fixture)
	if res.code != 0 || !strings.HasPrefix(res.stdout, "# "+ids[0]+"\n") || !strings.Contains(res.stdout, "--- a/strong/strong.go") || strings.Count(res.stdout, "\n# ") != 0 {
		t.Errorf("diff %s: exit %d\n%s%s", ids[0], res.code, res.stdout, res.stderr)
	}

	res = runMutate(t, ".", nil, "list", "--dir", fixture)
	if res.code != exitcode.Config || !strings.Contains(res.stderr, "pattern ./gguf/...: lstat ./gguf/: no such file or directory") {
		t.Errorf("list with the default patterns in the fixture: exit %d, %s", res.code, res.stderr)
	}
}

// TestFixtureRunFromCaches: after a list, run takes its discovery from the
// cache; a second run of the same mutants on the same tree also takes the
// baseline from it, and judges them alike.
func TestFixtureRunFromCaches(t *testing.T) {
	cache := []string{"GATHERMUT_CACHE=" + t.TempDir()}
	reports := t.TempDir()
	if res := runMutate(t, fixture, cache, "list", "./strong"); res.code != 0 || strings.Contains(res.stderr, "from the discovery cache") {
		t.Fatalf("list: exit %d\n%s", res.code, res.stderr)
	}
	var runs []map[string]mutant.Outcome
	for i := 0; i < 2; i++ {
		name := fmt.Sprintf("run%d", i)
		res := runMutate(t, fixture, cache, append([]string{"run", "*:strong/strong.go:*", "./strong", "--report-dir", reports, "--name", name}, fastFlags...)...)
		if res.code != exitcode.OK {
			t.Fatalf("run %d: exit %d\n%s%s", i, res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stderr, "from the discovery cache") || strings.Contains(res.stderr, "from the baseline cache") != (i == 1) {
			t.Errorf("run %d: the caches were not used as they should:\n%s", i, res.stderr)
		}
		_, outcomes := readReport(t, filepath.Join(reports, name+".json"))
		runs = append(runs, outcomes)
	}
	if len(runs[0]) < 20 || len(runs[0]) != len(runs[1]) {
		t.Fatalf("%d and %d mutants", len(runs[0]), len(runs[1]))
	}
	for id, o := range runs[0] {
		if runs[1][id].Result.Status != o.Result.Status {
			t.Errorf("%s: %s, then %s from the caches", id, o.Result.Status, runs[1][id].Result.Status)
		}
	}
}
