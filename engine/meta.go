package engine

import (
	"fmt"
	"math"

	"gathermut/gguf"
)

// metaReader reads the llama hyperparameters from a file's metadata; every
// error names the key.
type metaReader interface {
	Meta(key string) (any, bool)
}

// maxDim bounds every count read from metadata, so products of two of them
// cannot overflow an int and a bogus value is refused by name.
const maxDim = math.MaxInt32

// readInt returns the integer value of key and whether it is present. Any
// GGUF integer type is accepted.
func readInt(f metaReader, key string) (int64, bool, error) {
	v, ok := f.Meta(key)
	if !ok {
		return 0, false, nil
	}
	switch x := v.(type) {
	case uint8:
		return int64(x), true, nil
	case int8:
		return int64(x), true, nil
	case uint16:
		return int64(x), true, nil
	case int16:
		return int64(x), true, nil
	case uint32:
		return int64(x), true, nil
	case int32:
		return int64(x), true, nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, true, fmt.Errorf("metadata key %q = %d does not fit an int64", key, x)
		}
		return int64(x), true, nil
	case int64:
		return x, true, nil
	}
	return 0, true, fmt.Errorf("metadata key %q: %T value, want an integer", key, v)
}

// readCount reads a positive count; a missing key takes def, or is an error
// when def is 0.
func readCount(f metaReader, key string, def int) (int, error) {
	n, ok, err := readInt(f, key)
	switch {
	case err != nil:
		return 0, err
	case !ok && def == 0:
		return 0, fmt.Errorf("metadata key %q missing", key)
	case !ok:
		return def, nil
	case n < 1 || n > maxDim:
		return 0, fmt.Errorf("metadata key %q = %d, want 1 to %d", key, n, maxDim)
	}
	return int(n), nil
}

// readPositiveFloat reads a finite float32 above 0 (float32 or float64 in
// the file); a missing key takes def, or is an error when def is 0.
func readPositiveFloat(f metaReader, key string, def float32) (float32, error) {
	v, ok := f.Meta(key)
	if !ok {
		if def == 0 {
			return 0, fmt.Errorf("metadata key %q missing", key)
		}
		return def, nil
	}
	var x float32
	switch y := v.(type) {
	case float32:
		x = y
	case float64:
		x = float32(y)
	default:
		return 0, fmt.Errorf("metadata key %q: %T value, want a float", key, v)
	}
	if !(x > 0 && x <= math.MaxFloat32) {
		return 0, fmt.Errorf("metadata key %q = %v, want a finite value above 0", key, x)
	}
	return x, nil
}

// readString reads a required string.
func readString(f metaReader, key string) (string, error) {
	v, ok := f.Meta(key)
	if !ok {
		return "", fmt.Errorf("metadata key %q missing", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("metadata key %q: %T value, want a string", key, v)
	}
	return s, nil
}

// readVocabSize is the length of the tokenizer.ggml.tokens string array.
func readVocabSize(f metaReader) (int, error) {
	const key = "tokenizer.ggml.tokens"
	v, ok := f.Meta(key)
	if !ok {
		return 0, fmt.Errorf("metadata key %q missing", key)
	}
	arr, ok := v.([]any)
	if !ok {
		return 0, fmt.Errorf("metadata key %q: %T value, want an array of strings", key, v)
	}
	if len(arr) == 0 {
		return 0, fmt.Errorf("metadata key %q is empty", key)
	}
	for i, t := range arr {
		if _, ok := t.(string); !ok {
			return 0, fmt.Errorf("metadata key %q: element %d is %T, want a string", key, i, t)
		}
	}
	return len(arr), nil
}

// Defaults llama.cpp applies when a llama file leaves an optional key out.
const defaultRopeBase = 10000

// readHParams reads and cross-checks the llama hyperparameters. On an error
// the hyperparameters are zero.
func readHParams(f metaReader) (hparams, error) {
	var hp hparams
	arch, err := readString(f, "general.architecture")
	if err != nil {
		return hparams{}, err
	}
	if arch != "llama" {
		return hparams{}, fmt.Errorf("unsupported architecture %q (this engine runs \"llama\")", arch)
	}
	counts := []struct {
		key string
		dst *int
		def func() int // default when missing; nil: required
	}{
		{"llama.context_length", &hp.context, nil},
		{"llama.embedding_length", &hp.hidden, nil},
		{"llama.block_count", &hp.layers, nil},
		{"llama.feed_forward_length", &hp.ffn, nil},
		{"llama.attention.head_count", &hp.heads, nil},
		{"llama.attention.head_count_kv", &hp.kvHeads, func() int { return hp.heads }},
	}
	for _, c := range counts {
		def := 0
		if c.def != nil {
			def = c.def()
		}
		if *c.dst, err = readCount(f, c.key, def); err != nil {
			return hparams{}, err
		}
	}
	if hp.hidden%hp.heads != 0 {
		return hparams{}, fmt.Errorf("llama.attention.head_count = %d does not divide llama.embedding_length = %d", hp.heads, hp.hidden)
	}
	if hp.heads%hp.kvHeads != 0 {
		return hparams{}, fmt.Errorf("llama.attention.head_count_kv = %d does not divide llama.attention.head_count = %d", hp.kvHeads, hp.heads)
	}
	hp.headDim = hp.hidden / hp.heads
	if hp.ropeDim, err = readCount(f, "llama.rope.dimension_count", hp.headDim); err != nil {
		return hparams{}, err
	}
	if hp.ropeDim%2 != 0 || hp.ropeDim > hp.headDim {
		return hparams{}, fmt.Errorf("metadata key %q = %d, want an even number from 2 to the head width %d", "llama.rope.dimension_count", hp.ropeDim, hp.headDim)
	}
	if hp.ropeBase, err = readPositiveFloat(f, "llama.rope.freq_base", defaultRopeBase); err != nil {
		return hparams{}, err
	}
	if hp.rmsEps, err = readPositiveFloat(f, "llama.attention.layer_norm_rms_epsilon", 0); err != nil {
		return hparams{}, err
	}
	if hp.vocab, err = readVocabSize(f); err != nil {
		return hparams{}, err
	}
	return hp, nil
}

// readEOS reads the end-of-sequence token, an id below vocab; it is -1 when
// the file names none.
func readEOS(f metaReader, vocab int) (int32, error) {
	const key = "tokenizer.ggml.eos_token_id"
	eos, ok, err := readInt(f, key)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return -1, nil
	case eos < 0 || eos >= int64(vocab):
		return 0, fmt.Errorf("metadata key %q = %d out of range [0, %d)", key, eos, vocab)
	}
	return int32(eos), nil
}

var _ metaReader = (*gguf.File)(nil)
