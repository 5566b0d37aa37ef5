// Package hipkerntest is test support for packages that use hipkern: it
// runs their GPU tests on a GPU where a library loads, else on the host
// emulation of the kernel library (the same gather.hip built with c++ for
// the CPU; never evidence about a GPU), as gather/gathertest supports
// gather's providers. Production code never imports it; hipkern's own
// tests use hipkern/internal/emulation, which this package wraps.
//
// What it owns: Load (what a test runs on, in the order the tests agree
// on), LoadEmulation (the emulation alone), ErrNoEmulation (skip on it,
// fail on any other error) and the names of the environment variables of
// the test path, NoEmulationEnv and EmulationLibEnv.
package hipkerntest
