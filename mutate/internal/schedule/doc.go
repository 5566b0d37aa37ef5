// Package schedule is the second step of a run: it judges the mutants the
// discover step found (Judge, in judge.go).
//
// A mutant's way through it:
//
//   - reuse (incremental.go): with --incremental, a verdict whose inputs
//     are unchanged since it was stored is taken as it is; the schema then
//     puts a probe at the start of every function body of the module
//     (probes.go), so that each baseline test's hits and each mutant's
//     test processes' hits (evidence.go) say which functions ran: the
//     stored verdict depends on those, not on all a test could reach;
//   - baselines: the packages whose tests can observe a runnable mutant
//     run their tests without any mutant: on their schema test binary
//     (schema.go: every switchable mutant of a package compiled into one
//     binary, selected by GATHERMUT_MUTANT) in one process whose tests
//     the render wrapped so that each test's hits are recorded apart
//     (testwrap.go, singlepass.go), the tests it cannot vouch for again
//     alone; with --no-schemata on a build with coverage, once each alone
//     and once together (baseline.go); a test flaky between two runs is
//     excluded, one failing in both stops the run (exit 3);
//   - the queue (runner.go): -j workers take the mutants in order, each
//     the next one whose first baseline is ready; a worker whose mutant
//     must wait for a baseline or schema binary another worker is making
//     (an importer's, such as a command's end-to-end tests) lends its
//     turn meanwhile (workers.go), so the mutants the mutated package's
//     own tests kill do not queue behind it;
//   - the backend (backend.go) judges it: a decided mutant (invalid,
//     equivalent, unbuildable) gets its verdict at once; a Go mutant runs,
//     package by package, the tests that cover it (gotests.go), its
//     expected killers first for a catalog mutant, in cost tiers (tiny,
//     quick, then each slow test alone), on the schema binary or a build
//     of its own through -overlay; a kernel mutant rebuilds the kernel
//     library and runs its killers against it (kernel.go);
//   - the verdict (verdict.go) comes from the tests' results: killed (by
//     which tests), survived, timed out, not run (every selected test
//     skipped), error. A test process that times out runs again alone
//     with twice the time before its timeout counts (timeouts.go, which
//     also derives the floor of every limit from the machine).
//
// Decisions:
//
//   - Every child process (builds, baseline tests, mutant tests) takes one
//     of -j slots, so a run never has more than -j at once, whatever mix of
//     baselines and mutants it is in.
//   - With schemata, an observing package's test binary and baseline are
//     futures: made by the first mutant that needs them (the mutated
//     packages' are started at once). A failing baseline met on the way
//     stops the run (exit 3), as one found up front does. A free worker
//     takes the next mutant whose first baseline is ready, and no kernel
//     mutant while another worker prepares the kernel; a mutant that
//     meets, at a later step, a baseline another worker is making waits
//     without its worker's turn (a worker never waits on work another is
//     doing while other mutants could run: -j bounds the mutants being
//     worked on, not those waiting).
//   - A mutant's tests of one package run in cost tiers (byCost in
//     gotests.go): tiny, then quick, then each slow test alone, quickest
//     first, each only if the earlier ones did not decide it.
//   - A schema render is immutable: a build that rejects mutants makes a
//     new render without them, and the baseline of a package records the
//     render its hits refer to, so site numbers never change under it.
//   - A test process gets the overlay its binary was built from (the
//     schema's, or the mutant's own: testBinary in gotests.go, and
//     packageOptions.Overlay for a baseline), so a go command the test
//     runs builds the same mutant (package testbin, nested.go); without
//     schemata a baseline also collects the coverage of what such a test
//     builds (packageOptions.CoverPkgs).
//   - Verdicts do not depend on the mode: a mutant runs the same selection
//     of tests in the same packages in the same order; only how its binary
//     was built differs. Differences that remain possible are documented in
//     mutate/schema (tests that look at inlining or allocation counts are
//     handled by running that package without the schema).
//   - The schema build's progress lines (terms.go) speak the row's own
//     words (schemata, runnable mutants switched) only where a catalog is
//     configured, as in this repository; elsewhere they say the same of
//     test binaries.
//   - New ways of judging (a kernel on a host emulation, assembly mutants,
//     GPU slots) are backends: backendFor picks one per mutant; the queue,
//     the slots and the verdicts stay. The rerun that confirms a timeout
//     is not a backend: every backend's timed-out test process goes
//     through Runner.confirmTimeout (timeouts.go), which waits for the
//     queue to drain and reruns it with twice the time in one slot.
//
// Races (issue 36): a mutant in code that runs in goroutines (a statement
// moved out of a critical section, operator unlock-early) changes no
// result; only the race detector sees it. The project file's "race"
// names the packages whose tests exercise such code (config.Config.Race,
// raceArgs in race.go). A generic Go mutant that survives every covering
// test is judged again there (raceRecheck): each named observing
// package's test binary is built with -race and the mutant (through
// -overlay), and its covering tests run in one process with ten times
// their limits (the detector slows tests 2 to 20 times); a test the
// detector fails ("race detected during execution of test") kills the
// mutant, and its reason says it was killed under -race. A timeout
// there decides nothing. Only survivors pay the detector: the row has
// none without it, so the recheck costs the full run nothing, where
// building the row's binaries with -race would slow every process.
//
// Kernel mutants (catalog kernel-text with a catalog.Kernel): not run when
// none of Kernel.Tools is on PATH; otherwise the package's test binary is
// built once, the unmutated kernel is built and its killers run (all
// skipping makes every kernel mutant "not run" with the skip message);
// each mutant copies Kernel.Sources into a temp tree with the rewrite,
// runs Kernel.Build ({src}, {out} substituted; a failure is unviable) and
// runs the killers with Kernel.LibEnv={out}.
package schedule
