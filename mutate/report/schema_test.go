package report_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/report/schematest"
)

// The machine paths a run knows; none may reach a report.
var paths = report.Paths{
	Root:     "/home/dev/src/gathermut",
	Temp:     "/tmp/gathermut-1234",
	GoRoot:   "/usr/local/go",
	ModCache: "/home/dev/go/pkg/mod",
	TempDir:  "/tmp",
	Home:     "/home/dev",
}

func gen(id string, st mutant.Status, why string) mutant.Outcome {
	return mutant.Outcome{
		Mutant: mutant.Mutant{ID: id, Operator: "arith", Kind: mutant.Go, Package: "gathermut/p", File: "p/p.go", Func: "F",
			Pos: mutant.Position{Line: 3, Column: 9}, End: mutant.Position{Line: 3, Column: 14}, InBody: true,
			Original: "a + b", Replacement: "a - b", Diff: "--- a/p/p.go\n+++ b/p/p.go\n@@ -3 +3 @@\n-\treturn a + b\n+\treturn a - b\n"},
		Result: mutant.Result{Status: st, Why: why, Duration: 1500 * time.Millisecond},
	}
}

// dirty is a set of outcomes whose evidence carries every kind of
// absolute path a real run produces: test output with temp and checkout
// paths and a goroutine dump, commands in temp dirs, a config with an
// absolute --dir and --report-dir.
func dirty() []mutant.Outcome {
	killed := gen("arith:p/p.go:3:9:aaaa", mutant.Killed, "")
	killed.Result.KilledBy = []string{"gathermut/p.TestA", "gathermut/p (test binary)"}
	killed.Result.CoveredBy = []string{"gathermut/p.TestA", "gathermut/q.TestQ"}
	killed.Result.ExitCode = 2
	killed.Result.Commands = []string{
		"(cd /home/dev/src/gathermut && go test -c -o /tmp/gathermut-1234/mutant-1/p0.test -overlay /tmp/gathermut-1234/mutant-1/overlay.json gathermut/p)",
		"(cd /home/dev/src/gathermut/p && /usr/local/go/pkg/tool/linux_amd64/test2json -t -p gathermut/p /tmp/gathermut-1234/mutant-1/p0.test -test.run '^(TestA)$')",
	}
	killed.Result.Excerpt = "=== RUN   TestA\n--- FAIL: TestA (0.00s)\npanic: runtime error: index out of range [5] with length 4 [recovered]\n\tpanic: runtime error: index out of range [5] with length 4\n\n" +
		"goroutine 7 [running]:\ntesting.tRunner.func1.2({0x5a1b20, 0xc000016090})\n\t/usr/local/go/src/testing/testing.go:1734 +0x21c\n" +
		"panic({0x5a1b20?, 0xc000016090?})\n\t/usr/local/go/src/runtime/panic.go:792 +0x132\n" +
		"gathermut/p.F(...)\n\t/home/dev/src/gathermut/p/p.go:3 +0x1f\n" +
		"gathermut/p.TestA(0xc0000a6000)\n\t/home/dev/src/gathermut/p/p_test.go:9 +0x25\n" +
		"goroutine 1 [chan receive]:\ntesting.(*T).Run(0xc000007a00, {0x5b2f3e?, 0x4f1e9a?}, 0x5c0a30)\n\t/usr/local/go/src/testing/testing.go:1851 +0x413\n" +
		strings.Repeat("more goroutine dump /tmp/gathermut-1234/x\n", 200)
	timedOut := gen("arith:p/p.go:3:9:dddd", mutant.TimedOut, "timed out: gathermut/p after 2.5s, running gathermut/p.TestA")
	timedOut.Result.ExitCode, timedOut.Result.Signal = -1, "killed"
	timedOut.Result.CoveredBy = []string{"gathermut/p.TestA"}
	unviable := gen("arith:p/p.go:3:9:ffff", mutant.Unviable, "does not compile: /home/dev/src/gathermut/p/p.go:3:9: invalid operation")
	unviable.Result.Excerpt = "# gathermut/p\n/home/dev/src/gathermut/p/p.go:3:9: invalid operation: a - b (mismatched types)\n"
	cat := gen("cat-entry", mutant.Killed, "killed by an unexpected test: gathermut/p.TestB; expected gathermut/p.TestA")
	cat.Mutant.Catalog = &catalog.Entry{ID: "cat-entry", Class: 3, Reason: "why"}
	cat.Mutant.Expected = []mutant.TestID{{Package: "gathermut/p", Name: "TestA"}}
	cat.Result.KilledBy = []string{"gathermut/p.TestB"}
	notRun := gen("kernel-x", mutant.NotRun, "no compiler (none of nvcc, hipcc on PATH)")
	notRun.Mutant.Kind, notRun.Mutant.File, notRun.Mutant.Package = mutant.Kernel, "k/k.hip", ""
	return []mutant.Outcome{
		killed, timedOut, unviable, cat, notRun,
		gen("arith:p/p.go:3:9:bbbb", mutant.Survived, mutant.NotCovered),
		gen("arith:p/p.go:3:9:cccc", mutant.Survived, "every selected test passed (1 ran)"),
		gen("arith:p/p.go:3:9:gggg", mutant.Error, "no test ran under the selection (go test -run matched nothing)"),
		gen("arith:p/p.go:3:9:hhhh", mutant.Ignored, "equivalent: x"),
		gen("arith:p/p.go:3:9:iiii", mutant.Interrupted, "interrupted before it ran"),
	}
}

func dirtyMeta(name string) report.Meta {
	cfg := config.Default()
	cfg.Dir = "/home/dev/src/gathermut/p"
	cfg.ReportDir = "/tmp/reports-1"
	cfg.Name = name
	return report.Meta{Name: name, Module: "gathermut", Patterns: cfg.Patterns, TreeBefore: "abc", TreeAfter: "abc", WallSeconds: 9,
		Timing: report.Timing{Discovery: 1, Baseline: 2, Mutants: 6}, Jobs: 2, Config: cfg, Paths: paths,
		Baseline: report.BaselineInfo{Skipped: []string{"gathermut/p.TestGPU (no device under /home/dev/src/gathermut/testdata)"}}}
}

var testLocs = map[string]report.TestLocation{"gathermut/p.TestA": {File: "p/p_test.go", Line: 7}, "gathermut/p.TestB": {File: "p/p_test.go", Line: 12}}

// TestReportsValidate writes reports of every kind the tool writes (a
// whole run, an interrupted one, two shards and their merge) and checks
// each against the pinned mutation-testing-report-schema, the testFiles
// resolution and the absence of absolute paths.
func TestReportsValidate(t *testing.T) {
	dir := t.TempDir()
	all := dirty()
	write := func(r *report.Report) *report.Report {
		t.Helper()
		jsonPath, mdPath, err := report.Write(dir, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := schematest.ValidateFile(jsonPath, paths.Root, paths.Temp, paths.Home); err != nil {
			t.Error(err)
		}
		md, _ := os.ReadFile(mdPath)
		for _, p := range []string{paths.Root, paths.Temp, paths.Home, paths.GoRoot} {
			if strings.Contains(string(md), p) {
				t.Errorf("%s names %s", mdPath, p)
			}
		}
		read, err := report.Read(jsonPath)
		if err != nil {
			t.Fatal(err)
		}
		return read
	}
	whole := report.Build(dirtyMeta("whole"), all, report.Inputs{Sources: map[string]string{"p/p.go": "package p\n"}, Tests: testLocs})
	whole.Decide(outcome.Conditions{})
	checkWholeReport(t, write(whole))

	interrupted := report.Build(dirtyMeta("interrupted"), all, report.Inputs{Tests: testLocs})
	interrupted.Gathermut.Interrupted = true
	interrupted.Decide(outcome.Conditions{Interrupted: true})
	write(interrupted)

	var shards []*report.Report
	for k := 0; k < 2; k++ {
		meta := dirtyMeta(fmt.Sprintf("shard-%d", k))
		meta.Shard = fmt.Sprintf("%d/2", k)
		meta.Config.Shard = config.Shard{K: k, N: 2}
		meta.Config.Jobs = k + 1
		var part []mutant.Outcome
		for i, o := range all {
			if i%2 == k {
				part = append(part, o)
			}
		}
		r := report.Build(meta, part, report.Inputs{Tests: testLocs})
		r.Decide(outcome.Conditions{})
		shards = append(shards, write(r))
	}
	merged, err := report.Merge("merged", shards)
	if err != nil {
		t.Fatal(err)
	}
	m := write(merged)
	if len(m.Gathermut.Shards) != 2 {
		t.Fatalf("merged report keeps %d shard records", len(m.Gathermut.Shards))
	}
	// every shard's flags, not only the first one's
	for k, sh := range m.Gathermut.Shards {
		want := fmt.Sprintf("mutate all --name shard-%d --shard %d/2 -j %d", k, k, k+1)
		if sh.CommandLine != want || sh.Shard != fmt.Sprintf("%d/2", k) {
			t.Errorf("shard %d record: %+v", k, sh)
		}
	}
}

// checkWholeReport: a whole run's report, written and read back, maps the
// statuses, resolves every test id and keeps each mutant's evidence.
func checkWholeReport(t *testing.T, got *report.Report) {
	t.Helper()
	statuses := map[string]string{}
	for _, f := range got.Files {
		for _, m := range f.Mutants {
			statuses[m.ID] = m.Status
		}
	}
	for id, want := range map[string]string{"kernel-x": "Pending", "arith:p/p.go:3:9:iiii": "Pending", "arith:p/p.go:3:9:hhhh": "Ignored", "arith:p/p.go:3:9:bbbb": "NoCoverage", "arith:p/p.go:3:9:dddd": "Timeout"} {
		if statuses[id] != want {
			t.Errorf("%s: status %s, want %s", id, statuses[id], want)
		}
	}
	if loc := got.TestFiles["p/p_test.go"]; loc == nil || len(loc.Tests) != 2 || loc.Tests[0].Location == nil || loc.Tests[0].Location.Start.Line != 7 {
		t.Errorf("testFiles[p/p_test.go] = %+v", loc)
	}
	if bin := got.TestFiles["gathermut/p"]; bin == nil || bin.Tests[0].ID != "gathermut/p (test binary)" {
		t.Errorf("a crash blamed on the test binary does not resolve: %+v", got.TestFiles)
	}
	outcomes, err := got.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Mutant.ID == "arith:p/p.go:3:9:aaaa" {
			if len(o.Result.KilledBy) != 2 || len(o.Result.CoveredBy) != 2 {
				t.Errorf("killedBy/coveredBy lost in the round trip: %+v", o.Result)
			}
			// a killed mutant's output is not kept (keepExcerpt): its
			// failure line is in the status reason
			if o.Result.Excerpt != "" {
				t.Errorf("a killed mutant's excerpt kept:\n%s", o.Result.Excerpt)
			}
		}
		if o.Mutant.ID == "arith:p/p.go:3:9:dddd" && (o.Result.Signal != "killed" || o.Result.ExitCode != -1) {
			t.Errorf("timeout: exit %d signal %q", o.Result.ExitCode, o.Result.Signal)
		}
	}
}

// TestMarkdownFitsPullRequest: a synthetic result of 10,000 mutants, with
// thousands of survivors with long diffs, hundreds of files, a big
// catalog and every other verdict, renders to at most 60,000 characters,
// findings first and with their diffs, and says what it cut.
func TestMarkdownFitsPullRequest(t *testing.T) {
	var outcomes []mutant.Outcome
	statuses := []mutant.Status{mutant.Killed, mutant.Killed, mutant.Killed, mutant.Survived, mutant.TimedOut, mutant.Unviable, mutant.NotRun, mutant.Error, mutant.Ignored, mutant.Killed}
	for i := 0; i < 10000; i++ {
		st := statuses[i%len(statuses)]
		file := fmt.Sprintf("pkg%02d/file%03d.go", i%37, i%411)
		o := gen(fmt.Sprintf("arith:%s:%d:%d:%08x", file, 10+i%900, 1+i%60, i), st, fmt.Sprintf("reason %d with some words to make it longer than usual", i))
		o.Mutant.File, o.Mutant.Package = file, "gathermut/"+file[:5]
		o.Mutant.Diff = "--- a/" + file + "\n+++ b/" + file + "\n" + strings.Repeat("@@ -10,7 +10,7 @@\n context line with code in it\n-\treturn a + b\n+\treturn a - b\n", 20)
		if st == mutant.Killed {
			o.Result.KilledBy = []string{"gathermut/" + file[:5] + ".TestSomething"}
		}
		if i%50 == 0 {
			o.Mutant.Catalog = &catalog.Entry{ID: fmt.Sprintf("catalog-entry-%d", i), Class: i % 12, Reason: "a reason"}
			o.Mutant.ID = o.Mutant.Catalog.ID
			o.Mutant.Expected = []mutant.TestID{{Package: "gathermut/pkg", Name: "TestExpected"}}
			o.Result.ExpectedKiller = st == mutant.Killed && i%100 == 0
		}
		o.Result.Excerpt = strings.Repeat("    x_test.go:12: got 1, want 2\n", 40)
		outcomes = append(outcomes, o)
	}
	meta := dirtyMeta("big")
	r := report.Build(meta, outcomes, report.Inputs{})
	r.Decide(outcome.Conditions{})
	md := report.Markdown(r)
	if n := utf8.RuneCountInString(md); n > report.MaxMarkdown || len(md) > report.MaxMarkdown {
		t.Fatalf("markdown of 10,000 mutants: %d characters, %d bytes; want at most %d", n, len(md), report.MaxMarkdown)
	}
	act := strings.Index(md, "## To act on")
	pkgs := strings.Index(md, "## Scores by package")
	files := strings.Index(md, "## Scores by file")
	cat := strings.Index(md, "\n## Catalog\n")
	cut := strings.Index(md, "## Cut to fit")
	if act < 0 || pkgs < act || files < pkgs || cat < files || cut < cat {
		t.Errorf("sections out of order: act %d, packages %d, files %d, catalog %d, cut %d", act, pkgs, files, cat, cut)
	}
	if strings.Count(md[act:pkgs], "<details><summary>diff</summary>") < 5 {
		t.Errorf("fewer than 5 findings with their diff")
	}
	for _, s := range []string{"### Catalog mutants not killed by their expected test", "### Survivors (1000)", "big.json", "more survivors", "Rerun: `go run ./mutate run "} {
		if !strings.Contains(md, s) {
			t.Errorf("no %q in the cut report", s)
		}
	}
	if strings.Count(md, "\n- **Unviable**") != 1 || strings.Count(md, "`arith:") > 2000 {
		t.Errorf("unviable mutants are not a count with a short list")
	}
}

// TestInterruptedCounts: after an interrupt the counts, the score and the
// reason cover the judged mutants, and the reason says how many.
func TestInterruptedCounts(t *testing.T) {
	outcomes := []mutant.Outcome{gen("a", mutant.Killed, ""), gen("b", mutant.Survived, "every selected test passed (1 ran)")}
	for i := 0; i < 8; i++ {
		outcomes = append(outcomes, gen(fmt.Sprintf("z%d", i), mutant.Interrupted, "interrupted before it ran"))
	}
	s := outcome.Summarize(outcomes)
	if s.Total != 10 || s.Judged != 2 || s.Interrupted != 8 || s.Counts[mutant.Interrupted] != 0 || s.Counts[mutant.NotRun] != 0 || outcome.FormatScore(s) != "50.0%" {
		t.Errorf("summary %+v", s)
	}
	code, reason := outcome.Decide(s, outcome.Conditions{Interrupted: true})
	if code != exitcode.Interrupted || !strings.HasPrefix(reason, "interrupted: 2 of 10 judged; 1 mutant survived") {
		t.Errorf("exit %d: %s", code, reason)
	}
	r := report.Build(report.Meta{Name: "i", Interrupted: true, Timing: report.Timing{Mutants: 30}}, outcomes, report.Inputs{})
	r.Decide(outcome.Conditions{Interrupted: true})
	md := report.Markdown(r)
	for _, want := range []string{"**Interrupted: 2 of 10 mutants judged.**", "The judged part leans to killed mutants", "| 2 | 1 | 1 |", "2 mutants tested at 4.0 per minute", "**Interrupted before a verdict**: 8"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "`z") > 0 {
		t.Errorf("the interrupted mutants are listed one by one")
	}
	// interrupted while another package's baseline still ran: the judged
	// count stands (a self run said "0 of 7527 judged" above a table of 16)
	r.Gathermut.Baseline.Interrupted = true
	md = report.Markdown(r)
	if want := "**Interrupted, before every package's baseline had finished: 2 of 10 mutants judged.**"; !strings.Contains(md, want) || strings.Contains(md, "0 of 10") {
		t.Errorf("markdown lacks %q or says 0 judged:\n%s", want, md)
	}
}

// TestOKReasonSaysWhatRan: an ok reason claims nothing about catalog
// mutants that did not run, and counts in words that agree with the
// numbers.
func TestOKReasonSaysWhatRan(t *testing.T) {
	catalogOutcome := func(id string, st mutant.Status) mutant.Outcome {
		o := gen(id, st, "")
		o.Mutant.Catalog = &catalog.Entry{ID: id}
		o.Result.ExpectedKiller = st == mutant.Killed
		return o
	}
	for _, c := range []struct {
		outcomes []mutant.Outcome
		want     string
	}{
		{[]mutant.Outcome{gen("a", mutant.Killed, "")}, "ok: 1 mutant judged, none survived; score 100.0%"},
		{[]mutant.Outcome{catalogOutcome("k", mutant.NotRun)}, "no catalog mutant ran (1 not run)"},
		{[]mutant.Outcome{catalogOutcome("k", mutant.NotRun), catalogOutcome("c", mutant.Killed)}, "the one catalog mutant that ran was killed by its expected test (1 not run)"},
		{[]mutant.Outcome{catalogOutcome("c", mutant.Killed), catalogOutcome("d", mutant.Killed)}, "all 2 catalog mutants were killed by their expected tests"},
	} {
		code, reason := outcome.Decide(outcome.Summarize(c.outcomes), outcome.Conditions{})
		if code != exitcode.OK || !strings.Contains(reason, c.want) {
			t.Errorf("exit %d %q, want %q", code, reason, c.want)
		}
	}
	// with a catalog configured, a run without its mutants says so
	code, reason := outcome.Decide(outcome.Summarize([]mutant.Outcome{gen("a", mutant.Killed, "")}), outcome.Conditions{Catalog: true})
	if want := "ok: 1 mutant judged, none survived; no catalog mutants in this run; score 100.0%"; code != exitcode.OK || reason != want {
		t.Errorf("catalog configured: exit %d %q, want %q", code, reason, want)
	}
}

// TestJSONStaysSmall: a killed mutant with a long panic dump costs at
// most a few kilobytes of JSON, not its whole test output.
func TestJSONStaysSmall(t *testing.T) {
	o := dirty()[0]
	o.Result.Excerpt += strings.Repeat("goroutine 9 [select]:\nfoo.bar()\n\t/home/dev/src/gathermut/p/p.go:3 +0x1f\n", 1000)
	r := report.Build(dirtyMeta("small"), []mutant.Outcome{o}, report.Inputs{})
	data, err := json.Marshal(r.Files)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 4000 {
		t.Errorf("one killed mutant takes %d bytes of JSON", len(data))
	}
}

// TestRerunCommand: the command names the mutant, and, outside the row's
// defaults, the package directory or patterns and the catalog it needs.
func TestRerunCommand(t *testing.T) {
	cfg := config.Default()
	meta := report.Meta{Module: "gathermut", Config: cfg}
	m := gen("arith:p/p.go:3:9:aaaa", mutant.Killed, "").Mutant
	if got := report.RerunCommand(meta, m); got != "go run ./mutate run arith:p/p.go:3:9:aaaa" {
		t.Errorf("row: %s", got)
	}
	// the module's own defaults (its .gathermut.json, or ./... and no
	// catalog) find the mutant again: nothing to add
	cfg.Patterns, cfg.Catalog = []string{"./..."}, ""
	meta = report.Meta{Module: "fixture", Config: cfg}
	if got := report.RerunCommand(meta, m); got != "go run gathermut/mutate run arith:p/p.go:3:9:aaaa" {
		t.Errorf("other module, defaults: %s", got)
	}
	// what the command line chose, it chooses again
	cfg.Given = config.Explicit{Packages: true, Catalog: true, Operators: true}
	cfg.Operators = []string{"default", "const-table"}
	meta = report.Meta{Module: "fixture", Config: cfg}
	if got := report.RerunCommand(meta, m); got != "go run gathermut/mutate run arith:p/p.go:3:9:aaaa ./p --catalog='' --operators=default,const-table" {
		t.Errorf("other module, flags: %s", got)
	}
	// a run that recorded how the tool was started gives that command
	// (the legacy forms above are for reports from before it)
	for _, c := range []struct {
		tool, dir, want string
	}{
		{"mutate", "", "mutate run arith:p/p.go:3:9:aaaa"},
		{"../bin/mutate", "", "../bin/mutate run arith:p/p.go:3:9:aaaa"},
		{"go run example.com/gm/mutate@v0.3.0", "", "go run example.com/gm/mutate@v0.3.0 run arith:p/p.go:3:9:aaaa"},
		{"go run -C ../gathermut ./mutate", "../my app", "go run -C ../gathermut ./mutate run arith:p/p.go:3:9:aaaa --dir '../my app'"},
	} {
		cfg := config.Default()
		cfg.Tool, cfg.ToolDir = c.tool, c.dir
		meta := report.Meta{Module: "example.com/app", Config: cfg}
		if got := report.RerunCommand(meta, m); got != c.want {
			t.Errorf("tool %q: %s, want %s", c.tool, got, c.want)
		}
		if got, want := report.ToolCommand(meta, "diff", "<id>"), strings.Replace(c.want, "run arith:p/p.go:3:9:aaaa", "diff <id>", 1); got != want {
			t.Errorf("tool %q: diff command %s, want %s", c.tool, got, want)
		}
	}
	// a project file's set (--set) is chosen again: its settings found
	// the mutant
	cfg = config.Default()
	cfg.Set = "mutate-self"
	meta = report.Meta{Module: "gathermut", Config: cfg}
	if got := report.RerunCommand(meta, m); got != "go run ./mutate run arith:p/p.go:3:9:aaaa --set mutate-self" {
		t.Errorf("a set: %s", got)
	}
}

func TestWrittenFilesAreRelative(t *testing.T) {
	dir := t.TempDir()
	r := report.Build(dirtyMeta("rel"), dirty(), report.Inputs{})
	r.Decide(outcome.Conditions{})
	if _, _, err := report.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "rel.json"))
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["projectRoot"] != "." {
		t.Errorf("projectRoot %v", raw["projectRoot"])
	}
	// the run's configuration is written once, under gathermut
	if _, top := raw["config"]; top {
		t.Errorf("the configuration is written twice (a top-level config too)")
	}
	cfg, _ := raw["gathermut"].(map[string]any)["config"].(map[string]any)
	if cfg["dir"] != "p" || cfg["reportDir"] != "$TMPDIR/reports-1" {
		t.Errorf("config dirs: %v %v", cfg["dir"], cfg["reportDir"])
	}
}
