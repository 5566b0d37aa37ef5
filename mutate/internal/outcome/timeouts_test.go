package outcome

import (
	"testing"

	"gathermut/mutate/mutant"
)

// TestTimeoutCounts: the summary keeps confirmed timeouts and slow
// mutants apart from the other verdicts, and words them only when a
// timeout ran again alone.
func TestTimeoutCounts(t *testing.T) {
	with := func(id string, st mutant.Status, rerun mutant.TimeoutRerun) mutant.Outcome {
		o := outcome(id, st, "")
		o.Result.Timeout = rerun
		return o
	}
	for _, c := range []struct {
		name            string
		outcomes        []mutant.Outcome
		confirmed, slow int
		text            string
	}{
		{"none ran again", []mutant.Outcome{with("a", mutant.TimedOut, ""), with("b", mutant.Killed, "")}, 0, 0, "1 timed out"},
		{"confirmed", []mutant.Outcome{with("a", mutant.TimedOut, mutant.TimeoutConfirmed), with("b", mutant.TimedOut, "")}, 1, 0,
			"2 timed out (1 confirmed)"},
		{"slow, killed and survived", []mutant.Outcome{with("a", mutant.Killed, mutant.TimeoutSlow), with("b", mutant.Survived, mutant.TimeoutSlow),
			with("c", mutant.TimedOut, mutant.TimeoutConfirmed)}, 1, 2, "1 timed out (1 confirmed), 2 slow (then killed or survived)"},
		{"an interrupted mutant is not counted", []mutant.Outcome{with("a", mutant.Interrupted, mutant.TimeoutSlow)}, 0, 0, "0 timed out"},
	} {
		s := Summarize(c.outcomes)
		if s.Confirmed != c.confirmed || s.Slow != c.slow {
			t.Errorf("%s: %d confirmed, %d slow; want %d and %d", c.name, s.Confirmed, s.Slow, c.confirmed, c.slow)
		}
		if got := TimeoutCounts(s); got != c.text {
			t.Errorf("%s: %q, want %q", c.name, got, c.text)
		}
	}
}
