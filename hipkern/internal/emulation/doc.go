// Package emulation builds and loads the host emulation of the kernel
// library for tests: bash hipkern/build.sh --compiler emulate, the same
// gather.hip compiled with c++ against compat.h's sequential emulation of
// two devices. It is never evidence about a GPU (hipkern/EVIDENCE.md
// records real GPU runs only).
//
// What it owns: the environment variables of the test path (NoEnv turns
// the emulation off; LibEnv names an emulation library to use instead of
// building one, as a mutation run's kernel backend does with a mutant or
// the kernel schema), ErrNoEmulation (the tests skip on it and fail on any
// other error), the cache of built libraries (one per set of kernel
// sources, in the user cache directory), Load (the emulation through
// hipkern.Load, admitted by package admit) and ForTest, the order the
// tests try libraries in.
//
// The kernel sources are found beside this package's own source file
// (hipkern/, two directories up): that is the checkout the test binary was
// built from, which is where tests run. hipkern's tests use this package
// directly; other packages' tests reach it through package hipkerntest.
package emulation
