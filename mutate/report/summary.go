package report

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/mutant"
)

// Exit codes of the mutate command, most important first when several
// apply.
const (
	ExitOK          = 0   // nothing survived; every catalog mutant was killed by an expected test
	ExitSurvivors   = 1   // a mutant survived
	ExitUsage       = 2   // bad command line
	ExitBaseline    = 3   // the unmutated tests fail
	ExitTimeouts    = 4   // a mutant timed out (and nothing worse happened)
	ExitCatalog     = 5   // a catalog mutant was not killed by its expected test
	ExitErrors      = 6   // a mutant could not be judged (tool error, no test ran)
	ExitTreeChanged = 7   // the source tree differs after the run
	ExitConfig      = 8   // the module, catalog or a suppression comment is invalid
	ExitInterrupted = 130 // interrupted (Ctrl-C); the partial report is written
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
	// ExitTimeouts). Otherwise a timeout counts as detected, as in the
	// score: the tests did not pass under the mutant, they hung.
	StrictTimeouts bool
}

// ExitCode picks the exit code and says why in one line.
func ExitCode(s Summary, c Conditions) (int, string) {
	var reasons []string
	code := ExitOK
	pick := func(c int) {
		if code == ExitOK {
			code = c
		}
	}
	if c.TreeChanged {
		pick(ExitTreeChanged)
		reasons = append(reasons, "the source tree changed during the run")
	}
	if c.BaselineRed {
		pick(ExitBaseline)
		reasons = append(reasons, "the baseline is failing: "+c.BaselineNote)
	}
	if c.Interrupted {
		pick(ExitInterrupted)
		reasons = append(reasons, "interrupted")
	}
	if n := len(s.CatalogFailures); n > 0 {
		pick(ExitCatalog)
		reasons = append(reasons, fmt.Sprintf("%d catalog mutant(s) not killed by an expected test (%s)", n, strings.Join(s.CatalogFailures, ", ")))
	}
	if n := s.Counts[mutant.Survived]; n > 0 {
		pick(ExitSurvivors)
		reasons = append(reasons, fmt.Sprintf("%d survived", n))
	}
	if n := s.Counts[mutant.TimedOut]; n > 0 {
		if c.StrictTimeouts {
			pick(ExitTimeouts)
			reasons = append(reasons, fmt.Sprintf("%d timed out", n))
		} else {
			reasons = append(reasons, fmt.Sprintf("%d timed out (the tests hung: counted as detected)", n))
		}
	}
	if n := s.Counts[mutant.Error]; n > 0 {
		pick(ExitErrors)
		reasons = append(reasons, fmt.Sprintf("%d error(s)", n))
	}
	if n := s.Counts[mutant.NotRun]; n > 0 {
		reasons = append(reasons, fmt.Sprintf("%d not run", n))
	}
	if code == ExitOK {
		return code, fmt.Sprintf("ok: %d mutants, none survived and every catalog mutant was killed by its expected test (%s)", s.Total, strings.Join(append([]string{"score " + FormatScore(s)}, reasons...), "; "))
	}
	return code, strings.Join(reasons, "; ")
}

// FormatScore prints the score, or "n/a" when no mutant was judged (every
// one was unviable, not run, an error or ignored).
func FormatScore(s Summary) string {
	if s.Judged == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", s.Score)
}
