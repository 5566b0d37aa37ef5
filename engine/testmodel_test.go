package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// Helpers that build broken variants of the tiny model for loader tests.

func testModel(t testing.TB, codec gguf.Type, dense bool) *modelFile {
	t.Helper()
	f, err := buildTestModel(codec, dense)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *modelFile) setMeta(key string, v any) {
	for i := range f.meta {
		if f.meta[i].key == key {
			f.meta[i].value = v
			return
		}
	}
	f.meta = append(f.meta, metaEntry{key, v})
}

func (f *modelFile) dropMeta(key string) {
	f.meta = slices.DeleteFunc(f.meta, func(m metaEntry) bool { return m.key == key })
}

func (f *modelFile) tensor(name string) *tensorEntry {
	for i := range f.tensors {
		if f.tensors[i].name == name {
			return &f.tensors[i]
		}
	}
	panic("no tensor " + name)
}

func (f *modelFile) dropTensor(name string) {
	f.tensors = slices.DeleteFunc(f.tensors, func(t tensorEntry) bool { return t.name == name })
}

func writeModelFile(t testing.TB, f *modelFile) string {
	t.Helper()
	var buf bytes.Buffer
	if err := f.write(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSplitMix64(t *testing.T) {
	// Vigna's reference outputs for seed 0.
	s := splitMix64{}
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := s.next(); got != want {
			t.Fatalf("draw %d = %#x, want %#x", i, got, want)
		}
	}
	// fill takes eight bytes per draw, low byte first, and a tail of a draw.
	a, b := splitMix64{state: 5}, splitMix64{state: 5}
	buf := make([]byte, 11)
	a.fill(buf)
	v0, v1 := b.next(), b.next()
	var want [16]byte
	binary.LittleEndian.PutUint64(want[:], v0)
	binary.LittleEndian.PutUint64(want[8:], v1)
	if !bytes.Equal(buf, want[:11]) {
		t.Errorf("fill = %x, want %x", buf, want[:11])
	}
	// It draws exactly once per eight bytes or part of them.
	for _, n := range []int{0, 1, 8, 11, 16} {
		a, b := splitMix64{state: 9}, splitMix64{state: 9}
		a.fill(make([]byte, n))
		for range (n + 7) / 8 {
			b.next()
		}
		if a.next() != b.next() {
			t.Errorf("fill of %d bytes does not take %d draws", n, (n+7)/8)
		}
	}
}

func TestWeightRange(t *testing.T) {
	s := splitMix64{state: TestModelSeed}
	var lo, hi float32
	for range 100000 {
		w := s.weight()
		if w < -1.0/64 || w >= 1.0/64 {
			t.Fatalf("weight %v outside [-1/64, 1/64)", w)
		}
		if q := float64(w) * (1 << 29); q != math.Trunc(q) {
			t.Fatalf("weight %v is not on the 2^-29 grid", w)
		}
		lo, hi = min(lo, w), max(hi, w)
	}
	// The draws span the range: both ends are approached.
	if lo > -0.0156 || hi < 0.0156 {
		t.Errorf("weights span [%v, %v], want close to [-1/64, 1/64)", lo, hi)
	}
}

func TestTestVocab(t *testing.T) {
	tokens, scores, types := testVocab(128)
	seen := map[string]bool{}
	for _, s := range tokens {
		if seen[s] {
			t.Fatalf("token %q repeats", s)
		}
		seen[s] = true
	}
	if len(seen) != 128 {
		t.Fatalf("%d distinct tokens, want 128", len(seen))
	}
	want := []struct {
		id    int
		tok   string
		score float32
		typ   int32
	}{
		{0, "<unk>", 0, 2}, {1, "<s>", 0, 3}, {2, "</s>", 0, 3},
		{3, "tok003", -1, 1}, {64, "tok064", -62, 1}, {127, "tok127", -125, 1},
	}
	for _, w := range want {
		if tokens[w.id] != w.tok || scores[w.id] != w.score || types[w.id] != w.typ {
			t.Errorf("token %d = %q score %v type %d, want %q %v %d", w.id, tokens[w.id], scores[w.id], types[w.id], w.tok, w.score, w.typ)
		}
	}
}

// TestFixScales: the test model's scales are the admitted codec rows' unit
// values (gather's TestSetUnitScales checks what they decode to), and a
// codec that is not admitted or a table that is not whole blocks is
// refused.
func TestFixScales(t *testing.T) {
	for _, codec := range gather.Admitted() {
		t.Run(codec.String(), func(t *testing.T) {
			c, _ := gather.CodecOf(codec)
			packed := make([]byte, 3*c.Traits.BlockBytes)
			rng := splitMix64{state: uint64(codec)}
			rng.fill(packed)
			want := append([]byte(nil), packed...)
			if err := c.SetUnitScales(want); err != nil {
				t.Fatalf("%v: %v", codec, err)
			}
			if err := fixScales(codec, packed); err != nil {
				t.Fatalf("%v: %v", codec, err)
			}
			if !bytes.Equal(packed, want) {
				t.Errorf("%v: fixScales differs from the row's SetUnitScales", codec)
			}
		})
	}
	for _, c := range []struct {
		codec gguf.Type
		n     int
		want  string
	}{
		{gguf.TypeQ4_1, 20, "codec Q4_1 is not one of the admitted codecs"},
		{gguf.TypeF32, 4, "codec F32 is not one of the admitted codecs"},
		{gguf.TypeQ4_0, 19, "gather: Q4_0: 19 bytes are not whole blocks of 18"},
	} {
		if err := fixScales(c.codec, make([]byte, c.n)); err == nil || err.Error() != c.want {
			t.Errorf("fixScales(%v, %d bytes) error = %v, want %s", c.codec, c.n, err, c.want)
		}
	}
}

// TestWriteTestModel reads a generated pair back: the metadata a llama
// reader needs, only the embedding table quantized, dense weights on the
// [-1/64, 1/64) grid, norms 1, the dense control holding the packed table
// decoded to bf16, and every other tensor byte-identical between the arms
// and across codecs.
func TestWriteTestModel(t *testing.T) {
	open := func(codec gguf.Type, dense bool) *gguf.File {
		var buf bytes.Buffer
		if err := WriteTestModel(&buf, codec, dense); err != nil {
			t.Fatal(err)
		}
		f, err := gguf.Parse("test", buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	packed, dense, other := open(gguf.TypeQ4_K, false), open(gguf.TypeQ4_K, true), open(gguf.TypeIQ2_S, false)
	meta := []struct {
		key  string
		want any
	}{
		{"general.architecture", "llama"},
		{"general.name", "gathermut tiny llama Q4_K packed"},
		{"general.alignment", uint32(32)},
		{"llama.context_length", uint32(64)},
		{"llama.embedding_length", uint32(256)},
		{"llama.block_count", uint32(1)},
		{"llama.feed_forward_length", uint32(256)},
		{"llama.attention.head_count", uint32(4)},
		{"llama.attention.head_count_kv", uint32(1)},
		{"llama.rope.freq_base", float32(1e6)},
		{"llama.rope.dimension_count", uint32(64)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-6)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.unknown_token_id", uint32(0)},
		{"tokenizer.ggml.bos_token_id", uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(2)},
	}
	for _, m := range meta {
		if got, _ := packed.Meta(m.key); got != m.want {
			t.Errorf("%s = %#v, want %#v", m.key, got, m.want)
		}
	}
	if got, _ := dense.Meta("general.name"); got != "gathermut tiny llama Q4_K dense" {
		t.Errorf("dense general.name = %v", got)
	}
	toks, _ := packed.Meta("tokenizer.ggml.tokens")
	scores, _ := packed.Meta("tokenizer.ggml.scores")
	types, _ := packed.Meta("tokenizer.ggml.token_type")
	for _, arr := range []any{toks, scores, types} {
		if a, ok := arr.([]any); !ok || len(a) != 128 {
			t.Fatalf("tokenizer array %T of %d, want 128 elements", arr, len(a))
		}
	}
	if toks.([]any)[2] != "</s>" || scores.([]any)[5] != float32(-3) || types.([]any)[1] != int32(3) {
		t.Errorf("tokenizer arrays: %v %v %v", toks.([]any)[2], scores.([]any)[5], types.([]any)[1])
	}
	specs := tinyModelHParams.tensorSpecs()
	if len(packed.Tensors()) != len(specs) {
		t.Fatalf("%d tensors, want %d", len(packed.Tensors()), len(specs))
	}
	for i, s := range specs {
		p, d, o := packed.Tensors()[i], dense.Tensors()[i], other.Tensors()[i]
		if p.Name != s.name || !slices.Equal(p.Dims, s.dims) {
			t.Fatalf("tensor %d = %s %v, want %s %v", i, p.Name, p.Dims, s.name, s.dims)
		}
		if s.name == embeddingTensor {
			continue
		}
		if p.Type != gguf.TypeF32 || !bytes.Equal(p.Data, d.Data) || !bytes.Equal(p.Data, o.Data) {
			t.Errorf("%s: type %v, or bytes differ between arms or codecs", s.name, p.Type)
		}
		for j := 0; j < len(p.Data); j += 4 {
			v := math.Float32frombits(binary.LittleEndian.Uint32(p.Data[j:]))
			if len(s.dims) == 1 && v != 1 || len(s.dims) == 2 && (v < -1.0/64 || v >= 1.0/64) {
				t.Fatalf("%s[%d] = %v", s.name, j/4, v)
			}
		}
	}
	// The dense weights are random, not constant: the first few differ.
	q, _ := packed.Tensor("blk.0.attn_q.weight")
	if bytes.Equal(q.Data[:4], q.Data[4:8]) || bytes.Equal(q.Data[:4], make([]byte, 4)) {
		t.Errorf("attn_q starts %x: not random", q.Data[:8])
	}
	pt, _ := packed.Tensor(embeddingTensor)
	dt, _ := dense.Tensor(embeddingTensor)
	if pt.Type != gguf.TypeQ4_K || len(pt.Data) != 128*144 || dt.Type != gguf.TypeBF16 || len(dt.Data) != 128*256*2 {
		t.Fatalf("tables: %v %d bytes, %v %d bytes", pt.Type, len(pt.Data), dt.Type, len(dt.Data))
	}
	bf := make([]uint16, 128*256)
	if err := gather.DequantizeBF16(gguf.TypeQ4_K, pt.Data, bf); err != nil {
		t.Fatal(err)
	}
	for i, h := range bf {
		if got := binary.LittleEndian.Uint16(dt.Data[2*i:]); got != h {
			t.Fatalf("dense table[%d] = %#04x, want %#04x", i, got, h)
		}
	}
	// The payload is random, not left zero.
	if bytes.Count(pt.Data, []byte{0}) > len(pt.Data)/32 {
		t.Errorf("packed table has %d zero bytes of %d", bytes.Count(pt.Data, []byte{0}), len(pt.Data))
	}
	var buf bytes.Buffer
	if err := WriteTestModel(&buf, gguf.TypeQ4_1, false); err == nil || err.Error() != "engine: test model: codec Q4_1 is not one of the admitted codecs" {
		t.Errorf("WriteTestModel(Q4_1) error = %v", err)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestTestModelErrors: the generator refuses, with the builder's reason, a
// model it cannot write, a width that is not whole blocks of the codec, and
// (WriteTestModel, writing nothing) a type that is not an admitted codec:
// an extra codec gather decodes but does not serve, a float type, an
// unknown id.
func TestTestModelErrors(t *testing.T) {
	tests := []struct {
		name string
		f    modelFile
		w    io.Writer
		want string
	}{
		{"duplicate key", modelFile{meta: []metaEntry{{"a", uint32(1)}, {"a", uint32(2)}}}, io.Discard,
			`engine: test model: gguf: builder: key "a": duplicate key`},
		{"short tensor", modelFile{tensors: []tensorEntry{{"t", gguf.TypeF32, []uint64{1}, make([]byte, 3)}}}, io.Discard,
			`engine: test model: gguf: builder: tensor "t": 3 bytes of data, want 4 for F32 dims [1]`},
		{"failing writer", modelFile{meta: []metaEntry{{"a", uint32(1)}}}, failingWriter{},
			`engine: test model: gguf: builder: write: disk full`},
	}
	for _, tt := range tests {
		if err := tt.f.write(tt.w); errText(err) != tt.want {
			t.Errorf("%s: write error %v, want %q", tt.name, err, tt.want)
		}
	}
	hp := tinyModelHParams
	hp.hidden, hp.headDim, hp.ropeDim, hp.ffn = 128, 32, 32, 128
	if f, err := buildModel(hp, gguf.TypeQ4_K, false); f != nil || errText(err) != "engine: test model: gguf: Q4_K row of 128 elements is not whole blocks of 256" {
		t.Errorf("Q4_K model of width 128: %v, %v", f, err)
	}
	// Admission is checked first: an extra codec whose blocks the width
	// does not fill either is refused for what it is, not for the width.
	for _, codec := range []gguf.Type{gguf.TypeIQ1_M, gguf.TypeTQ1_0} {
		want := "engine: test model: codec " + codec.String() + " is not one of the admitted codecs"
		if f, err := buildModel(hp, codec, false); f != nil || errText(err) != want {
			t.Errorf("%v model of width 128: %v, %v; want %q", codec, f, err, want)
		}
	}
	for _, codec := range []gguf.Type{gguf.TypeQ4_1, gguf.TypeIQ1_M, gguf.TypeTQ2_0, gguf.TypeF32, gguf.TypeBF16, 99} {
		for _, dense := range []bool{false, true} {
			var buf bytes.Buffer
			err := WriteTestModel(&buf, codec, dense)
			if want := "engine: test model: codec " + codec.String() + " is not one of the admitted codecs"; errText(err) != want || buf.Len() != 0 {
				t.Errorf("WriteTestModel(%v, dense %v): %d bytes, error %v; want none and %q", codec, dense, buf.Len(), err, want)
			}
		}
	}
}
