package gather

// Ternary extras: base-3 digits (TQ1_0) and 2-bit codes (TQ2_0), value-1
// times a trailing f16 scale.

// tq1Pow3 are the digit multipliers of TQ1_0's fixed-point base-3 packing.
var tq1Pow3 = [...]uint8{1, 3, 9, 27, 81}

// tq1Digit returns digit n of a TQ1_0 byte: ((q·3^n mod 256)·3) >> 8, 0..2.
func tq1Digit(q uint8, n int) int {
	return int(uint16(q*tq1Pow3[n]) * 3 >> 8)
}

// decodeTQ1_0 (extra): qs[48] @0, qh[4] @48, d f16 @52. Elements 0-159 are
// digit e/32 of qs[e%32], elements 160-239 digit (e-160)/16 of
// qs[32+(e-160)%16], elements 240-255 digit (e-240)/4 of qh[(e-240)%4].
// y = (digit-1)·d.
func decodeTQ1_0(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[54*k:][:54], out[256*k:][:256]
		d := f16le(b, 52)
		// 160 and 240 are multiples of 16 and 4, so e%16 and e%4 are the byte
		// positions inside the second and third regions.
		for e := range 256 {
			var q uint8
			var n int
			switch {
			case e < 160:
				q, n = b[e%32], e/32
			case e < 240:
				q, n = b[32+e%16], (e-160)/16
			default:
				q, n = b[48+e%4], (e-240)/4
			}
			y[e] = float32(tq1Digit(q, n)-1) * d
		}
	}
}

// decodeTQ2_0 (extra): qs[64] @0, d f16 @64. Element 128c+32l+m is
// ((qs[32c+m] >> 2l) & 3) - 1; code 3 gives +2, which the decoder keeps.
func decodeTQ2_0(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[66*k:][:66], out[256*k:][:256]
		d := f16le(b, 64)
		for c := range 2 {
			for l := range 4 {
				for m := range 32 {
					q := int(b[32*c+m]>>(2*l)&3) - 1
					y[128*c+32*l+m] = float32(q) * d
				}
			}
		}
	}
}
