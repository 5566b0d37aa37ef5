package engine

import (
	"bytes"
	"math"
	"testing"

	"gathermut/gguf"
)

// metaMap is a metaReader over a map, for values a GGUF file cannot carry
// to readInt (a uint64 above MaxInt64 can, the others are for brevity).
type metaMap map[string]any

func (m metaMap) Meta(key string) (any, bool) {
	v, ok := m[key]
	return v, ok
}

// TestReadInt: every GGUF integer type is read exactly, a missing key is
// (0, false), and a refused value is 0 with ok still saying the key is there.
func TestReadInt(t *testing.T) {
	tests := []struct {
		name string
		v    any // nil: the key is missing
		want int64
		ok   bool
		err  string
	}{
		{"missing", nil, 0, false, ""},
		{"uint8", uint8(255), 255, true, ""},
		{"int8", int8(-128), -128, true, ""},
		{"uint16", uint16(65535), 65535, true, ""},
		{"int16", int16(-32768), -32768, true, ""},
		{"uint32", uint32(math.MaxUint32), math.MaxUint32, true, ""},
		{"int32", int32(math.MinInt32), math.MinInt32, true, ""},
		{"uint64 at MaxInt64", uint64(math.MaxInt64), math.MaxInt64, true, ""},
		{"uint64 above MaxInt64", uint64(math.MaxInt64) + 1, 0, true, `metadata key "k" = 9223372036854775808 does not fit an int64`},
		{"int64", int64(math.MinInt64), math.MinInt64, true, ""},
		{"float", float32(3), 0, true, `metadata key "k": float32 value, want an integer`},
		{"string", "3", 0, true, `metadata key "k": string value, want an integer`},
	}
	for _, tt := range tests {
		m := metaMap{}
		if tt.v != nil {
			m["k"] = tt.v
		}
		got, ok, err := readInt(m, "k")
		if got != tt.want || ok != tt.ok || errText(err) != tt.err {
			t.Errorf("%s: readInt = %d, %v, %v; want %d, %v, %q", tt.name, got, ok, err, tt.want, tt.ok, tt.err)
		}
	}
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestReadCount: counts from 1 to MaxInt32, the default for a missing
// optional key, and 0 with every error.
func TestReadCount(t *testing.T) {
	tests := []struct {
		name string
		v    any
		def  int
		want int
		err  string
	}{
		{"one", uint32(1), 0, 1, ""},
		{"MaxInt32", int64(math.MaxInt32), 0, math.MaxInt32, ""},
		{"above MaxInt32", int64(math.MaxInt32) + 1, 0, 0, `metadata key "k" = 2147483648, want 1 to 2147483647`},
		{"zero", uint32(0), 5, 0, `metadata key "k" = 0, want 1 to 2147483647`},
		{"not an integer", "7", 5, 0, `metadata key "k": string value, want an integer`},
		{"missing, required", nil, 0, 0, `metadata key "k" missing`},
		{"missing, default", nil, 7, 7, ""},
	}
	for _, tt := range tests {
		m := metaMap{}
		if tt.v != nil {
			m["k"] = tt.v
		}
		got, err := readCount(m, "k", tt.def)
		if got != tt.want || errText(err) != tt.err {
			t.Errorf("%s: readCount = %d, %v; want %d, %q", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// TestReadPositiveFloat: finite values above 0 up to MaxFloat32, float32 or
// float64, the default for a missing optional key, and 0 with every error.
func TestReadPositiveFloat(t *testing.T) {
	tests := []struct {
		name string
		v    any
		def  float32
		want float32
		err  string
	}{
		{"float32", float32(1e-6), 0, 1e-6, ""},
		{"float64", 0.25, 0, 0.25, ""},
		{"MaxFloat32", float32(math.MaxFloat32), 0, math.MaxFloat32, ""},
		{"smallest subnormal", float32(math.SmallestNonzeroFloat32), 0, math.SmallestNonzeroFloat32, ""},
		{"zero", float32(0), 2, 0, `metadata key "k" = 0, want a finite value above 0`},
		{"negative", -0.5, 2, 0, `metadata key "k" = -0.5, want a finite value above 0`},
		{"+Inf", math.Inf(1), 2, 0, `metadata key "k" = +Inf, want a finite value above 0`},
		{"-Inf", float32(math.Inf(-1)), 2, 0, `metadata key "k" = -Inf, want a finite value above 0`},
		{"NaN", math.NaN(), 2, 0, `metadata key "k" = NaN, want a finite value above 0`},
		{"float64 overflowing float32", 1e39, 2, 0, `metadata key "k" = +Inf, want a finite value above 0`},
		{"integer", uint32(1), 2, 0, `metadata key "k": uint32 value, want a float`},
		{"missing, required", nil, 0, 0, `metadata key "k" missing`},
		{"missing, default", nil, 2.5, 2.5, ""},
	}
	for _, tt := range tests {
		m := metaMap{}
		if tt.v != nil {
			m["k"] = tt.v
		}
		got, err := readPositiveFloat(m, "k", tt.def)
		if math.Float32bits(got) != math.Float32bits(tt.want) || errText(err) != tt.err {
			t.Errorf("%s: readPositiveFloat = %v, %v; want %v, %q", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// TestReadVocabSize: the length of a non-empty array of strings, and 0
// with every error.
func TestReadVocabSize(t *testing.T) {
	const key = `"tokenizer.ggml.tokens"`
	tests := []struct {
		name string
		v    any
		want int
		err  string
	}{
		{"three", []any{"a", "b", "c"}, 3, ""},
		{"missing", nil, 0, "metadata key " + key + " missing"},
		{"not an array", "abc", 0, "metadata key " + key + ": string value, want an array of strings"},
		{"empty", []any{}, 0, "metadata key " + key + " is empty"},
		{"not strings", []any{"a", int32(2)}, 0, "metadata key " + key + ": element 1 is int32, want a string"},
	}
	for _, tt := range tests {
		m := metaMap{}
		if tt.v != nil {
			m["tokenizer.ggml.tokens"] = tt.v
		}
		got, err := readVocabSize(m)
		if got != tt.want || errText(err) != tt.err {
			t.Errorf("%s: readVocabSize = %d, %v; want %d, %q", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// tinyMeta parses the tiny model's metadata, changed by change, from a
// GGUF file that holds only the metadata.
func tinyMeta(t *testing.T, change func(*modelFile)) *gguf.File {
	t.Helper()
	f := &modelFile{meta: testModelMeta(tinyModelHParams, gguf.TypeQ4_0, false)}
	change(f)
	var buf bytes.Buffer
	if err := f.write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := gguf.Parse("tiny", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestReadHParams: the tiny model's metadata reads back as its
// hyperparameters, and every refusal returns zero hyperparameters (the
// messages are TestLoadErrors').
func TestReadHParams(t *testing.T) {
	hp, err := readHParams(tinyMeta(t, func(*modelFile) {}))
	if err != nil || hp != tinyModelHParams {
		t.Fatalf("readHParams = %+v, %v; want %+v", hp, err, tinyModelHParams)
	}
	set := func(key string, v any) func(*modelFile) { return func(f *modelFile) { f.setMeta(key, v) } }
	for _, tt := range []struct {
		name   string
		change func(*modelFile)
	}{
		{"arch missing", func(f *modelFile) { f.dropMeta("general.architecture") }},
		{"arch", set("general.architecture", "gpt2")},
		{"count", set("llama.feed_forward_length", uint32(0))},
		{"heads do not divide", set("llama.attention.head_count", uint32(3))},
		{"kv heads do not divide", set("llama.attention.head_count_kv", uint32(3))},
		{"rope dim zero", set("llama.rope.dimension_count", uint32(0))},
		{"rope dim odd", set("llama.rope.dimension_count", uint32(63))},
		{"rope base", set("llama.rope.freq_base", float32(-1))},
		{"eps", set("llama.attention.layer_norm_rms_epsilon", float32(0))},
		{"vocab", set("tokenizer.ggml.tokens", []string{})},
	} {
		hp, err := readHParams(tinyMeta(t, tt.change))
		if err == nil || hp != (hparams{}) {
			t.Errorf("%s: readHParams = %+v, %v; want zero hyperparameters and an error", tt.name, hp, err)
		}
	}
}

// TestReadEOS: the end-of-sequence id, from 0 to vocab-1; -1 when the file
// names none; 0 with every error.
func TestReadEOS(t *testing.T) {
	const key = `"tokenizer.ggml.eos_token_id"`
	tests := []struct {
		name string
		v    any
		want int32
		err  string
	}{
		{"zero", uint32(0), 0, ""},
		{"last", int64(127), 127, ""},
		{"missing", nil, -1, ""},
		{"vocab", uint32(128), 0, "metadata key " + key + " = 128 out of range [0, 128)"},
		{"negative", int32(-1), 0, "metadata key " + key + " = -1 out of range [0, 128)"},
		{"not an integer", "2", 0, "metadata key " + key + ": string value, want an integer"},
	}
	for _, tt := range tests {
		m := metaMap{}
		if tt.v != nil {
			m["tokenizer.ggml.eos_token_id"] = tt.v
		}
		got, err := readEOS(m, 128)
		if got != tt.want || errText(err) != tt.err {
			t.Errorf("%s: readEOS = %d, %v; want %d, %q", tt.name, got, err, tt.want, tt.err)
		}
	}
}
