// Package incremental keeps the verdicts of earlier runs and says which
// still hold, so that "mutate all --incremental" runs only the mutants a
// change can affect (what Stryker's --incremental does).
//
// A verdict is stored under the mutant's identity (its file, its
// top-level declaration, the edit relative to that declaration, the
// operator, the catalog entry: a line added above it changes its id, not
// its identity) with a key: the sha256 of everything the verdict depends
// on, by content, never by time stamp. Graph holds the module's top-level
// declarations (parsed from the files on disk, each with its exact text)
// and the references between them, from the module type-checked with its
// tests (go/packages): a use of a package-level variable, constant or
// type; a static call; a dynamic call of a function value, which may
// reach every function of that signature whose value escapes (is stored,
// passed, returned: a table of decoders) and every function literal of
// that signature (as its enclosing declaration); an interface method
// call, which may reach that method of every module type that has all the
// interface's methods; and a type's methods that the standard library
// calls on values it is handed (String, Error, Len, Read, ...). A function
// named as a value is not called by the code that names it: the dynamic
// calls that can reach it are. A mutant's key covers:
//
//   - the mutant: its edit and its declaration's text;
//   - every declaration its declaration can reach (callees, the types it
//     uses and their methods, constants, variables): the code its effect
//     runs through;
//   - every declaration on a path from a test to it (its callers, the
//     tables that hold it, the tests themselves): the code that decides
//     whether and how the tests reach it;
//   - the tests that can execute it (whose closure holds it: the test,
//     its package's TestMain, and what runs at init in the binary) by
//     name, and their own code: the declarations of test files and of
//     test-only packages (helpers only tests import) in their closure;
//   - for a declaration without a body, the package's assembly; in a cgo
//     file, the package's C sources and the cgo preamble; for a
//     //go:embed variable, the embedded files;
//   - go.mod, go.sum, every file under a testdata directory, the tool's
//     binary, the Go version, GOOS/GOARCH, the judging flags, the GPUs and
//     kernel compilers found, and the GATHERMUT_* environment (the salt
//     the caller passes).
//
// A kill is stored with a narrower key: of the tests only the killers
// (and a catalog mutant's expected killers), of the paths only those
// from them. Adding a test elsewhere cannot undo a kill, so the reviewer's
// loop (add a test for a survivor, run again) reruns the survivors the
// new test can reach, not every mutant it can. Only verdicts the tests or
// the compiler gave are stored (killed, survived, timed out, not run
// because every selected test skipped, unviable after a build); the rest
// are decided again each run at no cost, and errors and interrupted
// mutants run again.
//
// What the key leaves out, on purpose: production code that a test runs
// but that neither reaches the mutated declaration nor lies on a path to
// it (the other decoders a table-driven test also checks). Such code can
// change a verdict only through state it shares with the mutated code, or
// by changing what the tests check when the checks are production code.
// Also out: a dynamic call in production code reaching a function of test
// code (a test's callback: the test's own code is in the key anyway, what
// the callback calls in turn is not), reflection by name, files read by
// path outside testdata, and the environment besides GATHERMUT_*.
//
// On the row, a one-line change to one decoder (gather's decodeQ4_K)
// changes the keys of 1,320 of its 6,958 mutants that need a build or a
// test (76 functions: the decoder, its helpers, the dispatch code and the
// conformance suite that runs every decoder, the engine and kernel paths
// that decode); building the graph and the keys takes about 4 s there.
// A full run (without --incremental, as CI and the committed reports do)
// judges everything again.
//
// The cache is one gzip'd JSON file, by default in the user cache dir
// (os.UserCacheDir()/gathermut/incremental/, one file per module root),
// or at the path --incremental=FILE gives. A whole run drops the entries
// of its packages it did not judge; an interrupted run keeps them.
package incremental
