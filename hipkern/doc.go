// Package hipkern is the GPU provider of the embedding gather: the HIP
// kernel source, its build script, and the Go binding that loads the built
// library and registers it with gather.
//
// # What it owns
//
//   - gather.hip: the gather kernels (one per admitted codec and output type,
//     plus the F32/F16/BF16 float tables) and their extern "C" launcher ABI;
//     decoders.h: one device decoder per codec, following
//     docs/codecs.md in the same float32 operation order as gather's Go
//     decoders; codebooks.h: the lookup tables, generated together with
//     gather/codebooks.go by gather/internal/gencodebooks (go generate in
//     gather); compat.h: the portability header that maps the
//     HIP runtime calls to CUDA under nvcc (and to a host emulation, below).
//   - build.sh: hipcc --offload-arch=gfx1100 when hipcc and a ROCm runtime
//     are present, else nvcc for the NVIDIA GPU it finds; it prints which.
//   - The binding: Load, Available, Alloc, Free, CopyIn, CopyOut, and the
//     providers "hip.EmbeddingQuant" and "hip.EmbeddingFloat" registered for
//     gather.GPU.
//
// # Finding the library
//
// Load dlopens the path in GATHERMUT_HIPKERN_LIB, else
// hipkern/build/libgathermut_hip.so under the module root (found by walking
// up from the working directory, then from this package's source directory,
// to the go.mod of module gathermut). The library is opened at run time, so
// go build and go test work on a machine with no GPU toolchain; without cgo,
// Load reports "hipkern: built without cgo". Load's error says what is
// missing: the library (path tried and the dynamic loader's message) or a
// GPU (the runtime's message, or a device count of 0). A host emulation
// library (below) is not a GPU: Load refuses it, naming it, wherever it
// sits (GATHERMUT_HIPKERN_LIB, or the default path after build.sh
// --compiler emulate without --out), and closes it again. Info (Available)
// names the device, its architecture, the runtime and the library, and
// says so plainly when they are the host emulation.
//
// # What runs where
//
// On the GPU: the whole gather, including the bounds check of every id. One
// thread decodes one selected (row, block) of a packed table (or one chunk
// of 32 elements of a float table) into registers, a group of 32 elements
// at a time, and writes f32 or bf16 (round to nearest even, NaN quieted, as
// gather.F32ToBF16). 128 threads per workgroup, at most 1024 workgroups,
// and a grid-stride loop covers any number of blocks. Packed bytes and ids
// are read by byte assembly, so tables and ids may sit at any byte offset.
// On the CPU: the checks every provider shares, gather.CheckArgs (steps
// 1-8, so a direct call is refused as gather.Embedding refuses it, with the
// same error) and gather.CheckRequest (empty request first, then vocab 0,
// then int64 overflow of the out, table and ids sizes); then the device
// ordinal and addresses; and, for a bad id, reading that one id back to
// name its value. An empty request returns before any device call.
//
// # Errors, temporaries, binding
//
// The only scratch is an 8-byte error record per call, allocated on the
// tensors' device, cleared to all ones, updated with atomicMin by every
// thread that meets a bad id, read back after the kernel, and freed on every
// path (the library counts live temporaries; the tests check the count on
// success, on a bad id and on a failure injected at each step). The reported
// position is therefore the smallest bad one, whatever order the threads
// ran in, and the error is gather.IDError's, exactly as on the CPU.
//
// Output after a refused call (bad id): every row at a valid position has
// been written with its correct values, every row at a bad position is left
// as it was, and nothing outside out is written. (The CPU provider checks
// all ids first and leaves out untouched; a GPU kernel cannot stop the other
// workgroups, and a second pass would cost a launch per call.) The next
// call works at once: the record is per call.
//
// Every entry point of the library binds the device that owns the memory
// (hipSetDevice to the tensors' ordinal) before it allocates or launches, so
// the ambient current device of the calling thread never matters; the call
// is one cgo call, so the binding and the launch happen on one OS thread.
// The library records the device it bound last; TestDeviceBinding checks it
// on any machine, and its two-GPU case (ambient device 0, tensors on 1, and
// the reverse) runs only where at least two GPUs exist. On a one-GPU machine
// that case is skipped, so there the binding is proved by the probe alone.
//
// # Development without a GPU
//
// build.sh --compiler emulate builds gather.hip with the host C++ compiler
// against compat.h's sequential emulation (two emulated devices, each
// allocation tagged with its device so a launch on the wrong one faults).
// It lets the binding and its tests run on a CPU-only machine; Info names it
// "host emulation device N" with arch "host-emulation", and it is never GPU
// evidence (EVIDENCE.md records real GPU runs only). The benchmarks skip on
// it.
//
// The GPU tests use it on their own: where no GPU library loads and
// GATHERMUT_HIPKERN_LIB is unset, LoadEmulation (the only way to load the
// emulation) builds it once per set of kernel sources (into the user cache
// directory, with bash and c++) and the tests run against it, logging the
// library and device they ran on; so go test exercises the binding, the
// providers and the engine's GPU path on every machine, and a mutation of
// them is caught there. Setting GATHERMUT_NO_EMULATION (or lacking bash or
// c++) turns this off: LoadEmulation returns ErrNoEmulation, and the GPU
// tests then skip with a message saying what is missing. Any other failure
// of the emulation fails them: a skip is never the answer to a broken
// binding. Kernel mutants always name their rebuilt library in
// GATHERMUT_HIPKERN_LIB, so they never fall back to the emulation: without
// a GPU they are "not run".
//
// Calls into the library are serialized by the binding: the library keeps
// process-wide probes, and its gather synchronizes the device anyway. Its
// entry points are process-wide too, so one process opens one library.
package hipkern
