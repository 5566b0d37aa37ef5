// Package kernel builds the kernel library for kernel mutants: the schema
// (every switchable kernel mutant of a run behind GATHERMUT_MUTANT, in one
// build) or one mutant on its own, for the GPU build of the catalog's
// kernel recipe or for its host emulation.
//
// A run reads the recipe's sources once (Read) and parses them in every
// build environment (the host emulation's, nvcc's and hipcc's device
// passes: package cxx). A mutant's site in a schema is found in the parse
// of the backend that builds it (Sources.SiteFor), so a catalog entry's
// change, which is plain text, is switched like a generic mutant when it
// lies inside an expression or statement of a parsed function body, host
// code included. BuildSchema renders the schema (cxx.Render), prepends the
// header that turns it on (GATHERMUT_SCHEMA, GATHERMUT_SITES, then a #line
// directive so the compiler numbers the entry's lines as written), and
// builds it; when the compiler's errors (gcc and clang's file:line:col,
// nvcc's file(line)) point into mutants' rendered code, those mutants are
// dropped from the schema and built on their own, and the schema is built
// again.
package kernel
