package report

import (
	"gathermut/mutate/config"
	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

// thresholdCell is the markdown summary's Threshold column.
func thresholdCell(s outcome.Summary, t config.Threshold) string {
	switch {
	case s.Counts[mutant.Survived] == 0:
		return t.String() + " (met)"
	case outcome.ThresholdMet(s, t):
		return t.String() + " (met)"
	}
	return t.String() + " (**not met**)"
}
