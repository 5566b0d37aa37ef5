// Package report writes and reads the results of a mutation run. It
// renders; the tallies (Summary) and the exit code with its reason come
// from package outcome (mutate/internal/outcome), which a merge of shard
// reports asks again over the union.
//
// # JSON
//
// <name>.json follows the mutation-testing-report-schema (schemaVersion 2;
// the tests validate every report they write against the official schema
// of mutation-testing-elements v3.9.0, stored in schematest/testdata), so
// existing viewers render it: per file the original source and its
// mutants with id, mutatorName, location, status, statusReason, killedBy,
// coveredBy, replacement, duration; testFiles names the file and line of
// every test a killedBy or coveredBy holds (a crash outside any test,
// "pkg (test binary)", is listed under NoTestFile in its package's
// directory: viewers show the keys as files), so every id resolves; performance gives the time of discovery, baseline and
// mutation.
//
// Statuses: killed -> Killed, survived -> Survived (NoCoverage when no test
// executes the mutant), timed out -> Timeout, unviable -> CompileError,
// error -> RuntimeError, ignored (equivalent) -> Ignored, and both not run
// (no compiler for a kernel mutant, every selected test skipped) and
// interrupted (Ctrl-C came first) -> Pending. Pending is the schema's
// status for a mutant that has not been tested yet, which is what these
// are: a GPU machine, or the next run, tests them. Ignored would put them
// with the equivalents, which viewers show as settled; Pending shows them
// apart, and like Ignored it stays out of the score. A package-level
// mutant (a constant or a variable's initializer, fixed before any test
// runs) is marked static.
//
// Not covered: a survivor no test executes keeps the verdict survived
// (NoCoverage in the schema) and is counted in Summary.NotCovered; every
// human-facing count (CountsText, the one-line reason, the markdown's
// columns and findings groups) shows it apart from the survivors the
// tests ran and missed (Summary.Survivors). The score counts both as
// undetected.
//
// No report holds an absolute path: files are module-relative,
// projectRoot is ".", commands run from the module root, and Build
// replaces the module root, the run's temp dir, GOROOT, GOMODCACHE,
// GOCACHE, the system temp dir and the home directory in every string it
// writes ($TMP, $GOROOT, ...), each only where it stands as a whole path
// or a path's start (a separator or the end after it: ~/src/app-inc.cache
// is not the module ~/src/app); a configured directory outside all of
// them is written as "(outside the module)". Test output is trimmed to what
// identifies the failure (TrimFailure: the t.Error messages, the --- FAIL
// lines, a panic and its first frame in the module; at most 1,000 bytes),
// never goroutine dumps. Everything else this tool knows is under the
// extension key "gathermut": at the top level the run (tree hashes,
// machine, Go version, the run's typed configuration (config.Config),
// baseline, where the time went (Timing), how many mutants each mode
// judged, every shard's record in a merged report, the incremental cache,
// exit code and reason), in each mutant the mutant and result less what
// the schema fields hold (with the mode that judged it: schema, overlay,
// kernel or static, and why it was not switched), and the command that reruns it, so that Merge can rebuild
// a report from shard reports.
//
// Commands: every command a report gives (the rerun of a mutant, "diff
// <id>", the command line of the run) starts with the command that
// started the run, as it works from the module root
// (config.Config.Tool and ToolDir, ToolCommand): "go run ./mutate" in
// this repository, "mutate" from PATH, "bin/mutate", "go run
// example.com/x/mutate@v1.2.0", or "go run -C ../gathermut ./mutate ...
// --dir ../app". A report written before the run recorded it gives the
// old forms. The row's own terms ("schema builds", "no catalog mutants in
// this run") appear only where a catalog was configured (RowTerms).
//
// # Lean JSON
//
// The file is written lean, in two parts, and read back whole (lean.go;
// Read returns exactly the report Write was given, which TestLeanJSON,
// TestLeanReadsCommittedReport and TestRowReportSize check). <name>.json
// is the schema's document with the run's record under "gathermut";
// each mutant's evidence (its "gathermut" object) is in the side file
// <name>.evidence.json (EvidencePath), which gathermut.evidence names:
// per file, in the order of the report's mutants, with the command
// table. Read needs both files (it says which one is missing); a report
// written before the side file holds its evidence itself and reads as
// before. The side file keeps the report a reviewer's tools download
// small: the row's full run (9,771 mutants) writes 5.6 MB and a 4.8 MB
// side file, where the one file took 10.7 MB.
//
// Both are written without indentation and with <, >, & as they are;
// test ids in killedBy, coveredBy and testFiles are short ("0", "1", ...,
// the shortest for the tests the mutants name most), and gathermut.tests
// lists the full id ("pkgpath.TestName") of each; a killed mutant's
// statusReason names its killers by test name (killedBy has the ids); a
// mutant's commands are indexes into the command table, templates in
// which {n} stands for its schema number (GATHERMUT_MUTANT={n}) and {dir}
// for its own temp folder ($TMP/mutant-{dir}/), with the two values
// beside the indexes (run: t, n, dir); the diff is left out where the
// mutant's edit (kept: start, end, text) applied to the file's source
// gives it back (mutant.EditDiff), and the rerun command, which
// RerunCommand derives from the mutant and the run's configuration; in
// the evidence, file, pos and end are left out when the files key and
// the location hold them, and so is every key whose value is its type's
// zero value (in the schema site too). A command, diff or test id that
// its table cannot give back stays as it is; so is each mutant's
// description, which the evidence gives (description; viewers show the
// replacement). Reports written before the lean form read as before.
//
// # HTML
//
// Write also writes <name>.html (HTMLPath): one page that holds the
// browser bundle of mutation-testing-elements (ViewerVersion, embedded
// from viewer/, where its license and provenance are) and the report's
// schema part (each mutant's "gathermut" evidence stays in the JSON's
// side file), so that it opens from disk and renders with no server and
// no network. Above the viewer the page shows what the viewer cannot
// (htmlSummary): the scores by backend where there is more than one (Go,
// assembly, the kernel on the host emulation or a GPU), the mutants not
// run and why (Pending in the viewer) and the kernel mutants left to GPU
// runs (in no file of the report); a Go module's run gets none of it.
// TestHTMLRendersInBrowser opens written pages in a headless Chromium or
// Chrome when one is installed ($GATHERMUT_BROWSER, else chromium or
// google-chrome on PATH; on Debian: apt-get install chromium) and checks
// what the viewer shows; without one it skips.
//
// # Findings: SARIF and annotations
//
// Findings lists what a reviewer acts on, ordered by file, line and
// column: catalog mutants not killed by their expected test and errors
// (level error), survivors and mutants no test covers (level warning).
// SARIF (--sarif FILE) writes them as a SARIF 2.1.0 log, valid against
// the official schema (pinned in schematest/testdata): one result each at
// its place, ruleId the operator or the catalog id, with a rule per id,
// and the partial fingerprint FingerprintKey, a hash of the operator,
// file, function, original and replacement text and how often the
// original text occurs earlier in the function; unlike the mutant's id
// it does not change when code above the mutant moves it, so code
// scanning keeps a survivor's identity across runs. Paths are relative to
// the repository root (the module's directory in its git work tree is put
// in front), columns count Unicode code points. GitHubAnnotations
// (--annotations github) prints the same findings as workflow commands
// (::warning file=...,line=...,col=...::message), which GitHub Actions
// shows on the pull request's lines.
//
// # Markdown
//
// <name>.md is the pull-request view, at most MaxMarkdown (60,000)
// characters whatever the run's size (a pull request holds 65,536). It
// starts with the outcome, the counts and how the run went, then what a
// reviewer acts on, most severe first (the exit code's order): catalog
// mutants not killed by their expected test, survivors (those the tests
// ran and missed: grouped by function, likely gaps first, then const-int
// changes folded per function, then the equivalent-looking ones, marked;
// triage.go), mutants no test covers, errors, the other groups in source
// order (file, line, column), each finding with its
// diff in a <details> block and the command that reruns it; then the
// scores per package and per file, the catalog table, the scores per
// operator, and counts with a short list of ids of what needs no action
// (timed out, unviable, ignored, not run, interrupted, reused), then the
// baseline. When the findings do not all fit, as many as fit keep their
// diff, the next ones get one line each, and the rest a count; long
// tables keep their worst rows; a closing "Cut to fit" section says what
// was left out and that the JSON has it all.
package report
