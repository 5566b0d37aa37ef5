package report

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// Summary counts outcomes.
type Summary struct {
	Total           int                   `json:"total"`
	Counts          map[mutant.Status]int `json:"counts"`
	CatalogTotal    int                   `json:"catalogTotal"`
	CatalogFailures []string              `json:"catalogFailures,omitempty"` // ids
	Unexpected      []string              `json:"unexpected,omitempty"`      // catalog ids killed only by unexpected tests
	Score           float64               `json:"score"`                     // percent
	Judged          int                   `json:"judged"`                    // killed + timed out + survived: the score's denominator
}

// Summarize counts outcomes. The score is (killed + timed out) / (killed +
// timed out + survived), the mutation-testing-elements definition: unviable,
// not run, error and ignored mutants are outside it.
func Summarize(outcomes []mutant.Outcome) Summary {
	s := Summary{Counts: map[mutant.Status]int{}}
	for _, o := range outcomes {
		s.Total++
		s.Counts[o.Result.Status]++
		if o.Mutant.Catalog != nil {
			s.CatalogTotal++
			if o.Result.CatalogFailure(o.Mutant) {
				s.CatalogFailures = append(s.CatalogFailures, o.Mutant.ID)
			}
			if o.Result.Status == mutant.Killed && !o.Result.ExpectedKiller {
				s.Unexpected = append(s.Unexpected, o.Mutant.ID)
			}
		}
	}
	sort.Strings(s.CatalogFailures)
	sort.Strings(s.Unexpected)
	detected := s.Counts[mutant.Killed] + s.Counts[mutant.TimedOut]
	s.Judged = detected + s.Counts[mutant.Survived]
	if s.Judged > 0 {
		s.Score = 100 * float64(detected) / float64(s.Judged)
	}
	return s
}

// Conditions that decide the exit code besides the outcomes.
type Conditions struct {
	TreeChanged  bool
	BaselineRed  bool
	Interrupted  bool
	BaselineNote string
	// StrictTimeouts makes a timed-out generic mutant fail the run (exit
	// exitcode.Timeouts). Otherwise a timeout counts as detected, as in the
	// score: the tests did not pass under the mutant, they hung.
	StrictTimeouts bool
}

// ExitCode picks the exit code and says why in one line: every condition
// that applies is listed, and the code is the first of them in
// exitcode.Priority order.
func ExitCode(s Summary, c Conditions) (exitcode.Code, string) {
	var reasons []string
	applies := map[exitcode.Code]bool{}
	add := func(code exitcode.Code, reason string) {
		if code != exitcode.OK {
			applies[code] = true
		}
		reasons = append(reasons, reason)
	}
	if c.TreeChanged {
		add(exitcode.TreeChanged, "the source tree changed during the run")
	}
	if c.BaselineRed {
		add(exitcode.Baseline, "the baseline is failing: "+c.BaselineNote)
	}
	if c.Interrupted {
		add(exitcode.Interrupted, "interrupted")
	}
	if n := len(s.CatalogFailures); n > 0 {
		add(exitcode.Catalog, fmt.Sprintf("%d catalog mutant(s) not killed by an expected test (%s)", n, strings.Join(s.CatalogFailures, ", ")))
	}
	if n := s.Counts[mutant.Survived]; n > 0 {
		add(exitcode.Survivors, fmt.Sprintf("%d survived", n))
	}
	if n := s.Counts[mutant.TimedOut]; n > 0 {
		if c.StrictTimeouts {
			add(exitcode.Timeouts, fmt.Sprintf("%d timed out", n))
		} else {
			add(exitcode.OK, fmt.Sprintf("%d timed out (the tests hung: counted as detected)", n))
		}
	}
	if n := s.Counts[mutant.Error]; n > 0 {
		add(exitcode.Errors, fmt.Sprintf("%d error(s)", n))
	}
	if n := s.Counts[mutant.NotRun]; n > 0 {
		add(exitcode.OK, fmt.Sprintf("%d not run", n))
	}
	for _, code := range exitcode.Priority() {
		if applies[code] {
			return code, strings.Join(reasons, "; ")
		}
	}
	return exitcode.OK, fmt.Sprintf("ok: %d mutants, none survived and every catalog mutant was killed by its expected test (%s)", s.Total, strings.Join(append([]string{"score " + FormatScore(s)}, reasons...), "; "))
}

// FormatScore prints the score, or "n/a" when no mutant was judged (every
// one was unviable, not run, an error or ignored).
func FormatScore(s Summary) string {
	if s.Judged == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", s.Score)
}
