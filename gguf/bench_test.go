package gguf

import (
	"fmt"
	"testing"
)

// thousandTensors is a file with 1,000 small tensors and a little metadata,
// the shape of a real model's header without its bulk.
func thousandTensors(b *testing.B) []byte {
	bl := NewBuilder()
	must(b, bl.AddMeta("general.architecture", "llama"))
	must(b, bl.AddMeta("llama.block_count", uint32(250)))
	for i := range 1000 {
		name := fmt.Sprintf("blk.%d.ffn_up.weight", i)
		must(b, bl.AddTensor(name, TypeQ4_0, []uint64{64, 2}, pattern(72, byte(i))))
	}
	return build(b, bl)
}

func BenchmarkOpen1000Tensors(b *testing.B) {
	path := writeFile(b, "1000.gguf", thousandTensors(b))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.tensors) != 1000 {
			b.Fatalf("%d tensors", len(f.tensors))
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse1000Tensors(b *testing.B) {
	data := thousandTensors(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("1000.gguf", data); err != nil {
			b.Fatal(err)
		}
	}
}
