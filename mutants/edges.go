package mutants

import "gathermut/mutate/catalog"

// testEmbedOracle is the Embedding op's oracle test; with TestDequantizeOracle
// it holds the edge-scale and signed-zero cases of every codec.
const testEmbedOracle = pkgGather + ".TestEmbeddingOracle"

// edgeEntries extend class 4 with the decoding bugs that only show at the
// edges of the float formats, which one-token generic rewrites cannot make:
// a decoder that "sanitizes" non-finite scales to zero, E8M0 scales built
// with the bit trick that has no subnormal cases, a bf16 conversion that
// flushes subnormals to zero, and a zero that loses its sign. Each is a
// plausible hand-written bug that decodes every finite, normal, nonzero
// input right, so only the oracle's scales and zeros cases (and the bf16
// table's subnormal rows) see it.
func edgeEntries() []catalog.Entry {
	return []catalog.Entry{
		nonFiniteZeroed("q8_0", "decodeQ8_0", "f16le(b, 0)", "d"),
		nonFiniteZeroed("q4_k", "decodeQ4_K", "f16le(b, 2)", "dmin"),
		nonFiniteZeroed("q8_k", "decodeQ8_K", "math.Float32frombits(u32le(b, 0))", "float32 d"),
		{
			ID: "edge-mxfp4-e8m0-bit-trick", Class: 4, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "decodeMXFP4", Match: "e8m0HalfTable[b[0]]"},
			Replacement: "math.Float32frombits(uint32(b[0]-1) << 23)",
			Killers:     []string{testOracle, testEmbedOracle},
			Reason: "the halved E8M0 scale built as (e-1)<<23 for every e: e = 1 flushes to 0 and e = 0 wraps to +Inf, " +
				"where ggml gives the subnormals 2^-127 and 2^-128 (the oracle's MXFP4 scales case has both)",
		},
		{
			ID: "edge-bf16-flushes-subnormals", Class: 4, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "F32ToBF16", Match: "math.Float32bits(f)"},
			Replacement: "func(u uint32) uint32 {\n\tif u&0x7f800000 == 0 {\n\t\treturn u & 0x80000000\n\t}\n\treturn u\n}(math.Float32bits(f))",
			Killers:     []string{testBF16, testOracle},
			Reason: "a float32 subnormal becomes a signed zero before rounding (flush-to-zero), so 0x007fffff gives 0 " +
				"instead of rounding up to the smallest normal bf16, and subnormal decodes lose their bf16 bits",
		},
		{
			ID: "edge-q4_0-zero-loses-sign", Class: 4, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "decodeQ4_0", Match: "float32(q-8) * d"},
			Replacement: "func() float32 {\n\tif q == 8 {\n\t\treturn 0\n\t}\n\treturn float32(q-8) * d\n}()",
			Killers:     []string{testOracle, testEmbedOracle},
			Reason: "a zero quant short-cuts to +0 instead of 0·d, which is -0 when d is negative or -0 " +
				"(the oracle's zeros and scales cases hold such elements)",
		},
	}
}

// nonFiniteZeroed is a decoder that reads a scale field through a guard
// that turns Inf and NaN into 0 (d - d is NaN exactly when d is not
// finite), as if a corrupt scale were better read as zero: ggml multiplies
// by the Inf or NaN, so the row decodes to infinities and NaNs.
func nonFiniteZeroed(codec, fn, match, field string) catalog.Entry {
	return catalog.Entry{
		ID: "edge-" + codec + "-nonfinite-scale-zeroed", Class: 4, Operator: catalog.ReplaceExpr,
		Target:      catalog.Target{Package: pkgGather, Func: fn, Match: match},
		Replacement: "func(s float32) float32 {\n\tif s-s != 0 {\n\t\treturn 0\n\t}\n\treturn s\n}(" + match + ")",
		Killers:     []string{testOracle, testEmbedOracle},
		Reason:      "a non-finite " + field + " decodes as 0 instead of propagating Inf/NaN as ggml does (the oracle's scales case sets it to ±Inf and NaN)",
	}
}
