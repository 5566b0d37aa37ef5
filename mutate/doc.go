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
//	go run ./mutate version                              the version (also --version)
//	go run ./mutate bench --set NAME [packages]          a set's whole run, where its time goes by package
//
// --help gives the flags with the defaults in force in the module of the
// current directory (or --dir): its project file's packages, catalog,
// operators, exclusions, threshold and report folder, else those of a
// module without one.
// Defaults come from the module at --dir: its .gathermut.json (see
// "Project file"), else every package (./...) and no catalog. This
// repository's project file names the row's packages (./gguf/...
// ./gather/... ./engine/... ./hipkern/...), its catalog (./mutants) and
// leaves gather/gathertest (test support) out. The first line every
// command prints on stderr says which packages, catalog, exclusions,
// operators and threshold apply and where they came from:
//
//	mutate: module github.com/google/uuid: packages ./... (defaults for a module without .gathermut.json)
//
// A pattern that matches nothing, or
// a package that does not load, is a configuration error (exit 8), not
// silently skipped. A generic mutant identical to a catalog mutant (same
// file, same resulting program) is dropped: the catalog entry, which names
// its expected killer, stands for it. Flags may come before or after
// the arguments.
//
// # Project file
//
// An optional .gathermut.json in the module root holds the module's
// defaults; a flag overrides the field it names; unknown fields and bad
// values are configuration errors (exit 8):
//
//	{
//	  "comment":   "for people; ignored",
//	  "packages":  ["./gguf/...", "./gather/..."],   default ./...
//	  "catalog":   "./mutants",                      default none
//	  "exclude":   ["gather/gathertest", "*_string.go"],
//	  "operators": ["default", "const-table"],       default: the default set
//	  "threshold": 85,                               default: none
//	  "reportDir": "reports",                        default: the user cache (see Reports)
//	  "sets":      {"mutate-self": {...}}            other jobs, by name
//	}
//
// --set NAME runs one of the "sets" instead: its fields replace the top
// level's (a field it leaves out has the tool's default, not the top
// level's), and its reports are NAME.{json,md} unless --name says
// otherwise. This repository's set mutate-self is the tool on itself:
// go run ./mutate all --set mutate-self mutates every package of mutate
// (not the test support mutate/report/schematest, nor mutate/bench.go,
// which installs and times gremlins), without the row's catalog, with
// threshold 90, and writes reports/mutate-self.{json,md}, the committed
// reports of the tool's own run. A plain go run ./mutate all stays the
// row's job. (go run ./mutate all ./mutate/... also mutates the tool,
// but with the row's catalog, whose every entry runs whatever packages
// are named.)
//
// # Exclusions
//
// Three ways keep generic operators out of code that is not worth
// mutating (catalog entries, being explicit, still resolve there):
//
//   - file globs: the project file's "exclude" and --exclude GLOB, relative
//     to the module root with forward slashes; * and ? stay within a path
//     segment, ** spans directories, a glob without a slash matches a file
//     name in any directory, and a glob matching a directory covers the
//     files under it. A package named exactly on the command line (a
//     pattern without "...") is mutated whole: naming it asks for it.
//   - //gathermut:ignore <reason> in the doc comment of a func or of a
//     var, const or type declaration (a block or one of its specs, or on
//     a spec's line), or above the package clause for the whole file.
//     Anywhere else, or without a reason, it is a configuration error.
//   - operators: --operators (or the project file's "operators") picks
//     them by name; "default" is the default set and "all" adds the
//     opt-in ones (see mutate/operator's doc for which and why: const-table
//     for the entries of tables of 16 or more, const-tune for integer
//     literals that only tune, such as table entries nothing compares,
//     make's capacities and depths; this repository opts in to const-tune).
//
// //gathermut:equivalent (below) is different: the mutant is made and
// reported as ignored, for a change no test can detect.
//
// # Pipeline
//
// The pipeline lives in mutate/internal, one package per step as
// cargo-mutants has them, run in order by mutate/internal/lab:
// discover (finding the mutants), schedule (baselines, schemata, test
// processes, the kernel: judging them) and outcome (the verdicts' tallies
// and the exit code, which package report renders). In a user's terms:
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
//     can match. It is also kept under the tree's shape (the non-test Go
//     files without function bodies or comments): after a change inside
//     function bodies, to comments, tests or formatting, only the changed
//     packages are loaded and their mutants made again, the rest kept.
//     Progress lines say what each phase took.
//   - build: mutant schemata. For each mutated package one instrumented
//     copy of its files, in an overlay, where every mutant that can be
//     switched sits behind a switch read once from GATHERMUT_MUTANT when
//     the test binary starts; one test binary per observing package is
//     built from it. A mutant that cannot be switched (package
//     mutate/schema says which and why) is built on its own, through an
//     -overlay of its file, as without schemata. A schema build that fails
//     drops the mutants the compiler's errors point into and builds again
//     (they then get builds of their own). Every file the tool adds to or
//     rewrites in a user's package (the switch, the rendered sites, the
//     test wrapper of the one-process baseline) is Go 1.16: the module's
//     go line sets the language version of every file of its packages,
//     overlays included, and a go.mod without a go line means go 1.16, so
//     the generated code uses no clear, min, max, range over an integer,
//     generics or any (mutate/testdata/oldgo holds a module of each kind).
//     A schema build that fails outside every mutant is a bug of the tool:
//     the message names the file by what it is (a module file by its path,
//     "the test wrapper mutate adds to the tests of package P"), and every
//     mutant then gets its own build.
//   - test: the baseline, then the mutants in a pool of -j workers, each
//     a process of its package's schema binary (GATHERMUT_MUTANT=<its
//     number>) or of its own build, under test2json; all child processes
//     share -j slots. A green schema baseline is cached per package (each
//     test's status, time and covered mutants), keyed by the tool binary,
//     the tree hash and the package: a later run on the same tree whose
//     mutants were all recorded (a run after an all, a second run <id>)
//     takes it from there. --no-cache reads and writes neither cache.
//     The order of a mutant's tests is package selection's: its likely
//     killers first (the killer map, kept per module in the user cache
//     dir for every run and learned during it: the tests or subtests
//     that killed it before, else those that killed most mutants of its
//     function, file, package; a subtest runs alone as
//     -test.run '^TestX$/^Q4_K$'), then the rest in cost tiers, tests of
//     3 s or more (a whole-suite nested test) last of all. The map only
//     orders: --no-killer-map runs the tiers alone. A generic mutant
//     whose test process hangs goes on to its other covering tests, so
//     that one a test fails and another hangs on is killed whatever the
//     order (the search stops at a second hang); a hang is then
//     confirmed (twice its limit, one slot) once every mutant has been
//     taken, so it holds no worker meanwhile.
//   - outcome: the tree hash again, the reports, the exit status.
//
// Two hashes of the module: the whole source tree's, taken before and
// after a run, which must not differ (exit 7); and the report's "tree
// before", over only the files the run judged (package mutate/tree,
// JudgedFiles: the mutated packages and the tests that observe them, what
// those import, the catalog, kernel sources, testdata, go.mod, go.sum and
// the project file). list prints the latter ("tree <hash> (N files
// judged)"): a report is current while its hash is the one list prints
// with the report's flags.
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
// Each observing package's baseline is one process of its schema binary
// running all its tests: the schema wraps every top-level test and fuzz
// target of the package (the original renamed; a function of its name
// opens the test's window and, in its first cleanup, copies the hits the
// test made into a record, GATHERMUT_TESTHITS), so one process still
// gives each test's status, time and coverage. Only the tests that process
// cannot vouch for run again, each alone: a test that failed or did not
// finish, one that calls t.Parallel (not wrapped) or ran while another
// test's window was open, and examples. Without schemata (and for a
// package whose tests fail only on the schema binary) each test runs alone
// with -cover -coverpkg=<mutated packages> (or its schema hits), then all
// together. A test whose results alone and together differ is flaky and
// excluded; one failing in both makes the baseline red and stops the run.
// In one process, code a test runs only because no earlier test ran it
// yet (a cache filled once, a sync.Once) counts for that earlier test
// alone; GATHERMUT_CHECK_BASELINE=1 runs every test alone as well, says
// where the coverage differs and uses both (mutate/internal/schedule's
// testwrap.go has the details). A test covers a mutant when it ran the mutant's switch (or the
// probe before the statement around a mutant that is not switched: the
// schema counts hits per site in a file GATHERMUT_HITS maps; without
// schemata, when its coverage profile executed the mutant's position). A
// mutant of a package-level variable or constant is computed when the
// binary starts: it is covered by the tests that run a function of its
// package reading it, when every reader is one, and otherwise by every
// test. A mutant then runs only the tests that cover it (a catalog mutant
// also its expected killers), package by package: the mutated package
// first, then its importers, whose binaries and baselines are made only
// when a mutant survives the earlier packages. go test runs a process's
// tests in source order, whatever -test.run says, so a killed mutant pays
// for every test before its killer: its tests of one package therefore
// run in processes of rising cost, each only if the ones before did not
// decide it, by baseline time: the tiny tests (under 25 ms) in one, the
// other quick ones (under 250 ms) in the next, then each slow test alone,
// quickest first. Which test is named the killer depends on this order;
// the verdict does not, except where a test that hangs under the mutant
// and one that fails change places (timed out or killed: both count as
// detected) or tests depend on the order they run in. A mutant no test
// covers survives as "not covered by any test" without running anything.
// Generic mutants run with -test.failfast and stop at the first killing
// package. A catalog mutant runs its expected killers first and alone (a
// panic in another test would end the binary before the killer ran); only
// if none of them fails do its other covering tests run, to name the
// unexpected killer.
//
// A test that fails on the schema binary but passes without the schema
// (the switches make small functions too big to inline, so allocation
// counts can change) does not stop the run: that package's tests run on
// builds of their own, and the report says so for each mutant.
//
// # Tests that build the module
//
// A test may build the module it tests and run what it built (a
// command's end-to-end test runs go build, go run or go test on its own
// packages). The tool never writes the tree, so every test process gets
// GOFLAGS with -overlay=<the overlay its test binary was built from: the
// schema's, or the mutant's own> and -count=1 (a nested go test must run,
// not answer from the test cache, which cannot see the schema switch),
// added to the user's GOFLAGS (go env GOFLAGS; an -overlay there is
// merged into every overlay the tool writes, since a command line's
// -overlay replaces it). A binary built that way inherits
// GATHERMUT_MUTANT and counts its schema sites in the test's
// GATHERMUT_HITS file, so its coverage is the test's; without schemata
// the baseline also asks the nested go commands for -cover of the mutated
// packages, collects the counters of the binaries they build (GOCOVERDIR)
// and the profile of a nested go test (the last one a test runs), and
// adds them to the test's profile. Which packages' tests can see a
// mutant still follows the imports: a test in a package that neither is
// nor imports the mutated package is not run for it, whatever it builds.
// With schemata every mutant of a run builds the same overlay, so only
// the first nested build compiles and the rest come from the build cache;
// without schemata each mutant's nested build compiles its package. The
// GATHERMUT_* variables the tool inherits (when its own test runs it
// under another run) are not passed to the test binaries it runs.
//
// # Timeouts
//
// Each test of a mutant's run is held, from when it starts, to
// --timeout-factor (3) times its baseline time plus the floor, and the run
// as a whole to the sum of those plus the floor: a hang costs about its
// own test's limit. --timeout sets either part in one flag: a number (5,
// 5x) is the factor, a duration (2s) the floor; the limit stays the one
// formula, so there is no third knob to reconcile with the other two (a
// decision: a duration meaning "this many seconds per test, whatever the
// baseline" would undo what the baseline times measure). The floor is
// --timeout-floor when given; by default
// (auto) it comes from this machine: before the mutants start, each test
// binary built first is started three times with no test selected, and
// the floor is five times the slowest start-up, at least 200ms (the
// report's timing has both). A test process that passes its limit runs
// again before its timeout counts: alone (every -j slot held, and every
// GPU slot where its tests use the GPU: no other test process beside it)
// with twice the time. If it times out again the mutant is "timed out
// (confirmed)"; if it finishes, that run decides: "slow, then killed" or
// "slow, then survived". The summary line, the summary's counts
// (confirmedTimeouts, slow) and the markdown keep them apart; the
// timing's timeoutReruns and reruns give their cost. Builds are never
// timed. Every test
// binary also gets -test.timeout (twice its run's limit plus a minute), so
// none outlives the tool even if the tool is killed; baseline runs are
// limited by --baseline-timeout (10m). On a timeout, or Ctrl-C, the
// child's process group is killed (a timed-out mutant records the
// signal, exit code -1); temp files are removed.
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
// mutant whose own declaration, whose tests (those that ran with it; for
// a verdict other than a kill, every test that can reach it) and their
// code, the functions those tests ran, the testdata, go.mod, go.sum, the
// tool and Go are unchanged since the verdict was stored, and runs only
// the rest; the schema build and the baseline cover only what runs. Code
// is compared without comments and formatting, so a comment re-judges
// nothing, and a change to one function re-judges the mutants whose tests
// ran it. Which functions ran comes from probes an --incremental run's
// schema puts at the start of every function body of the module's
// production code, read per test from the one-process baseline and per
// mutant from its own test processes (package incremental has the exact
// rule). The references between declarations are kept in the cache dir
// (incremental-graph) under the code without comments, so a run after a
// comment-only change does not type-check the module again. Reused
// verdicts are marked in the reports (result.reused, statusReason, the
// markdown) and counted apart from the rate.
//
// # Assembly and kernel mutants
//
// A Go package's code is more than its Go files where it has assembly,
// and the row's gather runs in a GPU kernel too. Both get generic mutants,
// judged by the same rules (the tests that ran the code, the catalog's
// expected killers first), and each result says which backend judged it:
// go, asm-amd64, kernel-emulation or kernel-gpu. The summary prints a
// score per backend, and the markdown has a table of them.
//
//   - Assembly: the .s files a package builds for this GOARCH are parsed
//     (package goasm) and mutated by the asm-* operators (a twin
//     instruction, a shuffle selector, a shift count, an immediate, a
//     constant table's value, a load or store displacement, a branch
//     condition or boundary, a deleted instruction; and the row's SIMD
//     memory faults: an aligned move for an unaligned one, a load
//     widened past the last block's tail, a deleted VZEROUPPER).
//     Generated code
//     unrolls its loops, so each routine keeps the first occurrence of an
//     instruction text and at most 12 mutants of each operator, spread
//     evenly (operator.AsmPerClass): every routine gets every class that
//     applies. Assembly mutants are Go mutants of their package: in a
//     schema run each routine that holds one dispatches at its entry to a
//     copy with the running mutant made (the schema's switch and hits,
//     read from the assembly), so one test binary holds them all; without
//     schemata each builds through an -overlay of the .s file. A test
//     covers one when it entered its routine. The catalog's asm-text
//     operator names an assembly change and its expected killer.
//   - Kernel: the catalog's Kernel recipe names the kernel's Entry file;
//     package cxx reads its C++ (a real lexer and a conditional
//     preprocessor: comments, strings and preprocessor lines are never
//     mutated) and mutates the device functions (__device__ or
//     __global__, directly or through a macro) with the generic operators
//     that have a C++ meaning (and the fault operators neg-form,
//     recip-div and guard-swap), in the code the host emulation compiles.
//     Kernel mutants are judged on a GPU where the recipe's GPU compiler
//     (Tools) builds the unmutated library and the kernel package's tests
//     run on it (on a machine where nvidia-smi or rocminfo finds a GPU: a
//     GPU compiler installed for compile checks alone makes no GPU
//     backend), on the recipe's host emulation elsewhere, each backend
//     judging the mutants whose code its compiler sees (a change inside
//     #if defined(__CUDA_ARCH__) only on an NVIDIA GPU). Each backend
//     builds one kernel schema (package kernel: every kernel mutant behind
//     GATHERMUT_MUTANT, read by the kernel's own hooks; a mutant the
//     schema cannot hold builds on its own), runs the kernel package's
//     tests each alone on it with GATHERMUT_KERNEL_HITS (which tests ran
//     which mutant's code), then runs each mutant's covering tests in
//     rising cost. --no-schemata builds every kernel mutant on its own.
//   - The GPU: test processes that use it (kernel mutants on a GPU and the
//     kernel baseline there) hold one of --gpu-jobs slots (default 2) as
//     well as one of -j's: a GPU serves few processes at once, whatever
//     -j, and a verdict must not depend on -j. A test process that
//     times out is run again alone, with the GPU to itself and twice the
//     time, before its timeout counts (see Timeouts).
//
// # Verdicts
//
// killed (the failing tests are named), survived, timed out, unviable (does
// not type-check or compile: reported apart, outside the score), not run
// (with why: no GPU and no host emulation for a kernel mutant, every
// selected test skipped), error (no test ran under the selection, an expected killer
// that does not exist, a catalog entry that does not resolve or whose diff
// is empty), ignored (equivalent: a //gathermut:equivalent <reason> comment
// or a catalog Equivalent). A skipped test is neither a pass nor a kill. A
// catalog mutant counts as caught only when one of its expected killers
// failed; a kill by other tests only is "killed by an unexpected test".
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
// --threshold P (or the project file's "threshold") is the score, in
// percent, at which survivors stop failing the run: a team that accepts
// 85% gates on exit 0. It relaxes exit 1 only: a catalog mutant not
// killed by its expected test (5), an error (6), a timeout under
// --strict-timeouts (4) still fail. The score is compared exactly (84.96%
// is below 85%); the summary line, the final line and both reports state
// the threshold and whether it was met.
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
// all writes <name>.json, <name>.md and <name>.html into --report-dir;
// without it into the project file's reportDir (relative to the module
// root), and without that into a folder of the module in the user cache,
// os.UserCacheDir()/gathermut/reports/<module path>-<hash of its root>
// (GATHERMUT_CACHE moves it with the caches), so that a run writes
// nothing into a module that did not ask for it; the last line on stdout
// names the files. This repository's project file names reports/, which
// git ignores except the committed reports of the row, gather-row.* and
// gather-row-gpu.*: go run ./mutate all --name gather-row writes them in
// place. --name defaults to mutation. run writes run.json, run.md and run.html unless --name says
// otherwise, so rerunning a few mutants never overwrites the reports of a
// whole run; list and diff write none. Package report says what the files
// hold: in short, the JSON is the mutation-testing-report-schema
// (validated against the official schema by the tests), with
// module-relative paths only and this tool's evidence under "gathermut"
// (the run's typed configuration, timing and modes, and per mutant its
// result, mode and schema site), written lean (no indentation, short test
// ids, commands and diffs derived instead of stored) and read back whole;
// the markdown fits a pull request (at most 60,000 characters), findings
// first; the HTML is one self-contained page, the mutation-testing-elements
// viewer with the report in it, that opens from disk with no network.
//
// --sarif FILE also writes the findings (survivors, mutants no test
// covers, catalog mutants not killed by their expected test, errors) as a
// SARIF 2.1.0 log for code scanning (GitHub shows an uploaded log's
// results on the pull request's changed lines): one result each at its
// place, ruleId the operator or the catalog id, and a partial fingerprint
// that keeps a survivor's identity when code above it moves. Every
// location's uri is relative to the repository root (the git work tree
// holding the module: a module in a subfolder gets that folder in its
// paths) and says so with uriBaseId SRCROOT, which originalUriBaseIds
// defines without an absolute path (it differs on every machine; code
// scanning resolves it to its checkout). The driver's informationUri is
// the tool's package on pkg.go.dev where its import path can be fetched
// (a domain first); a checkout-only build such as this repository's
// gathermut/mutate has no public page, and the field is left out.
// --annotations github prints the same findings as GitHub Actions
// workflow commands on stdout (::warning file=...,line=...::...).
//
// --shard k/n runs part k of n parts that split the
// mutants by expected work, not by count: a mutant decided without running
// (unviable, ignored) costs nothing, one switched in a schema binary one
// test process, one that needs its own build ten, a kernel rebuild
// thirty; the most expensive go first to the least loaded shard. The split
// depends only on the mutants found, so shards may run on different
// machines, with or without --no-schemata. merge combines the shard
// reports, and
// refuses a set that is not one whole run: a shard missing or given twice,
// shards of different n or mixed with an unsharded report, or runs of
// other packages, catalog or judging settings (--strict-timeouts,
// --operators, --timeout-factor, --exclude, --threshold, ...:
// config.Judging).
//
// # Speaking to the module it runs in
//
// The tool works the same in any module, and says what it does in that
// module's terms:
//
//   - Rerun commands (the markdown's "Rerun:" lines, the JSON's evidence,
//     SARIF and annotations) start with the command that started the run,
//     as it works from the module root: go run ./mutate in this
//     repository; the binary's name when it was found on PATH (mutate);
//     its path from the module root when it was started by a path
//     (bin/mutate); go run <package>@<version> for a released version
//     started with go run, or go run <package> when the module requires
//     that version; for go run from a checkout of this repository on
//     another module, go run -C <checkout> ./mutate ... --dir <module>,
//     both relative. Reports from before record none and read as before.
//   - Mutants no test covers are counted and listed apart from survivors
//     (the tests ran them and missed): in the summary line ("2 survived,
//     1 not covered"), the final line, the progress line, -v ("not
//     covered: <id>") and the markdown's columns and findings; both count
//     as undetected in the score, and in the verdict "survived" of the
//     JSON (NoCoverage is the schema's status; summary.notCovered the
//     count).
//   - Findings are listed by file, line and column.
//   - The row's own words (mutant schemata, switched mutants, "no catalog
//     mutants in this run") appear only when a catalog is configured, as
//     in this repository; elsewhere the same lines speak of test binaries
//     and say nothing of a catalog. The same rule holds for the help
//     (--catalog, --only-catalog, --gpu-jobs, --lang kernel and the bench
//     commands are listed only with a catalog; they are still accepted),
//     mutate operators (the GPU kernel family only with a catalog: kernel
//     device code is reached only through a catalog's kernel recipe, so a
//     catalog is what "kernel sources here" means), the first line (no
//     "no catalog" clause), the markdown (no "Scores by backend" table of
//     one row) and the reports' titles: "Mutation report: <module>" in
//     the markdown and the HTML page's title (the report's name beside it
//     when not the default mutation; the row's reports keep their names).
//   - mutate <command> -h prints that command's usage line and the flags,
//     not the list of every command.
//   - list --json prints one JSON object per mutant and line (id,
//     operator, kind, package, file, line, column, func, original,
//     replacement, the state decided before any test with its note, and
//     the diff), for scripts; other commands refuse --json (all's report
//     is JSON already).
//   - Progress: on a terminal one line redraws itself; when stderr is not
//     a terminal (CI, a file), a line saying where the run is comes after
//     every 10 s without output (GATHERMUT_PROGRESS_EVERY), and each phase
//     ends with its counts on a line of its own.
//   - No temp dir is made for work that needs none (list and diff from
//     the discovery cache), and a closed stdout (mutate list | head) ends
//     list and diff cleanly: not killed by SIGPIPE, the temp dir removed,
//     the final line saying where the output stopped.
//   - Paths in what it prints and writes are shortened only at a path
//     separator: with the module at ~/src/app, ~/src/app-inc.cache stays
//     ~/src/app-inc.cache.
//   - mutate operators lists every operator, one line each (name, default
//     set or opt-in, on or off here, what it does, an example), by
//     language: Go (package operator), Go assembly (package goasm, the
//     asm-* operators) and GPU kernel device code (package cxx). Each is
//     selectable by name in --operators and the project file; a kernel
//     operator that mirrors a Go one shares its name, and the name then
//     selects both; "default" and "all" hold every assembly and kernel
//     operator. "on" also needs the language among --lang's; a kernel
//     operator runs only where a catalog's kernel recipe names the kernel.
//
// # Environment
//
//	GATHERMUT_CACHE      the caches' directory, and the default reports' (default: gathermut in the user cache dir)
//	GATHERMUT_KEEP_TMP   keep a run's temp dir (the schemata, binaries, overlays) and say where
//	GATHERMUT_PROGRESS_EVERY  the longest silence on a stderr that is not a terminal (default 10s)
//	GATHERMUT_MUTANT     set by the tool: the mutant a schema binary runs
//	GATHERMUT_HITS       set by the tool: the file a schema binary counts site hits in
//	GATHERMUT_KERNEL_HITS set by the tool: the file a kernel schema counts site hits in
package main
