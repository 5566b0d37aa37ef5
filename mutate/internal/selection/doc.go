// Package selection decides the order in which a mutant's covering tests
// run; package schedule runs the processes and decides the verdicts. It
// owns three things:
//
//   - the killer map (Map, killermap.go): for each mutant identity, the
//     tests and subtests that killed it in earlier runs, kept per module
//     in the user cache dir (package cache, kind "killers") for every run,
//     and learned during the run; for a mutant with no entry it predicts
//     the tests that killed most mutants of the same function, then the
//     same file, then the same package (Predict). A mutant runs its
//     predicted killers first, in one process per package, then the rest
//     of its covering tests in cost tiers. The map only orders: every
//     covering test that the prediction did not run whole still runs
//     after it, so a mutant is killed, survives, times out or is not
//     covered with the map as without it (--no-killer-map), and "killed
//     by" is always the test that failed.
//   - subtests (Ref, Pattern): a predicted killer can be one subtest of a
//     table-driven test ("TestGPUOracle/Q4_K"), run alone with
//     -test.run '^TestGPUOracle$/^Q4_K$'. Go tests name their table's
//     cases, and a mutant in one codec's decoder is killed by that codec's
//     case: running it alone costs one case instead of the table.
//   - the cost tiers (Tiers, tiers.go): a package's covering tests run as
//     tiny ones together, quick ones together, then each slow one alone,
//     quickest first; tests slower than TailTest (a test that copies the
//     module and runs go test on it: docs.TestAddingACodec) are held back
//     (Tail) until every other covering test of every package has run.
//
// Decisions:
//
//   - The map is keyed by the module's path and root, not by the tool's
//     build: it only orders, so an entry from another build or another
//     tree costs at most time. An entry's killers are replaced when the
//     mutant is killed again; a mutant that survives keeps no entry.
//   - The map also remembers, per mutant, the judged tree on which it
//     last timed out and timed out again when run alone (a confirmed
//     timeout: LearnHang). On that same tree a later run whose process
//     of the mutant times out again neither runs it alone a second time
//     nor runs its other covering tests (package schedule: the verdict
//     says the earlier run confirmed it);
//     on any other tree the timeout is confirmed as always. A timeout
//     costs its limit, its confirmation twice that: on the row's second
//     run of a tree the 44 confirmations were about a quarter of the
//     worker time. The verdict is the same: with --no-killer-map the
//     process is run again and times out again.
//   - At most MaxPredicted refs are predicted: the history of the row
//     shows the previous run's top three killers of a function contain a
//     new mutant's killer 95% of the time, and each extra one costs a
//     test's run when the prediction misses.
//   - A prediction from other mutants (function, file, package) leaves
//     out tail tests (TailTest): one costs more than the tiers it would
//     spare. A mutant's own entry is kept whatever it costs: the cheaper
//     tests passed the last time.
//   - Catalog mutants are not reordered: they run their expected killers
//     first, as the catalog says.
package selection
