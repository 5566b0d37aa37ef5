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
		// t[j] holds sub-block j's products, one per 2-bit q.
		var t [16][4]float32
		for j, sc := range (*[16]byte)(b) {
			dl := float32(d * float32(sc&15))
			ml := float32(dmin * float32(sc>>4))
			for q := range t[j] {
				t[j][q] = float32(dl*float32(q)) - ml
			}
		}
		// Byte qs[32h+l] holds the 2-bit q of elements 128h+32p+l, p = 0..3,
		// of sub-blocks 8h+2p+l/16.
		for h := range 2 {
			qs := (*[32]byte)(b[16+32*h:])
			o := (*[128]float32)(y[128*h:])
			for l, q := range qs {
				j := 8*h + l/16
				o[l] = t[j][q&3]
				o[32+l] = t[j+2][q>>2&3]
				o[64+l] = t[j+4][q>>4&3]
				o[96+l] = t[j+6][q>>6]
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
		// t[j][low | hbit<<2] is sub-block j's dl·(low - 4 + 4·hbit): a
		// clear high bit subtracts 4.
		var t [16][8]float32
		for j := range t {
			lo := scales[j%8] >> (4 * (j / 8)) & 15
			hi := scales[8+j%4] >> (2 * (j / 4)) & 3
			dl := float32(d * float32(int(lo|hi<<4)-32))
			for q := range t[j] {
				t[j][q] = dl * float32(q-4)
			}
		}
		// Byte qs[32h+r] holds the low 2 bits of elements 128h+32p+r, p =
		// 0..3, and bit 4h+p of hmask[r] their high bit; sub-block
		// 8h+2p+r/16.
		hm := (*[32]byte)(b)
		for h := range 2 {
			qs := (*[32]byte)(b[32+32*h:])
			o := (*[128]float32)(y[128*h:])
			for r, q := range qs {
				j := 8*h + r/16
				hb := hm[r] >> (4 * h)
				o[r] = t[j][q&3|hb&1<<2]
				o[32+r] = t[j+2][q>>2&3|hb&2<<1]
				o[64+r] = t[j+4][q>>4&3|hb&4]
				o[96+r] = t[j+6][q>>6|hb>>1&4]
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
			var t1, t2 [16]float32 // the two groups' products, one per nibble
			for q := range t1 {
				t1[q] = float32(d1*float32(q)) - min1
				t2[q] = float32(d2*float32(q)) - min2
			}
			qs := (*[32]byte)(b[16+32*c:])
			o := (*[64]float32)(y[64*c:])
			for l, q := range qs {
				o[l] = t1[q&15]
				o[l+32] = t2[q>>4]
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
		qh := (*[32]byte)(b[16:])
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1 := float32(d * float32(sc1))
			d2 := float32(d * float32(sc2))
			min1 := float32(dmin * float32(m1))
			min2 := float32(dmin * float32(m2))
			qs := (*[32]byte)(b[48+32*c:])
			o := (*[64]float32)(y[64*c:])
			for l := range qs {
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
// y = (d·scales[e/16])·q with a signed scale. One pass over l writes the
// four elements k = 0..3 that share ql[l], ql[l+32] and qh[l].
func decodeQ6_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[210*k:][:210], out[256*k:][:256]
		d := f16le(b, 208)
		for h := range 2 {
			ql := (*[64]byte)(b[64*h:])
			qh := (*[32]byte)(b[128+32*h:])
			o := (*[128]float32)(y[128*h:])
			for half := range 2 {
				// Scales of the 16 elements l = 16half.. of rows k = 0..3.
				sc := (*[7]byte)(b[192+8*h+half:])
				d0 := d * float32(int8(sc[0]))
				d1 := d * float32(int8(sc[2]))
				d2 := d * float32(int8(sc[4]))
				d3 := d * float32(int8(sc[6]))
				for l := 16 * half; l < 16*half+16; l++ {
					a, c, hb := ql[l], ql[l+32], qh[l]
					o[l] = d0 * float32(int(a&15|hb&3<<4)-32)
					o[l+32] = d1 * float32(int(c&15|hb>>2&3<<4)-32)
					o[l+64] = d2 * float32(int(a>>4|hb>>4&3<<4)-32)
					o[l+96] = d3 * float32(int(c>>4|hb>>6<<4)-32)
				}
			}
		}
	}
}

// decodeQ8_K: d float32 @0, qs[256] int8 @4, bsums[16] int16 @260 (ignored;
// they only serve dot products). y = d·qs[e].
func decodeQ8_K(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		// No bound at 292: the bsums are never read, so only the 260
		// bytes that are read bound the block (the stride is 292).
		b, y := packed[292*k:], out[256*k:][:256]
		d := math.Float32frombits(u32le(b, 0))
		for e, q := range (*[256]byte)(b[4:]) {
			y[e] = d * float32(int8(q))
		}
	}
}

// q8KBlockSums writes the block sums of one Q8_K block: bsums[j] is the
// int16 sum of qs[16j .. 16j+15]. No decoder reads them, but a block whose
// sums disagree with its quants is invalid for a dot product.
func q8KBlockSums(block []byte) {
	for j := range 16 {
		var sum int16
		for _, q := range block[4+16*j : 4+16*(j+1)] {
			sum += int16(int8(q))
		}
		block[260+2*j] = byte(sum)
		block[261+2*j] = byte(uint16(sum) >> 8)
	}
}
