package gather

import (
	"fmt"
	"math"
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
// cannot read past them. An output of at least streamMinBytes goes to the
// streaming decoder where there is one.
func (c *Codec) decodeRun(packed []byte, out []float32) {
	if c.stream != nil && int64(len(out))*4 >= streamMinBytes {
		n := len(out) / c.Traits.BlockElems * c.Traits.BlockBytes
		c.stream(packed[:n:n], out)
		return
	}
	c.decodeCached(packed, out)
}

// decodeCached is decodeRun with ordinary stores, whatever the output's
// size: the fast decoder where there is one, else the portable one.
func (c *Codec) decodeCached(packed []byte, out []float32) {
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
		c.decodeCached(packed, f) // the scratch is read back at once: never streamed
		for i, v := range f {
			out[i] = F32ToBF16(v)
		}
		packed, out = packed[n/tr.BlockElems*tr.BlockBytes:], out[n:]
	}
}

// streamMinBytes is the smallest f32 output (in bytes) that Dequantize
// writes with non-temporal stores, where the CPU has a streaming decoder
// (amd64 with AVX2). Such stores bypass the caches: they save reading each
// output line before writing it when the output is larger than the caches
// keep, and cost a trip to memory when it is not. A gather's rows, and
// DequantizeBF16's chunks, are far below any useful threshold. Measured
// (BenchmarkDequantize, a 4 MiB output, -gather.streambytes=1 against -1):
// on an AMD EPYC whose L3 keeps the output, streaming is 2.6 times slower
// (Q8_0 164 against 64 µs); so it is off (math.MaxInt64) until a machine
// where the output leaves the caches shows a gain. The side-by-side kit
// times both kinds of store.
var streamMinBytes int64 = math.MaxInt64

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
