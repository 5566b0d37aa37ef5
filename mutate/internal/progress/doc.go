// Package progress draws the run's progress line on a terminal: counters
// of the phases before the mutants (type-checking, the baseline), then
// judged/total with the verdicts so far, the rate and the ETA, and after
// an interrupt "interrupted: N of M judged". Off a terminal it draws
// nothing; with -v (Line.Verbose) it prints each verdict as it comes,
// terminal or not (a kill names its test).
package progress
