// Package lab runs one command of the mutate tool (all, list, run, diff):
// it sets up the run (the module, its project file, the operators, a temp
// dir every child process uses) and takes the mutants through the
// pipeline's steps, each a package of its own, in the order a mutant
// meets them:
//
//  1. discover (package discover): the mutants are found. The module is
//     loaded, the catalog read, generic operators applied and catalog
//     entries resolved; each mutant is type-checked and gets its state
//     (runnable, or decided: invalid, equivalent, unbuildable); the
//     filters (--in-diff, the id glob, --shard) pick the ones to judge.
//     list and diff stop here.
//  2. schedule (package schedule): the mutants are judged. Verdicts the
//     incremental cache still holds are reused; baselines tell which
//     tests cover which mutant; a pool of -j workers hands each runnable
//     mutant to its backend (the Go tests, on a schema binary or a build
//     of its own, or the kernel rebuild) and records its verdict.
//  3. outcome (package outcome, here in report.go): the whole tree is
//     hashed again (the safety check, exit 7), the verdicts are tallied
//     and the exit code decided, package report writes the JSON and the
//     markdown, and the summary is printed.
//
// Around the steps: project.go applies the module's project file (and
// ModuleHere gives the help text the defaults in force), self.go finds
// the command that started the tool as it works from the module root (the
// prefix of every rerun command), the run's stderr is a
// progress.Heartbeat (a line after every silence when it is not a
// terminal), and tempdir.go makes the run's temp dir only for work that
// needs one: at once for all and run, on a discovery not answered from
// the cache for list and diff (which then make none). A closed stdout
// ends list and diff cleanly (closedWriter in lab.go).
//
// mutate/doc.go describes what a run does as a user sees it; each step's
// package doc says what it decides and where.
//
// The lab's pipeline tests run the whole pipeline in process (runPipeline)
// on small modules; with the command's own tests (package mutate, which
// run it in process too, and share one built binary for what needs a
// process) they are the tool's end-to-end tests. docs/mutate-tests.md
// says which test now checks what each former end-to-end test did.
package lab
