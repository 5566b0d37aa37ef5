package gather

import "math"

// f16le reads the little-endian IEEE binary16 at b[off] and widens it to
// float32 exactly (subnormals, signed zeros, infinities and NaN payloads
// carry over).
func f16le(b []byte, off int) float32 {
	return F16ToF32(uint16(b[off]) | uint16(b[off+1])<<8)
}

// F16ToF32 widens an IEEE binary16 bit pattern to float32 exactly:
// subnormals become normal float32 values, signed zeros and infinities
// keep their sign, and a NaN keeps its payload (shifted up 13 bits), a
// signalling one too. It is the f16 scale read of every decoder and the
// F16 table read of the float providers; other packages use it rather than
// a widening of their own.
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN: keep the payload bits
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	}
	// Zero or subnormal: man·2^-24 is exact in float32 (a normal number
	// unless man is 0), and the sign bit is put back on top.
	return math.Float32frombits(sign | math.Float32bits(float32(man)*0x1p-24))
}

// u16le and u32le assemble little-endian integers from bytes.
func u16le(b []byte, off int) uint16 { return uint16(b[off]) | uint16(b[off+1])<<8 }

func u32le(b []byte, off int) uint32 {
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}
