package engine

import "math"

// Float32 primitives of the forward pass. Each is built only from IEEE
// float32/float64 operations that round once (add, subtract, multiply,
// divide, square root, conversions), with every product that feeds an add
// wrapped in float32(...) so that no compiler fuses it into an FMA. The Go
// math package's Exp uses assembly on amd64 and arm64 and its polynomial code
// may be fused on arm64, so it is not used where logits depend on it. F16
// and BF16 weights are widened by gather.F16ToF32 and gather.BF16ToF32, the
// decoders' own exact widenings.

// Taylor coefficients 1/n! of exp on the reduced interval |r| <= ln2/2.
const (
	expC2 = 1.0 / 2
	expC3 = 1.0 / 6
	expC4 = 1.0 / 24
	expC5 = 1.0 / 120
	expC6 = 1.0 / 720
	expC7 = 1.0 / 5040
)

// Cody-Waite split of ln 2: ln2Hi has 15 significant bits, so k*ln2Hi is
// exact for every k expf can produce.
const (
	ln2Hi  float32 = 0x1.62e4p-01
	ln2Lo  float32 = 0x1.7f7d1cp-20
	log2e          = 1.4426950408889634
	expMax         = 100  // above: +Inf (exp overflows float32 from 88.73)
	expMin         = -110 // below: 0 (exp underflows float32 below -103.98)
)

// The float32 infinities.
var (
	posInf = float32(math.Inf(1))
	negInf = float32(math.Inf(-1))
)

// expf returns e^x in float32, within a couple of ulps of the true value and
// the same bits on every platform: x = k*ln2 + r, a degree-7 Taylor
// polynomial for e^r, then an exact float64 scaling by 2^k and one rounding
// to float32 (which also produces subnormals, zero and infinity).
func expf(x float32) float32 {
	switch {
	case x != x:
		return x
	case x > expMax:
		return posInf
	case x < expMin:
		return 0
	}
	k := math.Floor(float64(float64(x)*log2e) + 0.5)
	kf := float32(k)
	r := float32(x-float32(kf*ln2Hi)) - float32(kf*ln2Lo)
	p := float32(expC7)
	p = float32(p*r) + expC6
	p = float32(p*r) + expC5
	p = float32(p*r) + expC4
	p = float32(p*r) + expC3
	p = float32(p*r) + expC2
	p = float32(p*r) + 1
	p = float32(p*r) + 1
	scale := math.Float64frombits(uint64(1023+int64(k)) << 52)
	return float32(float64(p) * scale)
}

// sqrtf is the correctly rounded float32 square root: the float64 root of a
// float32 is rounded once more to float32, which is exact-rounding safe
// because float64 carries more than 2*24+2 bits.
func sqrtf(x float32) float32 {
	return float32(math.Sqrt(float64(x)))
}

// silu is x*sigmoid(x), computed as x / (1 + e^-x) like llama.cpp.
func silu(x float32) float32 {
	return x / (1 + expf(-x))
}
