package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

func mkOutcome(id string, st mutant.Status, why string) mutant.Outcome {
	return mutant.Outcome{
		Mutant: mutant.Mutant{ID: id, Operator: "arith", Package: "m/p", File: "p/p.go", Func: "F", Pos: mutant.Position{Line: 3, Column: 9},
			End: mutant.Position{Line: 3, Column: 14}, Original: "a + b", Replacement: "a - b", Diff: "--- a/p/p.go\n+++ b/p/p.go\n"},
		Result: mutant.Result{Status: st, Why: why, Duration: 1500 * time.Millisecond},
	}
}

func sample() []mutant.Outcome {
	cat := mkOutcome("cat-entry", mutant.Killed, "killed by an unexpected test: m/p.TestB; expected m/p.TestA")
	cat.Mutant.Catalog = &catalog.Entry{ID: "cat-entry", Class: 3, Reason: "why"}
	cat.Mutant.Expected = []mutant.TestID{{Package: "m/p", Name: "TestA"}}
	cat.Result.KilledBy = []string{"m/p.TestB"}
	killed := mkOutcome("arith:p/p.go:3:9:aaaa", mutant.Killed, "")
	killed.Result.KilledBy = []string{"m/p.TestA"}
	return []mutant.Outcome{
		killed,
		mkOutcome("arith:p/p.go:3:9:bbbb", mutant.Survived, mutant.NotCovered),
		mkOutcome("arith:p/p.go:3:9:cccc", mutant.Survived, "every selected test passed (1 ran)"),
		mkOutcome("arith:p/p.go:3:9:dddd", mutant.TimedOut, "timed out"),
		mkOutcome("arith:p/p.go:3:9:eeee", mutant.NotRun, "no compiler"),
		mkOutcome("arith:p/p.go:3:9:ffff", mutant.Unviable, "does not compile"),
		mkOutcome("arith:p/p.go:3:9:gggg", mutant.Error, "no test ran"),
		mkOutcome("arith:p/p.go:3:9:hhhh", mutant.Ignored, "equivalent: x"),
		cat,
	}
}

func TestSchemaStatusAndSummary(t *testing.T) {
	want := map[string]string{"aaaa": "Killed", "bbbb": "NoCoverage", "cccc": "Survived", "dddd": "Timeout", "eeee": "Pending", "ffff": "CompileError", "gggg": "RuntimeError", "hhhh": "Ignored"}
	r := Build(Meta{Name: "x"}, sample(), Inputs{Sources: map[string]string{"p/p.go": "package p\n"}})
	for _, m := range r.Files["p/p.go"].Mutants {
		key := m.ID[len(m.ID)-4:]
		if w, ok := want[key]; ok && m.Status != w {
			t.Errorf("%s: %s, want %s", m.ID, m.Status, w)
		}
		if key == "eeee" && m.StatusReason != "not run: no compiler" {
			t.Errorf("not run reason %q", m.StatusReason)
		}
		if m.Duration != 1500 {
			t.Errorf("duration %v ms", m.Duration)
		}
	}
	s := r.Gathermut.Summary
	// detected: 2 killed + 1 timeout; valid: + 2 survived
	if s.Total != 9 || s.Score != 60 || len(s.CatalogFailures) != 1 || len(s.Unexpected) != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestWriteReadMerge(t *testing.T) {
	dir := t.TempDir()
	all := sample()
	meta := Meta{Name: "shard-0", TreeBefore: "abc", TreeAfter: "abc", Shard: "0/2", WallSeconds: 3}
	a := Build(meta, all[:5], Inputs{Sources: map[string]string{"p/p.go": "package p\n"}})
	meta.Name, meta.Shard, meta.WallSeconds = "shard-1", "1/2", 5
	b := Build(meta, all[5:], Inputs{Sources: map[string]string{"p/p.go": "package p\n"}})
	var paths []string
	for _, r := range []*Report{a, b} {
		jsonPath, mdPath, err := Write(dir, r)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(mdPath) != r.Gathermut.Name+".md" {
			t.Errorf("md path %s", mdPath)
		}
		paths = append(paths, jsonPath)
	}
	var read []*Report
	for _, p := range paths {
		r, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, r)
	}
	merged, err := Merge("all", read)
	if err != nil {
		t.Fatal(err)
	}
	got, err := merged.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) || merged.Gathermut.WallSeconds != 5 || len(merged.Gathermut.Shards) != 2 || merged.Gathermut.ExitCode != exitcode.Catalog {
		t.Errorf("merged: %d mutants, wall %v, shards %v, exit %d", len(got), merged.Gathermut.WallSeconds, merged.Gathermut.Shards, merged.Gathermut.ExitCode)
	}
	// the longest shard is the wall time; the sum of the shards' is the
	// worker time, in the JSON and the markdown
	if merged.Gathermut.WorkerSeconds != 8 {
		t.Errorf("merged worker time %v s, want 3 + 5", merged.Gathermut.WorkerSeconds)
	}
	if md := Markdown(merged); !strings.Contains(md, "total worker time 8.0 s over 2 shards; longest shard 5.0 s (shard-1, shard 1/2)") {
		t.Errorf("merged markdown does not give the worker time and the longest shard")
	}
	for _, o := range got {
		if o.Mutant.Diff == "" || o.Result.Duration != 1500*time.Millisecond {
			t.Errorf("%s lost evidence in the round trip: %+v", o.Mutant.ID, o)
		}
	}
	b.Gathermut.TreeBefore = "other"
	if _, err := Merge("all", []*Report{a, b}); err == nil || !strings.Contains(err.Error(), "not the same sources") {
		t.Errorf("merge of different trees: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Errorf("missing report read")
	}
}

func TestMarkdown(t *testing.T) {
	r := Build(Meta{Name: "x", Module: "gathermut", TreeBefore: "abc", TreeAfter: "abc", WallSeconds: 60, Timing: Timing{Mutants: 60}, Jobs: 2}, sample(), Inputs{})
	r.Decide(outcome.Conditions{})
	md := Markdown(r)
	order := []string{"# Mutation report: x", "**Exit 5**: catalog mutant cat-entry not killed by its expected test; 1 mutant survived, 1 not covered by any test",
		"| Judged | Killed | Survived | Not covered | Timed out |", "| 9 | 2 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 60.0% |",
		"(killed + timed out + survived + not covered)", "(unchanged after the run)", "schema builds", "5 mutants tested at 5.0 per minute",
		"## To act on (4)", "### Catalog mutants not killed by their expected test (1)", "#### `cat-entry`", "Rerun: `go run ./mutate run cat-entry`",
		"### Survivors (1)", "#### `arith:p/p.go:3:9:cccc`", "<details><summary>diff</summary>",
		"### Mutants not covered by any test (1)", "#### `arith:p/p.go:3:9:bbbb`", "### Errors (1)",
		"## Scores by package", "| `m/p` | 9 | 2 | 1 | 1 |", "## Scores by file", "| `p/p.go` | 9 |", "## Catalog", "| `cat-entry` | 3 | killed | no | TestB |",
		"## Scores by operator", "## Needing no action", "**Timed out**", "**Unviable**", "**Ignored**", "**Not run**", "no compiler: 1", "## Baseline"}
	at := 0
	for _, s := range order {
		i := strings.Index(md[at:], s)
		if i < 0 {
			t.Errorf("Markdown has no %q after byte %d", s, at)
			continue
		}
		at += i
	}
	if strings.Contains(md, "Cut to fit") {
		t.Errorf("a small report says it was cut")
	}
	if t.Failed() {
		t.Log(md)
	}
}

// TestMergeChecksShardSet: a merge must stand for one whole run, so a set
// of shards with a hole, a repeat, a different split or different judging
// flags is refused.
func TestMergeChecksShardSet(t *testing.T) {
	shard := func(k string, flags ...string) *Report {
		cfg := config.Default()
		cfg.Name = "s" + k
		if len(flags) > 0 {
			cfg.StrictTimeouts = true
		}
		meta := Meta{Name: "s" + k, Module: "m", Patterns: []string{"./..."}, TreeBefore: "abc", TreeAfter: "abc", Shard: k, Config: cfg}
		return Build(meta, []mutant.Outcome{mkOutcome("arith:p/p.go:3:9:"+k, mutant.Killed, "")}, Inputs{})
	}
	whole := shard("")
	otherPatterns := shard("1/2")
	otherPatterns.Gathermut.Patterns = []string{"./p"}
	for _, c := range []struct {
		name    string
		reports []*Report
		want    string
	}{
		{"complete", []*Report{shard("1/3"), shard("0/3"), shard("2/3")}, ""},
		{"whole runs", []*Report{whole, shard("")}, ""},
		{"hole", []*Report{shard("0/3"), shard("2/3")}, "shard 1/3 is missing"},
		{"repeat", []*Report{shard("0/2"), shard("0/2"), shard("1/2")}, "shard 0/2 given twice"},
		{"different split", []*Report{shard("0/2"), shard("1/3")}, "of 2 shards"},
		{"mixed", []*Report{shard("0/1"), whole}, "mixed with an unsharded one"},
		{"patterns", []*Report{shard("0/2"), otherPatterns}, "ran m [./p]"},
		{"judging flags", []*Report{shard("0/2"), shard("1/2", "--strict-timeouts")}, "StrictTimeouts: false vs true"},
		{"not k/n", []*Report{shard("x")}, `shard "x" is not k/n`},
	} {
		_, err := Merge("all", c.reports)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMergeKeepsStrictTimeouts: shards run with --strict-timeouts fail the
// merged run on a timeout, as the whole run would.
func TestMergeKeepsStrictTimeouts(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var reports []*Report
		for k, st := range []mutant.Status{mutant.Killed, mutant.TimedOut} {
			cfg := config.Default()
			cfg.StrictTimeouts = strict
			meta := Meta{Name: fmt.Sprint(k), TreeBefore: "abc", TreeAfter: "abc", Shard: fmt.Sprintf("%d/2", k), Config: cfg}
			reports = append(reports, Build(meta, []mutant.Outcome{mkOutcome(fmt.Sprintf("arith:p/p.go:3:9:%d", k), st, "")}, Inputs{}))
		}
		merged, err := Merge("all", reports)
		if err != nil {
			t.Fatal(err)
		}
		want := exitcode.OK
		if strict {
			want = exitcode.Timeouts
		}
		if merged.Gathermut.ExitCode != want {
			t.Errorf("strict %v: exit %d, want %d", strict, merged.Gathermut.ExitCode, want)
		}
	}
}

// TestTrimFailure: what a report keeps of a test's output identifies the
// failure and nothing else.
func TestTrimFailure(t *testing.T) {
	for _, c := range []struct {
		name      string
		out       string
		want, not []string
	}{
		{"t.Error", "=== RUN   TestSum\n    strong_test.go:14: Sum([1 2 3]) = 3, want 6\n        second line of the message\n--- FAIL: TestSum (0.00s)\n=== RUN   TestMean\n--- PASS: TestMean (0.00s)\n",
			[]string{"    strong_test.go:14: Sum([1 2 3]) = 3, want 6", "        second line of the message", "--- FAIL: TestSum"}, []string{"=== RUN", "PASS"}},
		{"panic", "--- FAIL: TestA (0.00s)\npanic: runtime error: index out of range [5] with length 4 [recovered]\n\npanic: x\ngoroutine 7 [running]:\ntesting.tRunner.func1.2({0x5a1b20, 0xc000016090})\n\t$GOROOT/src/testing/testing.go:1734 +0x21c\npanic({0x5a1b20?, 0xc000016090?})\n\t$GOROOT/src/runtime/panic.go:792 +0x132\ngathermut/p.F(...)\n\tp/p.go:3 +0x1f\ngathermut/p.TestA(0xc0000a6000)\n\tp/p_test.go:9 +0x25\ngoroutine 1 [chan receive]:\ntesting.(*T).Run(0xc000007a00)\n\t$GOROOT/src/testing/testing.go:1851 +0x413\n",
			[]string{"panic: runtime error: index out of range", "gathermut/p.F(...)", "\tp/p.go:3 +0x1f"}, []string{"tRunner", "TestA(0xc", "chan receive"}},
		{"timeout", "panic: test timed out after 2s\n\trunning tests:\n\t\tTestSpin (2s)\n\ngoroutine 5 [running]:\n", []string{"panic: test timed out after 2s"}, []string{"goroutine"}},
		{"compile error", "# fixture/strong\nstrong/strong.go:13:3: declared and not used: x\n", []string{"strong/strong.go:13:3: declared and not used: x"}, nil},
		{"nothing recognised", "a\n\nb\nc\nd\ne\nf\ng\n", []string{"a\nb\nc\nd\ne"}, []string{"f"}},
	} {
		got := TrimFailure(c.out)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q has %q", c.name, got, n)
			}
		}
	}
	long := TrimFailure(strings.Repeat("    x_test.go:1: "+strings.Repeat("y", 500)+"\n", 100))
	if len(long) > maxExcerpt {
		t.Errorf("trimmed to %d bytes", len(long))
	}
}

// TestStatusReasonNamesTheFailure: a kill's one-line reason quotes the
// panic or the failed check, not the --- FAIL line around it.
func TestStatusReasonNamesTheFailure(t *testing.T) {
	for _, c := range []struct{ excerpt, want string }{
		{"--- FAIL: TestA/sub (0.00s)\n--- FAIL: TestA (0.00s)\npanic: runtime error: integer divide by zero\np.F(...)\n\tp/p.go:3", "killed by p.TestA: panic: runtime error: integer divide by zero"},
		{"    a_test.go:9: got 1, want 2\n--- FAIL: TestA (0.00s)", "killed by p.TestA: a_test.go:9: got 1, want 2"},
		{"--- FAIL: TestA (0.00s)", "killed by p.TestA: --- FAIL: TestA (0.00s)"},
	} {
		got := statusReason(mutant.Result{Status: mutant.Killed, KilledBy: []string{"p.TestA"}, Excerpt: c.excerpt})
		if got != c.want {
			t.Errorf("%q: reason %q, want %q", c.excerpt, got, c.want)
		}
	}
}

// TestCleanAtBoundary: a known directory is replaced only where it is a
// whole path or the start of one, never inside a longer name.
func TestCleanAtBoundary(t *testing.T) {
	p := Paths{Root: "/home/u/src/app", Temp: "/tmp/gathermut-7", TempDir: "/tmp", Home: "/home/u", GoRoot: "/usr/lib/go"}
	for _, c := range []struct{ in, want string }{
		{"/home/u/src/app-inc.cache", "~/src/app-inc.cache"},
		{"--incremental=/home/u/src/app-inc.cache", "--incremental=~/src/app-inc.cache"},
		{"/home/u/src/application/x.go", "~/src/application/x.go"},
		{"/home/u/src/app/p/p.go:3:9: bad", "p/p.go:3:9: bad"},
		{"cd /home/u/src/app && go test", "cd . && go test"},
		{"(/home/u/src/app)", "(.)"},
		{"/home/u/src/app", "."},
		{"/x/home/u/src/app/p.go", "/x/home/u/src/app/p.go"},
		{"/tmp/gathermut-7/mutant-1/p.test /tmp/gathermut-77/x /tmp/y", "$TMP/mutant-1/p.test $TMPDIR/gathermut-77/x $TMPDIR/y"},
		{"/usr/lib/golang/bin /usr/lib/go/bin/go", "/usr/lib/golang/bin $GOROOT/bin/go"},
		{"/home/user2/x /home/u", "/home/user2/x ~"},
		// a stack trace inside a Go-quoted test output: \t and \n end what is before
		{`"main.main()\n\t/home/u/src/app/main.go:17 +0x35e\n"`, `"main.main()\n\tmain.go:17 +0x35e\n"`},
		{`\n/home/u/src/app/p.go`, `\np.go`},
		{`x\\t/home/u/src/app/p.go`, `x\\t/home/u/src/app/p.go`},
		{`at/home/u/src/app/p.go`, `at/home/u/src/app/p.go`},
		{"", ""},
	} {
		if got := p.Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNotCoveredApart: the survivors no test covers are counted and
// listed apart from those the tests ran and missed, in the summary, the
// one-line reason, the counts line and the markdown, while the score
// still counts both as undetected.
func TestNotCoveredApart(t *testing.T) {
	outcomes := []mutant.Outcome{
		mkOutcome("arith:p/p.go:3:9:aaaa", mutant.Killed, ""),
		mkOutcome("arith:p/p.go:3:9:bbbb", mutant.Survived, mutant.NotCovered),
		mkOutcome("arith:p/p.go:3:9:cccc", mutant.Survived, mutant.NotCovered),
		mkOutcome("arith:p/p.go:3:9:dddd", mutant.Survived, "every selected test passed (1 ran)"),
	}
	for _, c := range []struct {
		outcomes           []mutant.Outcome
		survivors, notCov  int
		reason, countsText string
	}{
		{outcomes, 1, 2, "1 mutant survived, 2 not covered by any test", "1 killed, 1 survived, 2 not covered, 0 timed out"},
		{outcomes[:3], 0, 2, "2 mutants not covered by any test", "1 killed, 0 survived, 2 not covered,"},
		{append(outcomes[:1:1], outcomes[3]), 1, 0, "1 mutant survived", "1 killed, 1 survived, 0 not covered,"},
	} {
		s := outcome.Summarize(c.outcomes)
		if s.Survivors() != c.survivors || s.NotCovered != c.notCov || s.Counts[mutant.Survived] != c.survivors+c.notCov {
			t.Errorf("%d outcomes: survivors %d, not covered %d, verdict survived %d", len(c.outcomes), s.Survivors(), s.NotCovered, s.Counts[mutant.Survived])
		}
		if code, reason := outcome.Decide(s, outcome.Conditions{}); code != exitcode.Survivors || reason != c.reason {
			t.Errorf("exit %d %q, want 1 %q", code, reason, c.reason)
		}
		if got := CountsText(s); !strings.HasPrefix(got, c.countsText) {
			t.Errorf("CountsText %q, want it to start with %q", got, c.countsText)
		}
		if want := 100 * float64(len(c.outcomes)-c.survivors-c.notCov) / float64(len(c.outcomes)); s.Score != want {
			t.Errorf("score %v, want %v: not covered counts as undetected", s.Score, want)
		}
	}
	r := Build(Meta{Name: "x", Module: "m"}, outcomes, Inputs{})
	r.Decide(outcome.Conditions{})
	md := Markdown(r)
	for _, want := range []string{"### Survivors (1)", "### Mutants not covered by any test (2)", "| 4 | 1 | 1 | 2 | 0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if i, j := strings.Index(md, "#### `arith:p/p.go:3:9:dddd`"), strings.Index(md, "### Mutants not covered"); i < 0 || i > j {
		t.Errorf("the covered survivor is not under Survivors")
	}
}

// TestFindingsInSourceOrder: the markdown lists the findings other than
// survivors (here mutants no test covers) by file, line and column,
// whatever their operators; survivors are grouped for reading instead
// (TestSurvivorsGroupedForReading).
func TestFindingsInSourceOrder(t *testing.T) {
	at := func(id, op, file string, line, col int) mutant.Outcome {
		o := mkOutcome(id, mutant.Survived, mutant.NotCovered)
		o.Mutant.Operator, o.Mutant.File, o.Mutant.Pos = op, file, mutant.Position{Line: line, Column: col}
		return o
	}
	outcomes := []mutant.Outcome{
		at("arith:b/b.go:2:1:0001", "arith", "b/b.go", 2, 1),
		at("arith:a/a.go:30:1:0002", "arith", "a/a.go", 30, 1),
		at("zero-return:a/a.go:4:9:0003", "zero-return", "a/a.go", 4, 9),
		at("boundary:a/a.go:4:2:0004", "boundary", "a/a.go", 4, 2),
		at("negate:a/a.go:12:5:0005", "negate", "a/a.go", 12, 5),
	}
	md := Markdown(Build(Meta{Name: "x", Module: "m"}, outcomes, Inputs{}))
	want := []string{"boundary:a/a.go:4:2:0004", "zero-return:a/a.go:4:9:0003", "negate:a/a.go:12:5:0005", "arith:a/a.go:30:1:0002", "arith:b/b.go:2:1:0001"}
	last := -1
	for _, id := range want {
		i := strings.Index(md, "#### `"+id+"`")
		if i < last {
			t.Errorf("%s is listed before the survivor above it in the source:\n%s", id, md)
		}
		last = i
	}
}

// TestRowTermsOnlyWithCatalog: a run without a catalog says nothing of
// catalog mutants or schemata; one with a catalog does, even when none
// of its mutants was in the run.
func TestRowTermsOnlyWithCatalog(t *testing.T) {
	killed := []mutant.Outcome{mkOutcome("arith:p/p.go:3:9:aaaa", mutant.Killed, "")}
	plain := Build(Meta{Name: "x", Module: "m"}, killed, Inputs{})
	plain.Decide(outcome.Conditions{})
	if r := plain.Gathermut.Reason; r != "ok: 1 mutant judged, none survived; score 100.0%" {
		t.Errorf("without a catalog: %q", r)
	}
	if md := Markdown(plain); strings.Contains(md, "schema") && !strings.Contains(md, "mutation-testing-report-schema") || !strings.Contains(md, "test binary builds") {
		t.Errorf("without a catalog the markdown speaks of schemata:\n%s", md)
	}
	meta := Meta{Name: "x", Module: "m"}
	meta.Config.Catalog = "./mutants"
	row := Build(meta, killed, Inputs{})
	row.Decide(outcome.Conditions{})
	if r := row.Gathermut.Reason; r != "ok: 1 mutant judged, none survived; no catalog mutants in this run; score 100.0%" {
		t.Errorf("with a catalog: %q", r)
	}
	if md := Markdown(row); !strings.Contains(md, "schema builds") {
		t.Errorf("with a catalog the markdown does not name the schema builds")
	}
}
