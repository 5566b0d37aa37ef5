package gather

import (
	"fmt"
	"sync"

	"gathermut/gguf"
)

//go:generate go run ./internal/gencodebooks -dir ../testdata/codebooks -go codebooks.go -header ../hipkern/codebooks.h

// blockDecoder decodes one block: len(block) is the codec's BlockBytes and
// len(out) its BlockElems. It reads the block by byte assembly only, so the
// block may start at any address.
type blockDecoder func(block []byte, out []float32)

// decoders is the codec registry: every block type this package can decode.
// It holds the 19 admitted codecs and five extras (Q4_1, Q5_1, IQ1_M, TQ1_0,
// TQ2_0) that have oracle vectors; an extra decodes through Dequantize but
// is not in Admitted until a mutation-catalog entry covers it like the rest.
// Each decoder follows docs/codecs.md: float32 arithmetic in the reference
// order, one rounding per operation, every product that feeds an add or a
// subtraction wrapped in float32(...) so no compiler fuses it into an FMA.
var decoders = map[gguf.Type]blockDecoder{
	gguf.TypeQ4_0:     decodeQ4_0,
	gguf.TypeQ4_1:     decodeQ4_1,
	gguf.TypeQ5_0:     decodeQ5_0,
	gguf.TypeQ5_1:     decodeQ5_1,
	gguf.TypeQ8_0:     decodeQ8_0,
	gguf.TypeQ2_K:     decodeQ2_K,
	gguf.TypeQ3_K:     decodeQ3_K,
	gguf.TypeQ4_K:     decodeQ4_K,
	gguf.TypeQ5_K:     decodeQ5_K,
	gguf.TypeQ6_K:     decodeQ6_K,
	gguf.TypeQ8_K:     decodeQ8_K,
	gguf.TypeIQ2_XXS:  decodeIQ2_XXS,
	gguf.TypeIQ2_XS:   decodeIQ2_XS,
	gguf.TypeIQ3_XXS:  decodeIQ3_XXS,
	gguf.TypeIQ1_S:    decodeIQ1_S,
	gguf.TypeIQ4_NL:   decodeIQ4_NL,
	gguf.TypeIQ3_S:    decodeIQ3_S,
	gguf.TypeIQ2_S:    decodeIQ2_S,
	gguf.TypeIQ4_XS:   decodeIQ4_XS,
	gguf.TypeIQ1_M:    decodeIQ1_M,
	gguf.TypeTQ1_0:    decodeTQ1_0,
	gguf.TypeTQ2_0:    decodeTQ2_0,
	gguf.TypeMXFP4:    decodeMXFP4,
	gguf.TypeIQ1_XXXS: decodeIQ1_XXXS,
}

// admitted lists, in GGML id order, the codecs the EmbeddingQuant provider
// serves (ROW.md, "The 19 admitted codecs"). Codecs that decode but are not
// listed here are extras: Dequantize serves them, Embedding does not.
var admitted = []gguf.Type{
	gguf.TypeQ4_0, gguf.TypeQ5_0, gguf.TypeQ8_0,
	gguf.TypeQ2_K, gguf.TypeQ3_K, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K, gguf.TypeQ8_K,
	gguf.TypeIQ2_XXS, gguf.TypeIQ2_XS, gguf.TypeIQ3_XXS, gguf.TypeIQ1_S, gguf.TypeIQ4_NL,
	gguf.TypeIQ3_S, gguf.TypeIQ2_S, gguf.TypeIQ4_XS, gguf.TypeMXFP4, gguf.TypeIQ1_XXXS,
}

// Admitted returns the codecs the EmbeddingQuant provider serves, in GGML id
// order. The caller owns the returned slice.
func Admitted() []gguf.Type {
	return append([]gguf.Type(nil), admitted...)
}

// Decodes reports whether t has a block decoder (admitted or extra).
func Decodes(t gguf.Type) bool {
	_, ok := decoders[t]
	return ok
}

// codecFor returns the decoder and geometry of t, or an error naming t.
func codecFor(t gguf.Type) (blockDecoder, gguf.Traits, error) {
	tr, known := gguf.FindGgmlTraits(t)
	if !known {
		return nil, gguf.Traits{}, fmt.Errorf("gather: unknown ggml type id %d", uint32(t))
	}
	dec, ok := decoders[t]
	if !ok {
		return nil, gguf.Traits{}, fmt.Errorf("gather: no decoder for ggml type %s (id %d)", tr.Name, uint32(t))
	}
	return dec, tr, nil
}

// Dequantize decodes len(out) elements of type t, which must be whole blocks,
// from the front of packed into out; bytes past those blocks are not read.
// It refuses, naming the type, an unknown type id, a type with no decoder
// (F32, Q8_1, ...), an out that is not whole blocks and a packed slice too
// short for them; a refused call writes nothing.
func Dequantize(t gguf.Type, packed []byte, out []float32) error {
	dec, tr, err := codecFor(t)
	if err != nil {
		return err
	}
	if err := wholeBlocks(tr, len(packed), len(out)); err != nil {
		return err
	}
	decodeBlocks(dec, tr, packed, out)
	return nil
}

// decodeBlocks is Dequantize after its checks: out is whole blocks of tr
// and packed holds them.
func decodeBlocks(dec blockDecoder, tr gguf.Traits, packed []byte, out []float32) {
	blocks := len(out) / tr.BlockElems
	// Full slice expressions cap each block at its own end, so a decoder
	// cannot reach into the next block or past the caller's slices.
	for b := 0; b < blocks; b++ {
		lo, hi := b*tr.BlockBytes, (b+1)*tr.BlockBytes
		elo, ehi := b*tr.BlockElems, (b+1)*tr.BlockElems
		dec(packed[lo:hi:hi], out[elo:ehi:ehi])
	}
}

// DequantizeBF16 decodes len(out) elements of type t like Dequantize and
// rounds each to bf16 with F32ToBF16. It needs one block of scratch, never a
// whole row of floats.
func DequantizeBF16(t gguf.Type, packed []byte, out []uint16) error {
	dec, tr, err := codecFor(t)
	if err != nil {
		return err
	}
	if err := wholeBlocks(tr, len(packed), len(out)); err != nil {
		return err
	}
	decodeBlocksBF16(dec, tr, packed, out)
	return nil
}

// decodeBlocksBF16 is DequantizeBF16 after its checks: out is whole blocks
// of tr and packed holds them.
func decodeBlocksBF16(dec blockDecoder, tr gguf.Traits, packed []byte, out []uint16) {
	blocks := len(out) / tr.BlockElems
	scratch := scratchPool.Get().(*[maxBlockElems]float32)
	defer scratchPool.Put(scratch)
	f := scratch[:tr.BlockElems]
	for b := 0; b < blocks; b++ {
		lo, hi := b*tr.BlockBytes, (b+1)*tr.BlockBytes
		dec(packed[lo:hi:hi], f)
		o := out[b*tr.BlockElems : (b+1)*tr.BlockElems]
		for i, v := range f {
			o[i] = F32ToBF16(v)
		}
	}
}

// maxBlockElems is the largest BlockElems of any codec with a decoder.
const maxBlockElems = 256

// scratchPool holds DequantizeBF16's one-block float buffers. A buffer on
// the stack would escape through the indirect decoder call and cost an
// allocation per call.
var scratchPool = sync.Pool{New: func() any { return new([maxBlockElems]float32) }}

// wholeBlocks checks that n elements are whole blocks of tr and that
// packedLen bytes hold them.
func wholeBlocks(tr gguf.Traits, packedLen, n int) error {
	if n%tr.BlockElems != 0 {
		return fmt.Errorf("gather: %s: %d output elements are not whole blocks of %d", tr.Name, n, tr.BlockElems)
	}
	if need := n / tr.BlockElems * tr.BlockBytes; packedLen < need {
		return fmt.Errorf("gather: %s: %d elements need %d packed bytes, have %d", tr.Name, n, need, packedLen)
	}
	return nil
}
