// gather.hip: the embedding gather kernels and their C launcher ABI.
//
// Work mapping (hipkern/doc.go has the design per codec family): a thread
// produces 16-byte chunks of the output, 8 bf16 or 4 f32 values, each one
// decoded on its own from the block that holds it, so consecutive lanes
// store consecutive 16-byte chunks (coalesced, vectorized stores) and no
// lane waits for another. Each row of the output is served by 2^k lanes of
// one 128-thread workgroup (the smallest power of two covering its chunks,
// at most 128); a workgroup serves 128 / 2^k rows at a time and strides
// over the rows by the whole grid, which is sized from the device (at most
// GM_TURNS times its multiprocessors times the workgroups of this kernel
// that fit on one). A thread loads its next row's id early and prefetches
// each row into L2 as soon as its id is known.
// A bad id is recorded with atomicMin on a 64-bit error record, so the
// smallest bad position is reported whatever order the threads ran in; the
// threads of a bad id write nothing, every other row is written.
//
// Build with build.sh (hipcc for gfx1100, nvcc for NVIDIA; compat.h maps the
// runtime calls). The Go binding in this directory loads the shared library
// with dlopen and calls the extern "C" functions at the end of this file.
#include <stdarg.h>

#include "compat.h"
#include "decoders.h"

#define GM_THREADS 128
// GM_PREFETCH: prefetch each row's bytes into the L2 cache (NVIDIA GPUs;
// elsewhere a no-op).
#ifndef GM_PREFETCH
#define GM_PREFETCH 1
#endif
// GM_TURNS: the grid holds at most GM_TURNS times the workgroups the device
// keeps resident at once; past that, workgroups take several turns. On the
// H200 at the anchor shape (65,536 rows of 4,096 values, one row a
// workgroup) 32 means one turn: the hardware schedules every row's
// workgroup itself. Measured there (EVIDENCE.md, device run 2): up to 3.4%
// faster than 8 for the legacy and K-quant codecs (Q4_K 186.3 against
// 191.0 µs), up to 3.1% slower for IQ2_*/IQ3_XXS, and 3-16% faster than 2.
#ifndef GM_TURNS
#define GM_TURNS 32
#endif
// GM_MIN_GROUPS: on NVIDIA GPUs, the workgroups per multiprocessor the
// compiler must leave registers for (0: its own choice). 16 128-thread
// workgroups fill a multiprocessor of 2048 threads at 32 registers each.
#ifndef GM_MIN_GROUPS
#define GM_MIN_GROUPS 0
#endif
#if defined(__CUDACC__) && GM_MIN_GROUPS > 0
#define GM_BOUNDS __launch_bounds__(GM_THREADS, GM_MIN_GROUPS)
#else
#define GM_BOUNDS __launch_bounds__(GM_THREADS)
#endif
#define GM_NO_ERROR 0xffffffffffffffffull

// Status codes of the launcher ABI.
#define GM_OK 0
#define GM_BAD_ID 1
#define GM_ERROR 2

// Launch flags, decided on the host from the addresses.
#define GM_VEC 1    // out and every output row are 16-byte aligned: one 16-byte store per chunk
#define GM_WORDS 2  // the table starts and ends on 4-byte boundaries: gm_words_reader may read it
#define GM_IDS 4    // ids are aligned to their width: one load per id

// gm_args is one launch's arguments.
struct gm_args {
  const uint8_t* table;
  int64_t vocab, row_bytes;
  const uint8_t* ids;
  int id_bytes;
  int64_t n_ids;
  uint8_t* out;
  int64_t hidden;
  int64_t chunks;  // output chunks per row: ceil(hidden / values per chunk)
  int lanes_log2;  // each row is served by 2^lanes_log2 lanes
  int flags;
  unsigned long long* bad;
};

// ---------------------------------------------------------------------------
// Device side.

// gm_id_at reads ids[row], int32 (sign-extended) or int64, with one load
// when the ids are aligned to their width and by byte assembly otherwise
// (the ids buffer has no alignment promise); an int64 id is never
// truncated before it is checked.
GM_DEV int64_t gm_id_at(const uint8_t* ids, int64_t row, int id_bytes, bool aligned) {
  const uint8_t* p = ids + row * id_bytes;
  if (id_bytes == 8) return (int64_t)(aligned ? gm_load64(p) : gm_u64(p));
  return (int64_t)(int32_t)(aligned ? gm_load32(p) : gm_u32(p));
}

struct alignas(16) gm_vec4 {
  uint32_t x, y, z, w;
};

// gm_store writes the N decoded values y as the output chunk at dst, as f32
// or bf16 (CHECK: see gm_pack_bf16): one 16-byte store when vec, else one
// store per value (an output that is not 16-byte aligned).
template <int N, bool BF16, bool CHECK>
GM_DEV void gm_store(uint8_t* dst, const float (&y)[N], bool vec) {
  if (BF16) {
    uint32_t w[N / 2];
    gm_pack_bf16<N, CHECK>(y, w);
    uint16_t* o = (uint16_t*)dst;
    if (vec) {
      gm_vec4 v;
      v.x = w[0], v.y = w[1], v.z = w[2], v.w = w[3];
      *(gm_vec4*)o = v;
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) o[i] = (uint16_t)(w[i / 2] >> (16 * (i & 1)));
    }
  } else {
    uint32_t* o = (uint32_t*)dst;
    if (vec) {
      gm_vec4 v;
      v.x = gm_bits_of_f32(y[0]), v.y = gm_bits_of_f32(y[1]), v.z = gm_bits_of_f32(y[2]), v.w = gm_bits_of_f32(y[3]);
      *(gm_vec4*)o = v;
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) o[i] = gm_bits_of_f32(y[i]);
    }
  }
}

// gm_store_one writes one value as element e of the output at dst.
template <bool BF16>
GM_DEV void gm_store_one(uint8_t* dst, int64_t e, float f) {
  if (BF16) {
    ((uint16_t*)dst)[e] = (uint16_t)gm_bf16(f);
  } else {
    ((uint32_t*)dst)[e] = gm_bits_of_f32(f);
  }
}

// A chunk decoder D serves the lanes of one row: D::N values a chunk,
// D::elems values a block of D::bytes bytes (a float "block" is one value).
// A lane's chunks of a row lie 2^lanes_log2 chunks apart; when a lane has
// more than one, that stride is a whole number of blocks (2^lanes_log2 is
// then 128, and 128 chunks are 512 or 1024 values), so the lane decodes
// the same element offset e0 of every block it visits, and its offsets,
// shifts and masks are the same in every turn of its loop.

// gm_quant_chunk decodes and stores the chunk at element offset e0 of the
// packed block at src (codec C, whole blocks: a chunk is always whole).
template <class C, bool BF16, class R>
struct gm_quant_chunk {
  static const int N = BF16 ? 8 : 4, elems = C::elems, bytes = C::bytes;
  static GM_DEV void run(const uint8_t* src, int e0, uint8_t* dst, int64_t, bool vec) {
    float y[N];
    C::template chunk<N>(R{src}, e0, y);
    gm_store<N, BF16, gm_nan_kept<C>::value>(dst, y, vec);
  }
};

// gm_float_chunk does the same for a float table row: src points at the
// chunk's first value, of which the row has left. A short last chunk (a
// width that is not a multiple of N) goes value by value. BF16 to bf16
// copies the words (NaN payloads kept), as on the CPU.
template <int T, bool BF16, class R>
struct gm_float_chunk {
  static const int N = BF16 ? 8 : 4, elems = 1, bytes = GmFloat<T>::size;
  typedef GmFloat<T> F;
  static GM_DEV void run(const uint8_t* src, int, uint8_t* dst, int64_t left, bool vec) {
    if (left < N) {
      for (int64_t i = 0; i < left; ++i) {
        if (BF16 && T == GM_TYPE_BF16) {
          ((uint16_t*)dst)[i] = (uint16_t)R{src + bytes * i}.u16(0);
        } else {
          gm_store_one<BF16>(dst, i, F::one(R{src + bytes * i}));
        }
      }
      return;
    }
    const R b{src};
    if (BF16 && T == GM_TYPE_BF16) {
      const uint64_t lo = b.u64(0), hi = b.u64(8);
      uint16_t* o = (uint16_t*)dst;
      if (vec) {
        gm_vec4 v;
        v.x = (uint32_t)lo, v.y = (uint32_t)(lo >> 32), v.z = (uint32_t)hi, v.w = (uint32_t)(hi >> 32);
        *(gm_vec4*)o = v;
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) o[i] = (uint16_t)(lo >> (16 * i)), o[4 + i] = (uint16_t)(hi >> (16 * i));
      }
      return;
    }
    float y[N];
    F::template chunk<N>(b, y);
    gm_store<N, BF16, true>(dst, y, vec);
  }
};

// gm_rows is the body of every kernel: the rows of this thread's slot, and
// in each row the chunks of this thread's lane (chunk c goes to lane c mod
// 2^lanes_log2). D decodes and stores one chunk. The id of the slot's next
// row is loaded while this row is gathered, and the row's bytes are
// prefetched into the L2 cache as soon as its id is known (each lane one
// 128-byte line), so that only a lane's first chunk of a row waits for
// device memory.
template <class D>
GM_DEV void gm_rows(const gm_args& a, int out_size) {
  const uint32_t t = gm_thread();
  const int64_t lanes = (int64_t)1 << a.lanes_log2;
  const int64_t lane = t & (lanes - 1);
  const int64_t slots = GM_THREADS >> a.lanes_log2;
  const int64_t step = (int64_t)gm_groups() * slots;
  const bool ids_aligned = (a.flags & GM_IDS) != 0, vec = (a.flags & GM_VEC) != 0;
  // The lane's first value, its offset in its block, and the strides of
  // the lane's loop over a row in the table and in the output.
  const int64_t first = lane * D::N;
  const int e0 = (int)(first % D::elems);
  const int64_t src_first = first / D::elems * D::bytes;
  const int64_t src_step = lanes * D::N / D::elems * D::bytes;
  const int64_t dst_step = lanes * D::N * out_size;
  int64_t row = (int64_t)gm_group() * slots + (t >> a.lanes_log2);
  int64_t id = row < a.n_ids ? gm_id_at(a.ids, row, a.id_bytes, ids_aligned) : 0;
  for (; row < a.n_ids; row += step) {
    const int64_t next = row + step < a.n_ids ? gm_id_at(a.ids, row + step, a.id_bytes, ids_aligned) : 0;
    if (id < 0 || id >= a.vocab) {
      if (lane == 0) atomicMin(a.bad, (unsigned long long)row);
      id = next;
      continue;
    }
    const uint8_t* base = a.table + id * a.row_bytes;
    if (GM_PREFETCH)
      for (int64_t off = 128 * lane; off < a.row_bytes; off += 128 * lanes) gm_prefetch_l2(base + off);
    const uint8_t* src = base + src_first;
    uint8_t* dst = a.out + (row * a.hidden + first) * out_size;
    int64_t c = lane;
    for (; c < a.chunks; c += lanes, src += src_step, dst += dst_step) D::run(src, e0, dst, a.hidden - c * D::N, vec);
    id = next;
  }
}

// gm_quant_kernel gathers rows of a packed table of codec C.
template <class C, bool BF16>
__global__ void GM_BOUNDS gm_quant_kernel(const gm_args a) {
  if (a.flags & GM_WORDS) {
    gm_rows<gm_quant_chunk<C, BF16, gm_words_reader> >(a, BF16 ? 2 : 4);
  } else {
    gm_rows<gm_quant_chunk<C, BF16, gm_bytes_reader> >(a, BF16 ? 2 : 4);
  }
}

// gm_float_kernel gathers rows of a float table (element type T). As on
// the CPU, F16 and BF16 widen exactly and bf16 output is rounded to nearest
// even (NaN quieted), except BF16 to bf16, which copies the words; f32
// output is stored as bits.
template <int T, bool BF16>
__global__ void GM_BOUNDS gm_float_kernel(const gm_args a) {
  if (a.flags & GM_WORDS) {
    gm_rows<gm_float_chunk<T, BF16, gm_words_reader> >(a, BF16 ? 2 : 4);
  } else {
    gm_rows<gm_float_chunk<T, BF16, gm_bytes_reader> >(a, BF16 ? 2 : 4);
  }
}

// ---------------------------------------------------------------------------
// Host side.

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
  gm_emu_groups = grid;
  for (uint64_t b = 0; b < grid; ++b) {
    for (uint32_t t = 0; t < GM_THREADS; ++t) {
      gm_emu_block = b;
      gm_emu_thread = t;
      kernel();
    }
  }
}
#endif

// A launcher starts its kernel on grid workgroups, or, when occupancy is
// not NULL, stores how many workgroups of its kernel fit on one
// multiprocessor instead.
template <class C, bool BF16>
static hipError_t gm_launch_quant(unsigned grid, const gm_args& a, int* occupancy) {
  if (occupancy != NULL)
    return hipOccupancyMaxActiveBlocksPerMultiprocessor(occupancy, gm_quant_kernel<C, BF16>, GM_THREADS, 0);
#if defined(GM_HOST_EMULATION)
  gm_emu_launch(grid, a, [&] { gm_quant_kernel<C, BF16>(a); });
#else
  gm_quant_kernel<C, BF16><<<grid, GM_THREADS>>>(a);
#endif
  return hipSuccess;
}

template <int T, bool BF16>
static hipError_t gm_launch_float(unsigned grid, const gm_args& a, int* occupancy) {
  if (occupancy != NULL)
    return hipOccupancyMaxActiveBlocksPerMultiprocessor(occupancy, gm_float_kernel<T, BF16>, GM_THREADS, 0);
#if defined(GM_HOST_EMULATION)
  gm_emu_launch(grid, a, [&] { gm_float_kernel<T, BF16>(a); });
#else
  gm_float_kernel<T, BF16><<<grid, GM_THREADS>>>(a);
#endif
  return hipSuccess;
}

typedef hipError_t (*gm_launch_fn)(unsigned grid, const gm_args& a, int* occupancy);

// gm_kind is one table type the library gathers: its geometry (a float type
// is a "block" of one element) and its two launchers.
struct gm_kind {
  int type;
  const char* name;
  int elems, bytes;
  bool quant;
  gm_launch_fn f32, bf16;
};

// GM_QUANT is one admitted codec's entry: its decoder Codec<NAME>
// (decoders.h) with the geometry codecs.h gives it.
#define GM_QUANT(NAME)                                                                    \
  {Codec##NAME::type, #NAME, Codec##NAME::elems, Codec##NAME::bytes, true,                \
   gm_launch_quant<Codec##NAME, false>, gm_launch_quant<Codec##NAME, true>},
#define GM_FLOAT(T, name) \
  { T, name, 1, GmFloat<T>::size, false, gm_launch_float<T, false>, gm_launch_float<T, true> }

// The table types the library gathers: the admitted codecs, in the codec
// table's order (codecs.h, generated from gather/codec.go), then the float
// types.
static const gm_kind gm_kinds[] = {
    GM_ADMITTED_CODECS(GM_QUANT)
    GM_FLOAT(GM_TYPE_F32, "F32"),
    GM_FLOAT(GM_TYPE_F16, "F16"),
    GM_FLOAT(GM_TYPE_BF16, "BF16"),
};

#define GM_KINDS ((int)(sizeof gm_kinds / sizeof gm_kinds[0]))

static const gm_kind* gm_find_kind(int type) {
  for (int i = 0; i < GM_KINDS; ++i) {
    if (gm_kinds[i].type == type) return &gm_kinds[i];
  }
  return NULL;
}

// Probes for the tests: the device the last launcher bound, how many kernels
// were launched, the workgroups of the last and the most it could have had, how many temporaries are
// live, and a one-shot failure to inject at a given step of gm_gather.
static int gm_bound_device = -1;
static int64_t gm_launch_count = 0;
static int64_t gm_grid_last = 0;
static int64_t gm_cap_last = 0;
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
  gathermut_bind(device);  // a mutation run's kernel schema: this device's switch (compat.h)
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

// gm_prepare checks a gather's arguments and fills the launch arguments
// (all but the error record). It makes no device call.
static int gm_prepare(const gm_kind** kind, gm_args* a, int table_type, uint64_t table, int64_t vocab,
                      int64_t hidden, uint64_t ids, int id_bytes, int64_t n_ids, uint64_t out, int out_bf16,
                      char* err, int errlen) {
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
  const int per_chunk = 16 / out_size;  // values in a 16-byte chunk of the output
  a->table = (const uint8_t*)(uintptr_t)table;
  a->vocab = vocab;
  a->row_bytes = hidden / k->elems * k->bytes;
  a->ids = (const uint8_t*)(uintptr_t)ids;
  a->id_bytes = id_bytes;
  a->n_ids = n_ids;
  a->out = (uint8_t*)(uintptr_t)out;
  a->hidden = hidden;
  a->chunks = (hidden + per_chunk - 1) / per_chunk;
  a->lanes_log2 = 0;
  while (a->lanes_log2 < 7 && ((int64_t)1 << a->lanes_log2) < a->chunks) ++a->lanes_log2;
  const uint64_t table_end = table + (uint64_t)(vocab * a->row_bytes);
  a->flags = 0;
  if (out % 16 == 0 && hidden * out_size % 16 == 0) a->flags |= GM_VEC;
  if (table % 4 == 0 && table_end % 4 == 0) a->flags |= GM_WORDS;
  if (ids % (uint64_t)id_bytes == 0) a->flags |= GM_IDS;
  a->bad = NULL;
  *kind = k;
  return GM_OK;
}

// gm_grid sizes the grid of a launch on device (bound already): one
// workgroup per 128 >> lanes_log2 rows, at most GM_TURNS times as many as
// the device keeps resident at once (its multiprocessors times the
// kernel's workgroups per multiprocessor, as the runtime reports them).
// Within that cap the hardware hands workgroups to multiprocessors as they
// free up, which balances rows of uneven cost; past it, each workgroup
// takes the same number of turns, and the grid is the fewest workgroups
// that cover the rows in that many turns. The answers of the device are
// kept per device and kernel.
#define GM_CACHED_DEVICES 64
static int gm_capacity_cache[GM_CACHED_DEVICES][GM_KINDS][2];

static int gm_grid(const gm_kind* k, int out_bf16, const gm_args& a, int device, unsigned* grid, char* err,
                   int errlen) {
  int cap = device >= 0 && device < GM_CACHED_DEVICES ? gm_capacity_cache[device][k - gm_kinds][out_bf16 != 0] : 0;
  if (cap == 0) {
    int units = 0, per_unit = 0;
    if (!gm_check(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device),
                  "hipDeviceGetAttribute(multiprocessors)", device, err, errlen))
      return GM_ERROR;
    if (!gm_check((out_bf16 ? k->bf16 : k->f32)(0, a, &per_unit), "hipOccupancyMaxActiveBlocksPerMultiprocessor",
                  device, err, errlen))
      return GM_ERROR;
    const int64_t resident = (int64_t)units * (per_unit > 0 ? per_unit : 1);
    const int64_t most = resident * GM_TURNS;
    cap = (int)(most < 1 ? 1 : most > 0x7fffffff ? 0x7fffffff : most);
    if (device >= 0 && device < GM_CACHED_DEVICES) gm_capacity_cache[device][k - gm_kinds][out_bf16 != 0] = cap;
  }
  const int64_t slots = GM_THREADS >> a.lanes_log2;
  const int64_t wanted = (a.n_ids + slots - 1) / slots;
  const int64_t turns = (wanted + cap - 1) / cap;
  *grid = (unsigned)((wanted + turns - 1) / turns);
  gm_cap_last = cap;
  return GM_OK;
}

// gm_launch starts the kernel for kind k and counts the launch.
static void gm_launch(const gm_kind* k, int out_bf16, unsigned grid, const gm_args& a) {
  ++gm_launch_count;
  gm_grid_last = grid;
  (void)(out_bf16 ? k->bf16 : k->f32)(grid, a, NULL);
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
  gathermut_collect();  // a mutation run's kernel schema: the sites this kernel ran (compat.h)
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
  const int n = GM_KINDS;
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
  int status = gm_prepare(&k, &a, table_type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16, err, errlen);
  if (status != GM_OK) return status;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  if (gm_grid(k, out_bf16, a, device, &grid, err, errlen) != GM_OK) return GM_ERROR;
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
  int status = gm_prepare(&k, &a, table_type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16, err, errlen);
  if (status != GM_OK) return status;
  if (!gm_bind(device, err, errlen)) return GM_ERROR;
  if (gm_grid(k, out_bf16, a, device, &grid, err, errlen) != GM_OK) return GM_ERROR;
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
int64_t gm_last_grid_cap(void) { return gm_cap_last; }
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
