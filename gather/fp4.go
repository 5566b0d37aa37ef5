package gather

import "math"

// decodeMXFP4: e u8 (E8M0 exponent) @0, qs[16] @1, nibbles split as in Q4_0.
// y = kvaluesMXFP4[nibble]·s with the halved scale s = 2^(e-128), which
// undoes the table's doubling of E2M1.
func decodeMXFP4(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[17*k:][:17], out[32*k:][:32]
		s := e8m0HalfTable[b[0]]
		var t [16]float32
		for q := range t {
			t[q] = float32(kvaluesMXFP4[q]) * s
		}
		for j := range 16 {
			q := b[1+j]
			y[j] = t[q&15]
			y[j+16] = t[q>>4]
		}
	}
}

// e8m0Half returns 2^(e-128) built from bits as ggml does: e = 0 and 1 give
// the subnormals 2^-128 and 2^-127, and e = 255 is the finite 2^127, not NaN.
func e8m0Half(e uint8) float32 {
	switch e {
	case 0:
		return math.Float32frombits(0x00200000)
	case 1:
		return math.Float32frombits(0x00400000)
	}
	return math.Float32frombits(uint32(e-1) << 23)
}

// e8m0HalfTable is e8m0Half of every exponent byte.
var e8m0HalfTable = func() (t [256]float32) {
	for e := range t {
		t[e] = e8m0Half(uint8(e))
	}
	return t
}()

// decodeNVFP4: d[4] u8 (UE4M3) @0, qs[32] @4. Sub-block s (elements
// 16s..16s+15) has scale d[s] and the bytes qs[8s..8s+7]: low nibbles give
// its elements 0-7, high nibbles 8-15. y = kvaluesMXFP4[nibble]·ue4m3Half(d[s]),
// read from the sub-block's table of the 16 products.
func decodeNVFP4(packed []byte, out []float32) {
	for k := range len(out) / 64 {
		b, y := packed[36*k:][:36], out[64*k:][:64]
		for s := range 4 {
			d := ue4m3HalfTable[b[s]]
			var t [16]float32
			for q := range t {
				t[q] = float32(kvaluesMXFP4[q]) * d
			}
			ys := (*[16]float32)(y[16*s:])
			for j, q := range (*[8]byte)(b[4+8*s:]) {
				ys[j] = t[q&15]
				ys[j+8] = t[q>>4]
			}
		}
	}
}

// ue4m3Half returns half the value of a UE4M3 scale byte x, as ggml's
// ggml_ue4m3_to_fp32 does (it halves because kvaluesMXFP4 holds E2M1
// doubled): bit 7 is ignored, 4 exponent bits (bias 7) and 3 mantissa
// bits; x = 0x7f (and so every byte whose low 7 bits are 0 or 0x7f but
// 0xff) is zero; exponent 0 is subnormal, m·2^-9. Every value is exact in
// float32, so it is built from bits: (1 + m/8)·2^(e-8) has the float32
// exponent field e + 119, and m·2^-10 is the float32 m times 2^-10.
func ue4m3Half(x uint8) float32 {
	if x == 0x7f {
		return 0
	}
	e, m := x>>3&15, x&7
	if e == 0 {
		return float32(m) * 0x1p-10
	}
	return math.Float32frombits((uint32(e)+119)<<23 | uint32(m)<<20)
}

// ue4m3HalfTable is ue4m3Half of every scale byte.
var ue4m3HalfTable = func() (t [256]float32) {
	for x := range t {
		t[x] = ue4m3Half(uint8(x))
	}
	return t
}()
