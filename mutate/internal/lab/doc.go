// Package lab is the mutation pipeline of the mutate command, in the steps
// cargo-mutants names: discover (load the module, read the catalog, make
// the mutants, filter them), baseline, build, test (run each mutant's
// selected tests and judge it) and outcome (the reports and the exit
// code). The command's flags arrive as a config.Config; Run returns an
// *Exit carrying the exit code.
//
// Baseline: each observing package's test binary is built once with
// -cover -covermode=set -coverpkg=<the mutated packages it imports>; each
// top-level test runs alone with its own -test.coverprofile (the coverage
// that selects tests per mutant), then all tests run together. A test with
// different results in the two runs is flaky: reported and excluded. One
// failing in both makes the baseline red.
//
// Mutant: the mutated file goes to a temp dir and an overlay maps the
// original path to it; per observing package with selected tests,
// "go test -c -overlay=... -o <tmp>/p.test <pkg>" compiles (a failure is
// unviable), then the binary runs in the package directory under
// "test2json -t -p <pkg> <bin> -test.v=test2json -test.paniconexit0
// -test.run ^(A|B)$" (plus -test.failfast for generic mutants), in its own
// process group, killed on timeout or cancel. The timeout covers the run
// only: factor * baseline time of the selected tests + floor. Packages run
// in order (expected killers' packages, the mutated package, importers) and
// stop at the first kill (for a catalog mutant: a kill by an expected
// killer).
//
// Verdicts: a timeout is TimedOut; a failing selected test is Killed (a
// crash is blamed on the tests that were running, else on the binary); for
// a catalog mutant, a kill by other tests only is Killed with ExpectedKiller
// false ("killed by an unexpected test"); no expected killer ran is an
// Error, all of them skipped is NotRun; no test passed or failed (all
// skipped) is NotRun with the skip message, none ran at all is an Error
// (go test -run matching nothing exits 0); otherwise Survived. A skipped
// test is neither a pass nor a kill.
//
// Kernel mutants (catalog kernel-text with a catalog.Kernel): not run when
// none of Kernel.Tools is on PATH; otherwise the package's test binary is
// built once, the unmutated kernel is built and its killers run (all
// skipping makes every kernel mutant "not run" with the skip message);
// each mutant copies Kernel.Sources into a temp tree with the rewrite,
// runs Kernel.Build ({src}, {out} substituted; a failure is unviable) and
// runs the killers with Kernel.LibEnv={out}.
package lab
