package gather

import "math"

// I-quants: 256-element blocks of 8 groups of 32, each group four 8-element
// sub-groups read through a codebook (IQ4_NL: 32-element blocks). A sign bit
// j set negates element j; the product is rounded before the sign, as
// (db·grid)·(±1), so a zero scale still gives a correctly signed zero.

// signed returns v, negated when signs has the bit of mask set. The
// reference multiplies by ±1; flipping the sign bit gives the same bits for
// every non-NaN v (a NaN's sign is platform-dependent anyway, and NaNs
// compare only as NaN). It has no branch, as sign bits are random data.
func signed(v float32, signs, mask uint8) float32 {
	neg := (uint32(signs&mask) + 0xff) >> 8 // 1 if the bit is set, else 0
	return math.Float32frombits(math.Float32bits(v) ^ neg<<31)
}

// decodeIQ2_XXS: d f16 @0, then per group g 8 bytes @2+8g: four iq2xxsGrid
// indices, then a u32 w whose bits 7l..7l+6 are sub-group l's ksigns index
// and whose bits 28-31 are the scale s. db = (d·(0.5+s))·0.25.
func decodeIQ2_XXS(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[66*k:][:66], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			grp := b[2+8*g:]
			w := u32le(grp, 4)
			db := float32(d*(0.5+float32(w>>28))) * 0.25
			for l := range 4 {
				grid := iq2xxsGrid[grp[l]]
				signs := ksignsIQ2XS[w>>(7*l)&127]
				o := y[32*g+8*l:]
				for j := range 8 {
					o[j] = signed(float32(db*float32(uint8(grid>>(8*j)))), signs, kmaskIQ2XS[j])
				}
			}
		}
	}
}

// decodeIQ2_XS: d f16 @0, qs[32] u16 @2 (sub-group 4g+l: low 9 bits an
// iq2xsGrid index, high 7 bits a ksigns index), scales[8] @66 (group g: low
// nibble for sub-groups 0-1, high for 2-3). db = (d·(0.5+s))·0.25.
func decodeIQ2_XS(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[74*k:][:74], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			sc := b[66+g]
			db := [...]float32{
				float32(d*(0.5+float32(sc&15))) * 0.25,
				float32(d*(0.5+float32(sc>>4))) * 0.25,
			}
			for l := range 4 {
				qs := u16le(b, 2+2*(4*g+l))
				grid := iq2xsGrid[qs&511]
				signs := ksignsIQ2XS[qs>>9]
				dl := db[l/2]
				o := y[32*g+8*l:]
				for j := range 8 {
					o[j] = signed(float32(dl*float32(uint8(grid>>(8*j)))), signs, kmaskIQ2XS[j])
				}
			}
		}
	}
}

// decodeIQ2_S: d f16 @0, qs[64] @2 (bytes 0-31: low 8 index bits; bytes
// 32-63: explicit sign bytes), qh[8] @66 (bits 2l..2l+1 of qh[g] are index
// bits 8-9 of sub-group l), scales[8] @74 as in IQ2_XS. Grid iq2sGrid.
func decodeIQ2_S(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[82*k:][:82], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			sc := b[74+g]
			db := [...]float32{
				float32(d*(0.5+float32(sc&15))) * 0.25,
				float32(d*(0.5+float32(sc>>4))) * 0.25,
			}
			qh := b[66+g]
			for l := range 4 {
				idx := int(b[2+4*g+l]) | int(qh>>(2*l)&3)<<8
				grid := iq2sGrid[idx]
				signs := b[34+4*g+l]
				dl := db[l/2]
				o := y[32*g+8*l:]
				for j := range 8 {
					o[j] = signed(float32(dl*float32(uint8(grid>>(8*j)))), signs, kmaskIQ2XS[j])
				}
			}
		}
	}
}

// decodeIQ3_XXS: d f16 @0, qs[64] @2 (iq3xxsGrid indices, two per
// sub-group), then 8 u32 words @66 (group g: bits 7l.. are sub-group l's
// ksigns index, bits 28-31 the scale s). db = (d·(0.5+s))·0.5.
func decodeIQ3_XXS(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[98*k:][:98], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			w := u32le(b, 66+4*g)
			db := float32(d*(0.5+float32(w>>28))) * 0.5
			for l := range 4 {
				grid1 := iq3xxsGrid[b[2+8*g+2*l]]
				grid2 := iq3xxsGrid[b[2+8*g+2*l+1]]
				signs := ksignsIQ2XS[w>>(7*l)&127]
				o := y[32*g+8*l:]
				for j := range 4 {
					o[j] = signed(float32(db*float32(uint8(grid1>>(8*j)))), signs, kmaskIQ2XS[j])
					o[j+4] = signed(float32(db*float32(uint8(grid2>>(8*j)))), signs, kmaskIQ2XS[j+4])
				}
			}
		}
	}
}

// decodeIQ3_S: d f16 @0, qs[64] @2 (low 8 index bits), qh[8] @66 (bit 2l /
// 2l+1 of qh[g] is index bit 8 of the first / second half of sub-group l),
// signs[32] @74 (explicit), scales[4] @106 (nibble g%2 of byte g/2).
// db = d·(1+2s), y = (db·iq3sGrid)·sign.
func decodeIQ3_S(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[110*k:][:110], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			s := b[106+g/2] >> (4 * (g % 2)) & 15
			db := d * float32(1+2*int(s))
			qh := b[66+g]
			for l := range 4 {
				idx1 := int(b[2+8*g+2*l]) | int(qh>>(2*l)&1)<<8
				idx2 := int(b[2+8*g+2*l+1]) | int(qh>>(2*l+1)&1)<<8
				grid1 := iq3sGrid[idx1]
				grid2 := iq3sGrid[idx2]
				signs := b[74+4*g+l]
				o := y[32*g+8*l:]
				for j := range 4 {
					o[j] = signed(float32(db*float32(uint8(grid1>>(8*j)))), signs, kmaskIQ2XS[j])
					o[j+4] = signed(float32(db*float32(uint8(grid2>>(8*j)))), signs, kmaskIQ2XS[j+4])
				}
			}
		}
	}
}

// decodeIQ1_S: d f16 @0, qs[32] @2 (low 8 index bits), qh[8] u16 @34 (group
// g: bits 3l..3l+2 are index bits 8-10 of sub-group l, bits 12-14 the scale
// s, bit 15 the delta sign). dl = d·(2s+1), y = dl·(iq1sGrid + delta).
func decodeIQ1_S(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[50*k:][:50], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			qh := u16le(b, 34+2*g)
			dl := d * float32(2*int(qh>>12&7)+1)
			delta := float32(iq1sDelta)
			if qh&0x8000 != 0 {
				delta = -iq1sDelta
			}
			for l := range 4 {
				idx := int(b[2+4*g+l]) | int(qh>>(3*l)&7)<<8
				grid := iq1sGrid[idx]
				o := y[32*g+8*l:]
				for j := range 8 {
					o[j] = dl * (float32(int8(grid>>(8*j))) + delta)
				}
			}
		}
	}
}

// decodeIQ1_M (extra): qs[32] @0, qh[16] @32, scales[8] @48 as u16 words
// w0..w3. No d field: the f16 super-scale is the top nibbles w0>>12 |
// (w1>>12)<<4 | (w2>>12)<<8 | (w3>>12)<<12. Group g: 3-bit scales at bits
// 6(g%2) (sub-groups 0-1) and 6(g%2)+3 (2-3) of w[g/2]; qh[2g+l/2] nibble l%2
// gives index bits 8-10 (bits 0-2) and the delta sign (bit 3) of sub-group l.
// ggml's CPU decoder uses IQ1S_DELTA here.
func decodeIQ1_M(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[56*k:][:56], out[256*k:][:256]
		var w [4]uint16
		for i := range w {
			w[i] = u16le(b, 48+2*i)
		}
		d := F16ToF32(w[0]>>12 | w[1]>>12<<4 | w[2]>>12<<8 | w[3]>>12<<12)
		for g := range 8 {
			sw := w[g/2] >> (6 * (g % 2))
			dl := [...]float32{
				d * float32(2*int(sw&7)+1),
				d * float32(2*int(sw>>3&7)+1),
			}
			for l := range 4 {
				nib := b[32+2*g+l/2] >> (4 * (l % 2)) & 15
				idx := int(b[4*g+l]) | int(nib&7)<<8
				delta := float32(iq1sDelta)
				if nib&8 != 0 {
					delta = -iq1sDelta
				}
				grid := iq1sGrid[idx]
				dll := dl[l/2]
				o := y[32*g+8*l:]
				for j := range 8 {
					o[j] = dll * (float32(int8(grid>>(8*j))) + delta)
				}
			}
		}
	}
}

// decodeIQ1_XXXS (unsloth fork, type 66): d f16 @0, qs[32] @2 (8-bit
// iq1xxxsGrid indices), sc[4] @34 (group g: nibble g%2 of sc[g/2]; bits 0-2
// the scale s, bit 3 the delta sign). dl = d·(2s+1), y = dl·(grid + delta).
func decodeIQ1_XXXS(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[38*k:][:38], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			nib := b[34+g/2] >> (4 * (g % 2)) & 15
			dl := d * float32(2*int(nib&7)+1)
			delta := float32(iq1sDelta)
			if nib&8 != 0 {
				delta = -iq1sDelta
			}
			for l := range 4 {
				grid := iq1xxxsGrid[b[2+4*g+l]]
				o := y[32*g+8*l:]
				for j := range 8 {
					o[j] = dl * (float32(int8(grid>>(8*j))) + delta)
				}
			}
		}
	}
}

// decodeIQ4_NL: d f16 @0, qs[16] @2, nibbles split as in Q4_0.
// y = d·kvaluesIQ4NL[nibble].
func decodeIQ4_NL(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[18*k:][:18], out[32*k:][:32]
		d := f16le(b, 0)
		for j := range 16 {
			q := b[2+j]
			y[j] = d * float32(kvaluesIQ4NL[q&15])
			y[j+16] = d * float32(kvaluesIQ4NL[q>>4])
		}
	}
}

// decodeIQ4_XS: d f16 @0, scales_h u16 @2, scales_l[4] @4, qs[128] @8.
// Group g: ls = nibble g%2 of scales_l[g/2] | ((scales_h >> 2g) & 3) << 4,
// dl = d·(ls-32); qs[16g..16g+15] split as in Q4_0; y = dl·kvaluesIQ4NL[q].
func decodeIQ4_XS(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[136*k:][:136], out[256*k:][:256]
		d := f16le(b, 0)
		sh := u16le(b, 2)
		for g := range 8 {
			ls := int(b[4+g/2]>>(4*(g%2))&15) | int(sh>>(2*g)&3)<<4
			dl := d * float32(ls-32)
			qs := b[8+16*g:]
			o := y[32*g:]
			for j := range 16 {
				o[j] = dl * float32(kvaluesIQ4NL[qs[j]&15])
				o[j+16] = dl * float32(kvaluesIQ4NL[qs[j]>>4])
			}
		}
	}
}
