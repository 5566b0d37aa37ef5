package gather

// Ternary extras: base-3 digits (TQ1_0) and 2-bit codes (TQ2_0), value-1
// times a trailing f16 scale.

// tq1Pow3 are the digit multipliers of TQ1_0's fixed-point base-3 packing.
var tq1Pow3 = [5]uint8{1, 3, 9, 27, 81}

// tq1Digit returns digit n of a TQ1_0 byte: ((q·3^n mod 256)·3) >> 8, 0..2.
func tq1Digit(q uint8, n int) int {
	return int(uint16(q*tq1Pow3[n]) * 3 >> 8)
}

// decodeTQ1_0 (extra): qs[48] @0, qh[4] @48, d f16 @52. Digit n of qs[m]
// is element 32n+m for m < 32 and 160+16n+(m-32) for the last 16 bytes;
// digit n (< 4) of qh[j] is element 240+4n+j. y = (digit-1)·d.
func decodeTQ1_0(b []byte, y []float32) {
	b, y = b[:54], y[:256]
	d := f16le(b, 52)
	for n := range 5 {
		for m := range 32 {
			y[32*n+m] = float32(tq1Digit(b[m], n)-1) * d
		}
		for m := range 16 {
			y[160+16*n+m] = float32(tq1Digit(b[32+m], n)-1) * d
		}
	}
	for n := range 4 {
		for j := range 4 {
			y[240+4*n+j] = float32(tq1Digit(b[48+j], n)-1) * d
		}
	}
}

// decodeTQ2_0 (extra): qs[64] @0, d f16 @64. Element 128c+32l+m is
// ((qs[32c+m] >> 2l) & 3) - 1; code 3 gives +2, which the decoder keeps.
func decodeTQ2_0(b []byte, y []float32) {
	b, y = b[:66], y[:256]
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
