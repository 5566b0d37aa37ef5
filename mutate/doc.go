// Command mutate is gathermut's mutation tester: it breaks the code on
// purpose, runs the tests that can see each break, and reports which breaks
// no test caught.
//
//	go run ./mutate all   [flags] [packages]   run every mutant, write reports
//	go run ./mutate list  [flags] [packages]   list the mutants (id, operator, position, change)
//	go run ./mutate run   [flags] <id|glob>[,<id|glob>...] [packages]   run the matching mutants
//	go run ./mutate diff  [flags] <id|glob> [packages]   print the matching mutants' diffs
//	go run ./mutate merge [flags] <report.json...>       combine shard reports
//	go run ./mutate bench [flags]                        seconds per mutant, against gremlins
//
// Packages default to the row's: ./gguf/... ./gather ./gather/internal/... ./engine/...
// ./hipkern/..., in the module at --dir. A pattern that matches nothing, or
// a package that does not load, is a configuration error (exit 8), not
// silently skipped. A generic mutant identical to a catalog mutant (same
// file, same resulting source) is dropped: the catalog entry, which names
// its expected killer, stands for it. Flags may come before or after
// the arguments.
//
// # Pipeline
//
// load (go/packages) -> catalog (read from the module through an overlay)
// -> tree hash -> mutants (generic operators on clones of each file, the
// catalog's entries resolved to exactly one place; each type-checked in
// process) -> baseline (each observing package's tests run twice) ->
// mutants in a pool of -j workers (go test -c with an -overlay, then the
// test binary under test2json) -> tree hash again -> reports.
//
// The source tree is never written: every mutant reaches the compiler
// through -overlay, the catalog is read by a program that exists only in an
// overlay, and the sha256 of every source file is taken before and after
// (the run fails if they differ).
//
// # Test selection
//
// The baseline builds each observing package's test binary once with
// -cover -coverpkg=<mutated packages> and runs each top-level test alone
// with its own coverage profile, then all together (a test whose two
// results differ is flaky and excluded; one failing in both makes the
// baseline red and stops the run). A mutant then runs only the tests whose
// profile executed its position (a catalog mutant also its expected
// killers), only in the packages that have such tests (the mutated package
// first, then its importers). A mutant no test executes survives as "not
// covered by any test" without a build: code that never runs cannot change
// a test's outcome. Package-level initializers run before every test and
// count as covered by all. Generic mutants run with -test.failfast and stop
// at the first killing package. A catalog mutant runs its expected killers
// first and alone (a panic in another test would end the binary before the
// killer ran); only if none of them fails do its other covering tests run,
// to name the unexpected killer.
//
// Build and test are separate phases: the timeout applies to the test run
// only and is --timeout-factor times the baseline time of the selected
// tests plus --timeout-floor, so a slow compile is never a false timeout.
// On a timeout, or Ctrl-C, the child's process group is killed (a timed-out
// mutant records the signal, exit code -1).
//
// # Interrupts
//
// Ctrl-C (SIGINT or SIGTERM) stops the run and still writes the partial
// report, whether it comes during the schema build, the baseline or the
// mutants. A mutant the interrupt leaves without a verdict is
// "interrupted": no verdict, counted apart. The progress line, the
// summary line, the counts, the score and the rate cover the judged
// mutants only and say "interrupted: N of M judged"; the unjudged ones are
// one count on stdout (their ids are in the JSON, status Pending). The
// rate, everywhere, is mutants tested (built or run, not decided without
// a build) over the time spent judging them: the schema builds and the
// mutant phase up to the interrupt. Every child process gets GOTMPDIR and
// TMPDIR inside the run's own temp dir, which the run removes, so an
// interrupted build or test leaves nothing in the system temp dir.
//
// # Incremental runs
//
// --incremental (cache in os.UserCacheDir()/gathermut/incremental, one
// file per module root) or --incremental=FILE reuses the verdict of every
// mutant whose own edit, the code its declaration reaches, the code on
// the paths from the tests to it, the tests that can execute it and their
// code, the testdata, go.mod, go.sum, the tool and Go are unchanged since
// a verdict was stored (package incremental has the exact rule), and runs
// only the rest; the schema build and the baseline cover only what runs.
// Reused verdicts are marked in the reports (result.reused, statusReason,
// the markdown) and counted apart from the rate.
//
// # Verdicts
//
// killed (the failing tests are named), survived, timed out, unviable (does
// not type-check or compile: reported apart, outside the score), not run
// (with why: no compiler for a kernel mutant, every selected test
// skipped), error (no test ran under the selection, an expected killer
// that does not exist, a catalog entry that does not resolve or whose diff
// is empty), ignored (equivalent: a //gathermut:equivalent <reason> comment
// or a catalog Equivalent). A skipped test is neither a pass nor a kill. A
// catalog mutant counts as caught only when one of its expected killers
// failed; a kill by other tests only is "killed by an unexpected test".
//
// # Exit status
//
//	0    nothing survived and every catalog mutant was killed by an expected test
//	     (mutants that did not run are listed, and do not fail the run)
//	1    a mutant survived
//	2    usage error
//	3    the baseline is failing (a test fails or hangs without any mutant)
//	4    a generic mutant timed out, with --strict-timeouts (by default a
//	     timeout counts as detected, as in the score: the tests hung
//	     instead of passing; a catalog mutant that times out is exit 5)
//	5    a catalog mutant was not killed by its expected test
//	6    a mutant could not be judged (error)
//	7    the source tree changed during the run
//	8    invalid configuration: the module does not load, the catalog does
//	     not read, a suppression comment has no reason
//	130  interrupted
//
// When several apply, the first in the order 7, 3, 130, 5, 1, 4, 6 wins;
// the one-line reason lists them all.
//
// Every command ends with one line on stderr that names the outcome and
// its code, the deciding reason first:
//
//	exit 5: catalog mutant q8k-trait-removed not killed by its expected test; 2 mutants survived
//
// because "go run" turns every non-zero status into 1. A script that needs
// the code builds the command first and checks the binary's status:
//
//	go build -o bin/mutate ./mutate && bin/mutate all --only-catalog; echo $?
//
// # Reports
//
// all writes <name>.json and <name>.md into --report-dir (default
// reports/, which git ignores except the committed reports of the row,
// gather-row.* and gather-row-gpu.*); --name defaults to mutation. run
// writes run.json and run.md unless --name says otherwise, so rerunning a
// few mutants never overwrites the reports of a whole run; list and diff
// write none. Package report says what the two files hold: in short, the
// JSON is the mutation-testing-report-schema (validated against the
// official schema by the tests), with module-relative paths only and this
// tool's evidence under "gathermut"; the markdown fits a pull request
// (at most 60,000 characters), findings first. --shard k/n runs the mutants whose index in the
// id-sorted list is k mod n; merge combines the shard reports, and
// refuses a set that is not one whole run: a shard missing or given twice,
// shards of different n or mixed with an unsharded report, or runs of
// other packages, catalog or judging flags (--strict-timeouts,
// --operators, --timeout-factor, ...).
package main
