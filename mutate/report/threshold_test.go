package report

import (
	"fmt"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

// TestMarkdownThreshold: Decide takes the configured threshold, and the
// markdown states it.
func TestMarkdownThreshold(t *testing.T) {
	th := func(p float64) config.Threshold { return config.Threshold{Percent: p, Given: true} }
	r := Build(Meta{Name: "t", Config: config.Config{Threshold: th(85)}}, scoreOutcomes(17, 3), Inputs{})
	r.Decide(outcome.Conditions{})
	if r.Gathermut.ExitCode != exitcode.OK {
		t.Errorf("Decide: exit %d (%s)", r.Gathermut.ExitCode, r.Gathermut.Reason)
	}
	if md := Markdown(r); !strings.Contains(md, "| Score | Threshold |") || !strings.Contains(md, "| 85.0% | 85% (met) |") {
		t.Errorf("markdown does not state the threshold:\n%s", md[:min(len(md), 1500)])
	}
}

// scoreOutcomes makes killed and survived generic mutants.
func scoreOutcomes(killed, survived int) []mutant.Outcome {
	var out []mutant.Outcome
	for i := 0; i < killed; i++ {
		out = append(out, mkOutcome(fmt.Sprintf("k%d", i), mutant.Killed, ""))
	}
	for i := 0; i < survived; i++ {
		out = append(out, mkOutcome(fmt.Sprintf("s%d", i), mutant.Survived, ""))
	}
	return out
}
