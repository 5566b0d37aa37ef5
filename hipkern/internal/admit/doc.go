// Package admit holds the one way a host emulation library gets past
// hipkern.Load: a test's request, made while the test loads it. Load
// refuses the emulation otherwise (it is not a GPU), whatever the
// environment says, so that no variable left set can make a production
// binary run the kernels on the CPU.
//
// The requester is test support (hipkern/internal/emulation, reached from
// hipkern's tests and from package hipkerntest); hipkern reads the request
// and imports nothing else of the test path.
package admit
