// Package incremental keeps the verdicts of earlier runs and says which
// still hold, so that "mutate all --incremental" judges again only the
// mutants a change can affect (what Stryker's --incremental does).
//
// # What a verdict depends on
//
// A verdict is stored under the mutant's identity with the names of what
// it depends on and the digest of their values; it is reused while every
// one of them is unchanged, by content (never by time stamp). Code is
// compared without its comments and formatting: a Go declaration by its
// tokens (go/scanner, comments and semicolons left out), an assembly or
// C/C++ file by its text without comments, each line's blanks made one
// (normalizeText). A comment or a reformatting therefore re-judges
// nothing.
//
// The identity (Graph.Identity) is the mutant's kind, file and operator
// and, for a Go mutant, its top-level declaration's name and the tokens
// of that declaration with the mutant's edit made; for an assembly or
// kernel mutant, the normalized line the edit starts on (and how many
// equal lines come before it), the normalized text before the edit on
// that line, and the edit; for a catalog mutant also the entry and its
// expected killers. A line added above it changes its id, not its
// identity.
//
// The dependencies (depsOf), each a name the current Graph gives a value:
//
//   - the mutated code: its declaration (n:pkg.Func); for an assembly
//     mutant the whole .s file (f:) and the Go declaration of its routine;
//     for a kernel mutant every kernel source (f:). For a mutant the
//     compiler rejected (unviable after a build), every declaration of its
//     package (p:).
//   - the tests whose outcome made the verdict: those that ran with the
//     mutant active (for a kill, these and its expected killers only: a
//     test added elsewhere cannot undo a kill); for any other verdict also
//     every test that can reach the mutated declaration (Graph.candidates,
//     the tests whose static closure holds it; for a kernel mutant every
//     test of the kernel's package), and that set itself (c:, k:), so a
//     new test that can reach a survivor re-judges it. Each test's own
//     code (t:): the declarations of test files and test-only packages
//     (helpers only tests import, such as a conformance suite) in its
//     closure.
//   - the production code those tests ran, function by function. An
//     --incremental run's schema puts a probe at the start of every
//     function body of the module's production code (function literals
//     count for the declaration they are in; Graph.Probes), so the hits
//     file of a process tells which declarations ran. For the tests that
//     ran with the mutant, what their processes entered with it active
//     (x:, a node set); for the other candidate tests, what each entered
//     in the baseline (b:, from the one-process baseline's per-test
//     hits). What no probe can show is taken from the static graph: every
//     declaration of a test's closure that is not a probed function
//     (s:): package-level variables, constants and types, functions
//     without a body (assembly: its files are in such a declaration's
//     value), functions with a //go: directive. Without such evidence (a
//     mutant built on its own, a kernel mutant, a baseline from the cache)
//     the key is static for that test: every production declaration its
//     closure holds.
//   - through the global hash and the salt the caller passes: go.mod,
//     go.sum, every file under a testdata directory (which test reads
//     which is not in the code), the tool's binary, the Go version,
//     GOOS/GOARCH, the judging flags, the GPUs found and kernel compiler on
//     PATH, and the GATHERMUT_* environment.
//
// Why what ran is enough: a test run again on changed code behaves the
// same until it first runs changed code, so if nothing it ran changed
// (and its own code, its data and the mutant did not), it decides the
// same; for a mutant that survived, a test that could reach it but did not
// also keeps not reaching it while what it ran is unchanged.
//
// The graph (Graph) is the module's top-level declarations, parsed from
// the files on disk, and the references between them from the module
// type-checked with its tests (go/packages): a use of a package-level
// variable, constant or type; a static call; a dynamic call of a function
// value, which may reach every function of that signature whose value
// escapes (a table of decoders) and every function literal of that
// signature; an interface method call, which may reach that method of
// every module type that has all the interface's methods; and a type's
// methods the standard library calls on values it is handed (String,
// Error, Len, Read, ...). The graph gives the tests' closures (what a test
// can reach) and the candidates; the probes make the keys as narrow as
// what ran.
// BuildCached keeps the references in a directory (the run's cache dir,
// incremental-graph) under a digest of the declarations' tokens, the
// packages' files and imports, go.mod and go.sum (edges.go): a build
// after a comment-only change, or none, does not type-check the module
// again.
//
// What the key leaves out, on purpose: the order and timing of goroutines
// and anything else that makes a test nondeterministic; files a test reads
// by path outside testdata; the environment besides GATHERMUT_*;
// reflection by name (a declaration reached only that way is not in a
// closure, but if it ran, its probe saw it); what a test left in the
// process for a later one (the one-process baseline attributes a lazily
// filled cache to the test that filled it).
//
// Only verdicts the tests or the compiler gave are stored (killed,
// survived, timed out, not run because every selected test skipped,
// unviable after a build); the rest are decided again each run at no cost,
// and errors and interrupted mutants run again. A full run (without
// --incremental, as CI and the committed reports do) judges everything
// and renders no probes.
//
// The cache is one gzip'd JSON file (format 2: entries by identity, each
// with its dependency names and digest, and the node sets the names
// refer to), by default in the user cache dir
// (os.UserCacheDir()/gathermut/incremental/, one file per module root),
// or at the path --incremental=FILE gives. A whole run drops the entries
// of its packages it did not judge; an interrupted run keeps them.
package incremental
