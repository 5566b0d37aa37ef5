// Package mutants is the gather row's mutant catalog: Go data, type-checked
// by the compiler, that the mutate command reads through Catalog.
//
// Each entry names one place in the row's code (a package, a function or
// variable, and a matcher that must resolve to exactly one expression,
// call, element or kernel text), the catalog operator that breaks it, the
// test or tests expected to kill it, and a one-line reason. The entries
// cover the thirteen classes of docs/row.md ("Mutation evidence"); class 4 is
// expanded per admitted codec into a scale, a payload and (for the codecs
// that look values up in a table) a codebook corruption, in both the Go
// decoders and the HIP kernel. Class 4 also holds the edge entries
// (edges.go): bugs at the edges of the float formats that one-token generic
// rewrites cannot make (non-finite scales read as zero, E8M0 scales without
// their subnormal cases, a bf16 conversion that flushes subnormals, a zero
// that loses its sign), killed by the oracle's scales and zeros cases and
// the bf16 rounding table.
//
// Go entries are killed on any machine. Kernel entries rewrite the
// hipkern sources, rebuild the library into a temporary directory and run
// the hipkern GPU tests against it; where no GPU compiler or no GPU is
// present they are reported as not run, never as killed.
//
// Equivalents records generic-operator mutants that cannot change
// behaviour, each with the reason, so that reports show them as ignored
// rather than as survivors.
package mutants
