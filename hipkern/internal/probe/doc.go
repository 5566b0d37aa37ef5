// Package probe reaches the kernel library's entry points that exist for
// tests and benchmarks only, so that package hipkern's binding resolves and
// calls the production ABI alone (gm_abi_version .. gm_gather).
//
// What it owns: the test probes (the device the last entry point bound,
// kernels launched, the last launch's grid and its cap, live temporaries,
// a one-shot failure injected at a step of gm_gather), the ambient-device
// calls of the binding test (gm_set_device, gm_current_device) and the
// device-timed benchmarks (gm_bench_gather, gm_bench_copy). Open attaches
// to a library the process has loaded already (hipkern.Load, or the host
// emulation through the test path): it never loads one itself.
//
// Only tests import it (hipkern's _test.go files); it sits under
// internal/, so nothing outside hipkern can. Its calls are serialized among
// themselves, not with hipkern's: the tests that use them run one call at a
// time.
package probe
