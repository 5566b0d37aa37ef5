package gather

import (
	"math"
	"testing"
)

// refF16 widens binary16 by value with math.Ldexp; NaNs are built from the
// payload directly.
func refF16(h uint16) uint32 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 31
	man := float64(h & 0x3ff)
	switch exp {
	case 0:
		return math.Float32bits(float32(sign * math.Ldexp(man, -24)))
	case 31:
		if man == 0 {
			return math.Float32bits(float32(math.Inf(int(sign))))
		}
		return uint32(h&0x8000)<<16 | 0x7f800000 | uint32(h&0x3ff)<<13
	}
	return math.Float32bits(float32(sign * math.Ldexp(1024+man, exp-25)))
}

// TestF16ToF32 checks all 65536 patterns bit for bit: subnormals, signed
// zeros, infinities, and NaNs with their payload (a signalling NaN stays
// signalling).
func TestF16ToF32(t *testing.T) {
	bad := 0
	for h := range uint32(1 << 16) {
		got, want := math.Float32bits(F16ToF32(uint16(h))), refF16(uint16(h))
		if got != want {
			if bad++; bad <= 10 {
				t.Errorf("F16ToF32(%#04x) = %#08x, want %#08x", h, got, want)
			}
		}
	}
	for _, tc := range []struct {
		h    uint16
		want uint32
	}{
		{0x0000, 0x00000000}, {0x8000, 0x80000000}, // ±0
		{0x0001, 0x33800000}, {0x03ff, 0x387fc000}, // subnormals 2^-24, max subnormal
		{0x0400, 0x38800000}, {0x3c00, 0x3f800000}, // min normal 2^-14, 1
		{0x7bff, 0x477fe000}, {0xc000, 0xc0000000}, // 65504, -2
		{0x7c00, 0x7f800000}, {0xfc00, 0xff800000}, // ±Inf
		{0x7c01, 0x7f802000}, {0x7e00, 0x7fc00000}, {0xfe01, 0xffc02000}, // NaNs
	} {
		if got := math.Float32bits(F16ToF32(tc.h)); got != tc.want {
			t.Errorf("F16ToF32(%#04x) = %#08x, want %#08x", tc.h, got, tc.want)
		}
	}
}

// TestByteAssembly checks the little-endian readers at every offset of an
// odd-sized buffer.
func TestByteAssembly(t *testing.T) {
	b := []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x00, 0x3c, 0x00, 0xc0}
	for _, tc := range []struct {
		off int
		u16 uint16
		u32 uint32
	}{
		{0, 0x2211, 0x44332211},
		{1, 0x3322, 0x55443322},
		{2, 0x4433, 0x00554433},
		{3, 0x5544, 0x3c005544},
		{4, 0x0055, 0x003c0055},
		{5, 0x3c00, 0xc0003c00},
	} {
		if got := u16le(b, tc.off); got != tc.u16 {
			t.Errorf("u16le(b, %d) = %#04x, want %#04x", tc.off, got, tc.u16)
		}
		if got := u32le(b, tc.off); got != tc.u32 {
			t.Errorf("u32le(b, %d) = %#08x, want %#08x", tc.off, got, tc.u32)
		}
	}
	if got := f16le(b, 5); got != 1 {
		t.Errorf("f16le(b, 5) = %v, want 1 (0x3c00)", got)
	}
	if got := f16le(b, 7); got != -2 {
		t.Errorf("f16le(b, 7) = %v, want -2 (0xc000)", got)
	}
}
