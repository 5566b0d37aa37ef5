// Package catalog holds the plain data types a module's mutant catalog is
// written in: entries that name one place in the code, the operator that
// breaks it and the tests expected to catch the break, declarations of
// equivalent mutants, and the build recipe for kernel (non-Go) mutants.
//
// The types import only the standard library and are JSON-compatible, so the
// mutate command can read any module's catalog by running a tiny program that
// prints json.Marshal(pkg.Catalog()); a module may also declare its own types
// with the same field names instead of importing this package.
package catalog
