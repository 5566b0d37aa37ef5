// Command mutate is gathermut's mutation tester: it breaks the code on
// purpose, runs the tests that can see each break, and reports which breaks
// no test caught.
//
//	go run ./mutate all   [flags] [packages]   run every mutant, write reports (JSON, markdown, HTML)
//	go run ./mutate list  [flags] [packages]   list the mutants (id, operator, position, change)
//	go run ./mutate run   [flags] <id|glob>[,<id|glob>...] [packages]   run the matching mutants
//	go run ./mutate diff  [flags] <id|glob> [packages]   print the matching mutants' diffs
//	go run ./mutate merge [flags] <report.json...>       combine shard reports
//	go run ./mutate operators [--dir DIR]                the operators: default set, opt-in, which run here
//	go run ./mutate bench [loop|pair]                    seconds per mutant, against gremlins; the review loop; two runs side by side
//	go run ./mutate bench --set NAME [packages]          a set's whole run, where its time goes by package
//	go run ./mutate version                              the version (also --version)
//
// --help gives the flags with the defaults in force in the module of the
// current directory (or --dir), and mutate <command> -h one command's.
// Defaults come from the module's .gathermut.json, else every package
// (./...) and no catalog; this repository's names the row's packages and
// its catalog (./mutants). The first line every command prints on stderr
// says which packages, catalog, exclusions, operators and threshold apply
// and where they came from.
//
// # The manual
//
// The manual is in this repository, a page per topic (docs/mutate/README.md
// lists them):
//
//   - docs/mutate/usage.md: the commands and flags, --in-diff,
//     --incremental, sets, --shard and merge, running on any module, the
//     environment;
//   - docs/mutate/config.md: the project file, sets and exclusions
//     (//gathermut:ignore, file globs, operators);
//   - docs/mutate/reports.md: where reports go, the JSON, markdown, HTML,
//     SARIF and annotations, the tree hash that says a report is current,
//     the verdicts;
//   - docs/mutate/review.md: survivors, //gathermut:equivalent, run and
//     diff, --incremental;
//   - docs/mutate/ci.md and docs/mutate/exit-codes.md: CI, shards in a
//     matrix, the exit codes and --threshold;
//   - docs/mutate/operators.md, docs/mutate/catalog.md and
//     docs/mutate/gpu.md: what is mutated (Go, assembly, kernel device
//     code), the row's catalog, the GPU and its host emulation;
//   - docs/mutate/order.md: the baseline, the killer map, subtests, cost
//     tiers, the tail and timeouts;
//   - docs/mutate/how-it-works.md: the pipeline below as a user sees it,
//     mutant schemata, old go lines, tests that build the module,
//     interrupts;
//   - docs/mutate/performance.md: the bench commands and the measured runs.
//
// # Packages
//
// This package parses the command line (package config holds the typed
// configuration) and runs the pipeline in mutate/internal, one package per
// step as cargo-mutants has them, in order by mutate/internal/lab:
// discover (finding the mutants, with packages load, tree, operator,
// goasm and cxx), schedule (judging them: baselines, schemata from
// packages schema and kernel, test processes through testbin, in the
// order package selection chooses) and outcome (the verdicts' tallies and
// the exit code, which package report renders). Package
// incremental keeps verdicts between --incremental runs, package catalog
// holds the types a module's catalog is written in, and package exitcode
// the codes below. Each package's doc records its decisions.
//
// # Exit status
//
//	0    nothing survived (or, with --threshold P, the score is at least P) and
//	     every catalog mutant was killed by an expected test (mutants that did
//	     not run are listed, and do not fail the run)
//	1    a mutant survived (with --threshold P: the score is below P)
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
// "go run" turns every non-zero status into 1, so every command ends with
// one line on stderr that names the outcome and its code ("exit 5: catalog
// mutant q8k-trait-removed not killed by its expected test"); a script
// that needs the code builds the command and checks the binary's status.
// docs/mutate/exit-codes.md says what counts toward each code, and how
// --threshold relaxes exit 1.
package main
