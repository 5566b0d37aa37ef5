package report

import (
	"gathermut/mutate/internal/outcome"
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
// when c has none).
func (r *Report) Decide(c outcome.Conditions) {
	if !c.Threshold.Given {
		c.Threshold = r.Gathermut.Config.Threshold
	}
	r.Gathermut.ExitCode, r.Gathermut.Reason = outcome.Decide(r.Gathermut.Summary, c)
}
