package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// modesModule has mutants that cannot be switched (in a type) and
// mutants the schema build rejects (a constant a test needs constant),
// both built on their own in a schema run.
var modesModule = map[string]string{
	"go.mod": "module modes\n\ngo 1.26\n",
	"geo/geo.go": `// Package geo has mutants a schema cannot hold.
package geo

// Limit bounds Clamp; the external test uses it as an array length.
const Limit = 10 // want killed

// size is an array length.
const size = 2 // want killed

var pair = [size]int{}

// Clamp bounds n by Limit.
func Clamp(n int) int {
	if n > Limit {
		return Limit
	}
	return n
}

// Pair is the length of the pair.
func Pair() int { return len(pair) }
`,
	"geo/geo_test.go": `package geo_test

import (
	"testing"

	"modes/geo"
)

var table [geo.Limit]int

func TestClamp(t *testing.T) {
	if geo.Clamp(50) != 10 || geo.Clamp(3) != 3 || len(table) != 10 {
		t.Error("Clamp")
	}
}

func TestPair(t *testing.T) {
	if geo.Pair() != 2 {
		t.Error("Pair")
	}
}
`,
}

// TestPipelineFallbackModes: a schema run builds on their own the
// mutants it cannot switch (in a type) and those its build rejected (the
// constant a test file needs constant), and says why for each; the
// verdicts are those of a run without schemata.
func TestPipelineFallbackModes(t *testing.T) {
	dir := writeModule(t, modesModule)
	wants := wantedVerdicts(modesModule)
	cfg := config.Default()
	// const-tune: the unexported array length is only a size, its mutants
	// are const-tune's (const-int's before the split)
	cfg.Jobs, cfg.Operators, cfg.Name = 2, []string{"const-int", "const-tune"}, "schema"
	cache := t.TempDir()
	res := runPipelineWith(t, dir, cfg, cache)
	if res.code != exitcode.OK || len(res.outcomes) != 4 {
		t.Fatalf("exit %d (%s), %d mutants\n%s%s", res.code, res.reason, len(res.outcomes), res.stdout, res.stderr)
	}
	checkWanted(t, "schema", wants, res.outcomes)
	// (a module without a catalog reads plain words: test binaries, not schemata)
	if !strings.Contains(res.stderr, "test binaries built in") || !strings.Contains(res.stderr, ": 0 of the 4 mutants to run are in them, the others get builds of their own") || !strings.Contains(res.stderr, "mutate: baseline of modes/geo: 2 tests") {
		t.Errorf("the schema build's rounds are not reported:\n%s", res.stderr)
	}
	for id, o := range res.outcomes {
		note := "the schema build rejected it: geo_test.go:9: "
		if strings.Contains(id, ":8:") {
			note = "not switched: constant size is used as another type at geo.go:10, and is an array length at geo.go:10"
		}
		if o.Result.Mode != mutant.ModeOverlay || !strings.HasPrefix(o.Result.ModeNote, note) {
			t.Errorf("%s: mode %s (%q), want overlay (%q...)", id, o.Result.Mode, o.Result.ModeNote, note)
		}
	}
	if m := res.report.Gathermut.Modes; m[mutant.ModeOverlay] != 4 || res.report.Gathermut.Timing.SchemaRounds != 2 {
		t.Errorf("modes %v, rounds %d", m, res.report.Gathermut.Timing.SchemaRounds)
	}
	// A second run of the same tree with the same cache drops the
	// rejected mutants before its first build: one round, same verdicts
	// and notes.
	again := runPipelineWith(t, dir, cfg, cache)
	checkWanted(t, "schema again", wants, again.outcomes)
	if !strings.Contains(again.stderr, "mutate: 2 mutants cannot share a test binary (known from an earlier run of this tree)") || again.report.Gathermut.Timing.SchemaRounds != 1 {
		t.Errorf("second run: rounds %d\n%s", again.report.Gathermut.Timing.SchemaRounds, again.stderr)
	}
	for id, o := range again.outcomes {
		if first := res.outcomes[id].Result; o.Result.Mode != first.Mode || o.Result.ModeNote != first.ModeNote {
			t.Errorf("%s: second run mode %s (%q), first %s (%q)", id, o.Result.Mode, o.Result.ModeNote, first.Mode, first.ModeNote)
		}
	}
}

// exportModule's exported constant is an array length in another
// package of the module (not a test): the schema build of the mutated
// and observing packages alone finds it before any test binary.
var exportModule = map[string]string{
	"go.mod": "module export\n\ngo 1.26\n",
	"lim/lim.go": `// Package lim exports a constant.
package lim

// Size is the size of a table elsewhere.
const Size = 4 // want killed

// Double is twice Size.
func Double() int {
	n := Size
	return n + n
}
`,
	"use/use.go": `// Package use sizes a table by lim.Size.
package use

import "export/lim"

var table [lim.Size]int

// Len is the table's length.
func Len() int { return len(table) }
`,
	"use/use_test.go": `package use

import (
	"testing"

	"export/lim"
)

func TestLen(t *testing.T) {
	if Len() != 4 || lim.Double() != 8 {
		t.Error("sizes")
	}
}
`,
}

// TestPipelinePrecheck: a mutant whose switch another package's code
// cannot compile is dropped by the build of the packages alone, before
// the test binaries; the test binaries then build in one round.
func TestPipelinePrecheck(t *testing.T) {
	dir := writeModule(t, exportModule)
	cfg := config.Default()
	cfg.Jobs, cfg.Operators = 2, []string{"const-int"}
	res := runPipeline(t, dir, cfg)
	if res.code != exitcode.OK {
		t.Fatalf("exit %d (%s)\n%s%s", res.code, res.reason, res.stdout, res.stderr)
	}
	checkWanted(t, "precheck", wantedVerdicts(exportModule), res.outcomes)
	if !strings.Contains(res.stderr, "cannot share a test binary (their packages do not compile with them in it)") || res.report.Gathermut.Timing.SchemaRounds != 2 {
		t.Errorf("rounds %d\n%s", res.report.Gathermut.Timing.SchemaRounds, res.stderr)
	}
	for id, o := range res.outcomes {
		if o.Mutant.Pos.Line == 5 && (o.Result.Mode != mutant.ModeOverlay || !strings.Contains(o.Result.ModeNote, "array length")) {
			t.Errorf("%s: mode %s (%q), want its own build for the array length", id, o.Result.Mode, o.Result.ModeNote)
		}
	}
}

// edgeModule has a flaky test (it fails alone, passes after the test
// before it), a skipped test, and a test that hangs under a mutant.
var edgeModule = map[string]string{
	"go.mod": "module edge\n\ngo 1.26\n",
	"e/e.go": `// Package e has tests of every baseline kind.
package e

var calls int

// Mark counts its calls; only a flaky test looks.
func Mark() int {
	calls++ // want survived
	return calls
}

// Spin counts n down to zero.
func Spin(n int) int {
	for n > 0 {
		n-- // want timeout
	}
	return n
}
`,
	"e/e_test.go": `package e

import "testing"

func TestFirst(t *testing.T) { Mark() }

func TestSecond(t *testing.T) {
	if calls == 0 {
		t.Fatal("TestFirst did not run before")
	}
}

func TestSpin(t *testing.T) {
	if Spin(3) != 0 {
		t.Error("Spin")
	}
}

func TestDevice(t *testing.T) { t.Skip("no device here") }
`,
}

// TestPipelineBaselineKinds: a flaky test is excluded (and reported), a
// skipped one reported with its message, a mutant whose test hangs is
// timed out (its process killed) and counts as detected unless
// --strict-timeouts, which makes it exit 4.
func TestPipelineBaselineKinds(t *testing.T) {
	dir := writeModule(t, edgeModule)
	wants := wantedVerdicts(edgeModule)
	cfg := config.Default()
	cfg.Jobs, cfg.Operators, cfg.TimeoutFloor, cfg.StrictTimeouts = 2, []string{"remove-stmt"}, config.Duration(time.Second), true
	res := runPipeline(t, dir, cfg)
	// a survivor's exit 1 comes before a timeout's 4; the reason names both
	if res.code != exitcode.Survivors || !strings.Contains(res.reason, "1 mutant survived") || !strings.Contains(res.reason, "1 mutant timed out (--strict-timeouts)") || len(res.outcomes) != 2 {
		t.Fatalf("exit %d (%s), %d mutants\n%s%s", res.code, res.reason, len(res.outcomes), res.stdout, res.stderr)
	}
	checkWanted(t, "strict", wants, res.outcomes)
	b := res.report.Gathermut.Baseline
	// The one-process baseline runs a test alone only when it fails with
	// the others, so TestSecond, which fails only alone, is not flaky here.
	if len(b.Flaky) != 0 {
		t.Errorf("flaky %q", b.Flaky)
	}
	if len(b.Skipped) != 1 || b.Skipped[0] != "edge/e.TestDevice (no device here)" || b.Tests != 4 || b.Packages != 1 {
		t.Errorf("baseline %+v", b)
	}
	for id, o := range res.outcomes {
		switch o.Result.Status {
		case mutant.TimedOut:
			if !strings.HasPrefix(o.Result.Why, "timed out (confirmed): edge/e after ") || !strings.Contains(o.Result.Why, "edge/e.TestSpin past its own limit") ||
				o.Result.ExitCode != -1 || o.Result.Signal != "SIGKILL" {
				t.Errorf("%s: %q, exit %d, signal %q", id, o.Result.Why, o.Result.ExitCode, o.Result.Signal)
			}
		case mutant.Survived:
			if o.Result.Why != "every selected test passed (1 ran)" || strings.Join(o.Result.CoveredBy, ",") != "edge/e.TestFirst" {
				t.Errorf("%s: %q, covered by %v", id, o.Result.Why, o.Result.CoveredBy)
			}
		}
	}
}

// TestPipelineRedBaseline: a test failing without any mutant stops the
// run with exit 3 and names it; no mutant is judged.
func TestPipelineRedBaseline(t *testing.T) {
	files := map[string]string{
		"go.mod":        "module red\n\ngo 1.26\n",
		"r/r.go":        "package r\n\nfunc One() int { return 1 }\n",
		"r/r_test.go":   "package r\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 2 {\n\t\tt.Error(\"One is not 2\")\n\t}\n}\n",
		"r/ok_test.go":  "package r\n\nimport \"testing\"\n\nfunc TestFine(t *testing.T) {}\n",
		"r/doc_test.go": "package r\n",
	}
	for _, schemata := range []bool{true, false} {
		cfg := config.Default()
		cfg.Jobs, cfg.Schemata = 2, schemata
		res := runPipeline(t, writeModule(t, files), cfg)
		if res.code != exitcode.Baseline || !strings.Contains(res.stderr, "mutate: baseline failing: red/r.TestOne") || !strings.Contains(res.stderr, "One is not 2") {
			t.Errorf("schemata %v: exit %d (%s)\n%s", schemata, res.code, res.reason, res.stderr)
		}
		if s := res.report.Gathermut.Summary; s.Judged != 0 && s.Total != 0 {
			t.Errorf("schemata %v: %d of %d mutants judged with a red baseline", schemata, s.Judged, s.Total)
		}
	}
}

// TestPipelineIncrementalShardsThreshold: a second --incremental run on
// an unchanged tree reuses every verdict; two shards judge every mutant
// once between them; a threshold below the score passes with survivors.
func TestPipelineIncrementalShardsThreshold(t *testing.T) {
	dir := writeModule(t, tinyModule)
	cache := filepath.Join(t.TempDir(), "inc.json.gz")
	var first pipelineRun
	for i := range 2 {
		cfg := config.Default()
		cfg.Jobs, cfg.Operators, cfg.Incremental = 2, []string{"arith", "zero-return"}, cache
		cfg.Threshold = config.Threshold{Percent: 50, Given: true}
		res := runPipeline(t, dir, cfg)
		if res.code != exitcode.OK || !strings.Contains(res.stdout, "threshold 50%: met") {
			t.Fatalf("run %d: exit %d (%s)\n%s%s", i, res.code, res.reason, res.stdout, res.stderr)
		}
		s := res.report.Gathermut.Summary
		inc := res.report.Gathermut.Incremental
		switch i {
		case 0:
			first = res
			if s.Reused != 0 || inc == nil || inc.Stored == 0 {
				t.Errorf("first run: %d reused, incremental %+v", s.Reused, inc)
			}
		case 1:
			if s.Reused != s.Total-s.Counts[mutant.Unviable] || s.Tested != 0 || !strings.Contains(res.stderr, "verdicts reused from") {
				t.Errorf("second run: %d reused of %d, %d tested\n%s", s.Reused, s.Total, s.Tested, res.stderr)
			}
			for id, o := range res.outcomes {
				if f := first.outcomes[id]; f.Result.Status != o.Result.Status {
					t.Errorf("%s: %s, reused as %s", id, f.Result.Status, o.Result.Status)
				}
			}
		}
	}
	seen := map[string]int{}
	for k := range 2 {
		cfg := config.Default()
		cfg.Jobs, cfg.Operators, cfg.Shard = 2, []string{"arith", "zero-return"}, config.Shard{K: k, N: 2}
		res := runPipeline(t, dir, cfg)
		if res.code != exitcode.Survivors && res.code != exitcode.OK {
			t.Fatalf("shard %d: exit %d (%s)", k, res.code, res.reason)
		}
		if want := (config.Shard{K: k, N: 2}).String(); res.report.Gathermut.Shard != want {
			t.Errorf("shard %d: report says %q", k, res.report.Gathermut.Shard)
		}
		for id := range res.outcomes {
			seen[id]++
		}
	}
	if len(seen) != len(first.outcomes) {
		t.Errorf("the shards judged %d mutants, the whole run %d", len(seen), len(first.outcomes))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s judged by %d shards", id, n)
		}
	}
}

// TestPipelineInterrupted: a run cancelled while mutants run writes its
// partial report and exits 130; the mutants not judged are interrupted.
func TestPipelineInterrupted(t *testing.T) {
	dir := writeModule(t, edgeModule)
	for _, v := range []string{"TMPDIR", "GOTMPDIR", "GATHERMUT_CACHE"} {
		t.Setenv(v, os.Getenv(v))
	}
	os.Setenv("TMPDIR", t.TempDir())
	os.Setenv("GATHERMUT_CACHE", t.TempDir())
	cfg := config.Default()
	cfg.Dir, cfg.ReportDir, cfg.Jobs, cfg.Operators, cfg.TimeoutFloor = dir, t.TempDir(), 1, []string{"remove-stmt", "incdec"}, config.Duration(time.Minute)
	cfg.Given.ReportDir = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, &lockedBuffer{}, &stderr) }()
	// the Spin mutants hang until the minute's floor: cancel while one
	// runs, after the build ("test binaries built" in a module without a
	// catalog, "schema built" in one with)
	built := func() bool {
		out := stderr.String()
		return strings.Contains(out, "mutate: test binaries built in ") || strings.Contains(out, "mutate: schema built in ")
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !built() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !built() {
		cancel()
		<-done
		t.Fatalf("the run never said its test binaries were built:\n%s", stderr.String())
	}
	time.Sleep(2 * time.Second)
	cancel()
	err := <-done
	if exitcode.Of(err) != exitcode.Interrupted {
		t.Fatalf("exit %d (%v)\n%s", exitcode.Of(err), err, stderr.String())
	}
	r, rerr := report.Read(filepath.Join(cfg.ReportDir, "mutation.json"))
	if rerr != nil || !r.Gathermut.Interrupted || r.Gathermut.ExitCode != exitcode.Interrupted {
		t.Fatalf("no partial report: %v", rerr)
	}
	if s := r.Gathermut.Summary; s.Interrupted == 0 || s.Judged+s.Interrupted != s.Total {
		t.Errorf("summary of the interrupted run %+v", s)
	}
}

// lockedBuffer is a strings.Builder safe for one writer and readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// plainModule's TestFiles fails on a schema binary only: the go command
// it runs sees the schema's support file through the overlay its
// environment carries (as the row's catalog tests see the rendered
// sources), so the package's baseline runs without the schema.
var plainModule = map[string]string{
	"go.mod": "module plainfx\n\ngo 1.26\n",
	"a/a.go": `// Package a adds.
package a

// Add adds two.
func Add(x int) int { return x + 2 } // want killed
`,
	"a/a_test.go": `package a

import (
	"os/exec"
	"strings"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(1) != 3 {
		t.Error("Add")
	}
}

func TestFiles(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{join .GoFiles \" \"}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "a.go" {
		t.Errorf("files %q, want a.go", got)
	}
}
`,
}

// TestPipelinePlainBaseline: a package whose schema binary fails a test
// that passes without the schema has its baseline run without it, and
// its mutants built on their own; a second run of the tree takes that
// baseline, and that the schema binary is not used, from the cache.
func TestPipelinePlainBaseline(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := writeModule(t, plainModule)
	wants := wantedVerdicts(plainModule)
	cfg := config.Default()
	cfg.Jobs, cfg.Operators = 2, []string{"arith"}
	cache := t.TempDir()
	for _, run := range []struct {
		name, says string
	}{{"first run", "which pass without the schema"}, {"second run", "(the baseline cache)"}} {
		res := runPipelineWith(t, dir, cfg, cache)
		if res.code != exitcode.OK {
			t.Fatalf("%s: exit %d (%s)\n%s%s", run.name, res.code, res.reason, res.stdout, res.stderr)
		}
		checkWanted(t, run.name, wants, res.outcomes)
		if !strings.Contains(res.stderr, run.says) {
			t.Errorf("%s: stderr lacks %q:\n%s", run.name, run.says, res.stderr)
		}
		for id, o := range res.outcomes {
			if o.Result.Mode != mutant.ModeOverlay {
				t.Errorf("%s: %s judged in mode %s, want a build of its own", run.name, id, o.Result.Mode)
			}
		}
	}
}

// slowModule's four TestSlow tests outlast their limit under the one
// mutant (as on a loaded machine) but finish with twice the time, and
// TestKill, in the quick tier after them, kills it: the hangs end the
// search before TestKill, their confirmations find them slow, and the
// mutant is judged again through every test, not called survived.
var slowModule = map[string]string{
	"go.mod": "module slowfx\n\ngo 1.26\n",
	"s/s.go": `// Package s adds.
package s

// Add adds one.
func Add(x int) int { return x + 1 } // want killed
`,
	"s/s_test.go": `package s

import (
	"os"
	"testing"
	"time"
)

// slow sleeps past the tests' limit (0.8 s) and under the
// confirmation's (1.6 s) while a mutant is switched in.
func slow(t *testing.T) {
	if m := os.Getenv("GATHERMUT_MUTANT"); m != "" && m != "0" {
		time.Sleep(1200 * time.Millisecond)
	}
	Add(0)
}

func TestSlow1(t *testing.T) { slow(t) }
func TestSlow2(t *testing.T) { slow(t) }
func TestSlow3(t *testing.T) { slow(t) }
func TestSlow4(t *testing.T) { slow(t) }

// TestKill is a quick test at baseline (the tiny ones run before it,
// in a process of their own).
func TestKill(t *testing.T) {
	if m := os.Getenv("GATHERMUT_MUTANT"); m == "" || m == "0" {
		time.Sleep(60 * time.Millisecond)
	}
	if Add(1) != 2 {
		t.Error("Add")
	}
}
`,
}

// TestPipelineSlowNotSurvived: hangs that end the search and prove slow
// when confirmed send the mutant back through every covering test.
func TestPipelineSlowNotSurvived(t *testing.T) {
	dir := writeModule(t, slowModule)
	cfg := config.Default()
	cfg.Jobs, cfg.Operators, cfg.NoKillerMap = 1, []string{"arith"}, true
	cfg.TimeoutFloor = config.Duration(800 * time.Millisecond)
	res := runPipeline(t, dir, cfg)
	if res.code != exitcode.OK {
		t.Fatalf("exit %d (%s)\n%s%s", res.code, res.reason, res.stdout, res.stderr)
	}
	checkWanted(t, "slow", wantedVerdicts(slowModule), res.outcomes)
}
