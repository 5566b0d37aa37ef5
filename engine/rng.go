package engine

import "encoding/binary"

// splitMix64 is the generator's pseudo-random source: Steele, Lea and
// Flood's SplitMix64, chosen because it is tiny, has no platform-dependent
// step and is published with reference outputs, so a test can pin it.
type splitMix64 struct{ state uint64 }

func (s *splitMix64) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// fill writes pseudo-random bytes into b, eight per draw, low byte first;
// the last draw's unused bytes are dropped.
func (s *splitMix64) fill(b []byte) {
	var w [8]byte
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(w[:], s.next())
		copy(b[i:], w[:])
	}
}

// weight returns a value uniform on the 2^24-point grid covering
// [-1/64, 1/64): a signed 24-bit integer times 2^-29. Every value is exact in
// float32, so no rounding mode or platform can change it.
func (s *splitMix64) weight() float32 {
	q := int32(s.next()>>40) - 1<<23
	return float32(q) * 0x1p-29
}
