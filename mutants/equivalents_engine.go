package mutants

import "gathermut/mutate/catalog"

// equivalentsEngine are the generic mutants of package engine that cannot change
// behaviour, each with the reason. (Unreachable error paths are marked in the
// source with //gathermut:equivalent comments instead, because their text
// repeats on reachable lines of the same function.)
func equivalentsEngine() []catalog.Equivalent {
	const (
		plusInf = "math.Inf(sign) is +Inf for every sign >= 0 (its documentation), so Inf(0) and Inf(2) are the Inf(1) this var holds"
		// Checked exhaustively: every float32 in [98, 102] and [-112, -108]
		// gives the same bits with each threshold and comparison below.
		overflow  = "expf's polynomial path already gives +Inf for every x in [99, 101]: k = floor(x*log2e + 0.5) >= 143 and p >= 0.7, so float64(p)*2^k >= 7e42 rounds to float32 +Inf, the guard's value; the threshold only has to stop 2^k leaving float64's exponent range (k <= 1023), which any value from 88.73 to about 700 does"
		underflow = "expf's polynomial path already gives +0 for every x in [-111, -109]: k = floor(x*log2e + 0.5) <= -157 and p <= 1.42, so float64(p)*2^k <= 8e-48, below half the smallest float32 subnormal (7e-46), rounds to +0, the guard's value; the threshold only has to keep 1023+k above 0, which any value from -103.98 to about -700 does"
	)
	return []catalog.Equivalent{
		{Package: pkgEngine, Func: "posInf", Operator: "const-int", Original: "1", Replacement: "0", Reason: plusInf},
		{Package: pkgEngine, Func: "posInf", Operator: "const-int", Original: "1", Replacement: "2", Reason: plusInf},
		{
			Package: pkgEngine, Func: "negInf", Operator: "const-int", Original: "1", Replacement: "2",
			Reason: "math.Inf(sign) is -Inf for every sign < 0 (its documentation), so Inf(-2) is the Inf(-1) this var holds",
		},
		{Package: pkgEngine, Func: "expMax", Operator: "const-int", Original: "100", Replacement: "99", Reason: overflow},
		{Package: pkgEngine, Func: "expMax", Operator: "const-int", Original: "100", Replacement: "101", Reason: overflow},
		{Package: pkgEngine, Func: "expf", Operator: "boundary", Original: "x > expMax", Replacement: "x >= expMax", Reason: overflow},
		{Package: pkgEngine, Func: "expMin", Operator: "const-int", Original: "110", Replacement: "109", Reason: underflow},
		{Package: pkgEngine, Func: "expMin", Operator: "const-int", Original: "110", Replacement: "111", Reason: underflow},
		{Package: pkgEngine, Func: "expf", Operator: "boundary", Original: "x < expMin", Replacement: "x <= expMin", Reason: underflow},
		{
			Package: pkgEngine, Func: "attendHead", Operator: "boundary", Original: "s > best", Replacement: "s >= best",
			Reason: "on a tie best keeps its value; the one difference is a -0 score replacing a +0 best, and best is only " +
				"subtracted from scores before expf: v - (+0) and v - (-0) are equal except for v = -0 (-0 against +0), " +
				"and expf(-0) = expf(+0) = 1; a NaN score fails both comparisons",
		},
		{
			Package: pkgEngine, Func: "(*Engine).generate", Operator: "remove-stmt",
			Original: "out = make([]int32, 0, s.MaxTokens)", Replacement: "",
			Reason: "a capacity hint: without it out starts nil and the same appends give the same tokens; every return of " +
				"out follows at least one append (MaxTokens >= 1 here), so it is never nil where the hint made it empty",
		},
		{
			Package: pkgEngine, Func: "(*model).forward", Operator: "branch-if", Original: "{\n\t\t\tcontinue\n\t\t}",
			Reason: "skipping a row whose logits nobody asked for saves work only: without the skip its final norm goes to the " +
				"scratch slice norm, which nothing reads after this loop, and mulVec into the nil logits row writes nothing " +
				"(it ranges over its destination)",
		},
	}
}
