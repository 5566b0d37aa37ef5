package outcome

import (
	"fmt"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

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
	// none was in the run (report.Report.Decide sets it from the report).
	Catalog bool
	// Threshold lets a run with survivors pass when its score reaches it
	// (report.Report.Decide takes the report's configured one). No threshold relaxes
	// anything else: catalog failures, errors, timeouts under
	// StrictTimeouts, a red baseline or a changed tree still fail.
	Threshold config.Threshold
}

// Decide picks the exit code and says why in one line: every condition
// that applies is listed, the one that decides the code first (the codes
// win in exitcode.Priority order).
func Decide(s Summary, c Conditions) (exitcode.Code, string) {
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
