package gather

import "math"

// f16le reads the little-endian IEEE binary16 at b[off] and widens it to
// float32 exactly (F16ToF32).
func f16le(b []byte, off int) float32 {
	return F16ToF32(uint16(b[off]) | uint16(b[off+1])<<8)
}

// F16ToF32 widens an IEEE binary16 bit pattern to float32 exactly:
// subnormals become normal float32 values, signed zeros and infinities
// keep their sign, and a NaN keeps its payload (shifted up 13 bits), a
// signalling one too. It is the f16 scale read of every decoder and the
// F16 table read of the float providers; other packages use it rather than
// a widening of their own.
//
// The exponent and mantissa bits moved to their float32 places read as
// the value times 2^-112 (a subnormal half as a float32 subnormal), so one
// exact multiply by 2^112 rebiases every finite value; Inf and NaN then get
// the all-ones exponent, keeping the mantissa. It has no call and no
// per-case branch, so the decoders inline it.
func F16ToF32(h uint16) float32 {
	x := uint32(h)
	v := math.Float32bits(math.Float32frombits(x&0x7fff<<13) * 0x1p112)
	if x&0x7c00 == 0x7c00 {
		v |= 0x7f800000
	}
	return math.Float32frombits(v | x&0x8000<<16)
}

// u16le and u32le assemble little-endian integers from bytes.
func u16le(b []byte, off int) uint16 { return uint16(b[off]) | uint16(b[off+1])<<8 }

func u32le(b []byte, off int) uint32 {
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}
