// The schema test's fixture (render_test.go): device functions shaped like
// the kernel's decoders, and a host main() that calls them on fixed inputs
// and prints the results. Every mutant of it must give the same output
// when built alone and when switched on in the schema build.
//
// The fixture is written so that no mutant has undefined behaviour: every
// buffer the device code reads or writes is a pointer into the middle of a
// larger array (an index moved by one, or a loop run past its bound, stays
// inside it), every loop is bounded by GUARD (a macro: macros are not
// mutated), arithmetic on values that shift or overflow is unsigned, and
// no integer division appears where a mutant could make its divisor 0.
// Spaces only, no tabs: a compiler's column is then the byte's.
//
// The regions between the markers cold{ and }cold never run; every other
// site does (the test's expectation for the hits); those between
// unless-true{ and }unless-true do not run when lazy's condition is forced
// true.
//
// The test builds each mutant from its own mutated copy of the device and
// host code, many copies to a compiler run, each in a namespace of its
// own: the lines between "---- device code ----" and "---- end ----" are
// what a copy holds; what comes before them (headers, macros) is shared.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(GATHERMUT_SCHEMA)
// The switch and the hits, as hipkern/compat.h defines them on the host
// emulation (the hits go to stderr at exit instead of a mapped file).
static int gathermut_active = getenv("GATHERMUT_MUTANT") ? atoi(getenv("GATHERMUT_MUTANT")) : 0;
static unsigned char gathermut_hits[GATHERMUT_SITES];
#define GATHERMUT_ON(n) (gathermut_active == (n))
#define GATHERMUT_HIT(s) (gathermut_hits[(s)] = 1)
#endif

#define __device__
#define GM_DEV __device__ inline
// GUARD(i) bounds every loop twice: its index below 16 and, whatever a
// mutant does to the index, its iterations (the host's tick count, reset
// before each call). A loop guarded in its condition and again by an
// if-break stays bounded under any one mutant (&& -> || in a condition
// would skip the condition's guard).
static int gm_ticks;
static bool gm_tick() { return ++gm_ticks < 256; }
#define GUARD(i) ((unsigned)(i) < 16u && gm_tick())

// ---- device code ----

// A little-endian 16-bit field.
GM_DEV uint32_t rd16(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

// Nibbles like Q4_0's: the low nibbles, then the high ones, minus 8, scaled.
GM_DEV void nibbles(const uint8_t* q, float d, float* y) {
  for (int i = 0; GUARD(i) && i < 4; ++i) {
    if (!GUARD(i)) /*cold{*/ break; /*}cold*/
    const int lo = q[i] & 0x0f;
    const int hi = q[i] >> 4;
    y[i] = -((float)(lo - 8) * d) / 3.0f; // neg-form and recip-div: a signed zero, one ulp
    y[i + 4] = (float)(hi - 8) * d + 0.5f;
  }
}

// A 6-bit scale and min from 12 bytes, like Q4_K's.
GM_DEV void scale_min(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// An IEEE half's bits as a float's, subnormals included.
GM_DEV uint32_t h2f_bits(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return sign | 0x7f800000u | man << 13;
  if (exp != 0) return sign | (exp + 112) << 23 | man << 13;
  if (man == 0) return sign;
  int e = -1;
  do {
    man <<= 1;
    e++;
    if (!GUARD(e)) /*cold{*/ break; /*}cold*/
  } while ((man & 0x400u) == 0 && GUARD(e));
  return sign | (uint32_t)(112 - e) << 23 | (man & 0x3ffu) << 13;
}

// A loop with continue, break and a switch.
GM_DEV int classify(const int* v, int n) {
  int score = 0;
  for (int i = 0; GUARD(i) && i < n; i++) {
    if (!GUARD(i)) /*cold{*/ break; /*}cold*/
    if (v[i] < 0) continue;
    if (v[i] > 100) break;
    switch (v[i] % 3) {
      case 0:
        score += v[i];
        break;
      case 1:
        score -= 1;
        break;
      default:
        score ^= 5;
    }
  }
  return score;
}

// A reader that moves through its bytes: p = n (the assign operator's
// drop to =) does not compile for the pointer member, which the parser
// cannot see as a pointer. The schema build fails there, and the test
// traces the error back to this site's mutants.
struct reader {
  const uint8_t* p;
  GM_DEV uint32_t next(int n) {
    const uint32_t v = p[0] + (uint32_t)p[1];
    p += n;
    return v;
  }
};

// Template arguments are constant: their mutants build alone.
template <int S>
GM_DEV uint32_t shl(uint32_t x) { return x << S; }
GM_DEV uint32_t use_tpl(uint32_t x) { return shl<3>(x) ^ shl<1 + 1>(x); }

/*cold{*/
GM_DEV int cold_fn(int a) { return a * 3 + 1; }
/*}cold*/

// A condition whose right operand never runs, and a body that never runs.
GM_DEV int lazy(int a, int b) {
  if (a > 1000 && /*cold{*/ b + 1 > 2 /*}cold*/) /*cold{*/ { return cold_fn(b) - 1; } /*}cold*/
  /*unless-true{*/ return a - b; /*}unless-true*/
}

// ---- host code ----
static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void run_all() {
  uint8_t qbuf[64];
  for (int i = 0; i < 64; i++) qbuf[i] = (uint8_t)(i * 37 + 11);
  const uint8_t* q = qbuf + 24;

  printf("rd16 %08x %08x\n", rd16(q), rd16(q + 3));
  gm_ticks = 0;

  float ybuf[64];
  for (int i = 0; i < 64; i++) ybuf[i] = (float)i;
  nibbles(q, 0.25f, ybuf + 24);
  printf("nibbles");
  for (int i = 20; i < 48; i++) printf(" %08x", bits(ybuf[i]));
  printf("\n");

  printf("scale_min");
  for (int j = 0; j < 8; j++) {
    uint8_t d = 0, m = 0;
    scale_min(j, q, &d, &m);
    printf(" %u/%u", d, m);
  }
  printf("\n");

  const uint32_t halves[] = {0x3c00, 0xc000, 0x0001, 0x03ff, 0x0200, 0x7c00, 0x7e01, 0x0000, 0x8000, 0x3555};
  printf("h2f");
  for (uint32_t h : halves) {
    gm_ticks = 0;
    printf(" %08x", h2f_bits(h));
  }
  printf("\n");

  int vbuf[64];
  for (int i = 0; i < 64; i++) vbuf[i] = (i * 53) % 120 - 10;
  int c[3];
  gm_ticks = 0;
  c[0] = classify(vbuf + 24, 5);
  gm_ticks = 0;
  c[1] = classify(vbuf + 30, 8);
  gm_ticks = 0;
  c[2] = classify(vbuf + 26, 3);
  printf("classify %d %d %d\n", c[0], c[1], c[2]);

  reader r = {q};
  uint32_t a = r.next(2);
  uint32_t b = r.next(3);
  printf("reader %u %u %ld\n", a, b, (long)(r.p - q));

  printf("tpl %u\n", use_tpl(0x1234u));
  printf("lazy %d %d\n", lazy(5, 3), lazy(-7, 2));
}
// ---- end ----

int main(int argc, char** argv) {
#if defined(GATHERMUT_SCHEMA)
  // With arguments: switch on each mutant named in turn and run (one
  // process for many mutants; the switch is read at every site).
  for (int k = 1; k < argc; k++) {
    gathermut_active = atoi(argv[k]);
    printf("== mutant %d\n", gathermut_active);
    run_all();
  }
  if (argc > 1) return 0;
#endif
  run_all();
#if defined(GATHERMUT_SCHEMA)
  fprintf(stderr, "hits ");
  for (int s = 0; s < GATHERMUT_SITES; s++) fprintf(stderr, "%d", gathermut_hits[s]);
  fprintf(stderr, "\n");
#endif
  return 0;
}
