package hipkern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// gpuEdgeScales are the scale bits TestGPUScaleEdges writes, by encoding:
// zeros, the smallest subnormals, infinities, and quiet and signalling NaNs
// (with and without a payload), each with the sign bit clear and set.
// gathertest.WithEdges has no NaN or infinite scale, the oracle no NaN
// with the sign bit set.
var gpuEdgeScales = map[gather.ScaleEncoding][]uint32{
	gather.ScaleF16: {0x0000, 0x8000, 0x0001, 0x8001, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d00, 0xfd00, 0x7e2a, 0xfe2a},
	gather.ScaleF32: {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00000, 0x7fa00000, 0xffa00000, 0x7fc54000, 0xffc54000},
	gather.ScaleE8M0:  {0x00, 0x01, 0xfe, 0xff},
	gather.ScaleUE4M3: {0x00, 0x7f, 0x80, 0xff, 0x01, 0xfe},
}

// edgeScaleTable returns a table of typ with one block a row, 12 rows of
// random payload whose scale field i in row k holds edge k+5i of its
// encoding's list (IQ1_M's nibble-spread field counts as binary16).
func edgeScaleTable(t *testing.T, rng *rand.Rand, typ gguf.Type) ([]byte, int64, int64) {
	t.Helper()
	c, ok := gather.CodecOf(typ)
	if !ok {
		t.Fatalf("no codec for %v", typ)
	}
	const rows = 12
	bb := c.Traits.BlockBytes
	table := make([]byte, rows*bb)
	for i := range table {
		table[i] = byte(rng.Uint32())
	}
	for k := range rows {
		for i, f := range c.Scales {
			edges, ok := gpuEdgeScales[f.Encoding]
			if !ok {
				edges = gpuEdgeScales[gather.ScaleF16]
			}
			if err := f.Put(table[k*bb:(k+1)*bb], edges[(k+5*i)%len(edges)]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return table, rows, int64(c.Traits.BlockElems)
}

// TestGPUScaleEdges (NaN and signed-zero handling, kernel side): every
// admitted codec's rows with zero, subnormal, infinite and NaN scales of
// both signs, gathered on the GPU (or the host emulation: a mutant of the
// kernel is judged there on a machine without a GPU), last row first, with
// I32 and I64 ids, to f32 and bf16, give the CPU provider's bytes, which
// TestScaleSignRule and the oracle pin: bit for bit (signed zeros,
// subnormal products, infinities), except that a NaN matches any NaN, the
// kernel's documented contract (decoders.h, gm_scale and gm_nan_kept: on
// the GPU a product with a NaN is the machine's NaN). Nothing after out is
// written.
func TestGPUScaleEdges(t *testing.T) {
	needGPU(t)
	rng := rand.New(rand.NewPCG(36, 5))
	for _, typ := range gather.Admitted() {
		t.Run(typ.String(), func(t *testing.T) {
			table, vocab, hidden := edgeScaleTable(t, rng, typ)
			var ids []int64
			for r := vocab - 1; r >= 0; r-- {
				ids = append(ids, r)
			}
			tp := upload(t, gpu0, table, 0)
			for _, idType := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
				idBytes := encodeIDs(idType, ids)
				ip := upload(t, gpu0, idBytes, 0)
				for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
					what := fmt.Sprintf("%v ids, %v out", idType, outType)
					want := cpuGather(t, typ, vocab, hidden, table, idType, idBytes, outType)
					got, tail, err := gpuRun(t, gpu0, typ, vocab, hidden, tp, idType, ip, int64(len(ids)), outType, 0)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if d := diffOracle(got, want, outSize(outType)); d != "" {
						t.Fatalf("%s: GPU differs from CPU: %s", what, d)
					}
					checkGuard(t, tail, what)
				}
			}
		})
	}
}
