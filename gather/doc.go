// Package gather owns how GGML blocks decode and the Embedding operation.
//
// It holds the codec registry (one bit-exact decoder per block type, keyed by
// gguf.Type, one file per codec family, codebooks in their own file), the
// f32-to-bf16 rounding, the Tensor type, the ordered validation of
// Embedding(out, table, ids), the provider registry keyed by (operation,
// device) with its per-pair statistics, and the CPU providers.
package gather
