// Package lab is the mutation pipeline of the mutate command, in the steps
// cargo-mutants names: discover (discover.go: load the module, read the
// catalog, make the mutants, filter them; cache.go keeps whole
// discoveries), build (schema.go: render the schemata, build the test
// binaries, drop what a build rejects; per-mutant overlay builds in
// test.go), test (baseline.go, test.go, kernel.go: baselines, test
// selection, timeouts, runs, verdicts) and outcome (outcome.go: reports,
// exit code). The command's flags arrive as a config.Config; Run returns
// an *Exit carrying the exit code. mutate/doc.go describes what a run does
// as a user sees it.
//
// Around the steps: project.go applies the module's project file (and
// ModuleHere gives the help text the defaults in force), self.go finds
// the command that started the tool as it works from the module root (the
// prefix of every rerun command), progress.go draws progress on a
// terminal and, elsewhere, a heartbeat line after every silence, and
// tempdir.go makes the run's temp dir only for work that needs one.
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
//     mutant while another worker prepares the kernel (a worker never
//     waits on work another is doing while other mutants could run).
//   - A mutant's tests of one package run in cost tiers (byCost in
//     test.go): tiny, then quick, then each slow test alone, quickest
//     first, each only if the earlier ones did not decide it.
//   - A schema render is immutable: a build that rejects mutants makes a
//     new render without them, and the baseline of a package records the
//     render its hits refer to, so site numbers never change under it.
//   - Verdicts do not depend on the mode: a mutant runs the same selection
//     of tests in the same packages in the same order; only how its binary
//     was built differs. Differences that remain possible are documented in
//     mutate/schema (tests that look at inlining or allocation counts are
//     handled by running that package without the schema).
//
// Kernel mutants (catalog kernel-text with a catalog.Kernel): not run when
// none of Kernel.Tools is on PATH; otherwise the package's test binary is
// built once, the unmutated kernel is built and its killers run (all
// skipping makes every kernel mutant "not run" with the skip message);
// each mutant copies Kernel.Sources into a temp tree with the rewrite,
// runs Kernel.Build ({src}, {out} substituted; a failure is unviable) and
// runs the killers with Kernel.LibEnv={out}.
package lab
