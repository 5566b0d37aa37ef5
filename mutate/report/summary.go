package report

import (
	"fmt"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

// Rate is the mutants-per-minute figure: mutants tested over the time
// spent judging them, the schema builds and the mutant phase (up to an
// interrupt); 0 when nothing was tested.
func Rate(s outcome.Summary, t Timing) float64 {
	spent := t.SchemaBuilds + t.Mutants
	if s.Tested == 0 || spent <= 0 {
		return 0
	}
	return float64(s.Tested) / spent * 60
}

// Decide records the exit code and reason package outcome decides for
// the report's summary under c (with the report's configured threshold
// when c has none; with the catalog clause when the report speaks the
// row's terms, RowTerms).
func (r *Report) Decide(c outcome.Conditions) {
	if !c.Threshold.Given {
		c.Threshold = r.Gathermut.Config.Threshold
	}
	c.Catalog = c.Catalog || RowTerms(r.Gathermut)
	r.Gathermut.ExitCode, r.Gathermut.Reason = outcome.Decide(r.Gathermut.Summary, c)
}

// CountsText is the counts part of the summary line a run prints, the
// survivors no test covers apart: "40 killed, 2 survived, 1 not covered,
// 0 timed out, 3 unviable, 0 not run, 0 errors, 1 ignored".
func CountsText(s outcome.Summary) string {
	return fmt.Sprintf("%d killed, %d survived, %d not covered, %s, %d unviable, %d not run, %d errors, %d ignored",
		s.Counts[mutant.Killed], s.Survivors(), s.NotCovered, outcome.TimeoutCounts(s), s.Counts[mutant.Unviable],
		s.Counts[mutant.NotRun], s.Counts[mutant.Error], s.Counts[mutant.Ignored])
}

// Title is what a report is named after: the module it judged (with the
// report's name when that is not the default "mutation"); the report's
// name alone in the row's terms (RowTerms: gather-row, mutate-self), or
// when the module is unknown.
func Title(g Meta) string {
	switch {
	case RowTerms(g) || g.Module == "":
		return g.Name
	case g.Name == "" || g.Name == "mutation":
		return g.Module
	}
	return g.Module + " (" + g.Name + ")"
}

// RowTerms reports whether a report speaks the row's own terms (mutant
// schemata, catalog mutants): when its run had a catalog configured, as
// this repository's project file does. A module without a catalog reads
// plain words: "test binaries", no catalog clause.
func RowTerms(g Meta) bool {
	return g.Config.Catalog != "" || g.Catalog != "" || g.Summary.CatalogTotal > 0
}
