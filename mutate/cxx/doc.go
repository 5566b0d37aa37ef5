// Package cxx reads the GPU kernel's C++ (HIP) sources and makes mutants
// of their device code, and renders the kernel schema: one copy of the
// sources in which every mutant that can be switched sits behind a
// run-time switch, so one build of the kernel library serves every mutant.
//
// # Reading the sources
//
// Nothing here is a regular expression over source text: mutants come from
// tokens and a parse tree.
//
//   - Lex splits a file into tokens. Comments (// and /* */), string and
//     character literals (with encoding prefixes, and raw strings
//     R"d(...)d") and whole preprocessor lines (a # first on its line,
//     comments before it counting as whitespace, to the end of the line,
//     backslash-newline and comments spanning lines continuing it) are
//     tokens of their own; no mutant ever lies in one. A pp-number takes
//     its exponent's sign (1e-3, 0x1p+4), except after a hexadecimal e,
//     which is a digit: 0x1e+2 is read as 0x1e plus 2 (the standard's
//     grammar would take it whole, and the compiler then rejects it; no
//     source that compiles holds one).
//   - Preprocess follows the entry file's quoted #includes and its
//     conditionals in one build environment (Env: the macros the build
//     predefines), evaluating #if expressions with the macros defined so
//     far (true is 1 and any other identifier 0, as in C++; && || ?: do
//     not evaluate their dead operand), so it knows which tokens each
//     compiler sees. Mutants are made in what the host emulation compiles
//     (Emulation: GM_HOST_EMULATION set), the build every machine can
//     run; code that only a GPU compiler sees
//     (an #if defined(__CUDA_ARCH__) branch, inline PTX) gets catalog
//     entries instead, judged on the GPU. Macros are not expanded in the
//     code: a mutant is a change of the source as written.
//   - Parse finds the function definitions at file scope, in linkage
//     blocks and in struct bodies (Struct::name), and parses the bodies of
//     the device functions into statements and expressions (C++'s
//     precedence, casts told from parenthesized expressions by the type
//     names the sources declare, template argument lists by the template
//     names they declare; a >> that closes two template argument lists is
//     split in two, as C++11 reads it). The names come from struct, class,
//     union and enum heads, typedef (the declarator's name, also of a
//     function-pointer type) and using-aliases. A function is found with
//     default arguments, as an operator, a constructor with an initializer
//     list, with a trailing return type, defined out of its class
//     (Struct::name) or declared through a function-like macro (its name
//     is then the source's text, GM_KERNEL(name)). A brace block that is
//     none of these (an initializer) is skipped whole.
//
// # What is device code
//
// A function is device code when its specifiers or its declarator hold
// __device__ or __global__, directly or in the expansion of a macro,
// object-like or function-like (GM_DEV is "__device__ __forceinline__";
// the markers are recognised before expansion, so the emulation's empty
// definitions of them do not hide them). Everything else is host code and is not mutated: the launchers,
// the runtime calls, the extern "C" ABI, compat.h's emulation of the HIP
// runtime (its functions are host stand-ins for the runtime, not device
// code; a __device__ helper added there would be mutated like the
// others). A device function whose body does not parse is an error, not
// a silent skip.
//
// # Operators
//
// The Operators table: the generic classes of package operator where the
// meaning is the same (arith, boundary, negate, logical, bitwise, shift,
// unary-not, unary-minus, incdec, assign, const-int, const-float,
// remove-stmt, remove-call, zero-return, branch-if, branch-true,
// branch-false, branch-else, loop-control), plus the kernel's own:
// shift-amount (a computed shift amount + 1), index (a computed index
// +-1), unary-bitnot (~m -> m). The fault operators neg-form (-d ->
// (0 - d)), recip-div (x / n -> (x * (1.0f / n)), not for a literal
// power of two) and guard-swap (two adjacent if (c) return ...; swapped)
// are package operator's twins (faults.go). Without types, neg-form and
// recip-div apply where the function shows a float: a float literal, a
// name it declares float, half, __half or GmFloat, an element of a
// pointer to one, a cast to one, or arithmetic over one. The sites of
// every guard-swap in one run of adjacent guards are the whole run, so
// that two overlapping swaps nest. fuse-product has no twin: the kernel
// writes no __fmul_rn-style product and its builds turn contraction off
// (-ffp-contract=off, -fmad=false); unlock-early and skip-feature-check
// have nothing to apply to in device code. Declarations are never deleted (their
// initializers are mutated), nor is a for's init expression (for ({}; ...)
// does not compile); asm and static_assert statements and the operands of
// sizeof, alignof and decltype (not evaluated: every mutant there would be
// equivalent) are never touched. const-int keeps a literal's C++ type (the
// rules for decimal and hexadecimal literals and their suffixes: 2147483647
// gets no +1, which would make it a long) and its spelling (0x0F -> 0x10);
// a case label's literal does not move onto another label's value of the
// same switch (a duplicate case never compiles); zero-return skips a value
// that already is 0 (0, 0u, 0.0f, false, nullptr). A replacement that
// would join the punctuation beside it into other tokens gets a space (a+-b
// with + -> - reads a- -b, not a--b; a**p with * -> / does not open a
// comment). Without types, a mutant may fail to compile (x += n -> x = n
// for a pointer the parser cannot see as one): the schema build drops it
// and it is built on its own, where it is reported unviable.
//
// # The kernel schema
//
// Render rewrites each mutant's site, the smallest whole expression or
// statement holding its change: an expression becomes
//
//	(GATHERMUT_HIT(s), !(GATHERMUT_ON(n1) || GATHERMUT_ON(n2)) ? (original) : GATHERMUT_ON(n1) ? (text1) : (text2))
//
// (evaluated once, either way), a statement
//
//	{ GATHERMUT_HIT(s); if (!(GATHERMUT_ON(n1))) { original } else if (GATHERMUT_ON(n1)) { text1 } }
//
// Sites nest: a site inside another is switched inside the other's
// original text. The kernel's compat.h defines the two macros when the
// entry file starts with Schema.Header (GATHERMUT_SCHEMA and
// GATHERMUT_SITES): on the host emulation plain globals read from
// GATHERMUT_MUTANT and a hits file mapped from GATHERMUT_KERNEL_HITS; on a
// GPU a __constant__ per device and a __device__ hits array read back
// after each kernel. A mutant in a constant expression (a template
// argument, an array bound, a case label, a static initializer) cannot be
// switched and is built on its own; its coverage is a hit at its
// function's entry (a probe); the condition of an if constexpr is constant
// too. Regions map a compile error in a rendered file back to the mutants
// whose code it lies in (their offsets are the rendered file's own: a
// header put before it shifts them).
package cxx
