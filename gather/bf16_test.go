package gather

import (
	"math"
	"testing"
)

// TestF32ToBF16 covers ties (to even), plain rounding, NaN (top bits kept,
// quiet bit forced), infinities, signed zeros, subnormals and finite values
// that round up to infinity (docs/row.md, "The Embedding operation").
func TestF32ToBF16(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   uint32
		want uint16
	}{
		{"tie to even, down", 0x3f808000, 0x3f80},
		{"tie to even, up", 0x3f818000, 0x3f82},
		{"negative tie, down", 0xbf808000, 0xbf80},
		{"negative tie, up", 0xbf818000, 0xbf82},
		{"just above a tie", 0x3f808001, 0x3f81},
		{"just below a tie", 0x3f807fff, 0x3f80},
		{"negative just above a tie", 0xbf808001, 0xbf81},
		{"one", 0x3f800000, 0x3f80},
		{"carry into the exponent", 0x3fffffff, 0x4000},
		{"+0", 0x00000000, 0x0000},
		{"-0", 0x80000000, 0x8000},
		{"smallest subnormal", 0x00000001, 0x0000},
		{"negative smallest subnormal", 0x80000001, 0x8000},
		{"subnormal tie to even", 0x00008000, 0x0000},
		{"subnormal tie up", 0x00018000, 0x0002},
		{"subnormal rounds up to normal", 0x007fffff, 0x0080},
		{"negative subnormal to -min normal", 0x807fffff, 0x8080},
		{"+Inf", 0x7f800000, 0x7f80},
		{"-Inf", 0xff800000, 0xff80},
		{"max finite rounds to +Inf", 0x7f7fffff, 0x7f80},
		{"-max finite rounds to -Inf", 0xff7fffff, 0xff80},
		{"odd tie below Inf rounds to +Inf", 0x7f7f8000, 0x7f80},
		{"largest value that stays finite", 0x7f7f7fff, 0x7f7f},
		{"quiet NaN", 0x7fc00000, 0x7fc0},
		{"negative quiet NaN", 0xffc00000, 0xffc0},
		{"signalling NaN is quieted", 0x7f800001, 0x7fc0},
		{"signalling NaN with low payload only", 0x7f80ffff, 0x7fc0},
		{"NaN keeps its top payload bits", 0x7f810000, 0x7fc1},
		{"negative signalling NaN", 0xff800001, 0xffc0},
		{"all-ones NaN", 0xffffffff, 0xffff},
		{"NaN with 0x7fff low bits", 0x7fbf7fff, 0x7fff},
	} {
		if got := F32ToBF16(math.Float32frombits(tc.in)); got != tc.want {
			t.Errorf("%s: F32ToBF16(%#08x) = %#04x, want %#04x", tc.name, tc.in, got, tc.want)
		}
	}
}

// refBF16 rounds to bf16 by value: of the two bf16 neighbours of f it picks
// the nearer, the even one on a tie. It shares no arithmetic with F32ToBF16.
func refBF16(u uint32) uint16 {
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x0040
	}
	lo := uint16(u >> 16)
	if u&0xffff == 0 {
		return lo
	}
	hi := lo + 1
	value := func(h uint16) float64 {
		if h&0x7fff == 0x7f80 { // the neighbour past max finite: ±2^128
			return math.Copysign(math.Ldexp(1, 128), float64(BF16ToF32(h&0x8000|0x3f80)))
		}
		return float64(math.Float32frombits(uint32(h) << 16))
	}
	f := float64(math.Float32frombits(u))
	dlo, dhi := math.Abs(f-value(lo)), math.Abs(value(hi)-f)
	switch {
	case dlo < dhi:
		return lo
	case dhi < dlo:
		return hi
	case lo&1 == 0:
		return lo
	}
	return hi
}

// TestF32ToBF16Sweep compares F32ToBF16 with refBF16 for every top half and
// the low halves around a tie.
func TestF32ToBF16Sweep(t *testing.T) {
	lows := []uint32{0, 1, 0x3fff, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xc000, 0xffff}
	bad := 0
	for top := range uint32(1 << 16) {
		for _, low := range lows {
			u := top<<16 | low
			if got, want := F32ToBF16(math.Float32frombits(u)), refBF16(u); got != want {
				if bad++; bad <= 10 {
					t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", u, got, want)
				}
			}
		}
	}
}

// TestBF16ToF32 checks the exact widening for all patterns and that a
// non-NaN word survives the round trip.
func TestBF16ToF32(t *testing.T) {
	for h := range uint32(1 << 16) {
		f := BF16ToF32(uint16(h))
		if got := math.Float32bits(f); got != h<<16 {
			t.Fatalf("BF16ToF32(%#04x) bits %#08x, want %#08x", h, got, h<<16)
		}
		want := uint16(h)
		if isNaN16(want) {
			want |= 0x0040
		}
		if back := F32ToBF16(f); back != want {
			t.Fatalf("F32ToBF16(BF16ToF32(%#04x)) = %#04x, want %#04x", h, back, want)
		}
	}
}
