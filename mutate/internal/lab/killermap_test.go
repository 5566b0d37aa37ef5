package lab

import (
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// tableModule is table-driven: TestTable checks each codec in a subtest
// of its name, TestSuite stands for a whole-suite nested test (slow at
// baseline: it sleeps past selection.TailTest when no mutant is switched
// in, as a module copy and a go test would take), and only it checks
// Hidden.
var tableModule = map[string]string{
	"go.mod": "module table\n\ngo 1.26\n",
	"codec/codec.go": `// Package codec has one function per codec.
package codec

// A decodes codec A.
func A(x int) int { return (x + 1) * 2 } // want killed

// B decodes codec B.
func B(x int) int { return (x + 3) * 5 } // want killed

// Hidden is checked only by the whole-suite test.
func Hidden(x int) int { return x - 7 } // want killed

// Sum adds 1..n: its i-- mutant hangs TestSumHangs and fails
// TestSumBounded, the next test of the same process: killed, though
// the hang stops the process before TestSumBounded starts.
func Sum(n int) int {
	s := 0
	for i := 1; i <= n; i++ { // want killed
		s += i
	}
	return s
}

// Count counts n down to zero: its n++ mutant never ends (timed out;
// a second run of the same tree neither runs it again alone nor runs
// its other covering test after the hang).
func Count(n int) int {
	c := 0
	for n > 0 {
		n-- // want timeout
		c++ // want killed
	}
	return c
}
`,
	"codec/codec_test.go": `package codec

import (
	"os"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	for _, c := range []struct {
		name      string
		f         func(int) int
		in, want  int
	}{{"A", A, 1, 4}, {"B", B, 2, 25}} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f(c.in); got != c.want {
				t.Errorf("%s(%d) = %d, want %d", c.name, c.in, got, c.want)
			}
		})
	}
}

// baseline sleeps at baseline only (no mutant switched in), so that
// the Sum tests share the quick tier's process and TestSumBounded's
// limit outlasts its own bound.
func baseline(d time.Duration) {
	if m := os.Getenv("GATHERMUT_MUTANT"); m == "" || m == "0" {
		time.Sleep(d)
	}
}

func TestSumHangs(t *testing.T) {
	baseline(40 * time.Millisecond)
	if Sum(2) != 3 {
		t.Error("Sum(2)")
	}
}

func TestSumBounded(t *testing.T) {
	baseline(150 * time.Millisecond)
	done := make(chan int, 1)
	go func() { done <- Sum(3) }()
	select {
	case got := <-done:
		if got != 6 {
			t.Errorf("Sum(3) = %d", got)
		}
	case <-time.After(300 * time.Millisecond):
		t.Fatal("Sum(3) did not return")
	}
}

func TestCount(t *testing.T) {
	if got := Count(3); got != 3 {
		t.Errorf("Count(3) = %d", got)
	}
}

// TestCountBounded covers Count's loop and passes under the n++ mutant
// (it waits 50 ms at most): after the hang it is run on the first run,
// not on a second run of the same tree.
func TestCountBounded(t *testing.T) {
	done := make(chan int, 1)
	go func() { done <- Count(1) }()
	select {
	case <-done:
	case <-time.After(50 * time.Millisecond):
	}
}

func TestSuite(t *testing.T) {
	baseline(3500 * time.Millisecond)
	if Hidden(10) != 3 || A(0) != 2 {
		t.Error("the suite")
	}
}
`,
}

// runTable runs tableModule's mutants with arith and incdec, the
// killer map on or off, its caches in cache.
func runTable(t *testing.T, dir, cache string, noMap bool) pipelineRun {
	t.Helper()
	cfg := config.Default()
	cfg.Jobs, cfg.Operators, cfg.NoKillerMap = 1, []string{"arith", "incdec"}, noMap
	res := runPipelineWith(t, dir, cfg, cache)
	if res.code != exitcode.OK {
		t.Fatalf("exit %d (%s)\n%s%s", res.code, res.reason, res.stdout, res.stderr)
	}
	return res
}

// runPatterns are the -test.run patterns of a mutant's test processes.
func runPatterns(o mutant.Outcome) []string {
	var out []string
	for _, c := range o.Result.Commands {
		if _, after, ok := strings.Cut(c, "-test.run "); ok {
			out = append(out, strings.Trim(strings.Fields(after)[0], "'"))
		}
	}
	return out
}

// TestPipelineKillerMap: verdicts are the same with the killer map and
// without it; on the second run a mutant runs its killing subtest alone
// first (its own entry; selection's tests cover learning within a run,
// which here depends on which mutants the workers take together); the
// whole-suite test runs only for the mutants nothing cheaper kills, after
// every other test; a mutant that hangs one test and fails another is
// killed, though the hanging test runs first.
func TestPipelineKillerMap(t *testing.T) {
	dir := writeModule(t, tableModule)
	wants := wantedVerdicts(tableModule)
	cache := t.TempDir()
	first := runTable(t, dir, cache, false)
	checkWanted(t, "first run", wants, first.outcomes)
	second := runTable(t, dir, cache, false)
	// the same caches: the baseline (TestSuite's sleep) comes from them,
	// and with the map off nothing of the map is read
	plain := runTable(t, dir, cache, true)
	for id, o := range plain.outcomes {
		for _, run := range []pipelineRun{first, second} {
			if got := run.outcomes[id].Result.Status; got != o.Result.Status {
				t.Errorf("%s: %s with the killer map, %s without", id, got, o.Result.Status)
			}
		}
	}
	for _, c := range []struct {
		name      string
		run       pipelineRun
		predicted bool
	}{{"second run", second, true}, {"without the map", plain, false}} {
		o := c.run.report.Gathermut.Timing.Order
		if o == nil || (o.Predicted > 0) != c.predicted || (o.PredictedKills > 0) != c.predicted || (o.Tiers == 0) == !c.predicted {
			t.Errorf("%s: processes by step %+v, want predicted killers run: %v", c.name, o, c.predicted)
		}
	}
	subtestFirst := map[string]string{"codec.A": `^TestTable$/^A$`, "codec.B": `^TestTable$/^B$`}
	for id, o := range second.outcomes {
		pats := runPatterns(o)
		if len(pats) == 0 {
			t.Fatalf("%s ran no test process: %v", id, o.Result.Commands)
		}
		want := subtestFirst[o.Mutant.Package[len("table/"):]+"."+o.Mutant.Func]
		switch o.Mutant.Func {
		case "Hidden":
			want = `^TestSuite$`
		case "Sum":
			want = `^TestSumBounded$`
		case "Count":
			want = `^TestCount$`
		}
		if pats[0] != want {
			t.Errorf("second run: %s first ran %q, want %q; covered by %v\n%v", id, pats[0], want, o.Result.CoveredBy, o.Result.Commands)
		}
	}
	for id, o := range first.outcomes {
		pats := runPatterns(o)
		suite := slices.IndexFunc(pats, func(p string) bool { return strings.Contains(p, "TestSuite") })
		switch {
		case o.Mutant.Func == "Hidden" && suite != len(pats)-1:
			t.Errorf("first run: %s ran the whole-suite test before others: %q", id, pats)
		case o.Mutant.Func != "Hidden" && o.Mutant.Func != "Sum" && suite >= 0:
			t.Errorf("first run: %s ran the whole-suite test though TestTable kills it: %q", id, pats)
		}
	}
	checkHangConfirmed(t, first, second, plain)
}

// checkHangConfirmed: tableModule's hang is confirmed by a rerun alone on
// the first run and without the map; on the second run of the same tree
// the map's record of that confirmation stands for the rerun.
func checkHangConfirmed(t *testing.T, first, second, plain pipelineRun) {
	t.Helper()
	for _, c := range []struct {
		name string
		run  pipelineRun
		want mutant.TimeoutRerun
	}{{"first run", first, mutant.TimeoutConfirmed}, {"second run", second, mutant.TimeoutKnown}, {"without the map", plain, mutant.TimeoutConfirmed}} {
		hung := 0
		for id, o := range c.run.outcomes {
			if o.Result.Status != mutant.TimedOut {
				continue
			}
			hung++
			if o.Result.Timeout != c.want {
				t.Errorf("%s: %s timed out with rerun %q, want %q: %s", c.name, id, o.Result.Timeout, c.want, o.Result.Why)
			}
			if pats := runPatterns(o); c.want == mutant.TimeoutKnown && len(pats) != 1 {
				t.Errorf("%s: %s ran %d test processes, want the one that hung: %q", c.name, id, len(pats), pats)
			}
		}
		if hung != 1 {
			t.Errorf("%s: %d mutants timed out, want Count's n++", c.name, hung)
		}
		if reruns := c.run.report.Gathermut.Timing.Reruns; (reruns == 0) != (c.want == mutant.TimeoutKnown) {
			t.Errorf("%s: %d timed-out processes run again alone", c.name, reruns)
		}
	}
}
