// decoders.h: the device block decoders, one per admitted codec.
//
// Each codec is a struct with its GGML type id, its geometry and
// group(b, g, y): decode elements 32g .. 32g+31 of the block at b into y[0..31].
// A 256-element block is 8 groups and a 32-element block is one. Decoding a
// group at a time keeps y in registers: every index into y is a constant
// once the loops are unrolled, so nothing spills to scratch memory.
//
// The rules and the float32 operation order are docs/codecs.md's,
// the same as gather's Go decoders: one rounding per operation in the order
// written, integers turned into float before they are multiplied, and no
// fused multiply-add (the build passes -ffp-contract=off / -fmad=false).
// The block may start at any byte address, so every multi-byte field is
// assembled from bytes; there are no typed loads of packed data.
#ifndef GATHERMUT_HIPKERN_DECODERS_H
#define GATHERMUT_HIPKERN_DECODERS_H

#include "codebooks.h"
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
#else
#define gm_f32_from_bits(u) __uint_as_float(u)
#define gm_bits_of_f32(f) __float_as_uint(f)
#endif

// Little-endian field reads by byte assembly.
GM_DEV uint32_t gm_u16(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

GM_DEV uint32_t gm_u32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

GM_DEV uint64_t gm_u64(const uint8_t* p) { return (uint64_t)gm_u32(p) | (uint64_t)gm_u32(p + 4) << 32; }

// gm_f16_to_f32 widens IEEE binary16 bits exactly: signed zeros, subnormals,
// infinities and NaN payloads carry over (no hardware conversion, which may
// quiet a signalling NaN).
GM_DEV float gm_f16_to_f32(uint32_t h) {
  const uint32_t sign = (h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return gm_f32_from_bits(sign | 0x7f800000u | man << 13);
  if (exp != 0) return gm_f32_from_bits(sign | (exp + 112) << 23 | man << 13);
  // Zero or subnormal: man * 2^-24 is exact in float32 (a normal number).
  return gm_f32_from_bits(sign | gm_bits_of_f32((float)man * 5.9604644775390625e-08f));
}

// gm_f16 reads the little-endian binary16 at p as float32.
GM_DEV float gm_f16(const uint8_t* p) { return gm_f16_to_f32(gm_u16(p)); }

// gm_bf16 rounds f to bf16 exactly like gather.F32ToBF16: round to nearest,
// ties to even; a NaN keeps its top 16 bits with the quiet bit set.
GM_DEV uint16_t gm_bf16(float f) {
  const uint32_t u = gm_bits_of_f32(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// gm_sign applies the sign bit j of a sign byte as ggml does, as a product
// with +-1 after the magnitude was rounded.
GM_DEV float gm_sign(uint32_t signs, int j) { return (signs & gm_kmask_iq2xs[j]) ? -1.f : 1.f; }

// ---------------------------------------------------------------------------
// Legacy 32-element formats. Nibbles are split halves: byte j holds element j
// (low nibble) and element j+16 (high nibble).

// Q4_0 (18 B): d f16 @0, qs[16] @2. y = (nibble - 8) * d.
struct CodecQ4_0 {
  static const int type = 2, elems = 32, bytes = 18;
  static GM_DEV void group(const uint8_t* b, int, float* y) {
    const float d = gm_f16(b);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const uint32_t q = b[2 + j];
      y[j] = (float)((int)(q & 15) - 8) * d;
      y[j + 16] = (float)((int)(q >> 4) - 8) * d;
    }
  }
};

// Q5_0 (22 B): d f16 @0, qh u32 @2, qs[16] @6. Bit j of qh is element j's
// fifth bit. y = ((nibble | bit << 4) - 16) * d.
struct CodecQ5_0 {
  static const int type = 6, elems = 32, bytes = 22;
  static GM_DEV void group(const uint8_t* b, int, float* y) {
    const float d = gm_f16(b);
    const uint32_t qh = gm_u32(b + 2);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const uint32_t q = b[6 + j];
      const int lo = (int)((q & 15) | ((qh >> j) & 1) << 4) - 16;
      const int hi = (int)((q >> 4) | ((qh >> (j + 16)) & 1) << 4) - 16;
      y[j] = (float)lo * d;
      y[j + 16] = (float)hi * d;
    }
  }
};

// Q8_0 (34 B): d f16 @0, qs[32] int8 @2. y = qs * d.
struct CodecQ8_0 {
  static const int type = 8, elems = 32, bytes = 34;
  static GM_DEV void group(const uint8_t* b, int, float* y) {
    const float d = gm_f16(b);
#pragma unroll
    for (int e = 0; e < 32; ++e) y[e] = (float)(int8_t)b[2 + e] * d;
  }
};

// IQ4_NL (18 B): d f16 @0, qs[16] @2. y = d * kvalues_iq4nl[nibble].
struct CodecIQ4_NL {
  static const int type = 20, elems = 32, bytes = 18;
  static GM_DEV void group(const uint8_t* b, int, float* y) {
    const float d = gm_f16(b);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const uint32_t q = b[2 + j];
      y[j] = d * (float)gm_kvalues_iq4nl[q & 15];
      y[j + 16] = d * (float)gm_kvalues_iq4nl[q >> 4];
    }
  }
};

// MXFP4 (17 B): e E8M0 @0, qs[16] @1. s = 2^(e-128) built from bits (e = 1
// and e = 0 give the subnormals 2^-127 and 2^-128; e = 255 is finite).
// y = kvalues_mxfp4[nibble] * s.
struct CodecMXFP4 {
  static const int type = 39, elems = 32, bytes = 17;
  static GM_DEV void group(const uint8_t* b, int, float* y) {
    const uint32_t e = b[0];
    const float s = gm_f32_from_bits(e < 2 ? 0x00200000u << e : (e - 1) << 23);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const uint32_t q = b[1 + j];
      y[j] = (float)gm_kvalues_mxfp4[q & 15] * s;
      y[j + 16] = (float)gm_kvalues_mxfp4[q >> 4] * s;
    }
  }
};

// ---------------------------------------------------------------------------
// K-quants (256 elements, 8 groups of 32, sub-blocks of 16).

// Q2_K (84 B): scales[16] @0, qs[64] @16, d f16 @80, dmin f16 @82.
// Group g: half h = g/4, plane p = g%4; q = (qs[32h + r] >> 2p) & 3.
// y = (d * (sc & 15)) * q - (dmin * (sc >> 4)), sc = scales[e/16].
struct CodecQ2_K {
  static const int type = 10, elems = 256, bytes = 84;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b + 80);
    const float dmin = gm_f16(b + 82);
    const uint8_t* qs = b + 16 + 32 * (g >> 2);
    const int shift = 2 * (g & 3);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const uint32_t sc = b[2 * g + half];
      const float dl = d * (float)(sc & 15);
      const float ml = dmin * (float)(sc >> 4);
#pragma unroll
      for (int r = 0; r < 16; ++r) {
        const int q = (qs[16 * half + r] >> shift) & 3;
        y[16 * half + r] = dl * (float)q - ml;
      }
    }
  }
};

// Q3_K (110 B): hmask[32] @0, qs[64] @32, scales[12] @96, d f16 @108.
// Low 2 bits as Q2_K; a clear bit (4h + p) of hmask[r] lowers q by 4.
// Sub-block j's 6-bit scale: low nibble from scales[j] (j < 8) or the high
// nibble of scales[j-8], high 2 bits from scales[8 + j%4] >> 2(j/4); s = v - 32.
// y = (d * s) * q.
struct CodecQ3_K {
  static const int type = 11, elems = 256, bytes = 110;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b + 108);
    const uint8_t* sc = b + 96;
    const uint8_t* qs = b + 32 + 32 * (g >> 2);
    const int shift = 2 * (g & 3);
    const int hbit = g;  // 4h + p with h = g/4, p = g%4
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int j = 2 * g + half;
      const uint32_t low4 = j < 8 ? (sc[j] & 15u) : (uint32_t)(sc[j - 8] >> 4);
      const uint32_t high2 = (sc[8 + (j & 3)] >> (2 * (j >> 2))) & 3u;
      const float dl = d * (float)((int)(low4 | high2 << 4) - 32);
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        const int r = 16 * half + i;
        const int low2 = (qs[r] >> shift) & 3;
        const int q = low2 - (((b[r] >> hbit) & 1) ? 0 : 4);
        y[r] = dl * (float)q;
      }
    }
  }
};

// gm_scale_min_k4 unpacks the 6-bit scale and min of group j of Q4_K / Q5_K
// from their 12 packed bytes.
GM_DEV void gm_scale_min_k4(const uint8_t* s, int j, uint32_t* sc, uint32_t* m) {
  if (j < 4) {
    *sc = s[j] & 63u;
    *m = s[j + 4] & 63u;
  } else {
    *sc = (s[j + 4] & 15u) | (uint32_t)(s[j - 4] >> 6) << 4;
    *m = (uint32_t)(s[j + 4] >> 4) | (uint32_t)(s[j] >> 6) << 4;
  }
}

// Q4_K (144 B): d f16 @0, dmin f16 @2, scales[12] @4, qs[128] @16.
// Group g reads qs[32(g/2) ..]: low nibbles for even g, high for odd.
// y = (d * sc) * q - (dmin * m).
struct CodecQ4_K {
  static const int type = 12, elems = 256, bytes = 144;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const float dmin = gm_f16(b + 2);
    uint32_t sc, m;
    gm_scale_min_k4(b + 4, g, &sc, &m);
    const float d1 = d * (float)sc;
    const float m1 = dmin * (float)m;
    const uint8_t* qs = b + 16 + 32 * (g >> 1);
    const int shift = 4 * (g & 1);
#pragma unroll
    for (int r = 0; r < 32; ++r) y[r] = d1 * (float)((qs[r] >> shift) & 15) - m1;
  }
};

// Q5_K (176 B): d @0, dmin @2, scales[12] @4, qh[32] @16, qs[128] @48.
// As Q4_K, plus a fifth bit: bit g of qh[r]. q = nibble + 16 * bit.
struct CodecQ5_K {
  static const int type = 13, elems = 256, bytes = 176;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const float dmin = gm_f16(b + 2);
    uint32_t sc, m;
    gm_scale_min_k4(b + 4, g, &sc, &m);
    const float d1 = d * (float)sc;
    const float m1 = dmin * (float)m;
    const uint8_t* qh = b + 16;
    const uint8_t* qs = b + 48 + 32 * (g >> 1);
    const int shift = 4 * (g & 1);
#pragma unroll
    for (int r = 0; r < 32; ++r) {
      const int q = ((qs[r] >> shift) & 15) + (((qh[r] >> g) & 1) << 4);
      y[r] = d1 * (float)q - m1;
    }
  }
};

// Q6_K (210 B): ql[128] @0, qh[64] @128, scales[16] int8 @192, d f16 @208.
// Group g: h = g/4, k = g%4. Low 4 bits from ql[64h + r + 32(k&1)] (low
// nibble for k < 2), high 2 bits (qh[32h + r] >> 2k) & 3; q = v - 32.
// y = (d * scales[e/16]) * q, the scale a signed int8.
struct CodecQ6_K {
  static const int type = 14, elems = 256, bytes = 210;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b + 208);
    const int h = g >> 2, k = g & 3;
    const uint8_t* ql = b + 64 * h + 32 * (k & 1);
    const uint8_t* qh = b + 128 + 32 * h;
    const int lshift = k < 2 ? 0 : 4;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float dl = d * (float)(int8_t)b[192 + 2 * g + half];
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        const int r = 16 * half + i;
        const int q = (int)(((ql[r] >> lshift) & 15) | ((qh[r] >> (2 * k)) & 3) << 4) - 32;
        y[r] = dl * (float)q;
      }
    }
  }
};

// Q8_K (292 B): d float32 @0, qs[256] int8 @4, bsums[16] @260 (unused).
// y = d * qs.
struct CodecQ8_K {
  static const int type = 15, elems = 256, bytes = 292;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f32_from_bits(gm_u32(b));
    const uint8_t* qs = b + 4 + 32 * g;
#pragma unroll
    for (int r = 0; r < 32; ++r) y[r] = d * (float)(int8_t)qs[r];
  }
};

// ---------------------------------------------------------------------------
// I-quants (256 elements; a group of 32 is four sub-groups of 8). Grid entry
// element j is byte j of the packed entry. y = (db * grid) * sign.

// gm_grid_byte returns element j of a little-endian packed grid entry.
GM_DEV uint32_t gm_grid_byte(uint64_t entry, int j) { return (uint32_t)(entry >> (8 * j)) & 0xff; }

// IQ2_XXS (66 B): d f16 @0, then per group 8 bytes @2+8g: four 8-bit grid
// indices, then u32 w with sign indices at bits 7l and the scale at w >> 28.
// db = (d * (0.5 + s)) * 0.25.
struct CodecIQ2_XXS {
  static const int type = 16, elems = 256, bytes = 66;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint8_t* q = b + 2 + 8 * g;
    const uint32_t w = gm_u32(q + 4);
    const float db = d * (0.5f + (float)(w >> 28)) * 0.25f;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint64_t grid = gm_iq2xxs_grid[q[l]];
      const uint32_t signs = gm_ksigns_iq2xs[(w >> (7 * l)) & 127];
#pragma unroll
      for (int j = 0; j < 8; ++j) y[8 * l + j] = db * (float)gm_grid_byte(grid, j) * gm_sign(signs, j);
    }
  }
};

// IQ2_XS (74 B): d f16 @0, qs[32] u16 @2, scales[8] @66. Each u16: low 9
// bits a grid index, high 7 a ksigns index. The low nibble of scales[g]
// serves sub-groups 0-1, the high nibble 2-3.
struct CodecIQ2_XS {
  static const int type = 17, elems = 256, bytes = 74;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint32_t s = b[66 + g];
    const float db0 = d * (0.5f + (float)(s & 15)) * 0.25f;
    const float db1 = d * (0.5f + (float)(s >> 4)) * 0.25f;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint32_t qv = gm_u16(b + 2 + 2 * (4 * g + l));
      const uint64_t grid = gm_iq2xs_grid[qv & 511];
      const uint32_t signs = gm_ksigns_iq2xs[qv >> 9];
      const float db = l < 2 ? db0 : db1;
#pragma unroll
      for (int j = 0; j < 8; ++j) y[8 * l + j] = db * (float)gm_grid_byte(grid, j) * gm_sign(signs, j);
    }
  }
};

// IQ2_S (82 B): d f16 @0, qs[64] @2, qh[8] @66, scales[8] @74. qs[0..31]
// are the low index bits, qs[32..63] explicit sign bytes; index =
// qs[4g+l] | ((qh[g] >> 2l) & 3) << 8. Scales as IQ2_XS.
struct CodecIQ2_S {
  static const int type = 22, elems = 256, bytes = 82;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint32_t s = b[74 + g];
    const float db0 = d * (0.5f + (float)(s & 15)) * 0.25f;
    const float db1 = d * (0.5f + (float)(s >> 4)) * 0.25f;
    const uint32_t qh = b[66 + g];
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint32_t idx = b[2 + 4 * g + l] | ((qh >> (2 * l)) & 3) << 8;
      const uint64_t grid = gm_iq2s_grid[idx];
      const uint32_t signs = b[2 + 32 + 4 * g + l];
      const float db = l < 2 ? db0 : db1;
#pragma unroll
      for (int j = 0; j < 8; ++j) y[8 * l + j] = db * (float)gm_grid_byte(grid, j) * gm_sign(signs, j);
    }
  }
};

// IQ3_XXS (98 B): d f16 @0, qs[96] @2: qs[0..63] 8-bit indices into
// iq3xxs_grid (4 bytes each), qs[64..95] one u32 per group with ksigns
// indices at bits 7l and the scale at >> 28. db = (d * (0.5 + s)) * 0.5.
struct CodecIQ3_XXS {
  static const int type = 18, elems = 256, bytes = 98;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint8_t* qs = b + 2;
    const uint32_t w = gm_u32(qs + 64 + 4 * g);
    const float db = d * (0.5f + (float)(w >> 28)) * 0.5f;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint32_t grid1 = gm_iq3xxs_grid[qs[8 * g + 2 * l]];
      const uint32_t grid2 = gm_iq3xxs_grid[qs[8 * g + 2 * l + 1]];
      const uint32_t signs = gm_ksigns_iq2xs[(w >> (7 * l)) & 127];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        y[8 * l + j] = db * (float)gm_grid_byte(grid1, j) * gm_sign(signs, j);
        y[8 * l + j + 4] = db * (float)gm_grid_byte(grid2, j) * gm_sign(signs, j + 4);
      }
    }
  }
};

// IQ3_S (110 B): d f16 @0, qs[64] @2, qh[8] @66, signs[32] @74, scales[4]
// @106. s = (scales[g/2] >> 4(g%2)) & 15, db = d * (1 + 2s). Index =
// qs[8g+2l+i] | bit (2l+i) of qh[g] << 8 into iq3s_grid.
struct CodecIQ3_S {
  static const int type = 21, elems = 256, bytes = 110;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint32_t s = (b[106 + (g >> 1)] >> (4 * (g & 1))) & 15;
    const float db = d * (float)(1 + 2 * (int)s);
    const uint32_t qh = b[66 + g];
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint32_t idx1 = b[2 + 8 * g + 2 * l] | ((qh >> (2 * l)) & 1) << 8;
      const uint32_t idx2 = b[2 + 8 * g + 2 * l + 1] | ((qh >> (2 * l + 1)) & 1) << 8;
      const uint32_t grid1 = gm_iq3s_grid[idx1];
      const uint32_t grid2 = gm_iq3s_grid[idx2];
      const uint32_t signs = b[74 + 4 * g + l];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        y[8 * l + j] = db * (float)gm_grid_byte(grid1, j) * gm_sign(signs, j);
        y[8 * l + j + 4] = db * (float)gm_grid_byte(grid2, j) * gm_sign(signs, j + 4);
      }
    }
  }
};

// IQ1_S (50 B): d f16 @0, qs[32] @2, qh[8] u16 @34. For h = qh[g]: bits 3l
// are the high 3 index bits of sub-group l (11-bit index into iq1s_grid),
// bits 12-14 the scale (dl = d * (2s + 1)), bit 15 the delta sign.
// y = dl * (grid + delta).
struct CodecIQ1_S {
  static const int type = 19, elems = 256, bytes = 50;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint32_t h = gm_u16(b + 34 + 2 * g);
    const float dl = d * (float)(2 * (int)((h >> 12) & 7) + 1);
    const float delta = (h & 0x8000) ? -GM_IQ1S_DELTA : GM_IQ1S_DELTA;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint64_t grid = gm_iq1s_grid[b[2 + 4 * g + l] | ((h >> (3 * l)) & 7) << 8];
#pragma unroll
      for (int j = 0; j < 8; ++j) y[8 * l + j] = dl * ((float)(int8_t)gm_grid_byte(grid, j) + delta);
    }
  }
};

// IQ1_XXXS (38 B, unsloth fork): d f16 @0, qs[32] @2, sc[4] @34. Nibble
// n = (sc[g/2] >> 4(g%2)) & 15: bits 0-2 the scale (dl = d * (2s + 1)),
// bit 3 the delta sign. 8-bit indices into iq1_xxxs_grid.
struct CodecIQ1_XXXS {
  static const int type = 66, elems = 256, bytes = 38;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint32_t n = (b[34 + (g >> 1)] >> (4 * (g & 1))) & 15;
    const float dl = d * (float)(2 * (int)(n & 7) + 1);
    const float delta = (n & 8) ? -GM_IQ1S_DELTA : GM_IQ1S_DELTA;
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const uint64_t grid = gm_iq1_xxxs_grid[b[2 + 4 * g + l]];
#pragma unroll
      for (int j = 0; j < 8; ++j) y[8 * l + j] = dl * ((float)(int8_t)gm_grid_byte(grid, j) + delta);
    }
  }
};

// IQ4_XS (136 B): d f16 @0, scales_h u16 @2, scales_l[4] @4, qs[128] @8.
// ls = ((scales_l[g/2] >> 4(g%2)) & 15) | ((scales_h >> 2g) & 3) << 4,
// dl = d * (ls - 32); qs[16g ..] split like Q4_0; y = dl * kvalues_iq4nl.
struct CodecIQ4_XS {
  static const int type = 23, elems = 256, bytes = 136;
  static GM_DEV void group(const uint8_t* b, int g, float* y) {
    const float d = gm_f16(b);
    const uint32_t sh = gm_u16(b + 2);
    const uint32_t ls = ((b[4 + (g >> 1)] >> (4 * (g & 1))) & 15) | ((sh >> (2 * g)) & 3) << 4;
    const float dl = d * (float)((int)ls - 32);
    const uint8_t* qs = b + 8 + 16 * g;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      y[j] = dl * (float)gm_kvalues_iq4nl[qs[j] & 15];
      y[j + 16] = dl * (float)gm_kvalues_iq4nl[qs[j] >> 4];
    }
  }
};

#endif  // GATHERMUT_HIPKERN_DECODERS_H
