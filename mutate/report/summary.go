package report

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
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
	// NotCovered counts the survivors no test executes (Why NotCovered):
	// they are in Counts[survived], the verdict, but every report shows
	// them apart (Survivors: the others, which the tests ran and missed).
	NotCovered      int      `json:"notCovered,omitempty"`
	Reused          int      `json:"reused,omitempty"`
	Tested          int      `json:"tested"`
	CatalogTotal    int      `json:"catalogTotal"`
	CatalogJudged   int      `json:"catalogJudged"`             // catalog mutants with a verdict other than not run
	CatalogFailures []string `json:"catalogFailures,omitempty"` // ids
	Unexpected      []string `json:"unexpected,omitempty"`      // catalog ids killed only by unexpected tests
	Score           float64  `json:"score"`                     // percent
	Scored          int      `json:"scored"`                    // killed + timed out + survived: the score's denominator
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
		if r.Status == mutant.Survived && r.Why == NotCovered {
			s.NotCovered++
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
		nc := plural(s.NotCovered, "mutant", "mutants") + " " + NotCovered
		if len(parts) > 0 {
			nc = fmt.Sprintf("%d %s", s.NotCovered, NotCovered)
		}
		parts = append(parts, nc)
	}
	return strings.Join(parts, ", ")
}

// CountsText is the counts part of the summary line a run prints:
// "40 killed, 2 survived, 1 not covered, 0 timed out, 3 unviable, 0 not
// run, 0 errors, 1 ignored".
func CountsText(s Summary) string {
	return fmt.Sprintf("%d killed, %d survived, %d not covered, %d timed out, %d unviable, %d not run, %d errors, %d ignored",
		s.Counts[mutant.Killed], s.Survivors(), s.NotCovered, s.Counts[mutant.TimedOut], s.Counts[mutant.Unviable],
		s.Counts[mutant.NotRun], s.Counts[mutant.Error], s.Counts[mutant.Ignored])
}

// Tested reports whether this run built or tested the mutant to judge it
// (see Summary).
func Tested(o mutant.Outcome) bool {
	m, r := o.Mutant, o.Result
	switch {
	case r.Reused, r.Status == mutant.Interrupted, r.Status == mutant.Ignored:
		return false
	case m.Unviable != "", m.Invalid != "":
		return false // decided before any build
	case r.Status == mutant.Survived && r.Why == NotCovered:
		return false // decided by the baseline's coverage
	case r.Status == mutant.NotRun || r.Status == mutant.Error:
		return len(r.Commands) > 0 // it got as far as a build or a test run
	}
	return true
}

// Rate is the mutants-per-minute figure: mutants tested over the time
// spent judging them, the schema builds and the mutant phase (up to an
// interrupt); 0 when nothing was tested.
func Rate(s Summary, t Timing) float64 {
	spent := t.SchemaBuilds + t.Mutants
	if s.Tested == 0 || spent <= 0 {
		return 0
	}
	return float64(s.Tested) / spent * 60
}

// Conditions that decide the exit code besides the outcomes.
type Conditions struct {
	TreeChanged  []string // files that differ after the run
	BaselineRed  bool
	BaselineNote string
	Interrupted  bool
	// StrictTimeouts makes a timed-out generic mutant fail the run (exit
	// exitcode.Timeouts). Otherwise a timeout counts as detected, as in the
	// score: the tests did not pass under the mutant, they hung.
	StrictTimeouts bool
	// Catalog says the run had a catalog configured (the row's setting):
	// only then does an ok reason speak of catalog mutants, even when
	// none was in the run.
	Catalog bool
	// Threshold lets a run with survivors pass when its score reaches it
	// (Decide takes the report's configured one). No threshold relaxes
	// anything else: catalog failures, errors, timeouts under
	// StrictTimeouts, a red baseline or a changed tree still fail.
	Threshold config.Threshold
}

// Decide sets the report's exit code and reason.
func (r *Report) Decide(c Conditions) {
	if !c.Threshold.Given {
		c.Threshold = r.Gathermut.Config.Threshold
	}
	c.Catalog = c.Catalog || RowTerms(r.Gathermut)
	r.Gathermut.ExitCode, r.Gathermut.Reason = ExitCode(r.Gathermut.Summary, c)
}

// ExitCode picks the exit code and says why in one line: every condition
// that applies is listed, the one that decides the code first (the codes
// win in exitcode.Priority order).
func ExitCode(s Summary, c Conditions) (exitcode.Code, string) {
	type reason struct {
		code exitcode.Code
		text string
	}
	var reasons, notes []reason
	add := func(code exitcode.Code, text string) { reasons = append(reasons, reason{code, text}) }
	note := func(text string) { notes = append(notes, reason{exitcode.OK, text}) }
	if len(c.TreeChanged) > 0 {
		add(exitcode.TreeChanged, "the source tree changed during the run: "+listSome(c.TreeChanged, 5))
	}
	if c.BaselineRed {
		add(exitcode.Baseline, "the baseline is failing: "+c.BaselineNote)
	}
	if c.Interrupted {
		add(exitcode.Interrupted, fmt.Sprintf("interrupted: %d of %d judged", s.Judged, s.Total))
	}
	switch n := len(s.CatalogFailures); {
	case n == 1:
		add(exitcode.Catalog, fmt.Sprintf("catalog mutant %s not killed by its expected test", s.CatalogFailures[0]))
	case n > 1:
		add(exitcode.Catalog, fmt.Sprintf("%d catalog mutants not killed by their expected tests: %s", n, listSome(s.CatalogFailures, 5)))
	}
	if n := s.Counts[mutant.Survived]; n > 0 {
		if text, fail := survivorsReason(s, c.Threshold); fail {
			add(exitcode.Survivors, text)
		} else {
			note(text)
		}
	}
	if n := s.Counts[mutant.TimedOut]; n > 0 {
		if c.StrictTimeouts {
			add(exitcode.Timeouts, plural(n, "mutant", "mutants")+" timed out (--strict-timeouts)")
		} else {
			note(fmt.Sprintf("%d timed out (the tests hung: counted as detected)", n))
		}
	}
	if n := s.Counts[mutant.Error]; n > 0 {
		add(exitcode.Errors, plural(n, "mutant", "mutants")+" could not be judged (error)")
	}
	if n := s.Counts[mutant.NotRun]; n > 0 {
		note(fmt.Sprintf("%d not run", n))
	}
	if s.Reused > 0 {
		note(fmt.Sprintf("%d verdicts reused", s.Reused))
	}
	for _, code := range exitcode.Priority() {
		for i, r := range reasons {
			if r.code != code {
				continue
			}
			texts := []string{r.text}
			for j, other := range append(reasons, notes...) {
				if j != i {
					texts = append(texts, other.text)
				}
			}
			return code, strings.Join(texts, "; ")
		}
	}
	lead := fmt.Sprintf("ok: %s judged, none survived", plural(s.Judged, "mutant", "mutants"))
	if s.Counts[mutant.Survived] > 0 {
		lead = fmt.Sprintf("ok: %s judged", plural(s.Judged, "mutant", "mutants"))
	}
	texts := []string{lead}
	if s.CatalogTotal > 0 || c.Catalog {
		texts = append(texts, catalogClause(s))
	}
	texts = append(texts, "score "+ScoreText(s, c.Threshold))
	for _, n := range notes {
		texts = append(texts, n.text)
	}
	return exitcode.OK, strings.Join(texts, "; ")
}

// RowTerms reports whether a report speaks the row's own terms (mutant
// schemata, catalog mutants): when its run had a catalog configured, as
// this repository's project file does. A module without a catalog reads
// plain words: "test binaries", no catalog clause.
func RowTerms(g Meta) bool {
	return g.Config.Catalog != "" || g.Catalog != "" || g.Summary.CatalogTotal > 0
}

// catalogClause says what an ok run shows of the catalog, without
// claiming what did not run.
func catalogClause(s Summary) string {
	notRun := s.CatalogTotal - s.CatalogJudged
	switch {
	case s.CatalogTotal == 0:
		return "no catalog mutants in this run"
	case s.CatalogJudged == 0:
		return fmt.Sprintf("no catalog mutant ran (%d not run)", notRun)
	case notRun == 0 && s.CatalogJudged == 1:
		return "the catalog mutant was killed by its expected test"
	case notRun == 0:
		return fmt.Sprintf("all %d catalog mutants were killed by their expected tests", s.CatalogJudged)
	case s.CatalogJudged == 1:
		return fmt.Sprintf("the one catalog mutant that ran was killed by its expected test (%d not run)", notRun)
	}
	return fmt.Sprintf("the %d catalog mutants that ran were killed by their expected tests (%d not run)", s.CatalogJudged, notRun)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listSome joins the first n items and says how many more there are.
func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}

// FormatScore prints the score, or "n/a" when no mutant was scored (every
// one was unviable, not run, an error, ignored or interrupted).
func FormatScore(s Summary) string {
	if s.Scored == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", s.Score)
}
