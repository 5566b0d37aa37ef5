// decoders.h: the device decoders, one per admitted codec, and what they
// read and write with.
//
// Each admitted codec is a struct Codec<NAME> that derives its GGML type
// id and geometry (type, elems, bytes) from codecs.h's GmGeom<NAME>, which
// gather/internal/gencodebooks generates from gather's codec table, and
// adds chunk<N>(b, e0, y): decode the N consecutive elements e0 .. e0+N-1 of the
// block that the reader b points at into y[0..N-1]. N is 8 for bf16 output
// and 4 for f32 output, so y is exactly one 16-byte chunk of the output; e0
// is a multiple of N, so a chunk never straddles two blocks, two 16-element
// sub-blocks of a K-quant, or two 8-element grid entries of an I-quant.
// Every index into y is a constant once the loops are unrolled, so nothing
// spills to scratch memory. A chunk re-reads the scale fields of its block
// itself: the lanes that share a block read the same addresses, which the
// cache serves once.
//
// The rules and the float32 operation order are docs/codecs.md's,
// the same as gather's Go decoders: one rounding per operation in the order
// written, integers turned into float before they are multiplied, and no
// fused multiply-add (the build passes -ffp-contract=off / -fmad=false).
// Integers become floats through gm_float (exact, as a conversion is).
#ifndef GATHERMUT_HIPKERN_DECODERS_H
#define GATHERMUT_HIPKERN_DECODERS_H

#include "codebooks.h"
#include "codecs.h"
#include "compat.h"

#define GM_DEV __device__ __forceinline__

#if defined(GM_HOST_EMULATION)
static inline float gm_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t gm_bits_of_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
// Aligned loads (the caller guarantees the alignment). A GPU stops a
// kernel that loads a word from a misaligned address; the emulation stops
// the process there (a trap), so that a launcher or reader that takes the
// aligned path where it must not fails on the host as it would on a GPU
// rather than reading the right bytes by x86's unaligned loads.
static inline uint32_t gm_load32(const uint8_t* p) {
  if ((uintptr_t)p & 3) __builtin_trap();
  uint32_t u;
  memcpy(&u, p, 4);
  return u;
}
static inline uint64_t gm_load64(const uint8_t* p) {
  if ((uintptr_t)p & 7) __builtin_trap();
  uint64_t u;
  memcpy(&u, p, 8);
  return u;
}
#else
#define gm_f32_from_bits(u) __uint_as_float(u)
#define gm_bits_of_f32(f) __float_as_uint(f)
#define gm_load32(p) (*(const uint32_t*)(p))
#define gm_load64(p) (*(const uint64_t*)(p))
#endif

// Little-endian field reads by byte assembly: any address.
GM_DEV uint32_t gm_u16(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

GM_DEV uint32_t gm_u32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

GM_DEV uint64_t gm_u64(const uint8_t* p) { return (uint64_t)gm_u32(p) | (uint64_t)gm_u32(p + 4) << 32; }

// ---------------------------------------------------------------------------
// Readers. A decoder reads its block through one of two readers with the
// same interface: u8, u16, u32 and u64 at a byte offset, little-endian, at
// any alignment.
//
// gm_bytes_reader assembles every field from byte loads: it never touches a
// byte outside the field, so it serves any table.
struct gm_bytes_reader {
  const uint8_t* p;
  GM_DEV uint32_t u8(int off) const { return p[off]; }
  GM_DEV uint32_t u16(int off) const { return gm_u16(p + off); }
  GM_DEV uint32_t u32(int off) const { return gm_u32(p + off); }
  GM_DEV uint64_t u64(int off) const { return gm_u64(p + off); }
};

// gm_words_reader loads the aligned 32-bit words that hold a field and
// shifts the field out of them: 2 or 3 loads for 8 bytes instead of 8. A
// word may hold up to 3 bytes beside the field; they belong to the table
// whenever the table's first and last byte addresses + 1 are multiples of
// 4, the only case the launcher uses this reader for (and every word it
// loads holds a byte of the field, so it never reads past a block that is
// not needed by more than those 3 bytes).
struct gm_words_reader {
  const uint8_t* p;
  // at returns the aligned address below p + off and the field's skew
  // from it (0 to 3 bytes).
  GM_DEV const uint8_t* at(int off, uint32_t* s) const {
    const uint8_t* q = p + off;
    *s = (uint32_t)((uintptr_t)q & 3);
    return q - *s;
  }
  // shr returns bits 8s .. 8s+31 of the 64-bit value hi:lo.
  GM_DEV static uint32_t shr(uint32_t lo, uint32_t hi, uint32_t s) {
    return (uint32_t)((((uint64_t)hi << 32) | lo) >> (8 * s));
  }
  GM_DEV uint32_t u8(int off) const { return p[off]; }
  GM_DEV uint32_t u16(int off) const {
    uint32_t s;
    const uint8_t* a = at(off, &s);
    const uint32_t lo = gm_load32(a);
    const uint32_t hi = s == 3 ? gm_load32(a + 4) : 0u;
    return shr(lo, hi, s) & 0xffffu;
  }
  GM_DEV uint32_t u32(int off) const {
    uint32_t s;
    const uint8_t* a = at(off, &s);
    const uint32_t lo = gm_load32(a);
    const uint32_t hi = s != 0 ? gm_load32(a + 4) : 0u;
    return shr(lo, hi, s);
  }
  GM_DEV uint64_t u64(int off) const {
    uint32_t s;
    const uint8_t* a = at(off, &s);
    const uint32_t w0 = gm_load32(a), w1 = gm_load32(a + 4);
    const uint32_t w2 = s != 0 ? gm_load32(a + 8) : 0u;
    return (uint64_t)shr(w0, w1, s) | (uint64_t)shr(w1, w2, s) << 32;
  }
};

// gm_prefetch_l2 asks for the 128-byte line holding p to be brought into
// the L2 cache (NVIDIA GPUs; a hint that never faults and returns nothing).
#if defined(__CUDA_ARCH__)
GM_DEV void gm_prefetch_l2(const uint8_t* p) { asm volatile("prefetch.global.L2 [%0];" : : "l"(p)); }
#elif defined(GM_HOST_EMULATION)
// The emulation's hint is, like the GPU's, an instruction the compiler must
// keep and that computes nothing: an empty volatile asm statement taking
// the address. A prefetch loop thus stays a loop with an effect: one that
// would never end on a GPU never ends here either, instead of being removed
// by the optimizer as a loop without effects.
GM_DEV void gm_prefetch_l2(const uint8_t* p) { asm volatile("" : : "r"(p)); }
#else
GM_DEV void gm_prefetch_l2(const uint8_t*) {}
#endif

// gm_take reads the N bytes at off (N = 4 or 8) as one little-endian value:
// byte k of the field is bits 8k .. 8k+7.
template <int N, class R>
GM_DEV uint64_t gm_take(const R& b, int off) {
  if (N == 8) return b.u64(off);
  return b.u32(off);
}

// ---------------------------------------------------------------------------
// Number conversions.

// gm_float converts an integer v with |v| < 2^22 to float32 exactly, the
// value (float)v has: 1.5 * 2^23 + v is exact in float32 (its ulp is 1),
// and so is the subtraction; 0 gives +0. Every integer a decoder converts
// is that small. An integer add and a float subtract replace a conversion
// instruction, a quarter-rate one on NVIDIA GPUs.
GM_DEV float gm_float(int v) { return gm_f32_from_bits(0x4b400000u + (uint32_t)v) - 12582912.0f; }

// gm_f16_to_f32 widens IEEE binary16 bits exactly: signed zeros, subnormals,
// infinities and NaN payloads carry over (no hardware conversion, which may
// quiet a signalling NaN). Float tables (F16) are widened with it.
GM_DEV float gm_f16_to_f32(uint32_t h) {
  const uint32_t sign = (h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return gm_f32_from_bits(sign | 0x7f800000u | man << 13);
  if (exp != 0) return gm_f32_from_bits(sign | (exp + 112) << 23 | man << 13);
  // Zero or subnormal: man * 2^-24 is exact in float32 (a normal number).
  return gm_f32_from_bits(sign | gm_bits_of_f32((float)man * 5.9604644775390625e-08f));
}

// gm_scale widens the binary16 scale field h of a packed block. The value
// is exact either way; on NVIDIA GPUs the hardware conversion does it in one
// instruction. A NaN's payload may differ from gm_f16_to_f32's there, which
// no output shows: every decoded value is a product with the scale, and a
// product with a NaN is the GPU's canonical NaN whatever the payload.
#if defined(__CUDA_ARCH__)
GM_DEV float gm_scale(uint32_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
  return f;
}
#else
GM_DEV float gm_scale(uint32_t h) { return gm_f16_to_f32(h); }
#endif

// gm_bf16 rounds f to bf16 exactly like gather.F32ToBF16: round to nearest,
// ties to even; a NaN keeps its top 16 bits with the quiet bit set.
GM_DEV uint32_t gm_bf16(float f) {
  const uint32_t u = gm_bits_of_f32(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x0040u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// gm_pack_bf16 rounds the N values y to bf16 (gm_bf16) and packs them in
// pairs: w[i] = bf16(y[2i]) | bf16(y[2i+1]) << 16. NVIDIA GPUs round a pair
// in one instruction (round to nearest even, subnormals kept, overflow to
// infinity, as gm_bf16), which makes any NaN the canonical NaN 0x7fff. When
// the values may be NaNs with other bits (CHECK: a float table's values,
// copied from memory), a chunk holding a NaN is rounded by gm_bf16 instead.
// A packed codec's values are results of float arithmetic, whose NaNs the
// GPU makes canonical (0x7fffffff), for which gm_bf16 gives 0x7fff too
// (a codec whose values are not, gm_nan_kept, rounds with CHECK):
// TestGPUOracle checks the bf16 output against gm_bf16 of the f32 output,
// NaNs included. GM_BF16_NAN_CHECK=1 checks packed codecs' chunks too.
#ifndef GM_BF16_NAN_CHECK
#define GM_BF16_NAN_CHECK 0
#endif
template <int N, bool CHECK>
GM_DEV void gm_pack_bf16(const float (&y)[N], uint32_t (&w)[N / 2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  bool nan = false;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w[i]) : "f"(y[2 * i + 1]), "f"(y[2 * i]));
    nan |= y[2 * i] != y[2 * i] || y[2 * i + 1] != y[2 * i + 1];
  }
  if (!(CHECK || GM_BF16_NAN_CHECK) || !nan) return;
#endif
#pragma unroll
  for (int i = 0; i < N / 2; ++i) w[i] = gm_bf16(y[2 * i]) | gm_bf16(y[2 * i + 1]) << 16;
}

// gm_sign applies the sign bit j of a sign byte as ggml does, as a product
// with +-1 after the magnitude was rounded.
GM_DEV float gm_sign(uint32_t signs, int j) { return (signs & gm_kmask_iq2xs[j]) ? -1.f : 1.f; }

// gm_bytef returns byte k of the little-endian packed value v, minus bias,
// as a float, exactly, for a constant k and bias (|bias| < 2^22): the byte is placed in the low bits
// of 1.5 * 2^23 (one byte permute on NVIDIA GPUs) and 1.5 * 2^23 + bias is
// subtracted, both exact as in gm_float. A decoder lays out a chunk's N
// small integers as the N bytes of one 64-bit value and converts each with
// one permute and one subtraction.
GM_DEV float gm_bytef(uint64_t v, int k, int bias) {
  const uint32_t w = (uint32_t)(v >> (32 * (k >> 2)));
#if defined(__CUDA_ARCH__)
  const uint32_t f = __byte_perm(w, 0x4b400000u, 0x7650u | (uint32_t)(k & 3));
#else
  const uint32_t f = 0x4b400000u | ((w >> (8 * (k & 3))) & 0xffu);
#endif
  return gm_f32_from_bits(f) - (float)(12582912 + bias);
}

// Byte-wise masks: the low nibble, the low 2 bits, the low bit, the sign
// bit of every byte of a 64-bit value.
#define GM_NIB 0x0f0f0f0f0f0f0f0full
#define GM_TWO 0x0303030303030303ull
#define GM_ONE 0x0101010101010101ull
#define GM_TOP 0x8080808080808080ull

// ---------------------------------------------------------------------------
// Legacy 32-element formats. Nibbles are split halves: byte j holds element j
// (low nibble) and element j+16 (high nibble), so a chunk reads N bytes at
// 2 + (e0 & 15) and takes their low or high nibbles.

// Q4_0 (18 B): d f16 @0, qs[16] @2. y = (nibble - 8) * d.
struct CodecQ4_0 : GmGeomQ4_0 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const uint64_t q = gm_take<N>(b, 2 + (e0 & 15)) >> ((e0 >> 2) & 4) & GM_NIB;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = gm_bytef(q, k, 8) * d;
  }
};

// Q5_0 (22 B): d f16 @0, qh u32 @2, qs[16] @6. Bit e of qh is element e's
// fifth bit. y = ((nibble | bit << 4) - 16) * d.
struct CodecQ5_0 : GmGeomQ5_0 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const uint32_t qh = b.u32(2) >> e0;
    uint64_t q = gm_take<N>(b, 6 + (e0 & 15)) >> ((e0 >> 2) & 4) & GM_NIB;
#pragma unroll
    for (int k = 0; k < N; ++k) q |= (uint64_t)((qh >> k) & 1) << (8 * k + 4);
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = gm_bytef(q, k, 16) * d;
  }
};

// Q8_0 (34 B): d f16 @0, qs[32] int8 @2. y = qs * d.
struct CodecQ8_0 : GmGeomQ8_0 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const uint64_t qs = gm_take<N>(b, 2 + e0) ^ GM_TOP;  // int8 v as v + 128
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = gm_bytef(qs, k, 128) * d;
  }
};

// IQ4_NL (18 B): d f16 @0, qs[16] @2. y = d * kvalues_iq4nl[nibble].
struct CodecIQ4_NL : GmGeomIQ4_NL {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const uint64_t qs = gm_take<N>(b, 2 + (e0 & 15));
    const int shift = (e0 >> 2) & 4;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const uint32_t nib = (uint32_t)(qs >> (8 * k + shift)) & 15;
      y[k] = d * gm_float(gm_kvalues_iq4nl[nib]);
    }
  }
};

// MXFP4 (17 B): e E8M0 @0, qs[16] @1. s = 2^(e-128) built from bits (e = 1
// and e = 0 give the subnormals 2^-127 and 2^-128; e = 255 is finite).
// y = kvalues_mxfp4[nibble] * s.
struct CodecMXFP4 : GmGeomMXFP4 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const uint32_t e = b.u8(0);
    const float s = gm_f32_from_bits(e < 2 ? 0x00200000u << e : (e - 1) << 23);
    const uint64_t qs = gm_take<N>(b, 1 + (e0 & 15));
    const int shift = (e0 >> 2) & 4;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const uint32_t q = (uint32_t)(qs >> (8 * k + shift)) & 15;
      y[k] = gm_float(gm_kvalues_mxfp4[q]) * s;
    }
  }
};

// gm_ue4m3_half returns half the value of an NVFP4 UE4M3 scale byte x, as
// ggml's ggml_ue4m3_to_fp32 (bit 7 ignored; 0x7f is 0, 0xff is not):
// (1 + m/8) * 2^(e-8) built from bits (float32 exponent field e + 119), or
// m * 2^-10 for e = 0. Exact, as upstream's is.
GM_DEV float gm_ue4m3_half(uint32_t x) {
  if (x == 0x7fu) return 0.0f;
  const uint32_t e = (x >> 3) & 15u, m = x & 7u;
  if (e == 0) return gm_float((int)m) * 0.0009765625f;
  return gm_f32_from_bits((e + 119u) << 23 | m << 20);
}

// NVFP4 (36 B, 64 elements): d[4] UE4M3 @0, qs[32] @4. Sub-block s = e/16
// has scale d[s] and bytes qs[8s ..]: low nibbles give its elements 0-7,
// high nibbles 8-15. y = kvalues_mxfp4[nibble] * u(d[s]).
struct CodecNVFP4 : GmGeomNVFP4 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const int s = e0 >> 4, r = e0 & 15;
    const float d = gm_ue4m3_half(b.u8(s));
    const uint64_t qs = gm_take<N>(b, 4 + 8 * s + (r & 7));
    const int shift = (r >> 1) & 4;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const uint32_t q = (uint32_t)(qs >> (8 * k + shift)) & 15;
      y[k] = gm_float(gm_kvalues_mxfp4[q]) * d;
    }
  }
};

// Q1_0 (18 B, 128 elements): d f16 @0, qs[16] @2. Bit e%8 of qs[e/8]
// (LSB first) set gives d, clear gives -d.
struct CodecQ1_0 : GmGeomQ1_0 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const uint32_t bits = b.u8(2 + (e0 >> 3)) >> (e0 & 7);
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = ((bits >> k) & 1) ? d : -d;
  }
};

// gm_nan_kept<C>::value is true for a codec whose values are not all
// results of float arithmetic: Q1_0's are its scale or the scale with the
// sign flipped, so a NaN scale gives NaNs with the scale's payload and
// either sign, which the GPU's pair rounding would make canonical. Its bf16
// chunks holding a NaN are rounded by gm_bf16 (gm_pack_bf16's CHECK).
template <class C>
struct gm_nan_kept {
  static const bool value = false;
};
template <>
struct gm_nan_kept<CodecQ1_0> {
  static const bool value = true;
};

// Q2_0 (18 B, 64 elements): d f16 @0, qs[16] @2. Element e is the 2-bit
// code (qs[e/4] >> 2(e%4)) & 3, LSB first; y = (code - 1) * d.
struct CodecQ2_0 : GmGeomQ2_0 {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const uint32_t codes = (N == 8 ? b.u16(2 + (e0 >> 2)) : b.u8(2 + (e0 >> 2)));
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = gm_float((int)((codes >> (2 * k)) & 3) - 1) * d;
  }
};

// ---------------------------------------------------------------------------
// K-quants (256 elements, 8 groups of 32, sub-blocks of 16). A chunk lies in
// group g = e0/32 at r = e0%32 and in sub-block e0/16, so it has one scale.

// Q2_K (84 B): scales[16] @0, qs[64] @16, d f16 @80, dmin f16 @82.
// Group g: half h = g/4, plane p = g%4; q = (qs[32h + r] >> 2p) & 3.
// y = (d * (sc & 15)) * q - (dmin * (sc >> 4)), sc = scales[e/16].
struct CodecQ2_K : GmGeomQ2_K {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const uint32_t dd = b.u32(80);
    const float d = gm_scale(dd & 0xffff);
    const float dmin = gm_scale(dd >> 16);
    const int g = e0 >> 5;
    const uint32_t sc = b.u8(e0 >> 4);
    const float dl = d * gm_float(sc & 15);
    const float ml = dmin * gm_float(sc >> 4);
    const uint64_t q = gm_take<N>(b, 16 + 32 * (g >> 2) + (e0 & 31)) >> (2 * (g & 3)) & GM_TWO;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = dl * gm_bytef(q, k, 0) - ml;
  }
};

// Q3_K (110 B): hmask[32] @0, qs[64] @32, scales[12] @96, d f16 @108.
// Low 2 bits as Q2_K; a clear bit g of hmask[r] lowers q by 4.
// Sub-block j's 6-bit scale: low nibble from scales[j] (j < 8) or the high
// nibble of scales[j-8], high 2 bits from scales[8 + j%4] >> 2(j/4); s = v - 32.
// y = (d * s) * q.
struct CodecQ3_K : GmGeomQ3_K {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(108));
    const int g = e0 >> 5, r = e0 & 31, j = e0 >> 4;
    const uint32_t low4 = (b.u8(96 + (j & 7)) >> (4 * (j >> 3))) & 15u;
    const uint32_t high2 = (b.u8(104 + (j & 3)) >> (2 * (j >> 2))) & 3u;
    const float dl = d * gm_float((int)(low4 | high2 << 4) - 32);
    const uint64_t low2 = gm_take<N>(b, 32 + 32 * (g >> 2) + r) >> (2 * (g & 3)) & GM_TWO;
    const uint64_t hbit = gm_take<N>(b, r) >> g & GM_ONE;
    // q = low2 - 4 where the hmask bit is clear: (low2 | hbit << 2) - 4.
    const uint64_t q = low2 | hbit << 2;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = dl * gm_bytef(q, k, 4);
  }
};

// gm_scale_min_k4 unpacks the 6-bit scale and min of group j of Q4_K / Q5_K
// from their 12 packed bytes at offset 4 of the block.
template <class R>
GM_DEV void gm_scale_min_k4(const R& b, int j, uint32_t* sc, uint32_t* m) {
  if (j < 4) {
    *sc = b.u8(4 + j) & 63u;
    *m = b.u8(8 + j) & 63u;
  } else {
    const uint32_t hi = b.u8(8 + j);
    *sc = (hi & 15u) | (b.u8(j) >> 6) << 4;
    *m = (hi >> 4) | (b.u8(4 + j) >> 6) << 4;
  }
}

// Q4_K (144 B): d f16 @0, dmin f16 @2, scales[12] @4, qs[128] @16.
// Group g reads qs[32(g/2) ..]: low nibbles for even g, high for odd.
// y = (d * sc) * q - (dmin * m).
struct CodecQ4_K : GmGeomQ4_K {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const uint32_t dd = b.u32(0);
    const float d = gm_scale(dd & 0xffff);
    const float dmin = gm_scale(dd >> 16);
    const int g = e0 >> 5;
    uint32_t sc, m;
    gm_scale_min_k4(b, g, &sc, &m);
    const float d1 = d * gm_float(sc);
    const float m1 = dmin * gm_float(m);
    const uint64_t nib = gm_take<N>(b, 16 + 32 * (g >> 1) + (e0 & 31)) >> (4 * (g & 1)) & GM_NIB;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = d1 * gm_bytef(nib, k, 0) - m1;
  }
};

// Q5_K (176 B): d @0, dmin @2, scales[12] @4, qh[32] @16, qs[128] @48.
// As Q4_K, plus a fifth bit: bit g of qh[r]. q = nibble + 16 * bit.
struct CodecQ5_K : GmGeomQ5_K {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const uint32_t dd = b.u32(0);
    const float d = gm_scale(dd & 0xffff);
    const float dmin = gm_scale(dd >> 16);
    const int g = e0 >> 5, r = e0 & 31;
    uint32_t sc, m;
    gm_scale_min_k4(b, g, &sc, &m);
    const float d1 = d * gm_float(sc);
    const float m1 = dmin * gm_float(m);
    const uint64_t nib = gm_take<N>(b, 48 + 32 * (g >> 1) + r) >> (4 * (g & 1)) & GM_NIB;
    const uint64_t q = nib | (gm_take<N>(b, 16 + r) >> g & GM_ONE) << 4;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = d1 * gm_bytef(q, k, 0) - m1;
  }
};

// Q6_K (210 B): ql[128] @0, qh[64] @128, scales[16] int8 @192, d f16 @208.
// Group g: h = g/4, k = g%4. Low 4 bits from ql[64h + r + 32(k&1)] (low
// nibble for k < 2), high 2 bits (qh[32h + r] >> 2k) & 3; q = v - 32.
// y = (d * scales[e/16]) * q, the scale a signed int8.
struct CodecQ6_K : GmGeomQ6_K {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(208));
    const int g = e0 >> 5, r = e0 & 31;
    const int h = g >> 2, kk = g & 3;
    const float dl = d * gm_float((int8_t)b.u8(192 + (e0 >> 4)));
    const uint64_t low4 = gm_take<N>(b, 64 * h + 32 * (kk & 1) + r) >> (2 * (kk & 2)) & GM_NIB;
    const uint64_t high2 = gm_take<N>(b, 128 + 32 * h + r) >> (2 * kk) & GM_TWO;
    const uint64_t q = low4 | high2 << 4;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = dl * gm_bytef(q, k, 32);
  }
};

// Q8_K (292 B): d float32 @0, qs[256] int8 @4, bsums[16] @260 (unused).
// y = d * qs.
struct CodecQ8_K : GmGeomQ8_K {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_f32_from_bits(b.u32(0));
    const uint64_t qs = gm_take<N>(b, 4 + e0) ^ GM_TOP;  // int8 v as v + 128
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = d * gm_bytef(qs, k, 128);
  }
};

// ---------------------------------------------------------------------------
// I-quants (256 elements; a group of 32 is four sub-groups of 8). Grid entry
// element j is byte j of the packed entry. y = (db * grid) * sign. A chunk
// is sub-group l = (e0%32)/8 from element j0 = e0%8 (0, or 4 for f32 out).

// IQ2_XXS (66 B): d f16 @0, then per group 8 bytes @2+8g: four 8-bit grid
// indices, then u32 w with sign indices at bits 7l and the scale at w >> 28.
// db = (d * (0.5 + s)) * 0.25.
struct CodecIQ2_XXS : GmGeomIQ2_XXS {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t w = b.u32(6 + 8 * g);
    const float db = d * (0.5f + gm_float((int)(w >> 28))) * 0.25f;
    const uint64_t grid = gm_iq2xxs_grid[b.u8(2 + 8 * g + l)] >> (8 * j0);
    const uint32_t signs = (uint32_t)gm_ksigns_iq2xs[(w >> (7 * l)) & 127] >> j0;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = db * gm_bytef(grid, k, 0) * gm_sign(signs, k);
  }
};

// IQ2_XS (74 B): d f16 @0, qs[32] u16 @2, scales[8] @66. Each u16: low 9
// bits a grid index, high 7 a ksigns index. The low nibble of scales[g]
// serves sub-groups 0-1, the high nibble 2-3.
struct CodecIQ2_XS : GmGeomIQ2_XS {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t s = (b.u8(66 + g) >> (4 * (l >> 1))) & 15;
    const float db = d * (0.5f + gm_float((int)s)) * 0.25f;
    const uint32_t qv = b.u16(2 + 2 * (4 * g + l));
    const uint64_t grid = gm_iq2xs_grid[qv & 511] >> (8 * j0);
    const uint32_t signs = (uint32_t)gm_ksigns_iq2xs[qv >> 9] >> j0;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = db * gm_bytef(grid, k, 0) * gm_sign(signs, k);
  }
};

// IQ2_S (82 B): d f16 @0, qs[64] @2, qh[8] @66, scales[8] @74. qs[0..31]
// are the low index bits, qs[32..63] explicit sign bytes; index =
// qs[4g+l] | ((qh[g] >> 2l) & 3) << 8. Scales as IQ2_XS.
struct CodecIQ2_S : GmGeomIQ2_S {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t s = (b.u8(74 + g) >> (4 * (l >> 1))) & 15;
    const float db = d * (0.5f + gm_float((int)s)) * 0.25f;
    const uint32_t idx = b.u8(2 + 4 * g + l) | ((b.u8(66 + g) >> (2 * l)) & 3) << 8;
    const uint64_t grid = gm_iq2s_grid[idx] >> (8 * j0);
    const uint32_t signs = b.u8(34 + 4 * g + l) >> j0;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = db * gm_bytef(grid, k, 0) * gm_sign(signs, k);
  }
};

// IQ3_XXS (98 B): d f16 @0, qs[96] @2: qs[0..63] 8-bit indices into
// iq3xxs_grid (4 bytes each; sub-group l uses entries 2l and 2l+1),
// qs[64..95] one u32 per group with ksigns indices at bits 7l and the scale
// at >> 28. db = (d * (0.5 + s)) * 0.5.
struct CodecIQ3_XXS : GmGeomIQ3_XXS {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t w = b.u32(66 + 4 * g);
    const float db = d * (0.5f + gm_float((int)(w >> 28))) * 0.5f;
    const int first = 2 + 8 * g + 2 * l + (j0 >> 2);  // the entry of element j0
    uint64_t grid = gm_iq3xxs_grid[b.u8(first)];
    if (N == 8) grid |= (uint64_t)gm_iq3xxs_grid[b.u8(first + 1)] << 32;
    const uint32_t signs = (uint32_t)gm_ksigns_iq2xs[(w >> (7 * l)) & 127] >> j0;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = db * gm_bytef(grid, k, 0) * gm_sign(signs, k);
  }
};

// IQ3_S (110 B): d f16 @0, qs[64] @2, qh[8] @66, signs[32] @74, scales[4]
// @106. s = (scales[g/2] >> 4(g%2)) & 15, db = d * (1 + 2s). Entry t = 2l+i
// of group g: index qs[8g+t] | bit t of qh[g] << 8 into iq3s_grid.
struct CodecIQ3_S : GmGeomIQ3_S {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t s = (b.u8(106 + (g >> 1)) >> (4 * (g & 1))) & 15;
    const float db = d * gm_float(1 + 2 * (int)s);
    const uint32_t qh = b.u8(66 + g);
    const int t = 2 * l + (j0 >> 2);  // the entry of element j0
    const uint32_t idx1 = b.u8(2 + 8 * g + t) | ((qh >> t) & 1) << 8;
    uint64_t grid = gm_iq3s_grid[idx1];
    if (N == 8) {
      const uint32_t idx2 = b.u8(3 + 8 * g + t) | ((qh >> (t + 1)) & 1) << 8;
      grid |= (uint64_t)gm_iq3s_grid[idx2] << 32;
    }
    const uint32_t signs = b.u8(74 + 4 * g + l) >> j0;
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = db * gm_bytef(grid, k, 0) * gm_sign(signs, k);
  }
};

// IQ1_S (50 B): d f16 @0, qs[32] @2, qh[8] u16 @34. For h = qh[g]: bits 3l
// are the high 3 index bits of sub-group l (11-bit index into iq1s_grid),
// bits 12-14 the scale (dl = d * (2s + 1)), bit 15 the delta sign.
// y = dl * (grid + delta).
struct CodecIQ1_S : GmGeomIQ1_S {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t h = b.u16(34 + 2 * g);
    const float dl = d * gm_float(2 * (int)((h >> 12) & 7) + 1);
    const float delta = (h & 0x8000) ? -GM_IQ1S_DELTA : GM_IQ1S_DELTA;
    const uint64_t grid = gm_iq1s_grid[b.u8(2 + 4 * g + l) | ((h >> (3 * l)) & 7) << 8] >> (8 * j0);
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = dl * (gm_bytef(grid ^ GM_TOP, k, 128) + delta);
  }
};

// IQ1_XXXS (38 B, unsloth fork): d f16 @0, qs[32] @2, sc[4] @34. Nibble
// n = (sc[g/2] >> 4(g%2)) & 15: bits 0-2 the scale (dl = d * (2s + 1)),
// bit 3 the delta sign. 8-bit indices into iq1_xxxs_grid.
struct CodecIQ1_XXXS : GmGeomIQ1_XXXS {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const float d = gm_scale(b.u16(0));
    const int g = e0 >> 5, l = (e0 >> 3) & 3, j0 = e0 & 7;
    const uint32_t n = (b.u8(34 + (g >> 1)) >> (4 * (g & 1))) & 15;
    const float dl = d * gm_float(2 * (int)(n & 7) + 1);
    const float delta = (n & 8) ? -GM_IQ1S_DELTA : GM_IQ1S_DELTA;
    const uint64_t grid = gm_iq1_xxxs_grid[b.u8(2 + 4 * g + l)] >> (8 * j0);
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = dl * (gm_bytef(grid ^ GM_TOP, k, 128) + delta);
  }
};

// IQ4_XS (136 B): d f16 @0, scales_h u16 @2, scales_l[4] @4, qs[128] @8.
// ls = ((scales_l[g/2] >> 4(g%2)) & 15) | ((scales_h >> 2g) & 3) << 4,
// dl = d * (ls - 32); qs[16g ..] split like Q4_0; y = dl * kvalues_iq4nl.
struct CodecIQ4_XS : GmGeomIQ4_XS {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float (&y)[N]) {
    const uint32_t dh = b.u32(0);
    const float d = gm_scale(dh & 0xffff);
    const int g = e0 >> 5, r = e0 & 31;
    const uint32_t sh = dh >> 16;
    const uint32_t ls = ((b.u8(4 + (g >> 1)) >> (4 * (g & 1))) & 15) | ((sh >> (2 * g)) & 3) << 4;
    const float dl = d * gm_float((int)ls - 32);
    const uint64_t qs = gm_take<N>(b, 8 + 16 * g + (r & 15));
    const int shift = (r >> 2) & 4;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const uint32_t nib = (uint32_t)(qs >> (8 * k + shift)) & 15;
      y[k] = dl * gm_float(gm_kvalues_iq4nl[nib]);
    }
  }
};

// ---------------------------------------------------------------------------
// Float tables: element types F32 (0), F16 (1) and BF16 (30), widened to
// float32 exactly (F16 with gm_f16_to_f32, NaN payloads kept).
#define GM_TYPE_F32 0
#define GM_TYPE_F16 1
#define GM_TYPE_BF16 30

template <int T>
struct GmFloat {
  static const int type = T, size = T == GM_TYPE_F32 ? 4 : 2;
  // one widens the element that b points at.
  template <class R>
  static GM_DEV float one(const R& b) {
    if (T == GM_TYPE_F32) return gm_f32_from_bits(b.u32(0));
    if (T == GM_TYPE_F16) return gm_f16_to_f32(b.u16(0));
    return gm_f32_from_bits(b.u16(0) << 16);
  }
  // chunk widens the N elements from the one that b points at.
  template <int N, class R>
  static GM_DEV void chunk(const R& b, float (&y)[N]) {
#pragma unroll
    for (int i = 0; i < N * size / 8; ++i) {
      const uint64_t v = b.u64(8 * i);
#pragma unroll
      for (int k = 0; k < 8 / size; ++k) {
        const uint32_t bits = (uint32_t)(v >> (8 * size * k));
        float f;
        if (T == GM_TYPE_F32) f = gm_f32_from_bits(bits);
        else if (T == GM_TYPE_F16) f = gm_f16_to_f32(bits & 0xffff);
        else f = gm_f32_from_bits(bits << 16);
        y[i * (8 / size) + k] = f;
      }
    }
  }
};

#endif  // GATHERMUT_HIPKERN_DECODERS_H
