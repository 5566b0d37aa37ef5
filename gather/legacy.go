package gather

// Legacy 32-element block formats.

// decodeQ8_0: d f16 @0, qs[32] int8 @2; y = qs[e]·d.
func decodeQ8_0(b []byte, y []float32) {
	d := f16le(b, 0)
	for e := range 32 {
		y[e] = float32(int8(b[2+e])) * d
	}
}
