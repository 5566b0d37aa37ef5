// Package load reads the Go module under test with golang.org/x/tools/go/packages:
// the target packages with their syntax, types and type information, and, for
// the whole module, the import graph (test files included) and the top-level
// tests of every package.
//
// Decisions:
//   - The importer graph is restricted to the module: a mutant in package P can
//     be observed by P's own tests and by the tests of every module package that
//     imports P directly or transitively, test files included.
//   - A package's tests are the top-level Test, Fuzz (their seed corpus runs
//     under go test) and Example functions (only those with an "Output:"
//     comment, which are the ones go test runs) of its _test.go files,
//     internal and external test packages alike.
//   - Generated files follow the standard rule: a line
//     "// Code generated ... DO NOT EDIT." before the package clause.
//   - Packages that use cgo are parsed from their GoFiles (not the cgo output)
//     and type-checked here with FakeImportC, so positions are the user's.
//   - go commands run with GOWORK=off so the module at --dir is the one tested.
package load
