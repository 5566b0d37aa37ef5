// Package engine is a small but real llama-style inference engine: the
// production path through which a user reaches the quantized gather.
//
// It owns Load (read a llama GGUF file, route every tensor through the
// gguf residency policy, assemble the forward pass), CompleteTokens
// (prefill and greedy decoding on pre-tokenized prompts), Residency (what
// each tensor costs in memory), and WriteTestModel, the generator of the
// tiny deterministic test models of docs/row.md and their dense controls.
//
// # Model
//
// Architecture "llama" with the standard GGUF tensor names and llama.*
// metadata keys. Required: general.architecture, llama.context_length,
// llama.embedding_length, llama.block_count, llama.feed_forward_length,
// llama.attention.head_count, llama.attention.layer_norm_rms_epsilon and
// tokenizer.ggml.tokens (its length is the vocabulary). Optional, with
// llama.cpp's defaults: llama.attention.head_count_kv (= head_count),
// llama.rope.freq_base (10000), llama.rope.dimension_count (the head width,
// hidden/head_count), tokenizer.ggml.eos_token_id (none: never stop early).
// Counts may be any GGUF integer type, floats float32 or float64. The file
// must hold exactly the model's tensors: a missing, misshapen or extra
// tensor is refused by name.
//
// The forward pass per token: RMSNorm (x / sqrt(mean(x²) + eps) * gain);
// Q, K, V projections; RoPE on Q and K; grouped-query attention (query head
// h reads key/value head h / (heads/kv_heads)) with scores scaled by
// 1/sqrt(head width), a causal mask and a KV cache; the output projection
// and a residual add; RMSNorm, SwiGLU MLP (silu(gate) * up, then down) and a
// residual add; after the last block a final RMSNorm and the separate
// output head (output.weight).
//
// RoPE uses llama's normal mode, as llama.cpp does for this architecture:
// adjacent pairs (2i, 2i+1) of each head turn by pos * theta_i with
// theta_i = base^(-2i/dim) (the GGUF converter permutes Q and K so that
// this matches the original model); NEOX mode, which pairs i with
// i + dim/2, is not used. Dimensions past llama.rope.dimension_count stay
// as they are.
//
// # Determinism
//
// All arithmetic is float32, one rounding per operation, in a fixed order:
// no goroutines inside the forward pass, every dot product summed in
// element order, and every product that feeds an add wrapped in float32(...)
// so no compiler fuses it into an FMA. The exponential (softmax and SiLU) is
// the package's own expf, built from IEEE operations only, so it has the
// same bits on every platform (Go's math.Exp is assembly on amd64 and
// arm64). Square roots are math.Sqrt, which is correctly rounded. The RoPE
// angles are the only values from Go's transcendental functions: theta_i
// by math.Pow and cos/sin by math.Sincos, in float64, each rounded once to
// float32 and kept in a table; a test checks that nudging every one of the
// tiny model's float64 values by several ulps never changes its float32
// entry, so a different math library cannot change the table there.
// Prefill runs the whole prompt as one batch, but each row's arithmetic is
// identical to a single-token step, so batched and incremental decoding give
// the same bits (tested). Logits are therefore bit-identical across runs,
// across machines, and between a packed table and its bf16 dense control.
// testdata/logits.sha256 pins them: the sha256 of each admitted codec's
// test-model logits for a fixed prompt, made on amd64 (TestGoldenLogits).
// CI runs that test on arm64 too, under qemu-user, where Go fuses an
// unwrapped x*y + z into one FMA, and refuses any FMA instruction in the
// arm64 code of gguf, gather and engine.
//
// # Residency
//
// token_embd.weight has role gguf.EmbeddingTable, every other tensor (norm
// gains included) gguf.MatrixWeight. The capabilities handed to gguf.Route
// are the target device's: CanGather asks gather.CanGather for the
// device's registered providers; CanDot is true for F32, F16 and BF16 only,
// because the engine's matmul has no quantized dot; WantsRepack is false.
// Every tensor kept as stored has its bytes borrowed from the file mapping
// through gguf.OwnQuantBlocks (no copy): so a quantized embedding table
// stays packed, never expanded, and float tensors are used as stored; a
// quantized matrix is refused by OwnQuantBlocks and expanded once at load
// to bf16 (gather.DequantizeBF16), then multiplied from bf16, an exact
// widening. Residency reports each
// tensor's form, type and resident bytes: a packed table is exactly
// vocab * RowSizeBytes(codec, hidden).
//
// # The embed step
//
// Each step looks its token ids up with gather.Embedding (I32 ids, BF16
// output rows [T, hidden]) on the table in place, and widens the rows
// exactly to float32 for the residual stream. That call is the engine's only
// gather and the production call site the mutation catalog deletes. Device
// memory sits behind a small interface (deviceMemory) with two
// implementations: the host, and the GPU through package hipkern.
//
// With Params.Device "gpu", Load first loads the hipkern library (which
// registers the GPU's EmbeddingFloat and EmbeddingQuant providers), routes
// the tensors with the GPU's gather capabilities, and copies the embedding
// table to GPU 0 once, still in its packed blocks. Each embed step copies
// the ids in, runs gather.Embedding on the GPU tensors (served by the GPU's
// provider) and copies the bf16 rows out. The rest of the forward pass
// (norms, attention, MLP, output head) stays on the CPU. Without a usable
// library or GPU, Load fails with hipkern's reason; it never falls back to
// the CPU in silence.
//
// TestProductionReachabilityGPU runs on a real GPU where the kernel library
// loads, else on hipkern's host emulation (through hipkern/hipkerntest; it
// tests this path, not a GPU), else it skips.
//
// # CompleteTokens
//
// The prompt must be non-empty, every id in [0, vocab), and the prompt plus
// MaxTokens must fit the context: a request that does not is refused up
// front, never cut short. Decoding is greedy (the lowest id wins a tie);
// the Logits callback sees, for step k, the logits token k was picked from.
// Generation stops after MaxTokens tokens or after the end-of-sequence token
// (returned as the last token) unless IgnoreEOS. Each call is a fresh
// sequence.
//
// # The test models
//
// WriteTestModel writes docs/row.md's tiny model (one layer, hidden 256, 4 query
// heads, 1 KV head of width 64, MLP 256, vocab 128, context 64, RMS epsilon
// 1e-6, RoPE base 1e6) for each admitted codec, and its dense
// control. A splitmix64 stream seeded 0x524f434d draws, in file order, the
// F32 matrices (uniform on a 2^-29 grid in [-1/64, 1/64), so identical for
// every codec), then every byte of the packed embedding table; each block's
// scale fields are then overwritten with the unit values of its row in
// gather's codec table (powers of two; gather.Codec.SetUnitScales) so every
// value decodes finite with |x| about 1 or less, and Q8_K's block sums are
// set to the true sums. Norm gains are 1. The dense control stores
// that same table decoded by gather.DequantizeBF16 as a BF16 tensor. Files
// are about 1.6 MB; their sha256 sums are in testdata/models.sha256
// (go test ./engine -run TestModelHashes -update rewrites it).
package engine
