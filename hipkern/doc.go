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
// On the GPU: the whole gather, including the bounds check of every id.
// On the CPU: the checks every provider shares, gather.CheckArgs (steps
// 1-8, so a direct call is refused as gather.Embedding refuses it, with the
// same error) and gather.CheckRequest (empty request first, then vocab 0,
// then int64 overflow of the out, table and ids sizes); then the device
// ordinal and addresses; and, for a bad id, reading that one id back to
// name its value. An empty request returns before any device call.
//
// # How work maps to threads
//
// The unit of work is one 16-byte chunk of the output: 8 bf16 or 4 f32
// values. A thread decodes a chunk on its own, from the block that holds
// it, and stores it with one 16-byte store, so the 32 lanes of a warp (or
// wavefront) store 512 consecutive bytes and no lane waits for another:
// no shuffles, no shared memory, no barriers (which also keeps the host
// emulation, which runs threads one after another, exact).
//
//   - Rows to lanes: each output row is served by L lanes of one
//     128-thread workgroup, L the smallest power of two covering the row's
//     chunks (at most 128); lane i takes chunks i, i+L, i+2L, ... A
//     workgroup serves 128/L rows at a time and strides over the rows by
//     the whole grid. The row's id is read once per thread and row.
//   - Grid: sized from the device, not from the row count alone: at most
//     GM_TURNS (32) times the workgroups the device keeps resident (its
//     multiprocessors times the workgroups of this kernel that fit on one,
//     as the runtime reports them). Up to that cap a request gets one
//     workgroup per 128/L rows and the hardware hands them out as
//     multiprocessors free up, which balances rows of uneven cost (a row
//     in L2 or in device memory); past it, every workgroup takes the same
//     number of turns. At the anchor shape on the H200 (65,536 rows of
//     4,096) that is one turn; a grid of two resident waves (each
//     workgroup taking 16 turns) measured 3-16% slower (EVIDENCE.md).
//   - Latency: each thread loads the id of its next row while it gathers
//     the current one, and as soon as a row's id is known its lanes
//     prefetch the row's bytes into the L2 cache (one 128-byte line each),
//     so only a lane's first chunk of a row waits for device memory (on
//     the H200: 2-40% faster than without, most for the K-quants).
//   - Within a block: when a lane has several chunks of a row (L = 128),
//     the stride between them (512 or 1024 values) is a whole number of
//     blocks, so the lane decodes the same offset of every block it visits
//     and its offsets, shifts and masks stay the same in each turn.
//   - Scales: each chunk re-reads the scale fields of its block (the
//     neighbouring lanes that share the block read the same addresses,
//     which the cache serves once); a chunk never straddles a scale: 8 and
//     4 divide the 16-value sub-blocks of the K-quants and the 8-value grid
//     entries of the I-quants.
//   - Legacy 32-value codecs (Q4_0, Q5_0, Q8_0, IQ4_NL, MXFP4): a block is
//     4 chunks (bf16) or 8 (f32). Nibbles are split halves, so a chunk
//     reads the N bytes at (e0 mod 16) and takes their low nibbles (e0 <
//     16) or high nibbles; Q5_0's fifth bits are bits e0.. of qh.
//   - K-quants (Q2_K..Q8_K, 256 values): a block is 32 or 64 chunks; the
//     chunk's group (32 values) and sub-block (16) give its scale, and its
//     quants are N consecutive bytes of each bit plane (qs, and qh or
//     hmask), shifted and masked a whole 64-bit word at a time.
//   - I-quants (IQ2_*, IQ3_*, IQ1_*, IQ4_XS): a bf16 chunk is one 8-value
//     grid entry (IQ3: two 4-value entries), an f32 chunk half of one; one
//     codebook lookup (and one sign byte) per chunk. The codebooks stay in
//     device global memory (codebooks.h): lookups differ per lane, which
//     the constant cache would serialize, and the tables are small enough
//     for the L1/L0 cache.
//   - Float tables (F32, F16, BF16): a chunk widens N values; a width that
//     is not a multiple of N ends in a short chunk written value by value.
//
// Reading packed bytes: tables and ids may sit at any byte offset. When
// the table starts and ends on a 4-byte boundary, fields are read with
// aligned 32-bit loads and shifted into place (gm_words_reader: 2 or 3
// loads for 8 bytes; a word can hold up to 3 bytes beside the field, all
// inside the table); otherwise byte by byte (gm_bytes_reader). Ids are one
// load each when aligned to their width, byte-assembled otherwise.
//
// Arithmetic: the same float32 operations in the same order as gather's
// decoders, no fused multiply-add. Small integers become floats exactly
// without a conversion instruction (gm_float, gm_bytef: the integer is
// placed in the mantissa of 1.5 * 2^23, which is then subtracted). bf16
// output rounds to nearest even (gather.F32ToBF16): on NVIDIA GPUs two
// values in one instruction. That instruction turns any NaN into 0x7fff:
// for a packed codec that is exact, since its values are results of float
// arithmetic, whose NaNs the GPU makes 0x7fffffff (TestGPUOracle checks
// bf16 out against F32ToBF16 of f32 out, NaNs included); a float table's
// NaNs keep their own bits, so a chunk of one holding a NaN is rounded
// again in software (top bits kept, quiet bit set). An f16
// scale is widened by the hardware on NVIDIA GPUs (exact; a NaN scale's
// payload cannot reach the output, since every value is a product with the
// scale), in software elsewhere; F16 tables always in software, so NaN
// payloads carry over.
//
// To change one codec: edit its struct in decoders.h (chunk<N>, N = 4 or
// 8, element offset e0 a multiple of N); the mapping above and the
// launcher do not change.
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
