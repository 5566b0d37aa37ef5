package report

import (
	"fmt"
	"strings"
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

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
			code, reason := ExitCode(Summarize(c.outcomes), Conditions{Threshold: c.th})
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
		code, reason := ExitCode(Summarize(append(scoreOutcomes(9, 1), c.extra)), c.cond)
		if code != c.code {
			t.Errorf("%s: exit %d (%s), want %d whatever the threshold", c.extra.Mutant.ID, code, reason, c.code)
		}
	}
	// Decide takes the configured threshold; the markdown states it
	r := Build(Meta{Name: "t", Config: config.Config{Threshold: th(85)}}, scoreOutcomes(17, 3), Inputs{})
	r.Decide(Conditions{})
	if r.Gathermut.ExitCode != exitcode.OK {
		t.Errorf("Decide: exit %d (%s)", r.Gathermut.ExitCode, r.Gathermut.Reason)
	}
	if md := Markdown(r); !strings.Contains(md, "| Score | Threshold |") || !strings.Contains(md, "| 85.0% | 85% (met) |") {
		t.Errorf("markdown does not state the threshold:\n%s", md[:min(len(md), 1500)])
	}
}
