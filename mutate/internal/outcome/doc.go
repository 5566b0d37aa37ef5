// Package outcome is the last step of a run: the verdicts' tallies
// (Summarize: counts by verdict, the survivors no test covers apart
// (NotCovered, inside the survived verdict; SurvivedText words both), the
// score, what the catalog shows, what was tested) and the exit code with its one-line reason (Decide: every
// condition that applies, the one that wins in exitcode.Priority order
// first, and what a --threshold relaxes). It judges nothing itself: the
// schedule step gave each mutant its verdict; package report renders
// these figures and records the decision in the JSON and markdown, and a
// merge of shard reports decides again over the union.
package outcome
