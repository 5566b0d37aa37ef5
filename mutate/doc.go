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
// Packages default to the row's: ./gguf/... ./gather ./gather/internal/...
// ./engine/... ./hipkern/... (gather/gathertest, the provider conformance
// suite, is test infrastructure and is left out), in the module at --dir.
// A pattern that matches nothing, or a package that does not load, is a
// configuration error (exit 8), not silently skipped. A generic mutant
// identical to a catalog mutant (same file, same resulting program) is
// dropped: the catalog entry, which names its expected killer, stands for
// it. Flags may come before or after the arguments.
//
// # Pipeline
//
// The pipeline lives in mutate/internal/lab, in the steps cargo-mutants
// names:
//
//   - discover: load (go/packages) -> catalog (read from the module
//     through an overlay) -> tree hash -> mutants: the generic operators on
//     each file and the catalog's entries resolved to exactly one place;
//     each mutant is a byte-range edit of the file on disk (diffs and
//     positions are the file's), type-checked in process (a mutant inside a
//     function as a renamed copy of that function against the package as
//     loaded; go vet's bools check too, as go test would run it) and
//     classified for the schema (package mutate/schema). A whole discovery
//     is cached in the user cache dir, keyed by the tool binary, the tree
//     hash and the flags that choose mutants, so list, diff and run answer
//     from it; without it, run and diff generate only the files their glob
//     can match. Progress lines say what each phase took.
//   - build: mutant schemata. For each mutated package one instrumented
//     copy of its files, in an overlay, where every mutant that can be
//     switched sits behind a switch read once from GATHERMUT_MUTANT when
//     the test binary starts; one test binary per observing package is
//     built from it. A mutant that cannot be switched (package
//     mutate/schema says which and why) is built on its own, through an
//     -overlay of its file, as without schemata. A schema build that fails
//     drops the mutants the compiler's errors point into and builds again
//     (they then get builds of their own).
//   - test: the baseline, then the mutants in a pool of -j workers, each
//     a process of its package's schema binary (GATHERMUT_MUTANT=<its
//     number>) or of its own build, under test2json; all child processes
//     share -j slots. A green schema baseline is cached per package (each
//     test's status, time and covered mutants), keyed by the tool binary,
//     the tree hash and the package: a later run on the same tree whose
//     mutants were all recorded (a run after an all, a second run <id>)
//     takes it from there. --no-cache reads and writes neither cache.
//   - outcome: the tree hash again, the reports, the exit status.
//
// --no-schemata builds every mutant on its own (the mode before
// schemata); both modes give the same verdicts. Each mutant's result says
// which mode judged it (schema, overlay, kernel, or static: decided
// without running tests) and, for one built on its own in a schema run,
// why. The report records where the time went: discovery, type check,
// baseline, schema builds, fallback builds, test processes.
//
// The source tree is never written: every mutant and every schema reaches
// the compiler through -overlay, the catalog is read by a program that
// exists only in an overlay, and the sha256 of every source file is taken
// before and after (the run fails if they differ).
//
// # Test selection
//
// Each observing package's tests run once each alone and once together,
// on the package's schema binary (or, without schemata, a build with
// -cover -coverpkg=<mutated packages>); a test whose two results differ is
// flaky and excluded; one failing in both makes the baseline red and stops
// the run. A test covers a mutant when it ran the mutant's switch (or the
// probe before the statement around a mutant that is not switched: the
// schema counts hits per site in a file GATHERMUT_HITS maps; without
// schemata, when its coverage profile executed the mutant's position). A
// mutant of a package-level variable or constant is computed when the
// binary starts: it is covered by the tests that run a function of its
// package reading it, when every reader is one, and otherwise by every
// test. A mutant then runs only the tests that cover it (a catalog mutant
// also its expected killers), package by package: the mutated package
// first, then its importers, whose binaries and baselines are made only
// when a mutant survives the earlier packages. Its tests of one package
// run quick ones first (baseline under 250 ms) and slow ones in a second
// process if the quick ones did not kill it. A mutant no test covers
// survives as "not covered by any test" without running anything. Generic
// mutants run with -test.failfast and stop at the first killing package. A
// catalog mutant runs its expected killers first and alone (a panic in
// another test would end the binary before the killer ran); only if none
// of them fails do its other covering tests run, to name the unexpected
// killer.
//
// A test that fails on the schema binary but passes without the schema
// (the switches make small functions too big to inline, so allocation
// counts can change) does not stop the run: that package's tests run on
// builds of their own, and the report says so for each mutant.
//
// # Timeouts
//
// Each test of a mutant's run is held, from when it starts, to
// --timeout-factor times its baseline time plus --timeout-floor (3 and
// 2s), and the run as a whole to the sum of those plus the floor: a hang
// costs about its own test's limit. Builds are never timed. Every test
// binary also gets -test.timeout (twice its run's limit plus a minute), so
// none outlives the tool even if the tool is killed; baseline runs are
// limited by --baseline-timeout (10m). On a timeout, or Ctrl-C, the
// child's process group is killed; temp files are removed; Ctrl-C still
// writes a partial report marked interrupted.
//
// # Verdicts
//
// killed (the failing tests are named), survived, timed out, unviable (does
// not type-check or compile: reported apart, outside the score), not run
// (with why: no compiler for a kernel mutant, every selected test skipped,
// interrupted), error (no test ran under the selection, an expected killer
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
// # Reports
//
// --report-dir (default reports/) gets <name>.json
// (mutation-testing-report-schema v2, with this tool's full evidence under
// "gathermut": the run's typed configuration, timing and modes, and per
// mutant its result, mode and schema site) and <name>.md (for a pull
// request). --shard k/n runs the mutants whose index in the id-sorted list
// is k mod n; merge combines the shard reports, and refuses a set that is
// not one whole run: a shard missing or given twice, shards of different n
// or mixed with an unsharded report, or runs of other packages, catalog or
// judging settings (--strict-timeouts, --operators, --timeout-factor, ...:
// config.Judging).
//
// # Environment
//
//	GATHERMUT_CACHE      the caches' directory (default: gathermut in the user cache dir)
//	GATHERMUT_KEEP_TMP   keep a run's temp dir (the schemata, binaries, overlays) and say where
//	GATHERMUT_MUTANT     set by the tool: the mutant a schema binary runs
//	GATHERMUT_HITS       set by the tool: the file a schema binary counts site hits in
package main
