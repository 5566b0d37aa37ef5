// Package gather owns how GGML blocks decode and the Embedding operation.
//
// It holds the codec registry (one bit-exact decoder per block type, keyed by
// gguf.Type, one file per codec family, codebooks in their own file), the
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
// Embedding validates in ROW.md's order: nil arguments first; (1) ranks of
// table, ids, out, then negative dimensions; (2) out shape; (3) ids type;
// (4) table type (an extra codec such as Q4_1 decodes but is "not
// admitted"); (5) out type; (6) whole blocks; (7) contiguity; (8) one
// device, and no empty Device.Kind; then, for host tensors, that Data holds
// out's, table's and ids' bytes, in that order, with int64 overflow checks.
// Each failure is a distinct error prefixed "gather: Embedding: ". The CPU
// providers repeat these checks (they may be called directly through
// Providers), then: an empty request (no ids or zero width) returns nil at
// once, before the vocab and id checks, allocating nothing, even with ids
// that would be out of range; a non-empty request on vocab 0 is refused;
// every id is checked 0 <= id < vocab as int64 (I32 sign-extended, I64
// never truncated) before any row is decoded. So after any refusal out is
// untouched, and the next call works (there is no state). Bad ids are
// reported with IDError (type IDRangeError), at the first bad position.
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
// device kind and an unknown operation. The CPU quant provider supports a
// codec only if it is admitted and has a decoder, so a missing decoder
// makes the init registration panic.
//
// CPU providers: "cpu-quant" decodes each selected row straight from its
// packed bytes, table.Data[id*rowBytes:][:rowBytes], with Dequantize (f32
// out) or DequantizeBF16 (bf16 out) into one row of scratch per goroutine;
// the table is never expanded. "cpu-float" widens F16 and BF16 exactly and
// rounds to bf16 with F32ToBF16; F32 to f32 and BF16 to bf16 copy the row,
// so a BF16 table's NaN payloads (signalling ones too) are kept as stored
// instead of being quieted. Requests of at least 64 rows and 1 MiB of output
// are split into min(GOMAXPROCS, rows) contiguous, even row ranges decoded
// in parallel; smaller ones run serially. Both give identical bytes.
package gather
