package outcome

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/mutant"
)

// Summary counts outcomes.
//
// A mutant is judged when it has a verdict: every status but Interrupted
// (a mutant the run was interrupted before judging). Counts, the score
// and the catalog figures cover judged mutants only. Tested counts the
// judged mutants this run built or ran tests for (killed, survived under
// tests that ran, timed out, failed to compile, error or not run after
// its tests were started): not the ignored ones, not those found unviable
// by the type checker, not those no test covers (the baseline decides
// them without a build), not verdicts reused from the incremental cache.
// Tested over the mutant phase's time is the rate a report gives.
type Summary struct {
	Total       int                   `json:"total"`  // every mutant of the run
	Judged      int                   `json:"judged"` // with a verdict: Total less Interrupted
	Interrupted int                   `json:"interrupted,omitempty"`
	Counts      map[mutant.Status]int `json:"counts"` // judged mutants by verdict
	// NotCovered counts the survivors no test executes (Why
	// mutant.NotCovered): they are in Counts[survived], the verdict, but
	// every report shows them apart (Survivors: the others, which the
	// tests ran and missed).
	NotCovered      int      `json:"notCovered,omitempty"`
	Reused          int      `json:"reused,omitempty"`
	Tested          int      `json:"tested"`
	CatalogTotal    int      `json:"catalogTotal"`
	CatalogJudged   int      `json:"catalogJudged"`             // catalog mutants with a verdict other than not run
	CatalogFailures []string `json:"catalogFailures,omitempty"` // ids
	Unexpected      []string `json:"unexpected,omitempty"`      // catalog ids killed only by unexpected tests
	Score           float64  `json:"score"`                     // percent
	Scored          int      `json:"scored"`                    // killed + timed out + survived: the score's denominator
	// Confirmed counts the timed-out mutants whose test process, run
	// again alone with twice the time, timed out again; Slow the mutants
	// whose test process timed out among the others and then finished
	// alone (killed or survived: counted there too).
	Confirmed int `json:"confirmedTimeouts,omitempty"`
	Slow      int `json:"slow,omitempty"`
}

// Summarize counts outcomes. The score is (killed + timed out) / (killed +
// timed out + survived), the mutation-testing-elements definition: unviable,
// not run, error, ignored and interrupted mutants are outside it.
func Summarize(outcomes []mutant.Outcome) Summary {
	s := Summary{Counts: map[mutant.Status]int{}}
	for _, o := range outcomes {
		s.Total++
		r := o.Result
		if r.Status == mutant.Interrupted {
			s.Interrupted++
			if o.Mutant.Catalog != nil {
				s.CatalogTotal++
			}
			continue
		}
		s.Judged++
		s.Counts[r.Status]++
		if r.Status == mutant.Survived && r.Why == mutant.NotCovered {
			s.NotCovered++
		}
		switch {
		case (r.Timeout == mutant.TimeoutConfirmed || r.Timeout == mutant.TimeoutKnown) && r.Status == mutant.TimedOut:
			s.Confirmed++
		case r.Timeout == mutant.TimeoutSlow:
			s.Slow++
		}
		if r.Reused {
			s.Reused++
		} else if Tested(o) {
			s.Tested++
		}
		if o.Mutant.Catalog != nil {
			s.CatalogTotal++
			if r.Status != mutant.NotRun {
				s.CatalogJudged++
			}
			if r.CatalogFailure(o.Mutant) {
				s.CatalogFailures = append(s.CatalogFailures, o.Mutant.ID)
			}
			if r.Status == mutant.Killed && !r.ExpectedKiller {
				s.Unexpected = append(s.Unexpected, o.Mutant.ID)
			}
		}
	}
	sort.Strings(s.CatalogFailures)
	sort.Strings(s.Unexpected)
	detected := s.Counts[mutant.Killed] + s.Counts[mutant.TimedOut]
	s.Scored = detected + s.Counts[mutant.Survived]
	if s.Scored > 0 {
		s.Score = 100 * float64(detected) / float64(s.Scored)
	}
	return s
}

// Survivors counts the survivors the tests ran and missed: the
// survived verdicts less those no test covers (NotCovered).
func (s Summary) Survivors() int { return s.Counts[mutant.Survived] - s.NotCovered }

// SurvivedText says how many mutants survived, the ones no test covers
// apart: "3 mutants survived", "2 mutants survived, 1 not covered by any
// test", "1 mutant not covered by any test".
func SurvivedText(s Summary) string {
	var parts []string
	if n := s.Survivors(); n > 0 || s.NotCovered == 0 {
		parts = append(parts, plural(n, "mutant", "mutants")+" survived")
	}
	if s.NotCovered > 0 {
		nc := plural(s.NotCovered, "mutant", "mutants") + " " + mutant.NotCovered
		if len(parts) > 0 {
			nc = fmt.Sprintf("%d %s", s.NotCovered, mutant.NotCovered)
		}
		parts = append(parts, nc)
	}
	return strings.Join(parts, ", ")
}

// Tested reports whether this run built or tested the mutant to judge it
// (see Summary).
func Tested(o mutant.Outcome) bool {
	m, r := o.Mutant, o.Result
	switch {
	case r.Reused, r.Status == mutant.Interrupted, r.Status == mutant.Ignored:
		return false
	case m.State == mutant.Unbuildable, m.State == mutant.Invalid:
		return false // decided before any build
	case r.Status == mutant.Survived && r.Why == mutant.NotCovered:
		return false // decided by the baseline's coverage
	case r.Status == mutant.NotRun || r.Status == mutant.Error:
		return len(r.Commands) > 0 // it got as far as a build or a test run
	}
	return true
}

// FormatScore prints the score, or "n/a" when no mutant was scored (every
// one was unviable, not run, an error, ignored or interrupted).
func FormatScore(s Summary) string {
	if s.Scored == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", s.Score)
}

// TimeoutCounts words a summary's timeouts: "3 timed out (2 confirmed),
// 1 slow (then killed or survived)"; just "3 timed out" when no timeout
// ran again alone.
func TimeoutCounts(s Summary) string {
	out := fmt.Sprintf("%d timed out", s.Counts[mutant.TimedOut])
	if s.Confirmed > 0 {
		out += fmt.Sprintf(" (%d confirmed)", s.Confirmed)
	}
	if s.Slow > 0 {
		out += fmt.Sprintf(", %d slow (then killed or survived)", s.Slow)
	}
	return out
}
