// Package gather owns how GGML blocks decode and the Embedding operation.
//
// It holds the codec table (Codecs: one row per block type it decodes, with
// gguf's geometry, its bit-exact decoder, whether it is admitted, and where
// its scale fields sit and how they are encoded; the decoder index, the
// admitted list and the engine's scale layout are derived from it), the
// decoders (one file per codec family, codebooks in their own file), the
// f32-to-bf16 rounding, the Tensor type, the ordered validation of
// Embedding(out, table, ids), the provider registry keyed by (operation,
// device) with its per-pair statistics, and the CPU providers.
//
// # Tensors, Embedding, providers (decisions)
//
// Tensor: the element Type is a gguf.Type; Strides count elements (for a
// packed table the row stride of a contiguous [vocab, hidden] table is
// hidden, its byte row stride RowSizeBytes(Type, hidden)); nil Strides mean
// contiguous row-major. Contiguous ignores the stride of a size-1 dimension
// and calls a tensor with no elements contiguous. Data starts at element
// [0, 0], may sit at any byte offset of a larger buffer and may be longer
// than the tensor; everything is read by byte assembly. A zero Device is not
// the host: a tensor must name its device (Host for the CPU).
//
// Embedding validates in the order of docs/row.md (CheckArgs): nil
// arguments first; (1) ranks of table, ids, out, then negative dimensions;
// (2) out shape; (3) ids type; (4) table type (an extra codec such as Q4_1
// decodes but is "not admitted"); (5) out type; (6) whole blocks; (7)
// contiguity; (8) one device, and no empty Device.Kind. Each failure is a
// distinct error prefixed "gather: Embedding: ". The rest is the
// provider's. Every provider runs CheckArgs itself before it declines
// anything, so that Embedding and a provider called directly (through
// Providers) give the same answer, and then CheckRequest: an empty request
// (no ids or zero width) returns nil at once, before any other check,
// allocating nothing, even with ids that would be out of range or Data
// that is short; a non-empty request on vocab 0 is refused; the byte sizes
// of out (len(ids)*hidden elements), table (vocab*rowBytes) and ids are
// checked for int64 overflow. On the CPU each tensor's Data must then hold
// its bytes (in the order out, table, ids), and every id is checked 0 <= id
// < vocab as int64 (I32 sign-extended, I64 never truncated) before any row
// is decoded. So after any refusal on the host out is untouched, and the
// next call works (there is no state). Bad ids are reported with IDError
// (type IDRangeError), at the first bad position. Package gather/gathertest
// checks any provider against these rules; the CPU providers and hipkern's
// run it.
//
// Dispatch: providers of (tier, table.Device.Kind) are tried in
// registration order. One that does not Support the table type is skipped;
// it and one returning an error wrapping ErrDeclined count as declines. The
// first other answer is selected (Selections, LastProvider; Fallbacks when
// it came after a decline), whether it is nil or a refusal of the input,
// which is returned unwrapped. If every provider declines, the error wraps
// ErrDeclined. Statistics are counted only while EnableStats(true).
// Register refuses a provider that lacks any type of its tier (every
// Admitted codec for EmbeddingQuant; F32, F16, BF16 for EmbeddingFloat), a
// second provider of the same name for a pair, a nil provider, an empty
// device kind and an unknown operation. The CPU quant provider supports
// exactly the admitted rows of the codec table.
//
// CPU providers: "cpu-quant" decodes each selected row straight from its
// packed bytes, table.Data[id*rowBytes:][:rowBytes], as Dequantize (f32
// out) or DequantizeBF16 (bf16 out) would, into one row of scratch per
// goroutine; the table is never expanded. "cpu-float" widens F16 and BF16 exactly and
// rounds to bf16 with F32ToBF16; F32 to f32 and BF16 to bf16 copy the row,
// so a BF16 table's NaN payloads (signalling ones too) are kept as stored
// instead of being quieted. Requests of at least 64 rows and 1 MiB of output
// are split into min(GOMAXPROCS, rows) contiguous, even row ranges decoded
// in parallel; smaller ones run serially, on the caller's goroutine. Both
// give identical bytes.
//
// # Decoders (decisions)
//
// A decoder takes a whole run of blocks, len(out)/BlockElems of them from
// the front of packed, so there is no indirect call per block; it steps
// through the run by its format's block geometry, which is the codec row's
// (gguf's traits), as the oracle's multi-block rows show. Every codec has a
// portable decoder in Go, the one every platform can run: float32
// arithmetic in ggml's order, one rounding per operation, every product
// that is later added or subtracted wrapped in float32(...) so that no
// compiler fuses it into an FMA (arm64 would). Where it pays, a block or
// sub-block first tabulates the values its elements can take (a 4-bit
// codec's 16 products d·q, a grid group's products for the few byte values
// of its grid), each computed by exactly the operations an element would
// use, and each element is then a table read: same operations, same bits.
//
// On amd64 with AVX, AVX2, F16C and FMA (checked once when the package loads:
// the assembly reads the CPUID and XCR0 words, Go decides from them) every codec also has an AVX2 decoder, which Dequantize,
// DequantizeBF16 and the CPU provider use. They are generated, not written
// by hand: internal/asmgen, a separate module built on
// github.com/mmcloughlin/avo (go generate), emits decode_amd64.s and its
// declarations. An AVX2 decoder performs the portable decoder's float32
// operations in the same order (integer to float conversions are exact, one
// VMULPS, VADDPS or VSUBPS per operation, the portable decoder's sign-bit
// flips as XORs), so the two give the same bits, NaN payloads included.
// The one FMA is Q4_K's (d·sc)·q − dmin·m for a block whose dmin is
// finite: with a finite d, d·sc·q is exact in float32 (at most 11 + 6 + 4
// significant bits), so rounding it first, as the portable decoder does,
// changes nothing, and the fused step's one rounding is the difference's;
// with an infinite or NaN d the product is an infinity or a NaN, the same
// one in the FMA as in VMULPS, and a finite min leaves it alone. A block
// with an infinite or NaN dmin takes the two-rounding path, since an
// infinite d·sc times a zero q less a NaN min would give the min's NaN
// where the portable decoder gives the default one (TestQ4KScaleMinEdges
// pairs every edge d with every edge dmin). Where the portable decoder reads a per-block table of
// products (TQ1_0, TQ2_0, Q2_0), the AVX2 decoder builds the same table by
// the same operations and reads it with VPERMPS; where it selects d or -d
// (Q1_0), it blends the two by the element's bit (VBLENDVPS). Bytes are widened to 32-bit
// lanes straight from the packed block (VPMOVZXBD/VPMOVSXBD) or, for
// values assembled 32 bytes at a time, in registers or through a stack
// slot. TestDequantizeOracle runs every oracle case through
// the portable decoders and then through the AVX2 ones, and
// TestAccelMatchesPortable compares them bit for bit on the oracle tables
// and on tables with random scale bits. There is no arm64 assembly: avo
// generates amd64 only, and Go's arm64 assembler has no mnemonics for most
// NEON floating-point vector instructions (they would be hand-encoded
// WORDs, which is the hand-written assembly this package avoids), so arm64
// and every other platform run the portable decoders. The package has no
// cgo.
//
// # Where the behaviour sources disagree
//
// docs/row.md takes the vLLM GGUF plugin's embedding path as the behaviour source
// for 16 codecs, but where the plugin and llama.cpp disagree the
// format-defining llama.cpp value is right, and this package follows
// llama.cpp. One case is known: the plugin's IQ3_S grid, stored at 4x
// scale, holds 62 where llama.cpp's value 15 would be 60. llama.cpp's
// iq3s_grid (testdata/codebooks/iq3s_grid.txt, iq3sGrid here) has the
// value 15 in 150 byte positions (of 512 entries x 4), in 146 entries, so
// at those positions the plugin decodes values 62/60, 3.3% too large (plugin
// issue #129). This package decodes them as llama.cpp does, and its oracle
// vectors come from llama.cpp's decoder.
//
// # Tests that loop over the codecs
//
// A test that checks every codec (or table type) in one function runs each
// in a subtest whose name is the type as gguf.Type prints it, with the
// oracle cases beneath ("Q4_K", "Q4_K/w1"), here, in hipkern and in
// engine, so that one codec runs alone with -run '^TestX$/^Q4_K$': the
// mutation tool can then test a mutant in one codec's decoder with that
// codec's subtests. Such a subtest makes its data from the codec alone (a
// generator seeded by the type, not one shared with the codecs before
// it), checks what holds for all codecs outside the subtests, and gets the
// same verdict alone as in the full run. The scale fields' units are
// pinned literally by TestCodecScaleFields, so that a change to one fails
// here and not only in engine's model hashes and golden logits.
package gather
