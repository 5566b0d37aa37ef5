// Package progress draws the run's progress line on a terminal: counters
// of the phases before the mutants (type-checking, the baseline), then
// judged/total with the verdicts so far, the rate and the ETA, and after
// an interrupt "interrupted: N of M judged", with the survivors no test
// covers apart ("not covered"). Off a terminal (a CI log, a file, a pipe)
// it draws nothing, but the run's stderr is a Heartbeat: after every
// silence of DefaultHeartbeat (GATHERMUT_PROGRESS_EVERY) it prints where
// the run is, the line of the progress it follows or what the run is
// doing, and Finish prints each phase's final state once. With -v
// (Line.Verbose) it prints each verdict as it comes, terminal or not (a
// kill names its test).
package progress
