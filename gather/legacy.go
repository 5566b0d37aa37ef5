package gather

// Legacy 32-element block formats. Their nibble arrays are split halves:
// byte j holds element j in its low nibble and element j+16 in its high one.

// decodeQ4_0: d f16 @0, qs[16] @2. y = (nibble-8)·d, read from the
// block's table of the 16 products.
func decodeQ4_0(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[18*k:][:18], out[32*k:][:32]
		d := f16le(b, 0)
		var t [16]float32
		for q := range t {
			t[q] = float32(q-8) * d
		}
		for j := range 16 {
			q := b[2+j]
			y[j] = t[q&15]
			y[j+16] = t[q>>4]
		}
	}
}

// decodeQ4_1 (extra): d f16 @0, m f16 @2, qs[16] @4. y = nibble·d + m, the
// product rounded before the add.
func decodeQ4_1(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[20*k:][:20], out[32*k:][:32]
		d := f16le(b, 0)
		m := f16le(b, 2)
		var t [16]float32
		for q := range t {
			t[q] = float32(float32(q)*d) + m
		}
		for j := range 16 {
			q := b[4+j]
			y[j] = t[q&15]
			y[j+16] = t[q>>4]
		}
	}
}

// decodeQ5_0: d f16 @0, qh u32 @2 (bit e is the 5th bit of element e), qs[16]
// @6. y = ((nibble | bit<<4) - 16)·d.
func decodeQ5_0(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[22*k:][:22], out[32*k:][:32]
		d := f16le(b, 0)
		qh := u32le(b, 2)
		for j := range 16 {
			q := b[6+j]
			lo := uint32(q&15) | (qh>>j&1)<<4
			hi := uint32(q>>4) | (qh>>(j+16)&1)<<4
			y[j] = float32(int(lo)-16) * d
			y[j+16] = float32(int(hi)-16) * d
		}
	}
}

// decodeQ5_1 (extra): d f16 @0, m f16 @2, qh u32 @4, qs[16] @8.
// y = (nibble | bit<<4)·d + m.
func decodeQ5_1(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[24*k:][:24], out[32*k:][:32]
		d := f16le(b, 0)
		m := f16le(b, 2)
		qh := u32le(b, 4)
		for j := range 16 {
			q := b[8+j]
			lo := uint32(q&15) | (qh>>j&1)<<4
			hi := uint32(q>>4) | (qh>>(j+16)&1)<<4
			y[j] = float32(float32(lo)*d) + m
			y[j+16] = float32(float32(hi)*d) + m
		}
	}
}

// decodeQ8_0: d f16 @0, qs[32] int8 @2. y = qs[e]·d, -128 included.
func decodeQ8_0(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[34*k:][:34], out[32*k:][:32]
		d := f16le(b, 0)
		for e, q := range (*[32]byte)(b[2:]) {
			y[e] = float32(int8(q)) * d
		}
	}
}
