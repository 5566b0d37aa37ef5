package gather

import (
	"fmt"
	"sync"

	"gathermut/gguf"
)

//go:generate go run ./internal/gencodebooks -dir ../testdata/codebooks -go codebooks.go -header ../hipkern/codebooks.h -codecs codec.go -codecs-header ../hipkern/codecs.h

// codecFor returns the row of t, or an error naming t.
func codecFor(t gguf.Type) (*Codec, error) {
	tr, known := gguf.FindGgmlTraits(t)
	if !known {
		return nil, fmt.Errorf("gather: unknown ggml type id %d", uint32(t))
	}
	c, ok := codecs[t]
	if !ok {
		return nil, fmt.Errorf("gather: no decoder for ggml type %s (id %d)", tr.Name, uint32(t))
	}
	return c, nil
}

// Dequantize decodes len(out) elements of type t, which must be whole blocks,
// from the front of packed into out; bytes past those blocks are not read.
// It refuses, naming the type, an unknown type id, a type with no decoder
// (F32, Q8_1, ...), an out that is not whole blocks and a packed slice too
// short for them; a refused call writes nothing.
func Dequantize(t gguf.Type, packed []byte, out []float32) error {
	c, err := codecFor(t)
	if err != nil {
		return err
	}
	if err := wholeBlocks(c.Traits, len(packed), len(out)); err != nil {
		return err
	}
	c.decodeRun(packed, out)
	return nil
}

// decodeRun is Dequantize after its checks: out is whole blocks of c and
// packed holds them. The decoder gets exactly those blocks' bytes, so it
// cannot read past them.
func (c *Codec) decodeRun(packed []byte, out []float32) {
	n := len(out) / c.Traits.BlockElems * c.Traits.BlockBytes
	if c.fast != nil {
		c.fast(packed[:n:n], out)
		return
	}
	c.decode(packed[:n:n], out)
}

// DequantizeBF16 decodes len(out) elements of type t like Dequantize and
// rounds each to bf16 with F32ToBF16. It needs one block of scratch, never a
// whole row of floats.
func DequantizeBF16(t gguf.Type, packed []byte, out []uint16) error {
	c, err := codecFor(t)
	if err != nil {
		return err
	}
	if err := wholeBlocks(c.Traits, len(packed), len(out)); err != nil {
		return err
	}
	c.decodeRunBF16(packed, out)
	return nil
}

// decodeRunBF16 is DequantizeBF16 after its checks: out is whole blocks of
// c and packed holds them. It decodes up to bf16Chunk elements at a time
// into a float scratch and rounds them.
func (c *Codec) decodeRunBF16(packed []byte, out []uint16) {
	tr := c.Traits
	scratch := scratchPool.Get().(*[bf16Chunk]float32)
	defer scratchPool.Put(scratch)
	for len(out) != 0 {
		n := min(len(out), bf16Chunk)
		f := scratch[:n]
		c.decodeRun(packed, f)
		for i, v := range f {
			out[i] = F32ToBF16(v)
		}
		packed, out = packed[n/tr.BlockElems*tr.BlockBytes:], out[n:]
	}
}

// bf16Chunk is how many elements DequantizeBF16 decodes at a time: a
// multiple of every codec's BlockElems.
const bf16Chunk = 1024

// scratchPool holds DequantizeBF16's float buffers. A buffer on the stack
// would escape through the indirect decoder call and cost an allocation per
// call.
var scratchPool = sync.Pool{New: func() any { return new([bf16Chunk]float32) }}

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
