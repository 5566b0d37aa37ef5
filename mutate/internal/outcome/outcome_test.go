package outcome

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

func outcome(id string, st mutant.Status, why string) mutant.Outcome {
	return mutant.Outcome{
		Mutant: mutant.Mutant{ID: id, Operator: "arith", Package: "m/p", File: "p/p.go", Func: "F", Pos: mutant.Position{Line: 3, Column: 9},
			End: mutant.Position{Line: 3, Column: 14}, Original: "a + b", Replacement: "a - b"},
		Result: mutant.Result{Status: st, Why: why, Duration: 1500 * time.Millisecond},
	}
}

func sample() []mutant.Outcome {
	cat := outcome("cat-entry", mutant.Killed, "killed by an unexpected test: m/p.TestB; expected m/p.TestA")
	cat.Mutant.Catalog = &catalog.Entry{ID: "cat-entry", Class: 3, Reason: "why"}
	cat.Mutant.Expected = []mutant.TestID{{Package: "m/p", Name: "TestA"}}
	cat.Result.KilledBy = []string{"m/p.TestB"}
	killed := outcome("arith:p/p.go:3:9:aaaa", mutant.Killed, "")
	killed.Result.KilledBy = []string{"m/p.TestA"}
	return []mutant.Outcome{
		killed,
		outcome("arith:p/p.go:3:9:bbbb", mutant.Survived, mutant.NotCovered),
		outcome("arith:p/p.go:3:9:cccc", mutant.Survived, "every selected test passed (1 ran)"),
		outcome("arith:p/p.go:3:9:dddd", mutant.TimedOut, "timed out"),
		outcome("arith:p/p.go:3:9:eeee", mutant.NotRun, "no compiler"),
		outcome("arith:p/p.go:3:9:ffff", mutant.Unviable, "does not compile"),
		outcome("arith:p/p.go:3:9:gggg", mutant.Error, "no test ran"),
		outcome("arith:p/p.go:3:9:hhhh", mutant.Ignored, "equivalent: x"),
		cat,
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize(sample())
	// detected: 2 killed + 1 timeout; valid: + 2 survived
	if s.Total != 9 || s.Score != 60 || len(s.CatalogFailures) != 1 || len(s.Unexpected) != 1 || s.Counts[mutant.Survived] != 2 {
		t.Errorf("summary %+v", s)
	}
}

func TestDecide(t *testing.T) {
	s := Summarize(sample())
	for _, c := range []struct {
		cond Conditions
		sum  Summary
		code exitcode.Code
	}{
		{Conditions{TreeChanged: []string{"p/p.go"}, BaselineRed: true}, s, exitcode.TreeChanged},
		{Conditions{BaselineRed: true, Interrupted: true}, s, exitcode.Baseline},
		{Conditions{Interrupted: true}, s, exitcode.Interrupted},
		{Conditions{}, s, exitcode.Catalog},
		{Conditions{}, Summarize(sample()[:4]), exitcode.Survivors},
		{Conditions{StrictTimeouts: true}, Summarize([]mutant.Outcome{outcome("a", mutant.TimedOut, ""), outcome("b", mutant.Error, "")}), exitcode.Timeouts},
		{Conditions{}, Summarize([]mutant.Outcome{outcome("a", mutant.TimedOut, ""), outcome("b", mutant.Error, "")}), exitcode.Errors},
		{Conditions{}, Summarize([]mutant.Outcome{outcome("a", mutant.TimedOut, ""), outcome("b", mutant.Killed, "")}), exitcode.OK},
		{Conditions{}, Summarize([]mutant.Outcome{outcome("b", mutant.Error, "")}), exitcode.Errors},
		{Conditions{}, Summarize([]mutant.Outcome{outcome("a", mutant.Killed, ""), outcome("b", mutant.NotRun, "no compiler")}), exitcode.OK},
	} {
		code, reason := Decide(c.sum, c.cond)
		if code != c.code || reason == "" {
			t.Errorf("%+v: exit %d (%s), want %d", c.cond, code, reason, c.code)
		}
	}
	if _, reason := Decide(Summarize([]mutant.Outcome{outcome("b", mutant.NotRun, "x")}), Conditions{}); !strings.Contains(reason, "1 not run") {
		t.Errorf("ok reason does not say what did not run: %s", reason)
	}
}

// TestScoreWithoutJudgedMutants: a package whose mutants all did not run
// has no score, not 0%.
func TestScoreWithoutJudgedMutants(t *testing.T) {
	s := Summarize([]mutant.Outcome{{Result: mutant.Result{Status: mutant.NotRun}}, {Result: mutant.Result{Status: mutant.Unviable}}})
	if s.Scored != 0 || FormatScore(s) != "n/a" {
		t.Errorf("scored %d, score %q; want 0, n/a", s.Scored, FormatScore(s))
	}
	s = Summarize([]mutant.Outcome{{Result: mutant.Result{Status: mutant.Killed}}, {Result: mutant.Result{Status: mutant.Survived}}, {Result: mutant.Result{Status: mutant.NotRun}}})
	if s.Scored != 2 || s.Judged != 3 || FormatScore(s) != "50.0%" {
		t.Errorf("scored %d, judged %d, score %q; want 2, 3, 50.0%%", s.Scored, s.Judged, FormatScore(s))
	}
}

// scoreOutcomes makes killed and survived generic mutants.
func scoreOutcomes(killed, survived int) []mutant.Outcome {
	var out []mutant.Outcome
	for i := 0; i < killed; i++ {
		out = append(out, outcome(fmt.Sprintf("k%d", i), mutant.Killed, ""))
	}
	for i := 0; i < survived; i++ {
		out = append(out, outcome(fmt.Sprintf("s%d", i), mutant.Survived, ""))
	}
	return out
}

func TestThreshold(t *testing.T) {
	th := func(p float64) config.Threshold { return config.Threshold{Percent: p, Given: true} }
	for _, c := range []struct {
		name     string
		outcomes []mutant.Outcome
		th       config.Threshold
		code     exitcode.Code
		reason   string
	}{
		{"no threshold: any survivor fails", scoreOutcomes(99, 1), config.Threshold{}, exitcode.Survivors, "1 mutant survived"},
		{"met exactly", scoreOutcomes(17, 3), th(85), exitcode.OK, "ok: 20 mutants judged; score 85.0% (threshold 85%: met); 3 mutants survived, within the threshold"},
		{"just below, though it rounds to it", scoreOutcomes(1699, 301), th(85), exitcode.Survivors, "score 84.95% is below the threshold 85% (301 mutants survived)"},
		{"zero passes anything scored", scoreOutcomes(0, 5), th(0), exitcode.OK, "score 0.0% (threshold 0%: met)"},
		{"nothing survived", scoreOutcomes(5, 0), th(100), exitcode.OK, "score 100.0% (threshold 100%: met: nothing survived)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, reason := Decide(Summarize(c.outcomes), Conditions{Threshold: c.th})
			if code != c.code || !strings.Contains(reason, c.reason) {
				t.Errorf("exit %d %q, want %d containing %q", code, reason, c.code, c.reason)
			}
		})
	}
	// no threshold relaxes a catalog mutant not killed by its expected test,
	// an error, or a timeout under --strict-timeouts
	cat := outcome("cat", mutant.Killed, "")
	cat.Mutant.Catalog = &catalog.Entry{ID: "cat"}
	cat.Result.ExpectedKiller = false
	for _, c := range []struct {
		extra mutant.Outcome
		cond  Conditions
		code  exitcode.Code
	}{
		{cat, Conditions{}, exitcode.Catalog},
		{outcome("e", mutant.Error, "boom"), Conditions{}, exitcode.Errors},
		{outcome("to", mutant.TimedOut, ""), Conditions{StrictTimeouts: true}, exitcode.Timeouts},
	} {
		c.cond.Threshold = th(0)
		code, reason := Decide(Summarize(append(scoreOutcomes(9, 1), c.extra)), c.cond)
		if code != c.code {
			t.Errorf("%s: exit %d (%s), want %d whatever the threshold", c.extra.Mutant.ID, code, reason, c.code)
		}
	}
}
