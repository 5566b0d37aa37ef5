package gather_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// BenchmarkEmbedding gathers 1k and 64k random ids from a 1024 x 4096 table
// of each admitted codec (and a BF16 table, the dense control) into bf16
// out. SetBytes is the output size, so MB/s is output written.
func BenchmarkEmbedding(b *testing.B) {
	const vocab, hidden = 1024, 4096
	rng := rand.New(rand.NewPCG(0xbe7c4, 1))
	ids64k := make([]int64, 64<<10)
	for i := range ids64k {
		ids64k[i] = int64(rng.IntN(vocab))
	}
	var outBuf []byte // shared, grown once to the largest request
	for _, tt := range append(gather.Admitted(), gguf.TypeBF16) {
		b.Run(tt.String(), func(b *testing.B) {
			var table *gather.Tensor
			for _, n := range []int{1 << 10, 64 << 10} {
				b.Run(fmt.Sprintf("%dk", n>>10), func(b *testing.B) {
					if table == nil {
						data, err := gathertest.RandomTable(rng, tt, vocab, hidden)
						if err != nil {
							b.Fatal(err)
						}
						table = host(tt, data, vocab, hidden)
					}
					size := 2 * n * hidden
					if len(outBuf) < size {
						outBuf = make([]byte, size)
					}
					out := host(gguf.TypeBF16, outBuf[:size], int64(n), hidden)
					ids := host(gguf.TypeI32, gathertest.EncodeIDs(gguf.TypeI32, ids64k[:n]), int64(n))
					b.SetBytes(int64(size))
					b.ResetTimer()
					for range b.N {
						if err := gather.Embedding(out, table, ids); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
