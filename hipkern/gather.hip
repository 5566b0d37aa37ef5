// gather.hip: the embedding gather kernels and their C launcher ABI.
//
// One thread decodes one selected (row, block) of a packed table, or one
// chunk of 32 elements of a float table; 128 threads per workgroup; at most
// 1024 workgroups, with a grid-stride loop over the rest. A bad id is
// recorded with atomicMin on a 64-bit error record, so the smallest bad
// position is reported whatever order the threads ran in; the threads of a
// bad id write nothing, every other row is written.
//
// Build with build.sh (hipcc for gfx1100, nvcc for NVIDIA; compat.h maps the
// runtime calls). The Go binding in this directory loads the shared library
// with dlopen and calls the extern "C" functions at the end of this file.
#include <stdarg.h>

#include "compat.h"
#include "decoders.h"

#define GM_THREADS 128
#define GM_MAX_WORKGROUPS 1024
#define GM_NO_ERROR 0xffffffffffffffffull

// Status codes of the launcher ABI.
#define GM_OK 0
#define GM_BAD_ID 1
#define GM_ERROR 2

// ---------------------------------------------------------------------------
// Device side.

// gm_id_at reads ids[row], int32 (sign-extended) or int64, by byte assembly:
// the ids buffer has no alignment promise, and an int64 id is never
// truncated before it is checked.
GM_DEV int64_t gm_id_at(const uint8_t* ids, int64_t row, int id_bytes) {
  const uint8_t* p = ids + row * id_bytes;
  if (id_bytes == 8) return (int64_t)gm_u64(p);
  return (int64_t)(int32_t)gm_u32(p);
}

struct alignas(16) gm_vec4 {
  uint32_t x, y, z, w;
};

// gm_store32 writes 32 decoded values at element elem of out, as f32 or
// bf16. vec says out is 16-byte aligned; since elem is a multiple of 32 the
// chunk then is too and goes out in 16-byte stores.
template <bool BF16>
GM_DEV void gm_store32(uint8_t* out, int64_t elem, const float* y, bool vec) {
  if (BF16) {
    uint16_t* dst = (uint16_t*)out + elem;
    if (vec) {
      gm_vec4* v = (gm_vec4*)dst;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        gm_vec4 w;
        w.x = (uint32_t)gm_bf16(y[8 * i + 0]) | (uint32_t)gm_bf16(y[8 * i + 1]) << 16;
        w.y = (uint32_t)gm_bf16(y[8 * i + 2]) | (uint32_t)gm_bf16(y[8 * i + 3]) << 16;
        w.z = (uint32_t)gm_bf16(y[8 * i + 4]) | (uint32_t)gm_bf16(y[8 * i + 5]) << 16;
        w.w = (uint32_t)gm_bf16(y[8 * i + 6]) | (uint32_t)gm_bf16(y[8 * i + 7]) << 16;
        v[i] = w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 32; ++i) dst[i] = gm_bf16(y[i]);
    }
  } else {
    float* dst = (float*)out + elem;
    if (vec) {
      gm_vec4* v = (gm_vec4*)dst;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        gm_vec4 w;
        w.x = gm_bits_of_f32(y[4 * i + 0]);
        w.y = gm_bits_of_f32(y[4 * i + 1]);
        w.z = gm_bits_of_f32(y[4 * i + 2]);
        w.w = gm_bits_of_f32(y[4 * i + 3]);
        v[i] = w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 32; ++i) dst[i] = y[i];
    }
  }
}

// gm_quant_kernel gathers rows of a packed table of codec C. Work item i is
// (row, blk) = (i / blocks_per_row, i % blocks_per_row); the table row
// stride is in bytes.
template <class C, bool BF16>
__global__ void __launch_bounds__(GM_THREADS)
    gm_quant_kernel(const uint8_t* table, int64_t vocab, int64_t row_bytes, int64_t blocks_per_row,
                    const uint8_t* ids, int id_bytes, int64_t n_ids, uint8_t* out, int64_t hidden,
                    int vec, unsigned long long* bad) {
  const int64_t total = n_ids * blocks_per_row;
  for (int64_t i = (int64_t)gm_global_thread(); i < total; i += (int64_t)gm_grid_threads()) {
    const int64_t row = i / blocks_per_row;
    const int64_t blk = i % blocks_per_row;
    const int64_t id = gm_id_at(ids, row, id_bytes);
    if (id < 0 || id >= vocab) {
      atomicMin(bad, (unsigned long long)row);
      continue;
    }
    const uint8_t* src = table + id * row_bytes + blk * C::bytes;
    const int64_t first = row * hidden + blk * C::elems;
    for (int g = 0; g < C::elems / 32; ++g) {
      float y[32];
      C::group(src, g, y);
      gm_store32<BF16>(out, first + 32 * g, y, vec != 0);
    }
  }
}

// Float tables: element types F32 (0), F16 (1) and BF16 (30).
#define GM_TYPE_F32 0
#define GM_TYPE_F16 1
#define GM_TYPE_BF16 30

// gm_float_at widens element e of a float table row to float32, exactly.
template <int T>
GM_DEV float gm_float_at(const uint8_t* row, int64_t e) {
  if (T == GM_TYPE_F32) return gm_f32_from_bits(gm_u32(row + 4 * e));
  if (T == GM_TYPE_F16) return gm_f16(row + 2 * e);
  return gm_f32_from_bits(gm_u16(row + 2 * e) << 16);
}

// gm_float_kernel gathers rows of a float table. Work item i is (row, chunk)
// with 32 elements a chunk; the last chunk of a row may be short. As on the
// CPU, F16 and BF16 widen exactly and bf16 output is rounded with gm_bf16,
// except BF16 to bf16, which copies the words; f32 output is stored as bits.
template <int T, bool BF16>
__global__ void __launch_bounds__(GM_THREADS)
    gm_float_kernel(const uint8_t* table, int64_t vocab, int64_t row_bytes, int64_t chunks_per_row,
                    const uint8_t* ids, int id_bytes, int64_t n_ids, uint8_t* out, int64_t hidden,
                    int vec, unsigned long long* bad) {
  (void)vec;
  const int64_t total = n_ids * chunks_per_row;
  for (int64_t i = (int64_t)gm_global_thread(); i < total; i += (int64_t)gm_grid_threads()) {
    const int64_t row = i / chunks_per_row;
    const int64_t chunk = i % chunks_per_row;
    const int64_t id = gm_id_at(ids, row, id_bytes);
    if (id < 0 || id >= vocab) {
      atomicMin(bad, (unsigned long long)row);
      continue;
    }
    const uint8_t* src = table + id * row_bytes;
    const int64_t e0 = 32 * chunk;
    const int64_t n = hidden - e0 < 32 ? hidden - e0 : 32;
    for (int64_t e = e0; e < e0 + n; ++e) {
      if (BF16 && T == GM_TYPE_BF16) {
        ((uint16_t*)out)[row * hidden + e] = (uint16_t)gm_u16(src + 2 * e);  // a copy: NaN payloads kept
      } else if (BF16) {
        ((uint16_t*)out)[row * hidden + e] = gm_bf16(gm_float_at<T>(src, e));
      } else {
        ((uint32_t*)out)[row * hidden + e] = gm_bits_of_f32(gm_float_at<T>(src, e));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Host side.

// gm_args is one launch's arguments; units is the number of work items.
struct gm_args {
  const uint8_t* table;
  int64_t vocab, row_bytes, units_per_row;
  const uint8_t* ids;
  int id_bytes;
  int64_t n_ids;
  uint8_t* out;
  int64_t hidden;
  int vec;
  unsigned long long* bad;
};

#define GM_KERNEL_ARGS(a)                                                                      \
  a.table, a.vocab, a.row_bytes, a.units_per_row, a.ids, a.id_bytes, a.n_ids, a.out, a.hidden, a.vec, \
      a.bad

#if defined(GM_HOST_EMULATION)
// gm_emu_on_device reports whether p lies in an allocation of the current
// emulated device; a launch touching another device's memory faults.
static bool gm_emu_on_device(const void* p) { return gm_emu_owner(p) == gm_emu_current; }

template <class F>
static void gm_emu_launch(unsigned grid, const gm_args& a, F kernel) {
  if (!gm_emu_on_device(a.table) || !gm_emu_on_device(a.ids) || !gm_emu_on_device(a.out) ||
      !gm_emu_on_device(a.bad)) {
    gm_emu_last = hipErrorIllegalAddress;
    return;
  }
  gm_emu_block_dim = GM_THREADS;
  gm_emu_grid_threads = (uint64_t)grid * GM_THREADS;
  for (uint64_t b = 0; b < grid; ++b) {
    for (uint64_t t = 0; t < GM_THREADS; ++t) {
      gm_emu_block = b;
      gm_emu_thread = t;
      kernel();
    }
  }
}
#endif

template <class C, bool BF16>
static void gm_launch_quant(unsigned grid, const gm_args& a) {
#if defined(GM_HOST_EMULATION)
  gm_emu_launch(grid, a, [&] { gm_quant_kernel<C, BF16>(GM_KERNEL_ARGS(a)); });
#else
  gm_quant_kernel<C, BF16><<<grid, GM_THREADS>>>(GM_KERNEL_ARGS(a));
#endif
}

template <int T, bool BF16>
static void gm_launch_float(unsigned grid, const gm_args& a) {
#if defined(GM_HOST_EMULATION)
  gm_emu_launch(grid, a, [&] { gm_float_kernel<T, BF16>(GM_KERNEL_ARGS(a)); });
#else
  gm_float_kernel<T, BF16><<<grid, GM_THREADS>>>(GM_KERNEL_ARGS(a));
#endif
}

typedef void (*gm_launch_fn)(unsigned grid, const gm_args& a);

// gm_kind is one table type the library gathers: its geometry (a float type
// is a "block" of one element) and its two launchers.
struct gm_kind {
  int type;
  const char* name;
  int elems, bytes;
  bool quant;
  gm_launch_fn f32, bf16;
};

#define GM_QUANT(C, name) \
  { C::type, name, C::elems, C::bytes, true, gm_launch_quant<C, false>, gm_launch_quant<C, true> }

static const gm_kind gm_kinds[] = {
    GM_QUANT(CodecQ4_0, "Q4_0"),
    GM_QUANT(CodecQ5_0, "Q5_0"),
    GM_QUANT(CodecQ8_0, "Q8_0"),
    GM_QUANT(CodecQ2_K, "Q2_K"),
    GM_QUANT(CodecQ3_K, "Q3_K"),
    GM_QUANT(CodecQ4_K, "Q4_K"),
    GM_QUANT(CodecQ5_K, "Q5_K"),
    GM_QUANT(CodecQ6_K, "Q6_K"),
    GM_QUANT(CodecQ8_K, "Q8_K"),
    GM_QUANT(CodecIQ2_XXS, "IQ2_XXS"),
    GM_QUANT(CodecIQ2_XS, "IQ2_XS"),
    GM_QUANT(CodecIQ3_XXS, "IQ3_XXS"),
    GM_QUANT(CodecIQ1_S, "IQ1_S"),
    GM_QUANT(CodecIQ4_NL, "IQ4_NL"),
    GM_QUANT(CodecIQ3_S, "IQ3_S"),
    GM_QUANT(CodecIQ2_S, "IQ2_S"),
    GM_QUANT(CodecIQ4_XS, "IQ4_XS"),
    GM_QUANT(CodecMXFP4, "MXFP4"),
    GM_QUANT(CodecIQ1_XXXS, "IQ1_XXXS"),
    {GM_TYPE_F32, "F32", 1, 4, false, gm_launch_float<GM_TYPE_F32, false>, gm_launch_float<GM_TYPE_F32, true>},
    {GM_TYPE_F16, "F16", 1, 2, false, gm_launch_float<GM_TYPE_F16, false>, gm_launch_float<GM_TYPE_F16, true>},
    {GM_TYPE_BF16, "BF16", 1, 2, false, gm_launch_float<GM_TYPE_BF16, false>, gm_launch_float<GM_TYPE_BF16, true>},
};

static const gm_kind* gm_find_kind(int type) {
  for (size_t i = 0; i < sizeof gm_kinds / sizeof gm_kinds[0]; ++i) {
    if (gm_kinds[i].type == type) return &gm_kinds[i];
  }
  return NULL;
}

// Probes for the tests: the device the last launcher bound, how many kernels
// were launched and the workgroups of the last, how many temporaries are
// live, and a one-shot failure to inject at a given step of gm_gather.
static int gm_bound_device = -1;
static int64_t gm_launch_count = 0;
static int64_t gm_grid_last = 0;
static int64_t gm_temps_live = 0;
static int gm_fail_step = 0;

enum { GM_STEP_CLEAR = 1, GM_STEP_LAUNCH = 2, GM_STEP_SYNC = 3, GM_STEP_READBACK = 4 };

// gm_fail writes a printf-style message into err and returns GM_ERROR.
static int gm_fail(char* err, int errlen, const char* fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
  }
  return GM_ERROR;
}

// gm_check reports a failed runtime call as "hipkern: <what> on device N: <why>".
static bool gm_check(hipError_t e, const char* what, int device, char* err, int errlen) {
  if (e == hipSuccess) return true;
  gm_fail(err, errlen, "hipkern: %s on device %d: %s", what, device, hipGetErrorString(e));
  return false;
}

// gm_injected consumes the injected failure if it is set for step.
static bool gm_injected(int step, char* err, int errlen) {
  if (gm_fail_step != step) return false;
  gm_fail_step = 0;
  gm_fail(err, errlen, "hipkern: injected failure at step %d", step);
  return true;
}

// gm_bind makes device current for the calls that follow; every entry point
// that touches memory binds the device that owns it first, never trusting
// the ambient current device.
static bool gm_bind(int device, char* err, int errlen) {
  if (!gm_check(hipSetDevice(device), "hipSetDevice", device, err, errlen)) return false;
  // A failed runtime call of an earlier request (a bad device ordinal, a
  // failed allocation) leaves its error as the last error, which the
  // launch checks below read with hipGetLastError: clear it, so a request
  // never fails with an earlier one's error (no sticky state).
  (void)hipGetLastError();
  int cur = -1;
  if (!gm_check(hipGetDevice(&cur), "hipGetDevice", device, err, errlen)) return false;
  gm_bound_device = cur;
  return true;
}

static bool gm_temp_alloc(unsigned long long** rec, int device, char* err, int errlen) {
  void* p = NULL;
  if (!gm_check(hipMalloc(&p, sizeof **rec), "hipMalloc(error record)", device, err, errlen)) return false;
  *rec = (unsigned long long*)p;
  ++gm_temps_live;
  return true;
}

static bool gm_temp_free(unsigned long long* rec, int device, char* err, int errlen) {
  if (!gm_check(hipFree(rec), "hipFree(error record)", device, err, errlen)) return false;
  --gm_temps_live;
  return true;
}

// gm_prepare checks a gather's arguments and fills the launch arguments and
// the grid. It makes no device call.
static int gm_prepare(const gm_kind** kind, gm_args* a, unsigned* grid, int table_type, uint64_t table,
                      int64_t vocab, int64_t hidden, uint64_t ids, int id_bytes, int64_t n_ids,
                      uint64_t out, int out_bf16, char* err, int errlen) {
  const gm_kind* k = gm_find_kind(table_type);
  if (k == NULL) return gm_fail(err, errlen, "hipkern: no kernel for ggml type %d", table_type);
  if (id_bytes != 4 && id_bytes != 8)
    return gm_fail(err, errlen, "hipkern: ids are %d-byte integers, want 4 or 8", id_bytes);
  if (n_ids < 0 || hidden < 0)
    return gm_fail(err, errlen, "hipkern: negative size: %lld ids, width %lld", (long long)n_ids, (long long)hidden);
  if (vocab <= 0) return gm_fail(err, errlen, "hipkern: table of %lld rows", (long long)vocab);
  if (hidden % k->elems != 0)
    return gm_fail(err, errlen, "hipkern: %s: width %lld is not whole blocks of %d", k->name, (long long)hidden,
                   k->elems);
  const int out_size = out_bf16 ? 2 : 4;
  if (out % (uint64_t)out_size != 0)
    return gm_fail(err, errlen, "hipkern: out address 0x%llx is not %d-byte aligned", (unsigned long long)out,
                   out_size);
  const int64_t units_per_row = k->quant ? hidden / k->elems : (hidden + 31) / 32;
  const int64_t units = n_ids * units_per_row;
  const int64_t wanted = (units + GM_THREADS - 1) / GM_THREADS;
  *grid = (unsigned)(wanted < GM_MAX_WORKGROUPS ? wanted : GM_MAX_WORKGROUPS);
  a->table = (const uint8_t*)(uintptr_t)table;
  a->vocab = vocab;
  a->row_bytes = hidden / k->elems * k->bytes;
  a->units_per_row = units_per_row;
  a->ids = (const uint8_t*)(uintptr_t)ids;
  a->id_bytes = id_bytes;
  a->n_ids = n_ids;
  a->out = (uint8_t*)(uintptr_t)out;
  a->hidden = hidden;
  a->vec = k->quant && out % 16 == 0;
  a->bad = NULL;
  *kind = k;
  return GM_OK;
}

// gm_launch starts the kernel for kind k and counts the launch.
static void gm_launch(const gm_kind* k, int out_bf16, unsigned grid, const gm_args& a) {
  ++gm_launch_count;
  gm_grid_last = grid;
  (out_bf16 ? k->bf16 : k->f32)(grid, a);
}

// gm_run clears the error record, launches, waits and reads the record back.
static int gm_run(const gm_kind* k, int out_bf16, unsigned grid, const gm_args& a, int device,
                  int64_t* bad_pos, char* err, int errlen) {
  if (gm_injected(GM_STEP_CLEAR, err, errlen)) return GM_ERROR;
  if (!gm_check(hipMemset(a.bad, 0xff, sizeof *a.bad), "hipMemset(error record)", device, err, errlen))
    return GM_ERROR;
  if (gm_injected(GM_STEP_LAUNCH, err, errlen)) return GM_ERROR;
  gm_launch(k, out_bf16, grid, a);
  if (!gm_check(hipGetLastError(), "kernel launch", device, err, errlen)) return GM_ERROR;
  if (gm_injected(GM_STEP_SYNC, err, errlen)) return GM_ERROR;
  if (!gm_check(hipDeviceSynchronize(), "kernel", device, err, errlen)) return GM_ERROR;
  if (gm_injected(GM_STEP_READBACK, err, errlen)) return GM_ERROR;
  unsigned long long first_bad = GM_NO_ERROR;
  if (!gm_check(hipMemcpy(&first_bad, a.bad, sizeof first_bad, hipMemcpyDeviceToHost), "reading the error record",
                device, err, errlen))
    return GM_ERROR;
  if (first_bad != GM_NO_ERROR) {
    *bad_pos = (int64_t)first_bad;
    return GM_BAD_ID;
  }
  return GM_OK;
}

extern "C" {

// gm_abi_version changes whenever a signature below changes.
int gm_abi_version(void) { return 1; }

// gm_runtime names the runtime the library was built for.
const char* gm_runtime(void) { return GM_RUNTIME; }

int gm_device_count(int* n, char* err, int errlen) {
  *n = 0;
  int c = 0;
  hipError_t e = hipGetDeviceCount(&c);
  if (e != hipSuccess) {
    return gm_fail(err, errlen, "hipkern: hipGetDeviceCount: %s", hipGetErrorString(e));
  }
  *n = c;
  return GM_OK;
}

int gm_device_info(int device, char* name, int namelen, char* arch, int archlen, char* err, int errlen) {
  hipDeviceProp_t p;
  if (!gm_check(hipGetDeviceProperties(&p, device), "hipGetDeviceProperties", device, err, errlen)) return GM_ERROR;
  snprintf(name, (size_t)namelen, "%s", p.name);
  gm_arch_of(p, arch, (size_t)archlen);
  return GM_OK;
}

// gm_table_types writes the table types the library gathers (packed codecs
// first, then the float types) and returns how many there are; *quant is how
// many of them are packed codecs.
int gm_table_types(int* types, int cap, int* quant) {
  const int n = (int)(sizeof gm_kinds / sizeof gm_kinds[0]);
  *quant = 0;
  for (int i = 0; i < n; ++i) {
    if (i < cap) types[i] = gm_kinds[i].type;
    if (gm_kinds[i].quant) ++*quant;
  }
  return n;
}

int gm_alloc(int device, int64_t n, uint64_t* ptr, char* err, int errlen) {
  *ptr = 0;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  void* p = NULL;
  if (!gm_check(hipMalloc(&p, (size_t)n), "hipMalloc", device, err, errlen)) return GM_ERROR;
  *ptr = (uint64_t)(uintptr_t)p;
  return GM_OK;
}

int gm_free(int device, uint64_t ptr, char* err, int errlen) {
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  return gm_check(hipFree((void*)(uintptr_t)ptr), "hipFree", device, err, errlen) ? GM_OK : GM_ERROR;
}

int gm_copy_in(int device, uint64_t dst, const void* src, int64_t n, char* err, int errlen) {
  if (n == 0) return GM_OK;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  hipError_t e = hipMemcpy((void*)(uintptr_t)dst, src, (size_t)n, hipMemcpyHostToDevice);
  return gm_check(e, "hipMemcpy to device", device, err, errlen) ? GM_OK : GM_ERROR;
}

int gm_copy_out(int device, void* dst, uint64_t src, int64_t n, char* err, int errlen) {
  if (n == 0) return GM_OK;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  hipError_t e = hipMemcpy(dst, (const void*)(uintptr_t)src, (size_t)n, hipMemcpyDeviceToHost);
  return gm_check(e, "hipMemcpy from device", device, err, errlen) ? GM_OK : GM_ERROR;
}

// gm_gather selects n_ids rows of table into out (f32, or bf16 when
// out_bf16). It returns GM_OK, GM_BAD_ID with *bad_pos the smallest position
// whose id is outside [0, vocab), or GM_ERROR with a message in err. An
// empty request (no ids or zero width) returns before any device call.
int gm_gather(int device, int table_type, uint64_t table, int64_t vocab, int64_t hidden, uint64_t ids,
              int id_bytes, int64_t n_ids, uint64_t out, int out_bf16, int64_t* bad_pos, char* err,
              int errlen) {
  *bad_pos = -1;
  if (n_ids == 0 || hidden == 0) return GM_OK;
  const gm_kind* k = NULL;
  gm_args a;
  unsigned grid = 0;
  int status = gm_prepare(&k, &a, &grid, table_type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16,
                          err, errlen);
  if (status != GM_OK) return status;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  if (!gm_temp_alloc(&a.bad, device, err, errlen)) return GM_ERROR;
  status = gm_run(k, out_bf16, grid, a, device, bad_pos, err, errlen);
  if (!gm_temp_free(a.bad, device, status == GM_ERROR ? NULL : err, errlen)) return GM_ERROR;
  return status;
}

// gm_bench_gather times iters launches of a gather with device events,
// after one warm-up launch, and returns the total in *ms.
int gm_bench_gather(int device, int table_type, uint64_t table, int64_t vocab, int64_t hidden, uint64_t ids,
                    int id_bytes, int64_t n_ids, uint64_t out, int out_bf16, int iters, float* ms, char* err,
                    int errlen) {
  *ms = 0;
  const gm_kind* k = NULL;
  gm_args a;
  unsigned grid = 0;
  int status = gm_prepare(&k, &a, &grid, table_type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16,
                          err, errlen);
  if (status != GM_OK) return status;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  if (!gm_temp_alloc(&a.bad, device, err, errlen)) return GM_ERROR;
  hipEvent_t start, stop;
  bool ok = gm_check(hipEventCreate(&start), "hipEventCreate", device, err, errlen);
  if (ok && !gm_check(hipEventCreate(&stop), "hipEventCreate", device, err, errlen)) {
    hipEventDestroy(start);
    ok = false;
  }
  if (ok) {
    int64_t bad = -1;
    status = gm_run(k, out_bf16, grid, a, device, &bad, err, errlen);  // warm-up, checks the ids
    if (status == GM_BAD_ID) gm_fail(err, errlen, "hipkern: benchmark ids[%lld] out of range", (long long)bad);
    ok = status == GM_OK;
    ok = ok && gm_check(hipEventRecord(start, 0), "hipEventRecord", device, err, errlen);
    for (int i = 0; ok && i < iters; ++i) gm_launch(k, out_bf16, grid, a);
    ok = ok && gm_check(hipGetLastError(), "kernel launch", device, err, errlen);
    ok = ok && gm_check(hipEventRecord(stop, 0), "hipEventRecord", device, err, errlen);
    ok = ok && gm_check(hipEventSynchronize(stop), "kernel", device, err, errlen);
    ok = ok && gm_check(hipEventElapsedTime(ms, start, stop), "hipEventElapsedTime", device, err, errlen);
    hipEventDestroy(start);
    hipEventDestroy(stop);
  }
  if (!gm_temp_free(a.bad, device, ok ? err : NULL, errlen)) return GM_ERROR;
  return ok ? GM_OK : GM_ERROR;
}

// gm_bench_copy times iters device-to-device copies of n bytes with device
// events, after one warm-up copy.
int gm_bench_copy(int device, uint64_t dst, uint64_t src, int64_t n, int iters, float* ms, char* err, int errlen) {
  *ms = 0;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  void* d = (void*)(uintptr_t)dst;
  const void* s = (const void*)(uintptr_t)src;
  if (!gm_check(hipMemcpy(d, s, (size_t)n, hipMemcpyDeviceToDevice), "hipMemcpy device to device", device, err,
                errlen))
    return GM_ERROR;
  hipEvent_t start, stop;
  if (!gm_check(hipEventCreate(&start), "hipEventCreate", device, err, errlen)) return GM_ERROR;
  if (!gm_check(hipEventCreate(&stop), "hipEventCreate", device, err, errlen)) {
    hipEventDestroy(start);
    return GM_ERROR;
  }
  bool ok = gm_check(hipEventRecord(start, 0), "hipEventRecord", device, err, errlen);
  for (int i = 0; ok && i < iters; ++i)
    ok = gm_check(hipMemcpy(d, s, (size_t)n, hipMemcpyDeviceToDevice), "hipMemcpy device to device", device, err,
                  errlen);
  ok = ok && gm_check(hipEventRecord(stop, 0), "hipEventRecord", device, err, errlen);
  ok = ok && gm_check(hipEventSynchronize(stop), "hipEventSynchronize", device, err, errlen);
  ok = ok && gm_check(hipEventElapsedTime(ms, start, stop), "hipEventElapsedTime", device, err, errlen);
  hipEventDestroy(start);
  hipEventDestroy(stop);
  return ok ? GM_OK : GM_ERROR;
}

// Test probes.
int gm_last_bound_device(void) { return gm_bound_device; }
int64_t gm_launches(void) { return gm_launch_count; }
int64_t gm_last_grid(void) { return gm_grid_last; }
int64_t gm_live_temps(void) { return gm_temps_live; }
void gm_reset_probes(void) { gm_bound_device = -1; }
void gm_inject_failure(int step) { gm_fail_step = step; }

// gm_set_device sets the ambient current device (for the binding test).
int gm_set_device(int device, char* err, int errlen) {
  return gm_check(hipSetDevice(device), "hipSetDevice", device, err, errlen) ? GM_OK : GM_ERROR;
}

// gm_current_device returns the ambient current device, or -1.
int gm_current_device(void) {
  int d = -1;
  if (hipGetDevice(&d) != hipSuccess) return -1;
  return d;
}

}  // extern "C"
