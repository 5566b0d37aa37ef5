package engine

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"gathermut/gather"
	"gathermut/gguf"
)

// TestModelSeed seeds the generator of the tiny test model (docs/row.md).
const TestModelSeed = 0x524f434d

// tinyModelHParams is the tiny model of docs/row.md: one layer, hidden 256, 4
// query heads sharing 1 key/value head of width 64, MLP 256, vocab 128,
// context 64, RMS epsilon 1e-6, RoPE base 1e6 over the whole head.
var tinyModelHParams = hparams{
	context: 64, hidden: 256, layers: 1, ffn: 256, heads: 4, kvHeads: 1, headDim: 64,
	ropeDim: 64, vocab: 128, ropeBase: 1e6, rmsEps: 1e-6,
}

// metaEntry and tensorEntry are one metadata pair and one tensor of a model
// file, in file order. modelFile is the whole file before it is written, so
// tests can change one thing and write a broken variant.
type metaEntry struct {
	key   string
	value any
}

type tensorEntry struct {
	name string
	typ  gguf.Type
	dims []uint64
	data []byte
}

type modelFile struct {
	meta    []metaEntry
	tensors []tensorEntry
}

// write builds the GGUF bytes with the gguf Builder.
func (f *modelFile) write(w io.Writer) error {
	b := gguf.NewBuilder()
	for _, m := range f.meta {
		if err := b.AddMeta(m.key, m.value); err != nil {
			return fmt.Errorf("engine: test model: %w", err)
		}
	}
	for _, t := range f.tensors {
		if err := b.AddTensor(t.name, t.typ, t.dims, t.data); err != nil {
			return fmt.Errorf("engine: test model: %w", err)
		}
	}
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("engine: test model: %w", err)
	}
	return nil
}

// WriteTestModel writes the tiny llama model of docs/row.md for one admitted
// codec, deterministically (the same bytes on every call and platform).
// Only token_embd.weight is quantized: random payload bytes with fixed valid
// scale fields. With dense set it writes the control instead: the same table
// decoded with gather.DequantizeBF16 and stored as a BF16 tensor; every
// other byte of the two files' tensors is the same.
func WriteTestModel(w io.Writer, codec gguf.Type, dense bool) error {
	f, err := buildTestModel(codec, dense)
	if err != nil {
		return err
	}
	return f.write(w)
}

// buildTestModel assembles the tiny model. The generator's splitmix64 stream
// (seed TestModelSeed) first draws the dense matrices in file order, each
// element a uniform value in [-1/64, 1/64), then the embedding table's bytes;
// so the dense weights are the same for every codec. Norm gains are 1.
func buildTestModel(codec gguf.Type, dense bool) (*modelFile, error) {
	return buildModel(tinyModelHParams, codec, dense)
}

// buildModel is buildTestModel for any hyperparameters whose hidden width
// is whole blocks of codec (tests use smaller models too).
func buildModel(hp hparams, codec gguf.Type, dense bool) (*modelFile, error) {
	if c, ok := gather.CodecOf(codec); !ok || !c.Admitted {
		return nil, fmt.Errorf("engine: test model: codec %v is not one of the admitted codecs", codec)
	}
	rng := splitMix64{state: TestModelSeed}
	specs := hp.tensorSpecs()
	f := &modelFile{meta: testModelMeta(hp, codec, dense)}
	for _, s := range specs {
		t := tensorEntry{name: s.name, typ: gguf.TypeF32, dims: s.dims}
		switch {
		case s.role == gguf.EmbeddingTable:
			// filled below, after the matrices
		case len(s.dims) == 1:
			t.data = f32Bytes(elementCount(s.dims), func() float32 { return 1 })
		default:
			t.data = f32Bytes(elementCount(s.dims), rng.weight)
		}
		f.tensors = append(f.tensors, t)
	}
	rowBytes, err := gguf.RowSizeBytes(codec, int64(hp.hidden))
	if err != nil {
		return nil, fmt.Errorf("engine: test model: %w", err)
	}
	packed := make([]byte, int(rowBytes)*hp.vocab)
	rng.fill(packed)
	// fixScales and the decode below cannot fail here: codec is admitted
	// (checked first), so it has a row and decodes, and packed is whole
	// rows of it.
	//gathermut:equivalent(branch-if) unreachable: codec is admitted and packed is whole blocks (see above)
	if err := fixScales(codec, packed); err != nil {
		return nil, fmt.Errorf("engine: test model: %w", err) //gathermut:equivalent(zero-return) unreachable (see above)
	}
	table := &f.tensors[0]
	table.typ, table.data = codec, packed
	if dense {
		bf := make([]uint16, hp.vocab*hp.hidden)
		//gathermut:equivalent(branch-if) unreachable: an admitted codec decodes, and bf has the elements of packed (see above)
		if err := gather.DequantizeBF16(codec, packed, bf); err != nil {
			return nil, fmt.Errorf("engine: test model: %w", err) //gathermut:equivalent(zero-return) unreachable (see above)
		}
		table.typ, table.data = gguf.TypeBF16, make([]byte, 2*len(bf))
		for i, h := range bf {
			binary.LittleEndian.PutUint16(table.data[2*i:], h)
		}
	}
	return f, nil
}

// elementCount is the element count of dims.
func elementCount(dims []uint64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

// f32Bytes encodes n values drawn from next as little-endian float32.
func f32Bytes(n int, next func() float32) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(next()))
	}
	return b
}

// testModelMeta is the tiny model's metadata, llama keys as llama.cpp reads
// them (counts uint32, rope base and epsilon float32).
func testModelMeta(hp hparams, codec gguf.Type, dense bool) []metaEntry {
	arm := "packed"
	if dense {
		arm = "dense"
	}
	tokens, scores, types := testVocab(hp.vocab)
	return []metaEntry{
		{"general.architecture", "llama"},
		{"general.name", fmt.Sprintf("gathermut tiny llama %v %s", codec, arm)},
		{"general.alignment", uint32(32)},
		{"llama.context_length", uint32(hp.context)},
		{"llama.embedding_length", uint32(hp.hidden)},
		{"llama.block_count", uint32(hp.layers)},
		{"llama.feed_forward_length", uint32(hp.ffn)},
		{"llama.attention.head_count", uint32(hp.heads)},
		{"llama.attention.head_count_kv", uint32(hp.kvHeads)},
		{"llama.rope.freq_base", hp.ropeBase},
		{"llama.rope.dimension_count", uint32(hp.ropeDim)},
		{"llama.attention.layer_norm_rms_epsilon", hp.rmsEps},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(unkToken)},
		{"tokenizer.ggml.bos_token_id", uint32(bosToken)},
		{"tokenizer.ggml.eos_token_id", uint32(eosToken)},
	}
}
