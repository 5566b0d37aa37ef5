package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"gathermut/gather"
	"gathermut/gguf"
	"gathermut/hipkern"
)

func mustLoad(t testing.TB, path string) *Engine {
	t.Helper()
	e, err := Load(Params{ModelPath: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// complete runs a prompt and returns the tokens and each step's logits.
func complete(t testing.TB, e *Engine, prompt []int32, s Sampling) ([]int32, [][]float32) {
	t.Helper()
	var steps [][]float32
	s.Logits = func(step int, l []float32) { steps = append(steps, append([]float32(nil), l...)) }
	toks, err := e.CompleteTokens(prompt, s)
	if err != nil {
		t.Fatal(err)
	}
	return toks, steps
}

func sameBits(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Float32bits(a[i][j]) != math.Float32bits(b[i][j]) {
				return false
			}
		}
	}
	return true
}

var basePrompt = []int32{1, 0, 63, 127, 63}

// TestLoadKeepsQ8KEmbeddingPacked: a Q8_K token embedding stays packed, its
// resident bytes are the file's tensor bytes themselves (borrowed from the
// mapping, not a copy), and the materializer keeps it as an embedding table.
func TestLoadKeepsQ8KEmbeddingPacked(t *testing.T) {
	path := writeModelFile(t, testModel(t, gguf.TypeQ8_K, false))
	e := mustLoad(t, path)
	want := TensorResidency{Packed: true, Type: gguf.TypeQ8_K, Bytes: 128 * 292}
	if got := e.Residency()[embeddingTensor]; got != want {
		t.Fatalf("residency %+v, want %+v", got, want)
	}
	info, _ := e.file.Tensor(embeddingTensor)
	if len(e.table.Data) != len(info.Data) || unsafe.SliceData(e.table.Data) != unsafe.SliceData(info.Data) {
		t.Fatalf("resident table (%d bytes) is not the mapped tensor bytes (%d bytes)", len(e.table.Data), len(info.Data))
	}
	if e.table.Type != gguf.TypeQ8_K || !slices.Equal(e.table.Shape, []int64{128, 256}) || e.table.Device != gather.Host {
		t.Errorf("table tensor %v %v on %v", e.table.Type, e.table.Shape, e.table.Device)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, e.table.Data) {
		t.Error("resident table bytes are not the file's bytes")
	}
	caps := capabilities{device: gather.CPU}
	qb, err := gguf.OwnQuantBlocks(info, gguf.EmbeddingTable, caps)
	if err != nil || !qb.Borrowed || qb.Repacked || unsafe.SliceData(qb.Data) != unsafe.SliceData(info.Data) {
		t.Errorf("OwnQuantBlocks(embedding) = borrowed %v repacked %v, %v", qb.Borrowed, qb.Repacked, err)
	}
	if _, err := gguf.OwnQuantBlocks(info, gguf.MatrixWeight, caps); err == nil {
		t.Error("OwnQuantBlocks kept a Q8_K table as a matrix, which the engine cannot multiply")
	}
	if toks, _ := complete(t, e, basePrompt, Sampling{MaxTokens: 2, IgnoreEOS: true}); len(toks) != 2 {
		t.Errorf("got %d tokens", len(toks))
	}
}

// q8KMatrix replaces output.weight with random Q8_K blocks and returns the
// bytes; withBF16 stores their bf16 decode instead (the expanded form).
func q8KMatrix(t *testing.T, f *modelFile, asBF16 bool) []byte {
	t.Helper()
	out := f.tensor("output.weight")
	packed := make([]byte, 128*292)
	rng := splitMix64{state: 11}
	rng.fill(packed)
	if err := fixScales(gguf.TypeQ8_K, packed); err != nil {
		t.Fatal(err)
	}
	out.typ, out.data = gguf.TypeQ8_K, packed
	if asBF16 {
		bf := make([]uint16, 128*256)
		if err := gather.DequantizeBF16(gguf.TypeQ8_K, packed, bf); err != nil {
			t.Fatal(err)
		}
		out.typ, out.data = gguf.TypeBF16, make([]byte, 2*len(bf))
		for i, h := range bf {
			binary.LittleEndian.PutUint16(out.data[2*i:], h)
		}
	}
	return packed
}

// TestLoadExpandsQ8KMatrix: a Q8_K output.weight is refused by the
// materializer as a matrix and expanded once to bf16 by the loader; the
// model then runs, with the logits of a file that stores that bf16 decode.
func TestLoadExpandsQ8KMatrix(t *testing.T) {
	f := testModel(t, gguf.TypeQ4_0, false)
	q8KMatrix(t, f, false)
	path := writeModelFile(t, f)
	e := mustLoad(t, path)
	info, _ := e.file.Tensor("output.weight")
	if _, err := gguf.OwnQuantBlocks(info, gguf.MatrixWeight, capabilities{device: gather.CPU}); err == nil {
		t.Fatal("OwnQuantBlocks kept a Q8_K matrix packed")
	}
	want := TensorResidency{Packed: false, Type: gguf.TypeBF16, Bytes: 128 * 256 * 2}
	if got := e.Residency()["output.weight"]; got != want {
		t.Fatalf("output.weight residency %+v, want %+v", got, want)
	}
	if e.model.output.typ != gguf.TypeBF16 {
		t.Errorf("output weights are %v", e.model.output.typ)
	}
	toks, logits := complete(t, e, basePrompt, Sampling{MaxTokens: 4, IgnoreEOS: true})

	g := testModel(t, gguf.TypeQ4_0, false)
	q8KMatrix(t, g, true)
	ref := mustLoad(t, writeModelFile(t, g))
	if got := ref.Residency()["output.weight"]; got != (TensorResidency{Packed: true, Type: gguf.TypeBF16, Bytes: 128 * 256 * 2}) {
		t.Fatalf("stored bf16 output.weight residency %+v", got)
	}
	refToks, refLogits := complete(t, ref, basePrompt, Sampling{MaxTokens: 4, IgnoreEOS: true})
	if !slices.Equal(toks, refToks) || !sameBits(logits, refLogits) {
		t.Errorf("expanded Q8_K matrix: tokens %v, stored bf16: %v (or logits differ)", toks, refToks)
	}
	// Every other tensor stayed as stored.
	for name, r := range e.Residency() {
		if name != "output.weight" && !r.Packed {
			t.Errorf("%s was expanded", name)
		}
	}
}

// TestLoadResidency: every tensor of the tiny model is reported, the floats
// as stored with their byte sizes.
func TestLoadResidency(t *testing.T) {
	e := mustLoad(t, writeModelFile(t, testModel(t, gguf.TypeQ6_K, false)))
	res := e.Residency()
	specs := tinyModelHParams.tensorSpecs()
	if len(res) != len(specs) {
		t.Fatalf("%d tensors reported, want %d", len(res), len(specs))
	}
	for _, s := range specs {
		want := TensorResidency{Packed: true, Type: gguf.TypeF32, Bytes: int64(4 * elementCount(s.dims))}
		if s.name == embeddingTensor {
			want = TensorResidency{Packed: true, Type: gguf.TypeQ6_K, Bytes: 128 * 210}
		}
		if res[s.name] != want {
			t.Errorf("%s: %+v, want %+v", s.name, res[s.name], want)
		}
	}
	// The map is the caller's.
	delete(res, embeddingTensor)
	if _, ok := e.Residency()[embeddingTensor]; !ok {
		t.Error("Residency returned the engine's own map")
	}
}

// TestLoadF16Matrix: an F16 matrix is multiplied as stored.
func TestLoadF16Matrix(t *testing.T) {
	f := testModel(t, gguf.TypeQ8_0, false)
	q := f.tensor("blk.0.attn_q.weight")
	half := make([]byte, len(q.data)/2)
	for i := range half {
		half[i] = byte(i * 7) // arbitrary finite halves: exponent bits stay below 0x7c
		if i%2 == 1 {
			half[i] &= 0x3b
		}
	}
	q.typ, q.data = gguf.TypeF16, half
	e := mustLoad(t, writeModelFile(t, f))
	if got := e.Residency()["blk.0.attn_q.weight"]; got != (TensorResidency{Packed: true, Type: gguf.TypeF16, Bytes: 256 * 256 * 2}) {
		t.Errorf("F16 attn_q residency %+v", got)
	}
	if toks, _ := complete(t, e, basePrompt, Sampling{MaxTokens: 1}); len(toks) != 1 {
		t.Errorf("got %v", toks)
	}
}

func TestCapabilities(t *testing.T) {
	c := capabilities{device: gather.CPU}
	for _, typ := range []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		if !c.CanDot(typ) || c.WantsRepack(typ) {
			t.Errorf("%v: CanDot %v WantsRepack %v, want true false", typ, c.CanDot(typ), c.WantsRepack(typ))
		}
	}
	for _, typ := range append(gather.Admitted(), gguf.TypeF64, gguf.TypeQ4_1) {
		if c.CanDot(typ) || c.WantsRepack(typ) {
			t.Errorf("%v: CanDot %v WantsRepack %v, want false false", typ, c.CanDot(typ), c.WantsRepack(typ))
		}
	}
	for _, typ := range append(gather.Admitted(), gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16) {
		if c.CanGather(typ) != gather.CanGather(gather.CPU, typ) || !c.CanGather(typ) {
			t.Errorf("%v: CanGather %v", typ, c.CanGather(typ))
		}
	}
	if (capabilities{device: gather.GPU}).CanGather(gguf.TypeQ4_0) != gather.CanGather(gather.GPU, gguf.TypeQ4_0) {
		t.Error("CanGather does not ask the device's providers")
	}
}

// TestLoadErrors: each malformed model is refused with a message naming
// what is wrong.
func TestLoadErrors(t *testing.T) {
	resize := func(name string, dims []uint64) func(*modelFile) {
		return func(f *modelFile) {
			e := f.tensor(name)
			e.dims, e.data = dims, make([]byte, 4*elementCount(dims))
		}
	}
	set := func(key string, v any) func(*modelFile) { return func(f *modelFile) { f.setMeta(key, v) } }
	drop := func(key string) func(*modelFile) { return func(f *modelFile) { f.dropMeta(key) } }
	tests := []struct {
		name   string
		change func(*modelFile)
		want   string
	}{
		{"missing tensor", func(f *modelFile) { f.dropTensor("blk.0.attn_k.weight") }, `tensor "blk.0.attn_k.weight" missing`},
		{"missing output", func(f *modelFile) { f.dropTensor("output.weight") }, `tensor "output.weight" missing`},
		{"wrong shape", resize("blk.0.attn_q.weight", []uint64{256, 128}), `tensor "blk.0.attn_q.weight": shape [256 128], want [256 256]`},
		{"wrong rank", resize("output_norm.weight", []uint64{256, 1}), `tensor "output_norm.weight": shape [256 1], want [256]`},
		{"unexpected tensor", func(f *modelFile) {
			f.tensors = append(f.tensors, tensorEntry{"rope_freqs.weight", gguf.TypeF32, []uint64{32}, make([]byte, 128)})
		}, `unexpected tensor "rope_freqs.weight" (not part of a 1-layer llama model)`},
		{"bad arch", set("general.architecture", "gpt2"), `unsupported architecture "gpt2" (this engine runs "llama")`},
		{"arch missing", drop("general.architecture"), `metadata key "general.architecture" missing`},
		{"arch not a string", set("general.architecture", uint32(1)), `metadata key "general.architecture": uint32 value, want a string`},
		{"context missing", drop("llama.context_length"), `metadata key "llama.context_length" missing`},
		{"hidden missing", drop("llama.embedding_length"), `metadata key "llama.embedding_length" missing`},
		{"layers missing", drop("llama.block_count"), `metadata key "llama.block_count" missing`},
		{"ffn missing", drop("llama.feed_forward_length"), `metadata key "llama.feed_forward_length" missing`},
		{"heads missing", drop("llama.attention.head_count"), `metadata key "llama.attention.head_count" missing`},
		{"count not an integer", set("llama.block_count", "one"), `metadata key "llama.block_count": string value, want an integer`},
		{"count float", set("llama.context_length", float32(64)), `metadata key "llama.context_length": float32 value, want an integer`},
		{"count zero", set("llama.block_count", uint32(0)), `metadata key "llama.block_count" = 0, want 1 to 2147483647`},
		{"count negative", set("llama.feed_forward_length", int32(-1)), `metadata key "llama.feed_forward_length" = -1, want 1 to 2147483647`},
		{"count too large", set("llama.context_length", int64(1)<<31), `metadata key "llama.context_length" = 2147483648, want 1 to 2147483647`},
		{"count beyond int64", set("llama.context_length", uint64(1)<<63), `metadata key "llama.context_length" = 9223372036854775808 does not fit an int64`},
		{"more layers than tensors", set("llama.block_count", uint32(13)), `llama.block_count = 13 but the file holds only 12 tensors`},
		{"second layer missing", set("llama.block_count", uint32(2)), `tensor "blk.1.attn_norm.weight" missing`},
		{"as many layers as tensors", set("llama.block_count", uint32(12)), `tensor "blk.1.attn_norm.weight" missing`},
		{"heads do not divide", set("llama.attention.head_count", uint32(3)), `llama.attention.head_count = 3 does not divide llama.embedding_length = 256`},
		{"kv heads do not divide", set("llama.attention.head_count_kv", uint32(3)), `llama.attention.head_count_kv = 3 does not divide llama.attention.head_count = 4`},
		{"kv heads above heads", set("llama.attention.head_count_kv", uint32(8)), `llama.attention.head_count_kv = 8 does not divide llama.attention.head_count = 4`},
		// two bad values at once: the check readHParams makes first wins
		{"heads and kv heads do not divide", func(f *modelFile) {
			f.setMeta("llama.attention.head_count", uint32(3))
			f.setMeta("llama.attention.head_count_kv", uint32(2))
		}, `llama.attention.head_count = 3 does not divide llama.embedding_length = 256`},
		{"rope dim odd and rope base negative", func(f *modelFile) {
			f.setMeta("llama.rope.dimension_count", uint32(63))
			f.setMeta("llama.rope.freq_base", float32(-1))
		}, `metadata key "llama.rope.dimension_count" = 63, want an even number from 2 to the head width 64`},
		// without head_count_kv every query head has its own kv head
		{"kv heads default", drop("llama.attention.head_count_kv"), `tensor "blk.0.attn_k.weight": shape [256 64], want [256 256]`},
		{"rope dim odd", set("llama.rope.dimension_count", uint32(63)), `metadata key "llama.rope.dimension_count" = 63, want an even number from 2 to the head width 64`},
		{"rope dim too wide", set("llama.rope.dimension_count", uint32(66)), `metadata key "llama.rope.dimension_count" = 66, want an even number from 2 to the head width 64`},
		{"rope dim zero", set("llama.rope.dimension_count", uint32(0)), `metadata key "llama.rope.dimension_count" = 0, want 1 to 2147483647`},
		{"rope base not a float", set("llama.rope.freq_base", uint32(10000)), `metadata key "llama.rope.freq_base": uint32 value, want a float`},
		{"rope base negative", set("llama.rope.freq_base", float32(-1)), `metadata key "llama.rope.freq_base" = -1, want a finite value above 0`},
		{"rope base NaN", set("llama.rope.freq_base", float32(math.NaN())), `metadata key "llama.rope.freq_base" = NaN, want a finite value above 0`},
		{"rope base Inf", set("llama.rope.freq_base", math.Inf(1)), `metadata key "llama.rope.freq_base" = +Inf, want a finite value above 0`},
		{"eps missing", drop("llama.attention.layer_norm_rms_epsilon"), `metadata key "llama.attention.layer_norm_rms_epsilon" missing`},
		{"eps zero", set("llama.attention.layer_norm_rms_epsilon", float32(0)), `metadata key "llama.attention.layer_norm_rms_epsilon" = 0, want a finite value above 0`},
		{"tokens missing", drop("tokenizer.ggml.tokens"), `metadata key "tokenizer.ggml.tokens" missing`},
		{"tokens not an array", set("tokenizer.ggml.tokens", "abc"), `metadata key "tokenizer.ggml.tokens": string value, want an array of strings`},
		{"tokens empty", set("tokenizer.ggml.tokens", []string{}), `metadata key "tokenizer.ggml.tokens" is empty`},
		{"tokens not strings", set("tokenizer.ggml.tokens", []int32{1, 2}), `metadata key "tokenizer.ggml.tokens": element 0 is int32, want a string`},
		{"vocab mismatch", set("tokenizer.ggml.tokens", []string{"a", "b", "c"}), `tensor "token_embd.weight": shape [256 128], want [256 3]`},
		{"eos out of range", set("tokenizer.ggml.eos_token_id", uint32(128)), `metadata key "tokenizer.ggml.eos_token_id" = 128 out of range [0, 128)`},
		{"eos negative", set("tokenizer.ggml.eos_token_id", int32(-1)), `metadata key "tokenizer.ggml.eos_token_id" = -1 out of range [0, 128)`},
		{"eos not an integer", set("tokenizer.ggml.eos_token_id", "2"), `metadata key "tokenizer.ggml.eos_token_id": string value, want an integer`},
		{"norm of unsupported type", func(f *modelFile) {
			n := f.tensor("blk.0.ffn_norm.weight")
			n.typ, n.data = gguf.TypeF64, make([]byte, 8*256)
		}, `tensor "blk.0.ffn_norm.weight": type F64 has no decoder to expand it to BF16 (expanding because `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := testModel(t, gguf.TypeQ4_0, false)
			tt.change(f)
			path := writeModelFile(t, f)
			e, err := Load(Params{ModelPath: path})
			if err == nil {
				e.Close()
				t.Fatalf("Load succeeded, want error %q", tt.want)
			}
			if want := "engine: " + path + ": " + tt.want; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error\n %q, want\n %q", err, want)
			}
		})
	}
}

// TestLoadMetadataForms: every GGUF integer type is read as a count, a
// float64 as a float, and the optional keys default as llama.cpp does
// (RoPE over the whole head, base 10000, no end-of-sequence token).
func TestLoadMetadataForms(t *testing.T) {
	ref := mustLoad(t, writeModelFile(t, testModel(t, gguf.TypeQ5_0, false)))
	refToks, refLogits := complete(t, ref, basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
	same := []struct {
		name   string
		change func(*modelFile)
	}{
		{"uint8", func(f *modelFile) { f.setMeta("llama.block_count", uint8(1)) }},
		{"int8", func(f *modelFile) { f.setMeta("llama.block_count", int8(1)) }},
		{"uint16", func(f *modelFile) { f.setMeta("llama.feed_forward_length", uint16(256)) }},
		{"int16", func(f *modelFile) { f.setMeta("llama.feed_forward_length", int16(256)) }},
		{"int32", func(f *modelFile) { f.setMeta("llama.embedding_length", int32(256)) }},
		{"uint64", func(f *modelFile) { f.setMeta("llama.context_length", uint64(64)) }},
		{"int64", func(f *modelFile) { f.setMeta("llama.attention.head_count", int64(4)) }},
		{"float64", func(f *modelFile) { f.setMeta("llama.rope.freq_base", float64(1e6)) }},
		{"rope dim default", func(f *modelFile) { f.dropMeta("llama.rope.dimension_count") }},
		{"eos missing", func(f *modelFile) { f.dropMeta("tokenizer.ggml.eos_token_id") }},
	}
	for _, tt := range same {
		f := testModel(t, gguf.TypeQ5_0, false)
		tt.change(f)
		e := mustLoad(t, writeModelFile(t, f))
		toks, logits := complete(t, e, basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
		if !slices.Equal(toks, refToks) || !sameBits(logits, refLogits) {
			t.Errorf("%s: the model runs differently", tt.name)
		}
	}
	// The RoPE base matters, and a missing one is 10000.
	logitsWith := func(change func(*modelFile)) [][]float32 {
		f := testModel(t, gguf.TypeQ5_0, false)
		change(f)
		_, l := complete(t, mustLoad(t, writeModelFile(t, f)), basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
		return l
	}
	base10k := logitsWith(func(f *modelFile) { f.setMeta("llama.rope.freq_base", float32(10000)) })
	if sameBits(base10k, refLogits) {
		t.Fatal("RoPE base 1e4 and 1e6 give the same logits: the test cannot see the base")
	}
	if !sameBits(logitsWith(func(f *modelFile) { f.dropMeta("llama.rope.freq_base") }), base10k) {
		t.Error("a missing llama.rope.freq_base is not 10000")
	}
	// A partial rotation runs differently from the full head.
	if sameBits(logitsWith(func(f *modelFile) { f.setMeta("llama.rope.dimension_count", uint32(32)) }), refLogits) {
		t.Error("llama.rope.dimension_count 32 gives the logits of 64")
	}
	// The epsilon is used.
	if sameBits(logitsWith(func(f *modelFile) { f.setMeta("llama.attention.layer_norm_rms_epsilon", float32(0.5)) }), refLogits) {
		t.Error("llama.attention.layer_norm_rms_epsilon 0.5 gives the logits of 1e-6")
	}
}

func TestLoadDeviceAndFileErrors(t *testing.T) {
	path := writeModelFile(t, testModel(t, gguf.TypeQ4_0, false))
	tests := []struct {
		name string
		p    Params
		want string
	}{
		{"unknown device", Params{ModelPath: path, Device: "tpu"}, `engine: unknown device "tpu" (want "cpu" or "gpu")`},
	}
	for _, tt := range tests {
		if _, err := Load(tt.p); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// Without a GPU, "gpu" is an error carrying hipkern's reason, never a
	// silent CPU run; with one, the table lives on the GPU.
	if gpuErr := hipkern.Load(); gpuErr != nil {
		want := "engine: device gpu: no GPU provider available: " + gpuErr.Error()
		if _, err := Load(Params{ModelPath: path, Device: "gpu"}); err == nil || err.Error() != want {
			t.Errorf("gpu: error %v, want %q", err, want)
		}
	} else {
		e, err := Load(Params{ModelPath: path, Device: "gpu"})
		if err != nil {
			t.Fatalf("gpu: %v", err)
		}
		if e.table.Device.Kind != gather.GPU || e.table.DevPtr == 0 || e.table.Data != nil {
			t.Errorf("gpu: table %v at %#x with host data %v", e.table.Device, e.table.DevPtr, e.table.Data != nil)
		}
		e.Close()
	}
	for _, device := range []string{"", "cpu"} {
		e, err := Load(Params{ModelPath: path, Device: device})
		if err != nil {
			t.Errorf("device %q: %v", device, err)
			continue
		}
		if e.table.Device != gather.Host {
			t.Errorf("device %q: table on %v", device, e.table.Device)
		}
		e.Close()
	}
	missing := filepath.Join(t.TempDir(), "none.gguf")
	if _, err := Load(Params{ModelPath: missing}); err == nil || !strings.HasPrefix(err.Error(), "engine: ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.gguf")
	os.WriteFile(junk, []byte("not a gguf file at all"), 0o644)
	if _, err := Load(Params{ModelPath: junk}); err == nil || !strings.HasPrefix(err.Error(), "engine: ") {
		t.Errorf("junk file: %v", err)
	}
}

func TestCompleteTokensErrors(t *testing.T) {
	e := mustLoad(t, writeModelFile(t, testModel(t, gguf.TypeQ4_0, false)))
	long := make([]int32, 65)
	tests := []struct {
		name   string
		prompt []int32
		max    int
		want   string
	}{
		{"empty", nil, 1, "engine: empty prompt"},
		{"too long", long, 0, "engine: prompt of 65 tokens exceeds the context of 64"},
		{"no room", make([]int32, 60), 5, "engine: prompt of 60 tokens + 5 new tokens exceeds the context of 64"},
		{"no room at all", make([]int32, 64), 1, "engine: prompt of 64 tokens + 1 new tokens exceeds the context of 64"},
		{"huge MaxTokens", []int32{1}, math.MaxInt, "engine: prompt of 1 tokens + 9223372036854775807 new tokens exceeds the context of 64"},
		{"negative MaxTokens", []int32{1}, -1, "engine: MaxTokens = -1 is negative"},
		{"id negative", []int32{1, 5, -1}, 1, "engine: prompt[2] = -1 out of range [0, 128)"},
		{"id == vocab", []int32{128}, 1, "engine: prompt[0] = 128 out of range [0, 128)"},
		{"id huge", []int32{1, 2, 3, math.MaxInt32}, 1, "engine: prompt[3] = 2147483647 out of range [0, 128)"},
	}
	for _, tt := range tests {
		toks, err := e.CompleteTokens(tt.prompt, Sampling{MaxTokens: tt.max})
		if err == nil || err.Error() != tt.want || toks != nil {
			t.Errorf("%s: %v, %v; want error %q", tt.name, toks, err, tt.want)
		}
	}
	// The context boundary itself is allowed.
	for _, tt := range []struct{ n, max int }{{60, 4}, {64, 0}, {63, 1}, {1, 63}} {
		toks, err := e.CompleteTokens(make([]int32, tt.n), Sampling{MaxTokens: tt.max, IgnoreEOS: true})
		if err != nil || len(toks) != tt.max {
			t.Errorf("prompt %d + %d: %v, %v", tt.n, tt.max, toks, err)
		}
	}
	// MaxTokens 0 produces nothing and never calls back.
	toks, err := e.CompleteTokens([]int32{1}, Sampling{Logits: func(int, []float32) { t.Error("called back") }})
	if err != nil || toks == nil || len(toks) != 0 {
		t.Errorf("MaxTokens 0: %v, %v", toks, err)
	}
	// The engine still works after refused calls.
	if toks, _ := complete(t, e, basePrompt, Sampling{MaxTokens: 2, IgnoreEOS: true}); len(toks) != 2 {
		t.Errorf("after errors: %v", toks)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := e.CompleteTokens(basePrompt, Sampling{MaxTokens: 1}); err == nil || err.Error() != "engine: CompleteTokens on a closed engine" {
		t.Errorf("after Close: %v", err)
	}
}

// TestCompleteTokensGreedy: every produced token is the argmax of the logits
// handed to the callback, a prefill of the whole sequence reproduces the
// incremental steps bit for bit, and the end-of-sequence token stops
// generation (and is returned) unless IgnoreEOS.
func TestCompleteTokensGreedy(t *testing.T) {
	f := testModel(t, gguf.TypeIQ4_NL, false)
	e := mustLoad(t, writeModelFile(t, f))
	toks, logits := complete(t, e, basePrompt, Sampling{MaxTokens: 5, IgnoreEOS: true})
	if len(toks) != 5 || len(logits) != 5 {
		t.Fatalf("%d tokens, %d logits", len(toks), len(logits))
	}
	for i, l := range logits {
		if argmax(l) != toks[i] {
			t.Errorf("step %d: token %d is not the argmax %d", i, toks[i], argmax(l))
		}
	}
	// Prefill the prompt with the first three tokens appended: the next
	// step's logits are those of incremental step 3.
	seq := append(append([]int32(nil), basePrompt...), toks[:3]...)
	next, l2 := complete(t, e, seq, Sampling{MaxTokens: 2, IgnoreEOS: true})
	if next[0] != toks[3] || !sameBits(l2, logits[3:5]) {
		t.Errorf("prefill of the full sequence: %v, incremental %v (or logits differ)", next, toks[3:5])
	}
	// A repeat call starts a fresh sequence: same output.
	again, l3 := complete(t, e, basePrompt, Sampling{MaxTokens: 5, IgnoreEOS: true})
	if !slices.Equal(again, toks) || !sameBits(l3, logits) {
		t.Error("a second call differs from the first")
	}
	// Make the second produced token the end-of-sequence token.
	stop := toks[1]
	if slices.Index(toks, stop) != 1 {
		t.Fatalf("tokens %v: token %d appears before step 1", toks, stop)
	}
	f.setMeta("tokenizer.ggml.eos_token_id", uint32(stop))
	eosModel := mustLoad(t, writeModelFile(t, f))
	got, gotLogits := complete(t, eosModel, basePrompt, Sampling{MaxTokens: 5})
	if !slices.Equal(got, toks[:2]) || len(gotLogits) != 2 {
		t.Errorf("with eos %d: %v (%d callbacks), want %v", stop, got, len(gotLogits), toks[:2])
	}
	if got, _ := complete(t, eosModel, basePrompt, Sampling{MaxTokens: 5, IgnoreEOS: true}); !slices.Equal(got, toks) {
		t.Errorf("IgnoreEOS: %v, want %v", got, toks)
	}
	// Without a callback the tokens are the same.
	plain, err := eosModel.CompleteTokens(basePrompt, Sampling{MaxTokens: 5, IgnoreEOS: true})
	if err != nil || !slices.Equal(plain, toks) {
		t.Errorf("no callback: %v, %v", plain, err)
	}
}

func TestArgmax(t *testing.T) {
	tests := []struct {
		logits []float32
		want   int32
	}{
		{[]float32{1, 3, 3, 2}, 1},
		{[]float32{0, 0, 0}, 0},
		{[]float32{-5, -1, -2}, 1},
		{[]float32{-1, 2, 7}, 2},
		{[]float32{4}, 0},
	}
	for _, tt := range tests {
		if got := argmax(tt.logits); got != tt.want {
			t.Errorf("argmax(%v) = %d, want %d", tt.logits, got, tt.want)
		}
	}
}

func TestLeadingRows(t *testing.T) {
	host := gather.Tensor{Type: gguf.TypeBF16, Shape: []int64{4, 3}, Device: gather.Host, Data: make([]byte, 24)}
	v := leadingRows(host, 2, 6)
	if !slices.Equal(v.Shape, []int64{2, 3}) || len(v.Data) != 12 || &v.Data[0] != &host.Data[0] || v.Type != gguf.TypeBF16 {
		t.Errorf("host view: shape %v, %d bytes", v.Shape, len(v.Data))
	}
	if !slices.Equal(host.Shape, []int64{4, 3}) {
		t.Errorf("the view changed the tensor's shape to %v", host.Shape)
	}
	dev := gather.Tensor{Type: gguf.TypeI32, Shape: []int64{8}, Device: gather.Device{Kind: gather.GPU}, DevPtr: 0x1000}
	if v := leadingRows(dev, 3, 4); v.Data != nil || v.DevPtr != 0x1000 || !slices.Equal(v.Shape, []int64{3}) || v.Device != dev.Device {
		t.Errorf("device view: %+v", v)
	}
}

// TestAssembleErrors: a placed tensor the matmul cannot read is refused by
// name (the loader's policy never produces one; this guards the check).
func TestAssembleErrors(t *testing.T) {
	hp := tinyModelHParams
	placed := map[string]placedTensor{}
	for _, s := range hp.tensorSpecs() {
		placed[s.name] = placedTensor{typ: gguf.TypeF32, data: make([]byte, 4*elementCount(s.dims)), packed: true}
	}
	if _, err := assemble(hp, placed); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pt   placedTensor
		want string
	}{
		{"blk.0.ffn_up.weight", placedTensor{typ: gguf.TypeQ8_0, data: make([]byte, 256*8*34)},
			`tensor "blk.0.ffn_up.weight": weights of type Q8_0 cannot be multiplied (want F32, F16 or BF16)`},
		{"output.weight", placedTensor{typ: gguf.TypeF32, data: make([]byte, 8)},
			`tensor "output.weight": F32 weights [128, 256] need 131072 bytes, have 8`},
		{"blk.0.attn_norm.weight", placedTensor{typ: gguf.TypeBF16, data: make([]byte, 4)},
			`tensor "blk.0.attn_norm.weight": BF16 weights [1, 256] need 512 bytes, have 4`},
	}
	for _, tt := range tests {
		bad := maps.Clone(placed)
		bad[tt.name] = tt.pt
		if _, err := assemble(hp, bad); err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestLoadExpandsUngatherableEmbedding: a table in a codec that decodes but
// has no gather provider (Q4_1, an extra) is expanded once to bf16 and then
// gathered as a float table, with the logits of a file storing that decode.
func TestLoadExpandsUngatherableEmbedding(t *testing.T) {
	if gather.CanGather(gather.CPU, gguf.TypeQ4_1) || !gather.Decodes(gguf.TypeQ4_1) {
		t.Skip("Q4_1 is gatherable or has no decoder: the case this tests does not exist")
	}
	packed := make([]byte, 128*8*20)
	rng := splitMix64{state: 3}
	rng.fill(packed)
	for b := 0; b < len(packed); b += 20 {
		binary.LittleEndian.PutUint16(packed[b:], 0x2c00)   // d = 1/16
		binary.LittleEndian.PutUint16(packed[b+2:], 0xb800) // m = -1/2
	}
	f := testModel(t, gguf.TypeQ4_0, false)
	tab := f.tensor(embeddingTensor)
	tab.typ, tab.data = gguf.TypeQ4_1, packed
	gather.EnableStats(true)
	defer gather.EnableStats(false)
	gather.ResetStats()
	e := mustLoad(t, writeModelFile(t, f))
	if got := e.Residency()[embeddingTensor]; got != (TensorResidency{Packed: false, Type: gguf.TypeBF16, Bytes: 128 * 256 * 2}) {
		t.Fatalf("Q4_1 table residency %+v", got)
	}
	toks, logits := complete(t, e, basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
	if s := gather.ReadStats(gather.OpEmbeddingFloat, gather.CPU); s.Selections != 3 {
		t.Errorf("EmbeddingFloat stats %+v, want 3 selections", s)
	}
	bf := make([]uint16, 128*256)
	if err := gather.DequantizeBF16(gguf.TypeQ4_1, packed, bf); err != nil {
		t.Fatal(err)
	}
	tab.typ, tab.data = gguf.TypeBF16, make([]byte, 2*len(bf))
	for i, h := range bf {
		binary.LittleEndian.PutUint16(tab.data[2*i:], h)
	}
	refToks, refLogits := complete(t, mustLoad(t, writeModelFile(t, f)), basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
	if !slices.Equal(toks, refToks) || !sameBits(logits, refLogits) {
		t.Errorf("expanded Q4_1 table: %v, stored bf16 %v (or logits differ)", toks, refToks)
	}
}

// TestPlace: place keeps a tensor its device can use as stored (the bytes
// borrowed, never copied) and expands any other to bf16, and refuses, with
// the materializer's or the decoder's reason, a tensor whose bytes do not
// match its type and dims, packed or expanded, float or quantized.
func TestPlace(t *testing.T) {
	caps := capabilities{device: gather.CPU}
	q4 := make([]byte, 2*18)
	for b := 0; b < len(q4); b += 18 {
		binary.LittleEndian.PutUint16(q4[b:], 0x3c00) // d = 1
		for i := 2; i < 18; i++ {
			q4[b+i] = 0x9f // low nibbles 15: 7 (elements 0-15), high 9: 1 (16-31)
		}
	}
	seven, one := bytes.Repeat([]byte{0xe0, 0x40}, 16), bytes.Repeat([]byte{0x80, 0x3f}, 16)
	f32 := make([]byte, 4*8)
	tests := []struct {
		name   string
		info   gguf.TensorInfo
		role   gguf.Role
		typ    gguf.Type
		packed bool
		data   []byte // nil: borrowed info.Data
		err    string
	}{
		{"q4_0 table", gguf.TensorInfo{Name: "t", Type: gguf.TypeQ4_0, Dims: []uint64{32, 2}, Data: q4}, gguf.EmbeddingTable, gguf.TypeQ4_0, true, nil, ""},
		{"f32 matrix", gguf.TensorInfo{Name: "m", Type: gguf.TypeF32, Dims: []uint64{4, 2}, Data: f32}, gguf.MatrixWeight, gguf.TypeF32, true, nil, ""},
		{"f32 table", gguf.TensorInfo{Name: "t", Type: gguf.TypeF32, Dims: []uint64{4, 2}, Data: f32}, gguf.EmbeddingTable, gguf.TypeF32, true, nil, ""},
		{"q4_0 matrix", gguf.TensorInfo{Name: "m", Type: gguf.TypeQ4_0, Dims: []uint64{32, 2}, Data: q4}, gguf.MatrixWeight, gguf.TypeBF16, false,
			slices.Concat(seven, one, seven, one), ""},
		{"short q4_0 table", gguf.TensorInfo{Name: "t", Type: gguf.TypeQ4_0, Dims: []uint64{32, 2}, Data: q4[:18]}, gguf.EmbeddingTable, 0, false, nil,
			`gguf: tensor "t": 18 bytes of data, want 36 for Q4_0 dims [32 2]`},
		{"short f32 matrix", gguf.TensorInfo{Name: "m", Type: gguf.TypeF32, Dims: []uint64{4, 2}, Data: f32[:16]}, gguf.MatrixWeight, 0, false, nil,
			`gguf: tensor "m": 16 bytes of data, want 32 for F32 dims [4 2]`},
		{"short q4_0 matrix", gguf.TensorInfo{Name: "m", Type: gguf.TypeQ4_0, Dims: []uint64{32, 2}, Data: q4[:18]}, gguf.MatrixWeight, 0, false, nil,
			`gather: Q4_0: 64 elements need 36 packed bytes, have 18 (expanding because matrix: no dot capability for Q4_0)`},
	}
	for _, tt := range tests {
		pt, err := place(tt.info, tt.role, caps)
		if errText(err) != tt.err {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			continue
		}
		want := tt.data
		if want == nil && tt.err == "" {
			want = tt.info.Data
		}
		if pt.typ != tt.typ || pt.packed != tt.packed || !bytes.Equal(pt.data, want) {
			t.Errorf("%s: placed %v packed %v % x, want %v packed %v % x", tt.name, pt.typ, pt.packed, pt.data, tt.typ, tt.packed, want)
		}
		if tt.data == nil && tt.err == "" && unsafe.SliceData(pt.data) != unsafe.SliceData(tt.info.Data) {
			t.Errorf("%s: the kept bytes are a copy", tt.name)
		}
	}
}

// TestLoadReleasesFile: the file mapping lives as long as the engine: Close
// unmaps it, and so does a Load that fails after opening the file. It reads
// the process's mappings, so it runs where /proc/self/maps exists.
func TestLoadReleasesFile(t *testing.T) {
	mapped := func(path string) bool {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skipf("no process mappings to read: %v", err)
		}
		return bytes.Contains(maps, []byte(path))
	}
	path := writeModelFile(t, testModel(t, gguf.TypeQ4_0, false))
	e, err := Load(Params{ModelPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if !mapped(path) {
		t.Fatalf("%s is not mapped while loaded: the test cannot see mappings", path)
	}
	if err := e.Close(); err != nil || mapped(path) {
		t.Errorf("after Close (%v) %s is still mapped", err, path)
	}
	f := testModel(t, gguf.TypeQ4_0, false)
	f.dropTensor("output.weight")
	bad := writeModelFile(t, f)
	if _, err := Load(Params{ModelPath: bad}); err == nil {
		t.Fatal("Load of a model without output.weight succeeded")
	}
	if mapped(bad) {
		t.Errorf("%s is still mapped after Load refused it", bad)
	}
}
