package gather

import (
	"math"
	"testing"

	"gathermut/gguf"
)

// TestE8M0Half checks the halved E8M0 scale 2^(e-128) for every exponent
// byte, e = 0 and 1 (subnormal) and e = 255 (finite) included.
func TestE8M0Half(t *testing.T) {
	for e := range 256 {
		want := float32(math.Ldexp(1, e-128))
		if got := e8m0Half(uint8(e)); math.Float32bits(got) != math.Float32bits(want) {
			t.Errorf("e8m0Half(%d) = %#08x, want %#08x", e, math.Float32bits(got), math.Float32bits(want))
		}
	}
}

// TestMXFP4ScaleEdges decodes hand-built blocks. Byte j of qs holds code j
// in its low nibble (element j) and code 15-j in its high nibble (element
// j+16). The expected bits are derived by hand from docs/codecs.md:
// value = kvalues_mxfp4[code] · 2^(e-128), the table being
// {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}.
func TestMXFP4ScaleEdges(t *testing.T) {
	for _, tc := range []struct {
		e    uint8
		code [16]uint32 // f32 bits for codes 0..15
	}{
		// e = 0: s = 2^-128 = 0x00200000, a subnormal; 1·s .. 3·s stay
		// subnormal, 4·s = 2^-126 is the smallest normal.
		{0, [16]uint32{
			0x00000000, 0x00200000, 0x00400000, 0x00600000,
			0x00800000, 0x00c00000, 0x01000000, 0x01400000,
			0x00000000, 0x80200000, 0x80400000, 0x80600000,
			0x80800000, 0x80c00000, 0x81000000, 0x81400000,
		}},
		// e = 1: s = 2^-127 = 0x00400000.
		{1, [16]uint32{
			0x00000000, 0x00400000, 0x00800000, 0x00c00000,
			0x01000000, 0x01400000, 0x01800000, 0x01c00000,
			0x00000000, 0x80400000, 0x80800000, 0x80c00000,
			0x81000000, 0x81400000, 0x81800000, 0x81c00000,
		}},
		// e = 2: s = 2^-126 = 0x00800000, exponent field e-1 = 1.
		{2, [16]uint32{
			0x00000000, 0x00800000, 0x01000000, 0x01400000,
			0x01800000, 0x01c00000, 0x02000000, 0x02400000,
			0x00000000, 0x80800000, 0x81000000, 0x81400000,
			0x81800000, 0x81c00000, 0x82000000, 0x82400000,
		}},
		// e = 128: s = 1, so the values are the doubled E2M1 table.
		{128, [16]uint32{
			0x00000000, 0x3f800000, 0x40000000, 0x40400000,
			0x40800000, 0x40c00000, 0x41000000, 0x41400000,
			0x00000000, 0xbf800000, 0xc0000000, 0xc0400000,
			0xc0800000, 0xc0c00000, 0xc1000000, 0xc1400000,
		}},
		// e = 255: s = 2^127 (not NaN); |value| >= 2 overflows to ±Inf.
		{255, [16]uint32{
			0x00000000, 0x7f000000, 0x7f800000, 0x7f800000,
			0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000,
			0x00000000, 0xff000000, 0xff800000, 0xff800000,
			0xff800000, 0xff800000, 0xff800000, 0xff800000,
		}},
	} {
		block := make([]byte, 17)
		block[0] = tc.e
		for j := range 16 {
			block[1+j] = byte(j) | byte(15-j)<<4
		}
		out := make([]float32, 32)
		if err := Dequantize(gguf.TypeMXFP4, block, out); err != nil {
			t.Fatal(err)
		}
		for j := range 16 {
			if got := math.Float32bits(out[j]); got != tc.code[j] {
				t.Errorf("e=%d element %d (code %d) = %#08x, want %#08x", tc.e, j, j, got, tc.code[j])
			}
			if got := math.Float32bits(out[j+16]); got != tc.code[15-j] {
				t.Errorf("e=%d element %d (code %d) = %#08x, want %#08x", tc.e, j+16, 15-j, got, tc.code[15-j])
			}
		}
	}
}
