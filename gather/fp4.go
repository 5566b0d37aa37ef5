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
