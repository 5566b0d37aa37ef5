package gather

import "math"

// K-quants: 256-element super-blocks of 16-element sub-blocks (Q2_K, Q3_K,
// Q6_K) or 32-element groups (Q4_K, Q5_K). A packed byte never holds
// neighbouring elements: its 2- or 4-bit fields sit 32 or 64 elements apart.

// decodeQ2_K: scales[16] @0 (sub-block k: low nibble scale, high nibble min),
// qs[64] @16, d f16 @80, dmin f16 @82. Element e = 128h + 32p + r reads bits
// 2p..2p+1 of qs[32h+r]. y = (d·sc)·q - (dmin·m).
func decodeQ2_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[84*k:][:84], out[256*k:][:256]
		d := f16le(b, 80)
		dmin := f16le(b, 82)
		for k := range 16 {
			sc := b[k]
			dl := float32(d * float32(sc&15))
			ml := float32(dmin * float32(sc>>4))
			h, p, r0 := k/8, k/2%4, 16*(k%2)
			qs := b[16+32*h+r0:]
			o := y[16*k:]
			for l := range 16 {
				q := qs[l] >> (2 * p) & 3
				o[l] = float32(dl*float32(q)) - ml
			}
		}
	}
}

// decodeQ3_K: hmask[32] @0, qs[64] @32, scales[12] @96 (16 six-bit scales,
// offset by 32), d f16 @108. Element e = 128h + 32p + r: low 2 bits as in
// Q2_K; bit 4h+p of hmask[r] clear means 4 is subtracted. y = (d·s)·q.
func decodeQ3_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[110*k:][:110], out[256*k:][:256]
		d := f16le(b, 108)
		scales := b[96:]
		for j := range 16 {
			lo := scales[j%8] >> (4 * (j / 8)) & 15
			hi := scales[8+j%4] >> (2 * (j / 4)) & 3
			dl := float32(d * float32(int(lo|hi<<4)-32))
			h, p, r0 := j/8, j/2%4, 16*(j%2)
			o := y[16*j:]
			for l := range 16 {
				r := r0 + l
				low := int(b[32+32*h+r] >> (2 * p) & 3)
				hbit := int(b[r] >> (4*h + p) & 1)
				q := low - 4 + 4*hbit // a clear high bit subtracts 4
				o[l] = dl * float32(q)
			}
		}
	}
}

// scaleMinK4 unpacks the 6-bit scale and min of group j (0..7) from the 12
// scale bytes of Q4_K and Q5_K: groups 0-3 hold them in the low 6 bits of
// bytes j and j+4; groups 4-7 take a nibble of byte j+4 and the top 2 bits of
// bytes j-4 (scale) and j (min).
func scaleMinK4(j int, s []byte) (sc, m uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return s[j+4]&15 | (s[j-4]>>6)<<4, s[j+4]>>4 | (s[j]>>6)<<4
}

// decodeQ4_K: d f16 @0, dmin f16 @2, scales[12] @4 (scaleMinK4), qs[128] @16.
// Chunk c of 64 elements reads qs[32c..32c+31]: low nibbles are group 2c,
// high nibbles group 2c+1. y = (d·sc)·q - (dmin·m).
func decodeQ4_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[144*k:][:144], out[256*k:][:256]
		d := f16le(b, 0)
		dmin := f16le(b, 2)
		scales := b[4:]
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1 := float32(d * float32(sc1))
			d2 := float32(d * float32(sc2))
			min1 := float32(dmin * float32(m1))
			min2 := float32(dmin * float32(m2))
			qs := b[16+32*c:]
			o := y[64*c:]
			for l := range 32 {
				o[l] = float32(d1*float32(qs[l]&15)) - min1
				o[l+32] = float32(d2*float32(qs[l]>>4)) - min2
			}
		}
	}
}

// decodeQ5_K: d f16 @0, dmin f16 @2, scales[12] @4, qh[32] @16, qs[128] @48.
// As Q4_K, plus a 5th bit: bit 2c of qh[r] for the low-nibble group of chunk
// c, bit 2c+1 for the high one. y = (d·sc)·(nibble + 16·bit) - (dmin·m).
func decodeQ5_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[176*k:][:176], out[256*k:][:256]
		d := f16le(b, 0)
		dmin := f16le(b, 2)
		scales := b[4:]
		qh := b[16:]
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1 := float32(d * float32(sc1))
			d2 := float32(d * float32(sc2))
			min1 := float32(dmin * float32(m1))
			min2 := float32(dmin * float32(m2))
			qs := b[48+32*c:]
			o := y[64*c:]
			for l := range 32 {
				q1 := qs[l]&15 | (qh[l]>>(2*c)&1)<<4
				q2 := qs[l]>>4 | (qh[l]>>(2*c+1)&1)<<4
				o[l] = float32(d1*float32(q1)) - min1
				o[l+32] = float32(d2*float32(q2)) - min2
			}
		}
	}
}

// decodeQ6_K: ql[128] @0, qh[64] @128, scales[16] int8 @192, d f16 @208.
// Element e = 128h + 32k + l: low 4 bits from ql[64h + l + 32(k&1)] (low
// nibble for k < 2), high 2 bits (qh[32h+l] >> 2k) & 3, q = that - 32.
// y = (d·scales[e/16])·q with a signed scale.
func decodeQ6_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[210*k:][:210], out[256*k:][:256]
		d := f16le(b, 208)
		for h := range 2 {
			ql := b[64*h:]
			qh := b[128+32*h:]
			sc := b[192+8*h:]
			o := y[128*h:]
			for k := range 4 {
				for half := range 2 {
					dl := d * float32(int8(sc[2*k+half]))
					for i := range 16 {
						l := 16*half + i
						low := ql[l+32*(k&1)] >> (4 * (k / 2)) & 15
						high := qh[l] >> (2 * k) & 3
						q := int(low|high<<4) - 32
						o[32*k+l] = dl * float32(q)
					}
				}
			}
		}
	}
}

// decodeQ8_K: d float32 @0, qs[256] int8 @4, bsums[16] int16 @260 (ignored;
// they only serve dot products). y = d·qs[e].
func decodeQ8_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[292*k:][:292], out[256*k:][:256]
		d := math.Float32frombits(u32le(b, 0))
		for e := range 256 {
			y[e] = d * float32(int8(b[4+e]))
		}
	}
}
