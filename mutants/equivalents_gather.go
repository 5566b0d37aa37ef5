package mutants

import "gathermut/mutate/catalog"

// equivalentsGather are the generic mutants of package gather that cannot change
// behaviour, each with the reason.
func equivalentsGather() []catalog.Equivalent {
	var eqs []catalog.Equivalent
	for _, d := range blockReslices {
		eqs = append(eqs, catalog.Equivalent{
			Package: pkgGather, Func: d.decoder, Operator: "remove-stmt",
			Original: d.reslice, Replacement: "",
			Reason: "a bounds-check hint: the block decoders are reached only through the decoders map, called only by " +
				"decodeBlocks and decodeBlocksBF16 with packed[lo:hi:hi] of exactly BlockBytes and out[elo:ehi:ehi] or the " +
				"scratch's [:BlockElems] of exactly BlockElems, so b[:BlockBytes] and y[:BlockElems] are b and y themselves " +
				"(same array, length and capacity); the statement only lets the compiler drop the per-index bounds checks",
		})
	}
	return eqs
}

// blockReslices are the first statements of the block decoders, which
// reslice the block and its output (only the output for Q8_K) to the
// codec's exact geometry.
var blockReslices = []struct{ decoder, reslice string }{
	{"decodeQ4_0", "b, y = b[:18], y[:32]"},
	{"decodeQ4_1", "b, y = b[:20], y[:32]"},
	{"decodeQ5_0", "b, y = b[:22], y[:32]"},
	{"decodeQ5_1", "b, y = b[:24], y[:32]"},
	{"decodeQ8_0", "b, y = b[:34], y[:32]"},
	{"decodeQ2_K", "b, y = b[:84], y[:256]"},
	{"decodeQ3_K", "b, y = b[:110], y[:256]"},
	{"decodeQ4_K", "b, y = b[:144], y[:256]"},
	{"decodeQ5_K", "b, y = b[:176], y[:256]"},
	{"decodeQ6_K", "b, y = b[:210], y[:256]"},
	{"decodeQ8_K", "y = y[:256]"}, // b is not resliced: its bsums tail is never read
	{"decodeIQ2_XXS", "b, y = b[:66], y[:256]"},
	{"decodeIQ2_XS", "b, y = b[:74], y[:256]"},
	{"decodeIQ2_S", "b, y = b[:82], y[:256]"},
	{"decodeIQ3_XXS", "b, y = b[:98], y[:256]"},
	{"decodeIQ3_S", "b, y = b[:110], y[:256]"},
	{"decodeIQ1_S", "b, y = b[:50], y[:256]"},
	{"decodeIQ1_M", "b, y = b[:56], y[:256]"},
	{"decodeIQ1_XXXS", "b, y = b[:38], y[:256]"},
	{"decodeIQ4_NL", "b, y = b[:18], y[:32]"},
	{"decodeIQ4_XS", "b, y = b[:136], y[:256]"},
	{"decodeTQ1_0", "b, y = b[:54], y[:256]"},
	{"decodeTQ2_0", "b, y = b[:66], y[:256]"},
	{"decodeMXFP4", "b, y = b[:17], y[:32]"},
}
