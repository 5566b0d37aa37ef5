package gather

import "math"

// The upstream 1- and 2-bit formats: an f16 scale d @0, then the codes of
// consecutive elements packed LSB first, 8 (Q1_0) or 4 (Q2_0) to a byte.

// decodeQ1_0: d f16 @0, qs[16] @2. Bit e%8 of qs[e/8] set gives d, clear
// gives -d (a sign flip, as ggml's neg_d). No arithmetic touches d, so a
// signalling NaN scale is made quiet here, as upstream's widening of the
// f16 (a product with 2^-112) and the AVX2 decoder's VCVTPH2PS make it.
func decodeQ1_0(packed []byte, out []float32) {
	for k := range len(out) / 128 {
		b, y := packed[18*k:][:18], out[128*k:][:128]
		d := f16le(b, 0)
		if d != d {
			d = math.Float32frombits(math.Float32bits(d) | 1<<22)
		}
		t := [2]float32{-d, d}
		for j, q := range (*[16]byte)(b[2:]) {
			o := (*[8]float32)(y[8*j:])
			for i := range o {
				o[i] = t[q>>i&1]
			}
		}
	}
}

// decodeQ2_0: d f16 @0, qs[16] @2. Element e is the 2-bit code
// (qs[e/4] >> 2(e%4)) & 3, and y = (code-1)·d, so {-1, 0, +1, +2}·d, read
// from the block's table of the four products.
func decodeQ2_0(packed []byte, out []float32) {
	for k := range len(out) / 64 {
		b, y := packed[18*k:][:18], out[64*k:][:64]
		d := f16le(b, 0)
		var t [4]float32
		for q := range t {
			t[q] = float32(q-1) * d
		}
		for j, q := range (*[16]byte)(b[2:]) {
			o := (*[4]float32)(y[4*j:])
			o[0] = t[q&3]
			o[1] = t[q>>2&3]
			o[2] = t[q>>4&3]
			o[3] = t[q>>6]
		}
	}
}
