package mutants

import "gathermut/mutate/catalog"

// Reasons shared by several kernel equivalents.
const (
	// e0 is the first element of a chunk within its block.
	whyE0Even = "e0, the chunk's first element within its block, is a multiple of the chunk size N (4 or 8): gm_rows gives " +
		"lane l the element l·N and moves a lane by whole blocks, and every codec's block holds a multiple of 8 elements; so " +
		"bit 0 of e0, and of r taken from it, is always 0, and a mask without bit 0 selects the same bits"
	whyPrefetch = "gm_prefetch_l2 is a hint: on NVIDIA prefetch.global.L2 returns nothing and never faults, the HIP build defines " +
		"it empty and the emulation's is an empty volatile asm statement; which lines it asks for, or none, changes no value " +
		"the kernel writes, only its speed"
	whyWordsU16 = "with the words reader the table starts on a 4-byte boundary and every 16-bit field lies at an even offset " +
		"(a scale or code field of a block of even size, or an F16/BF16 element; MXFP4, the one block of odd size, has no " +
		"16-bit field), so s is 0 or 2 and s == 3 never holds; hi then reaches only bits 32-8s and up of the shifted value, " +
		"which & 0xffff drops, so loading it or not, or setting it to 1, gives the same field (a load that s != 3 adds reads " +
		"the aligned word after the field's: inside the block, or for the last element of an F16/BF16 table the word after " +
		"the table's 4-byte-aligned end); and the load of s == 3's branch never runs, so the address it would read (a - 4, " +
		"a + 3, a + 5 for a + 4) is never read"
	whyVecStore = "vec only chooses one 16-byte store over N element stores of the same bytes to the same addresses; the " +
		"element stores serve every alignment, so forcing them writes the same output"
	whyWordsFlag = "GM_WORDS only chooses the reader: gm_words_reader (aligned 32-bit loads) or gm_bytes_reader (byte loads), " +
		"which return the same field at any offset; the words reader's loads are of the aligned words that hold a field's " +
		"bytes, which lie in the table's allocation (it starts 256-byte aligned, and its end is rounded up by the runtime), " +
		"so reading a table that does not start or end on a 4-byte boundary by words gives the same values"
	whyOnePastIDs = "the id loaded when the condition fails is never used: the row loop runs only while row < n_ids (and the " +
		"next id only when row + step < n_ids), so loading ids[n_ids] instead of 0, or starting from 1, changes nothing " +
		"written (the extra load is of the id slot just past the ids)"
)

// equivalentsKernel are the generic mutants of the kernel's device code
// (hipkern/gather.hip, decoders.h) that cannot change what a gather writes,
// each with the reason. Line pins an entry to the source line when a
// function holds other mutants with the same original and replacement.
func equivalentsKernel() []catalog.Equivalent {
	eq := func(fn, op, orig, repl, line, reason string) catalog.Equivalent {
		return catalog.Equivalent{Package: pkgHipkern, Func: fn, Operator: op, Original: orig, Replacement: repl, Line: line, Reason: reason}
	}
	var out []catalog.Equivalent
	// Masks of e0 (and of r = e0 & 15/31) that drop bit 0.
	for _, m := range []struct{ orig, repl, line string }{
		{"15", "14", "(e0 & 15)"}, {"15", "14", "r = e0 & 15"}, {"31", "30", "e0 & 31"},
		{"7", "6", "j0 = e0 & 7"}, {"7", "6", ">> (e0 & 7)"}, {"7", "6", "(r & 7)"}, {"15", "14", "(r & 15)"},
	} {
		out = append(out, eq("", "const-int", m.orig, m.repl, m.line, whyE0Even))
	}
	out = append(out,
		eq("CodecNVFP4::chunk", "const-int", "4", "5", "(r >> 1) & 4",
			"r = e0 & 15 is a multiple of 4 (e0 is a multiple of the chunk size), so r >> 1 is even and bit 0 of the mask "+
				"meets a 0: & 5 and & 4 give the same shift"),
		eq("", "arith", "", "db * gm_bytef(grid, k, 0) / gm_sign(signs, k)", "* gm_sign(signs, k)",
			"gm_sign returns exactly +1 or -1, and x / 1 = x * 1 = x and x / -1 = x * -1 = -x exactly for every float x (zeros, "+
				"infinities and NaNs alike), so dividing by the sign is multiplying by it"),
		eq("CodecMXFP4::chunk", "boundary", "e < 2", "e <= 2", "e < 2 ?",
			"at e = 2 both branches give the same bits: 0x00200000 << 2 = 0x00800000 = (2 - 1) << 23, the smallest normal 2^-126"),
		eq("CodecMXFP4::chunk", "const-int", "2", "3", "e < 2 ?",
			"e < 3 differs from e < 2 only at e = 2, where both branches give the same bits: 0x00200000 << 2 = 0x00800000 = "+
				"(2 - 1) << 23"),
		eq("gm_take", "branch-true", "N == 8", "true", "",
			"for N = 4 the value gains the next 4 bytes in bits 32-63, which no caller of gm_take<4> reads (gm_bytef(v, k) "+
				"with k < 4 reads bits below 32, and the callers shift right); the extra bytes are loaded from the block after the "+
				"chunk, past the table only for the last chunk of the table's last block"),
		eq("CodecIQ3_XXS::chunk", "branch-true", "N == 8", "true", "",
			"for N = 4 the second grid word lands in bits 32-63 of grid, which gm_bytef(grid, k, 0) with k < 4 never reads"),
		eq("CodecIQ3_S::chunk", "branch-true", "N == 8", "true", "",
			"for N = 4 the second grid word lands in bits 32-63 of grid, which gm_bytef(grid, k, 0) with k < 4 never reads; "+
				"the bytes it reads lie inside the block"),
		eq("GmFloat::chunk", "const-int", "8", "7", "i < N * size / 8",
			"N * size is 16 in every instance (4 f32 or 8 f16/bf16 values), and 16 / 7 = 16 / 8 = 2 in integer division"),
		eq("GmFloat::chunk", "const-int", "8", "9", "k < 8 / size",
			"size is 4 or 2, and 9 / 4 = 8 / 4 = 2, 9 / 2 = 8 / 2 = 4 in integer division"),
		eq("GmFloat::chunk", "const-int", "8", "9", "y[i * (8 / size) + k]",
			"size is 4 or 2, and 9 / 4 = 8 / 4 = 2, 9 / 2 = 8 / 2 = 4 in integer division"),
		eq("gm_words_reader::u16", "negate", "s == 3", "s != 3", "", whyWordsU16),
		eq("gm_words_reader::u16", "const-int", "3", "", "s == 3", whyWordsU16),
		eq("gm_words_reader::u16", "const-int", "0u", "1u", "", whyWordsU16),
		eq("gm_words_reader::u16", "arith", "a + 4", "a - 4", "s == 3 ? gm_load32(a + 4)", whyWordsU16),
		eq("gm_words_reader::u16", "const-int", "4", "", "s == 3 ? gm_load32(a + 4)", whyWordsU16),
		eq("gm_words_reader::u32", "const-int", "0u", "1u", "",
			"hi is 0 only when s == 0, where shr shifts by 0 and keeps the low 32 bits: hi never reaches the result"),
		eq("gm_words_reader::u64", "const-int", "0u", "1u", "",
			"w2 is 0 only when s == 0, where shr(w1, w2, 0) keeps w1's 32 bits: w2 never reaches the result"),
		eq("gm_store", "branch-false", "vec", "false", "", whyVecStore),
		eq("gm_float_chunk::run", "branch-false", "vec", "false", "", whyVecStore),
		eq("gm_float_chunk::run", "branch-true", "left < N", "true", "",
			"the value-by-value path writes the same values as the chunk path for a whole chunk: F::one widens as F::chunk "+
				"does, gm_store_one rounds with gm_bf16 as gm_pack_bf16 does (its NaN check on sm_80+ falls back to gm_bf16), "+
				"and a BF16 row to bf16 is copied word by word in both"),
		eq("gm_float_chunk::run", "boundary", "left < N", "left <= N", "",
			"at left == N the value-by-value path writes the same N values as the chunk path (see the branch-true entry)"),
		eq("gm_rows", "boundary", "row < a.n_ids", "row <= a.n_ids", "int64_t id = row < a.n_ids ?", whyOnePastIDs),
		eq("gm_rows", "const-int", "0", "1", "int64_t id = row < a.n_ids ?", whyOnePastIDs),
		eq("gm_rows", "boundary", "row + step < a.n_ids", "row + step <= a.n_ids", "", whyOnePastIDs),
		eq("gm_rows", "const-int", "0", "1", "const int64_t next = row + step < a.n_ids ?", whyOnePastIDs),
		eq("gm_rows", "branch-true", "lane == 0", "true", "",
			"every lane of the row then reports the same bad row to atomicMin, whose result is the same minimum"),
		eq("gm_rows", "branch-true", "GM_PREFETCH", "true", "", whyPrefetch),
		eq("gm_rows", "branch-if", "", "", "gm_prefetch_l2(base + off)", whyPrefetch),
		eq("gm_rows", "remove-call", "", "", "gm_prefetch_l2(base + off)", whyPrefetch),
		eq("gm_rows", "const-int", "128", "127", "gm_prefetch_l2(base + off)", whyPrefetch),
		eq("gm_rows", "const-int", "128", "129", "gm_prefetch_l2(base + off)", whyPrefetch),
		eq("gm_rows", "boundary", "off < a.row_bytes", "off <= a.row_bytes", "", whyPrefetch+" (one line more, at the row's end)"),
		eq("gm_rows", "arith", "128 * lanes", "128 / lanes", "",
			whyPrefetch+" (a stride of 128 / lanes, at least 1 byte for lanes <= 128, ends the loop after more hints)"),
		eq("gm_rows", "arith", "base + off", "base - off", "", whyPrefetch+" (addresses before the row)"),
		eq("gm_quant_kernel", "", "a.flags & GM_WORDS", "", "", whyWordsFlag),
		eq("gm_float_kernel", "", "a.flags & GM_WORDS", "", "", whyWordsFlag),
	)
	return out
}
