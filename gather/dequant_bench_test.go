package gather

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDequantize decodes one 4096-element row of random blocks per
// iteration for every decoder; throughput is in output f32 bytes.
func BenchmarkDequantize(b *testing.B) {
	const cols = 4096
	for _, c := range codecGeometry {
		rng := rand.New(rand.NewPCG(1, uint64(c.Type)))
		packed := make([]byte, cols/c.Traits.BlockElems*c.Traits.BlockBytes)
		for i := range packed {
			packed[i] = byte(rng.Uint32())
		}
		out := make([]float32, cols)
		b.Run(c.Traits.Name, func(b *testing.B) {
			b.SetBytes(4 * cols)
			b.ReportAllocs()
			for b.Loop() {
				if err := Dequantize(c.Type, packed, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDequantizeBF16 is BenchmarkDequantize with bf16 output; the
// throughput is still counted in f32 bytes so the two compare directly.
func BenchmarkDequantizeBF16(b *testing.B) {
	const cols = 4096
	for _, c := range codecGeometry {
		rng := rand.New(rand.NewPCG(1, uint64(c.Type)))
		packed := make([]byte, cols/c.Traits.BlockElems*c.Traits.BlockBytes)
		for i := range packed {
			packed[i] = byte(rng.Uint32())
		}
		out := make([]uint16, cols)
		b.Run(c.Traits.Name, func(b *testing.B) {
			b.SetBytes(4 * cols)
			b.ReportAllocs()
			for b.Loop() {
				if err := DequantizeBF16(c.Type, packed, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
