package gather

import "math"

// I-quants: 256-element blocks of 8 groups of 32, each group four 8-element
// sub-groups read through a codebook (IQ4_NL: 32-element blocks). A sign bit
// j set negates element j; the product is rounded before the sign, as
// (db·grid)·(±1), so a zero scale still gives a correctly signed zero.
//
// A grid byte takes few values (three in the IQ2 grids, eight in the IQ3
// ones), so each group first computes the products float32(db·v) for those
// values, and each element is a table read: the same operation on the
// same operands, so the same bits.

// The byte values of the grids (checked against the codebooks by the
// tests): every one has a product in the group's table.
var (
	iq2Values    = [...]uint8{8, 25, 43}
	iq3xxsValues = [...]uint8{4, 12, 20, 28, 36, 44, 52, 62}
	iq3sValues   = [...]uint8{1, 3, 5, 7, 9, 11, 13, 15}
)

// gridProducts sets t[v] = float32(db·v) for each grid value v.
func gridProducts(t *[64]float32, db float32, values []uint8) {
	for _, v := range values {
		t[v&63] = float32(db * float32(v))
	}
}

// signed8 writes the 8 grid bytes of grid (byte j is element j) through
// the products t, negating element j when bit j of signs is set. The
// reference multiplies by ±1; flipping the sign bit gives the same bits for
// every non-NaN product (a NaN's sign is platform-dependent anyway, and
// NaNs compare only as NaN). There is no branch: sign bits are random data.
func signed8(o *[8]float32, grid uint64, t *[64]float32, signs uint8) {
	s := uint32(signs)
	// Written out so that every shift is by a constant.
	o[0] = flipIf(t[grid&63], s<<31)
	o[1] = flipIf(t[grid>>8&63], s<<30)
	o[2] = flipIf(t[grid>>16&63], s<<29)
	o[3] = flipIf(t[grid>>24&63], s<<28)
	o[4] = flipIf(t[grid>>32&63], s<<27)
	o[5] = flipIf(t[grid>>40&63], s<<26)
	o[6] = flipIf(t[grid>>48&63], s<<25)
	o[7] = flipIf(t[grid>>56&63], s<<24)
}

// flipIf returns v with its sign bit flipped when bit 31 of m is set.
func flipIf(v float32, m uint32) float32 {
	return math.Float32frombits(math.Float32bits(v) ^ m>>31<<31)
}

// decodeIQ2_XXS: d f16 @0, then per group g 8 bytes @2+8g: four iq2xxsGrid
// indices, then a u32 w whose bits 7l..7l+6 are sub-group l's ksigns index
// and whose bits 28-31 are the scale s. db = (d·(0.5+s))·0.25.
func decodeIQ2_XXS(packed []byte, out []float32) {
	var t [64]float32
	for k := range len(out) / 256 {
		b, y := packed[66*k:][:66], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			grp := b[2+8*g:]
			w := u32le(grp, 4)
			db := float32(d*(0.5+float32(w>>28))) * 0.25
			gridProducts(&t, db, iq2Values[:])
			for l := range 4 {
				grid := iq2xxsGrid[grp[l]]
				signed8((*[8]float32)(y[32*g+8*l:]), grid, &t, ksignsIQ2XS[w>>(7*l)&127])
			}
		}
	}
}

// decodeIQ2_XS: d f16 @0, qs[32] u16 @2 (sub-group 4g+l: low 9 bits an
// iq2xsGrid index, high 7 bits a ksigns index), scales[8] @66 (group g: low
// nibble for sub-groups 0-1, high for 2-3). db = (d·(0.5+s))·0.25.
func decodeIQ2_XS(packed []byte, out []float32) {
	var t [2][64]float32
	for k := range len(out) / 256 {
		b, y := packed[74*k:][:74], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			sc := b[66+g]
			gridProducts(&t[0], float32(d*(0.5+float32(sc&15)))*0.25, iq2Values[:])
			gridProducts(&t[1], float32(d*(0.5+float32(sc>>4)))*0.25, iq2Values[:])
			for l := range 4 {
				qs := u16le(b, 2+2*(4*g+l))
				grid := iq2xsGrid[qs&511]
				signed8((*[8]float32)(y[32*g+8*l:]), grid, &t[l/2], ksignsIQ2XS[qs>>9])
			}
		}
	}
}

// decodeIQ2_S: d f16 @0, qs[64] @2 (bytes 0-31: low 8 index bits; bytes
// 32-63: explicit sign bytes), qh[8] @66 (bits 2l..2l+1 of qh[g] are index
// bits 8-9 of sub-group l), scales[8] @74 as in IQ2_XS. Grid iq2sGrid.
func decodeIQ2_S(packed []byte, out []float32) {
	var t [2][64]float32
	for k := range len(out) / 256 {
		b, y := packed[82*k:][:82], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			sc := b[74+g]
			gridProducts(&t[0], float32(d*(0.5+float32(sc&15)))*0.25, iq2Values[:])
			gridProducts(&t[1], float32(d*(0.5+float32(sc>>4)))*0.25, iq2Values[:])
			qh := b[66+g]
			for l := range 4 {
				idx := int(b[2+4*g+l]) | int(qh>>(2*l)&3)<<8
				grid := iq2sGrid[idx]
				signed8((*[8]float32)(y[32*g+8*l:]), grid, &t[l/2], b[34+4*g+l])
			}
		}
	}
}

// decodeIQ3_XXS: d f16 @0, qs[64] @2 (iq3xxsGrid indices, two per
// sub-group), then 8 u32 words @66 (group g: bits 7l.. are sub-group l's
// ksigns index, bits 28-31 the scale s). db = (d·(0.5+s))·0.5.
func decodeIQ3_XXS(packed []byte, out []float32) {
	var t [64]float32
	for k := range len(out) / 256 {
		b, y := packed[98*k:][:98], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			w := u32le(b, 66+4*g)
			gridProducts(&t, float32(d*(0.5+float32(w>>28)))*0.5, iq3xxsValues[:])
			for l := range 4 {
				grid1 := iq3xxsGrid[b[2+8*g+2*l]]
				grid2 := iq3xxsGrid[b[2+8*g+2*l+1]]
				signed8((*[8]float32)(y[32*g+8*l:]), uint64(grid1)|uint64(grid2)<<32, &t, ksignsIQ2XS[w>>(7*l)&127])
			}
		}
	}
}

// decodeIQ3_S: d f16 @0, qs[64] @2 (low 8 index bits), qh[8] @66 (bit 2l /
// 2l+1 of qh[g] is index bit 8 of the first / second half of sub-group l),
// signs[32] @74 (explicit), scales[4] @106 (nibble g%2 of byte g/2).
// db = d·(1+2s), y = (db·iq3sGrid)·sign.
func decodeIQ3_S(packed []byte, out []float32) {
	var t [64]float32
	for k := range len(out) / 256 {
		b, y := packed[110*k:][:110], out[256*k:][:256]
		d := f16le(b, 0)
		for g := range 8 {
			s := b[106+g/2] >> (4 * (g % 2)) & 15
			gridProducts(&t, d*float32(1+2*int(s)), iq3sValues[:])
			qh := b[66+g]
			for l := range 4 {
				idx1 := int(b[2+8*g+2*l]) | int(qh>>(2*l)&1)<<8
				idx2 := int(b[2+8*g+2*l+1]) | int(qh>>(2*l+1)&1)<<8
				grid1 := iq3sGrid[idx1]
				grid2 := iq3sGrid[idx2]
				signed8((*[8]float32)(y[32*g+8*l:]), uint64(grid1)|uint64(grid2)<<32, &t, b[74+4*g+l])
			}
		}
	}
}

// iq1Products returns t[g+1] = dl·(g + delta) for the IQ1 grid values g =
// -1, 0, 1, the reference's operations (t[3] is never read).
func iq1Products(dl, delta float32) (t [4]float32) {
	for k := range t {
		t[k] = dl * (float32(k-1) + delta)
	}
	return t
}

// iq1Out8 writes the 8 int8 grid values of grid through t: byte j + 1 (mod
// 4) is 0, 1 or 2 for -1, 0, 1.
func iq1Out8(o *[8]float32, grid uint64, t *[4]float32) {
	// Written out so that every shift is by a constant.
	o[0] = t[(grid+1)&3]
	o[1] = t[(grid>>8+1)&3]
	o[2] = t[(grid>>16+1)&3]
	o[3] = t[(grid>>24+1)&3]
	o[4] = t[(grid>>32+1)&3]
	o[5] = t[(grid>>40+1)&3]
	o[6] = t[(grid>>48+1)&3]
	o[7] = t[(grid>>56+1)&3]
}

// iq1Delta is IQ1S_DELTA, negated when neg is set.
func iq1Delta(neg bool) float32 {
	if neg {
		return -iq1sDelta
	}
	return iq1sDelta
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
			t := iq1Products(d*float32(2*int(qh>>12&7)+1), iq1Delta(qh&0x8000 != 0))
			for l := range 4 {
				idx := int(b[2+4*g+l]) | int(qh>>(3*l)&7)<<8
				iq1Out8((*[8]float32)(y[32*g+8*l:]), iq1sGrid[idx], &t)
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
				t := iq1Products(dl[l/2], iq1Delta(nib&8 != 0))
				iq1Out8((*[8]float32)(y[32*g+8*l:]), iq1sGrid[idx], &t)
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
			t := iq1Products(d*float32(2*int(nib&7)+1), iq1Delta(nib&8 != 0))
			for l := range 4 {
				iq1Out8((*[8]float32)(y[32*g+8*l:]), iq1xxxsGrid[b[2+4*g+l]], &t)
			}
		}
	}
}

// decodeIQ4_NL: d f16 @0, qs[16] @2, nibbles split as in Q4_0.
// y = d·kvaluesIQ4NL[nibble], read from the block's 16 products.
func decodeIQ4_NL(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[18*k:][:18], out[32*k:][:32]
		d := f16le(b, 0)
		var t [16]float32
		for q := range t {
			t[q] = d * float32(kvaluesIQ4NL[q])
		}
		for j := range 16 {
			q := b[2+j]
			y[j] = t[q&15]
			y[j+16] = t[q>>4]
		}
	}
}

// decodeIQ4_XS: d f16 @0, scales_h u16 @2, scales_l[4] @4, qs[128] @8.
// Group g: ls = nibble g%2 of scales_l[g/2] | ((scales_h >> 2g) & 3) << 4,
// dl = d·(ls-32); qs[16g..16g+15] split as in Q4_0; y = dl·kvaluesIQ4NL[q],
// read from the group's 16 products.
func decodeIQ4_XS(packed []byte, out []float32) {
	for k := range len(out) / 256 {
		b, y := packed[136*k:][:136], out[256*k:][:256]
		d := f16le(b, 0)
		sh := u16le(b, 2)
		for g := range 8 {
			ls := int(b[4+g/2]>>(4*(g%2))&15) | int(sh>>(2*g)&3)<<4
			dl := d * float32(ls-32)
			var t [16]float32
			for q := range t {
				t[q] = dl * float32(kvaluesIQ4NL[q])
			}
			qs := (*[16]byte)(b[8+16*g:])
			o := (*[32]float32)(y[32*g:])
			for j, q := range qs {
				o[j] = t[q&15]
				o[j+16] = t[q>>4]
			}
		}
	}
}
