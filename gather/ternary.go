package gather

// Ternary extras: base-3 digits (TQ1_0) and 2-bit codes (TQ2_0), value-1
// times a trailing f16 scale, read from the block's table of the products.

// tq1Digit returns the digit of a TQ1_0 byte q whose multiplier is pow3
// (3^n for digit n): ((q·3^n mod 256)·3) >> 8, which is 0, 1 or 2, masked
// to index a 4-entry table.
func tq1Digit(q, pow3 uint8) uint16 {
	return uint16(q*pow3) * 3 >> 8 & 3
}

// decodeTQ1_0 (extra): qs[48] @0, qh[4] @48, d f16 @52. Elements 0-159 are
// digit e/32 of qs[e%32], elements 160-239 digit (e-160)/16 of
// qs[32+(e-160)%16], elements 240-255 digit (e-240)/4 of qh[(e-240)%4].
// y = (digit-1)·d.
func decodeTQ1_0(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[54*k:][:54], out[256*k:][:256]
		d := f16le(b, 52)
		var t [4]float32 // t[3] is never read: a digit is at most 2
		for q := range t {
			t[q] = float32(q-1) * d
		}
		// Digit n of byte q is element 32n+q's index (first 32 bytes),
		// 160+16n+m's (next 16) or 240+4n+m's (last 4): five digits per
		// byte, written out so that each multiplier is a constant.
		for m, q := range (*[32]byte)(b) {
			y[m] = t[tq1Digit(q, 1)]
			y[32+m] = t[tq1Digit(q, 3)]
			y[64+m] = t[tq1Digit(q, 9)]
			y[96+m] = t[tq1Digit(q, 27)]
			y[128+m] = t[tq1Digit(q, 81)]
		}
		for m, q := range (*[16]byte)(b[32:]) {
			y[160+m] = t[tq1Digit(q, 1)]
			y[176+m] = t[tq1Digit(q, 3)]
			y[192+m] = t[tq1Digit(q, 9)]
			y[208+m] = t[tq1Digit(q, 27)]
			y[224+m] = t[tq1Digit(q, 81)]
		}
		for m, q := range (*[4]byte)(b[48:]) {
			y[240+m] = t[tq1Digit(q, 1)]
			y[244+m] = t[tq1Digit(q, 3)]
			y[248+m] = t[tq1Digit(q, 9)]
			y[252+m] = t[tq1Digit(q, 27)]
		}
	}
}

// decodeTQ2_0 (extra): qs[64] @0, d f16 @64. Element 128c+32l+m is
// ((qs[32c+m] >> 2l) & 3) - 1; code 3 gives +2, which the decoder keeps.
func decodeTQ2_0(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[66*k:][:66], out[256*k:][:256]
		d := f16le(b, 64)
		var t [4]float32
		for q := range t {
			t[q] = float32(q-1) * d
		}
		for c := range 2 {
			o := (*[128]float32)(y[128*c:])
			for m, q := range (*[32]byte)(b[32*c:]) {
				o[m] = t[q&3]
				o[32+m] = t[q>>2&3]
				o[64+m] = t[q>>4&3]
				o[96+m] = t[q>>6]
			}
		}
	}
}
