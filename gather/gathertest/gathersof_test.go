package gathertest_test

import (
	"slices"
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// TestTierTypes: each tier's types are the admitted codecs or the three
// float types; an unknown operation has none.
func TestTierTypes(t *testing.T) {
	for _, c := range []struct {
		op      gather.Op
		want    []gguf.Type
		wantErr string
	}{
		{gather.OpEmbeddingQuant, gather.Admitted(), ""},
		{gather.OpEmbeddingFloat, []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16}, ""},
		{"nonsense", nil, `gathertest: unknown operation "nonsense"`},
	} {
		t.Run(string(c.op), func(t *testing.T) {
			got, err := gathertest.TierTypes(c.op)
			if !slices.Equal(got, c.want) || (err == nil) != (c.wantErr == "") || err != nil && err.Error() != c.wantErr {
				t.Errorf("TierTypes(%q) = %v, %v; want %v, %q", c.op, got, err, c.want, c.wantErr)
			}
		})
	}
}

// TestCheckGathersOf: one type's gathers pass for the CPU providers, find
// a broken provider's fault, and refuse a type outside the subject's tier.
func TestCheckGathersOf(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault int // index into faults, or -1 for the CPU provider
		op    gather.Op
		typ   gguf.Type
		want  string // in the error; "" for none
	}{
		{"Q4_K passes", -1, gather.OpEmbeddingQuant, gguf.TypeQ4_K, ""},
		{"BF16 passes", -1, gather.OpEmbeddingFloat, gguf.TypeBF16, ""},
		{"Q4_0 flipped", 0, gather.OpEmbeddingQuant, gguf.TypeQ4_0, "Q4_0 width 32, first I32 ids, F32 out, offset 0: out row 0 differs at byte 0"},
		{"F32 of the quant tier", -1, gather.OpEmbeddingQuant, gguf.TypeF32, "gathertest: gathers (cpu-quant on EmbeddingQuant on cpu:0):\n\tF32 is not a table type of EmbeddingQuant"},
		{"Q8_0 of the float tier", -1, gather.OpEmbeddingFloat, gguf.TypeQ8_0, "Q8_0 is not a table type of EmbeddingFloat"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := cpu(t, c.op)
			if c.fault >= 0 {
				p = faults(t)[c.fault].p
			}
			err := gathertest.CheckGathersOf(subject(p, c.op), c.typ)
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckGathersOf(%v) = %v, want an error containing %q", c.typ, err, c.want)
			}
		})
	}
}
