// Package report writes and reads the results of a mutation run.
//
// <name>.json follows the mutation-testing-report-schema (schemaVersion 2),
// so existing viewers (mutation-testing-elements) render it: per file the
// original source and its mutants with id, mutatorName, location, status,
// statusReason, killedBy, coveredBy, replacement, duration. Our statuses map
// to the schema's: killed -> Killed, survived -> Survived (NoCoverage when no
// test executes the mutant), timed out -> Timeout, unviable -> CompileError,
// error -> RuntimeError, ignored -> Ignored, and not run -> Ignored with
// statusReason "not run: <why>". Everything else this tool knows is kept
// under the extension key "gathermut", at the top level (run metadata: tree
// hashes, machine, GPU, Go version, baseline, exit code, the run's typed
// configuration (config.Config, also the schema's "config"), where the
// time went (Timing) and how many mutants each mode judged) and in each
// mutant (the full mutant and result: diff, edit, schema site, commands,
// exit code, failure excerpt, expected killers, and the mode that judged
// it: schema, overlay, kernel or static, with why it was not switched when
// a schema run built it on its own), so Merge can rebuild a report from
// shard reports.
//
// <name>.md is the pull-request view: a summary, tables per package and per
// operator, the catalog, then every survivor and every mutant killed by an
// unexpected test with its diff in a <details> block.
package report
