// Package schema builds mutant schemata (mutation switching): one
// instrumented copy of a package's files in which every mutant that can be
// switched sits behind a run-time switch, so one test binary per
// observing package runs every mutant, each in a process started with
// GATHERMUT_MUTANT=<its number>.
//
// Classify decides, at discovery, how a mutant is switched (its site) or
// why it is not (then it is built on its own, as without schemata):
//
//   - an expression becomes a called func literal,
//     func() T { hits[s] = 1; switch active { case n: return <mutated> }; return <original> }(),
//     evaluated exactly once, like the original (T is its type, written as
//     the file can name it; an untyped bool is bool). A constant
//     expression is switched at the largest constant expression around it,
//     so the compiler still folds both values exactly; it is not switched
//     where a constant is required (an array length or index key, another
//     constant) or where it stays untyped;
//   - a statement becomes if active == n { <mutated> } else { hits[s] = 1;
//     <original> } (a deletion leaves the mutated branch empty), wrapped in
//     a block in an else position and in a called func literal where only
//     a simple statement may stand (a for loop's post statement);
//     statements that declare names (:=, var, labels) and fallthrough are
//     not switched, nor is code that calls recover where it would move into
//     a func literal;
//   - an if's body (branch-if) becomes a block holding the same if/else,
//     and a case body (branch-case) is switched as one statement list;
//   - a constant becomes a variable initialized by such a switch when
//     package Facts shows that no code of the package needs it constant
//     (see Facts.ConstReason); other constants' mutants are not switched.
//
// Everything else (a mutant in a type, a deleted list element, a
// package whose C types are unknown) falls back to its own build, with a
// coverage probe (hits[s] = 1) before the statement around it.
//
// Render builds a package's schema from the sites of the mutants a run
// selects: nested sites are rendered inside each other (the original
// branch of a site holds the switches of the sites within it; a mutated
// branch is the mutant alone). Support is the file the schema adds: the
// switch, read once from the environment when the binary starts, and the
// hits, one byte per site, mapped from the file GATHERMUT_HITS names so
// that a baseline run records per test which sites ran, even when it
// crashes or is killed. Regions map a compile error in a rendered file
// back to the mutants whose code it is in, so a schema build that fails
// can drop them and build again.
//
// What a schema can change, and how each case is met:
//
//   - Inlining: switches make functions bigger, so a function the compiler
//     inlined may no longer be, and a value it kept on the stack may move
//     to the heap. Results do not change, allocation counts can: a test
//     that fails on the schema binary but passes without it makes the
//     pipeline run that package without the schema.
//   - Constants made variables: the uses Facts sees are checked; uses in
//     test files and in other packages are left to the compiler, whose
//     error drops the constant's mutants. Only integer, boolean and string
//     constants are made variables, so no constant arithmetic loses the
//     exactness the compiler gives it.
//   - Line numbers: the original text keeps its lines, and a site puts its
//     mutated texts after the original; code after a site whose mutated
//     text spans more lines than it moves down. Only a test that reads
//     line numbers (runtime.Caller, a panic's trace) can see it.
//   - Evaluation: an expression is evaluated once, inside a func literal
//     called in place; a literal that calls recover is not switched, since
//     recover only works in the deferred function itself.
//
// TestSchemaBehavesLikeEachMutant builds a sample package both as a schema
// and once per mutant, and compares what each prints.
package schema
