package gather

import "math"

// F32ToBF16 rounds f to bf16 with round-to-nearest-even (ties to even). A NaN
// keeps its top 16 bits with the quiet bit 0x0040 set; infinities stay
// infinite and finite values may round up to infinity.
func F32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x0040
	}
	return uint16((u + 0x7fff + ((u >> 16) & 1)) >> 16)
}

// BF16ToF32 widens a bf16 word to float32 exactly.
func BF16ToF32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}
