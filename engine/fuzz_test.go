package engine

import (
	"bytes"
	"testing"

	"gathermut/gguf"
)

// fuzzHParams is a model small enough for fuzzing: hidden 32 (one Q8_0
// block per row), 2 heads sharing 1 kv head, MLP 16, vocab 8, context 8.
var fuzzHParams = hparams{context: 8, hidden: 32, layers: 1, ffn: 16, heads: 2, kvHeads: 1, headDim: 16,
	ropeDim: 16, vocab: 8, ropeBase: 1e4, rmsEps: 1e-5}

// FuzzLoad feeds parsed GGUF files to the loader and runs any model it
// accepts: malformed metadata, shapes and types must come back as errors,
// never a panic.
func FuzzLoad(f *testing.F) {
	seeds := []func(*modelFile){
		func(*modelFile) {},
		func(m *modelFile) { m.setMeta("llama.block_count", uint32(2)) },
		func(m *modelFile) { m.setMeta("llama.attention.head_count_kv", uint32(2)) },
		func(m *modelFile) { m.dropMeta("llama.rope.dimension_count") },
		func(m *modelFile) {
			m.tensor("output.weight").typ, m.tensor("output.weight").data = gguf.TypeQ8_0, make([]byte, 8*34)
		},
	}
	for _, change := range seeds {
		m, err := buildModel(fuzzHParams, gguf.TypeQ8_0, false)
		if err != nil {
			f.Fatal(err)
		}
		change(m)
		var buf bytes.Buffer
		if err := m.write(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), []byte{1, 0, 7})
	}
	f.Fuzz(func(t *testing.T, data []byte, prompt []byte) {
		file, err := gguf.Parse("fuzz", data)
		if err != nil {
			return
		}
		e, err := build(file, hostMemory{})
		if err != nil {
			file.Close()
			return
		}
		defer e.Close()
		ids := make([]int32, len(prompt))
		for i, b := range prompt {
			ids[i] = int32(int8(b))
		}
		toks, err := e.CompleteTokens(ids, Sampling{MaxTokens: 2, IgnoreEOS: true})
		if err == nil && len(toks) != 2 {
			t.Fatalf("%d tokens without an error", len(toks))
		}
	})
}
