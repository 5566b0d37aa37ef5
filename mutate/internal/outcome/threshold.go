package outcome

import (
	"fmt"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
)

// ThresholdMet reports whether a run's score reaches its threshold: false
// without one. Compared exactly, not through the rounded score.
func ThresholdMet(s Summary, t config.Threshold) bool {
	return t.Met(s.Counts[mutant.Killed]+s.Counts[mutant.TimedOut], s.Scored)
}

// ScoreText is the score with the threshold and whether it is met:
// "95.7% (threshold 90%: met)"; the score alone without a threshold.
func ScoreText(s Summary, t config.Threshold) string {
	if !t.Given {
		return FormatScore(s)
	}
	verdict := "not met"
	switch {
	case s.Counts[mutant.Survived] == 0:
		verdict = "met: nothing survived"
	case ThresholdMet(s, t):
		verdict = "met"
	}
	return fmt.Sprintf("%s (threshold %s: %s)", FormatScore(s), t, verdict)
}

// survivorsReason decides what survivors mean under a threshold: with
// none, any survivor fails the run (fail true); with one, only a score
// below it does. text says so in the one-line reason.
func survivorsReason(s Summary, t config.Threshold) (text string, fail bool) {
	survived := SurvivedText(s)
	switch {
	case !t.Given:
		return survived, true
	case ThresholdMet(s, t):
		return survived + ", within the threshold", false
	}
	return fmt.Sprintf("score %s is below the threshold %s (%s)", preciseScore(s), t, survived), true
}

// preciseScore shows enough digits that a score below a threshold never
// reads as equal to it (84.96% is not 85.0%).
func preciseScore(s Summary) string {
	if s.Scored == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f%%", s.Score)
}
