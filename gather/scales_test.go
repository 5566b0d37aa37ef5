package gather

import (
	"slices"
	"testing"

	"gathermut/gguf"
)

// wantScales is every codec row's scale fields, written out literally: the
// names and offsets of the GGML block structs and each unit's bit pattern
// (binary16 0x3000 is 2^-3, float32 0x3c000000 is 2^-7, E8M0 124 is
// 2^(124-127), UE4M3 0x20 is 2^-3). It pins the table's named unit
// constants (half2m3 and the rest, float2m7, ue4m3m4) in this package, so
// that a change to one fails a fast test here and not only the engine's
// model hashes and golden logits.
var wantScales = map[gguf.Type][]ScaleField{
	gguf.TypeQ4_0:     {{"d", 0, ScaleF16, 0x3000}},
	gguf.TypeQ4_1:     {{"d", 0, ScaleF16, 0x2800}, {"m", 2, ScaleF16, 0x2800}},
	gguf.TypeQ5_0:     {{"d", 0, ScaleF16, 0x2c00}},
	gguf.TypeQ5_1:     {{"d", 0, ScaleF16, 0x2400}, {"m", 2, ScaleF16, 0x2400}},
	gguf.TypeQ8_0:     {{"d", 0, ScaleF16, 0x2000}},
	gguf.TypeQ2_K:     {{"d", 80, ScaleF16, 0x2400}, {"dmin", 82, ScaleF16, 0x2800}},
	gguf.TypeQ3_K:     {{"d", 108, ScaleF16, 0x2000}},
	gguf.TypeQ4_K:     {{"d", 0, ScaleF16, 0x1400}, {"dmin", 2, ScaleF16, 0x2400}},
	gguf.TypeQ5_K:     {{"d", 0, ScaleF16, 0x1000}, {"dmin", 2, ScaleF16, 0x2400}},
	gguf.TypeQ6_K:     {{"d", 208, ScaleF16, 0x0c00}},
	gguf.TypeQ8_K:     {{"d", 0, ScaleF32, 0x3c000000}},
	gguf.TypeIQ2_XXS:  {{"d", 0, ScaleF16, 0x1c00}},
	gguf.TypeIQ2_XS:   {{"d", 0, ScaleF16, 0x1c00}},
	gguf.TypeIQ3_XXS:  {{"d", 0, ScaleF16, 0x1800}},
	gguf.TypeIQ1_S:    {{"d", 0, ScaleF16, 0x2c00}},
	gguf.TypeIQ4_NL:   {{"d", 0, ScaleF16, 0x2000}},
	gguf.TypeIQ3_S:    {{"d", 0, ScaleF16, 0x1800}},
	gguf.TypeIQ2_S:    {{"d", 0, ScaleF16, 0x1c00}},
	gguf.TypeIQ4_XS:   {{"d", 0, ScaleF16, 0x0c00}},
	gguf.TypeIQ1_M:    {{"d", 48, ScaleF16Nibbles, 0x2c00}},
	gguf.TypeTQ1_0:    {{"d", 52, ScaleF16, 0x3800}},
	gguf.TypeTQ2_0:    {{"d", 64, ScaleF16, 0x3800}},
	gguf.TypeMXFP4:    {{"e", 0, ScaleE8M0, 124}},
	gguf.TypeNVFP4:    {{"d[0]", 0, ScaleUE4M3, 0x20}, {"d[1]", 1, ScaleUE4M3, 0x20}, {"d[2]", 2, ScaleUE4M3, 0x20}, {"d[3]", 3, ScaleUE4M3, 0x20}},
	gguf.TypeQ1_0:     {{"d", 0, ScaleF16, 0x3c00}},
	gguf.TypeQ2_0:     {{"d", 0, ScaleF16, 0x3800}},
	gguf.TypeIQ1_XXXS: {{"d", 0, ScaleF16, 0x2c00}},
}

// TestCodecScaleFields checks each row's scale fields (name, offset,
// encoding, unit bits) against wantScales, one subtest per codec named as
// gguf.Type prints it, and that wantScales names no codec the table lacks.
func TestCodecScaleFields(t *testing.T) {
	for _, c := range codecTable {
		t.Run(c.Type.String(), func(t *testing.T) {
			want, ok := wantScales[c.Type]
			if !ok {
				// a codec being added (docs/row.md's steps, which
				// docs.TestAddingACodec follows on a copy) has no
				// pinned row yet: its own tests pin it
				t.Skipf("no pinned scale fields for %v: add its row to wantScales when it is admitted", c.Type)
			}
			if !slices.Equal(c.Scales, want) {
				t.Errorf("scale fields %+v, want %+v", c.Scales, want)
			}
		})
	}
	for typ := range wantScales {
		if _, ok := codecs[typ]; !ok {
			t.Errorf("expected scale fields for %v, which has no codec row", typ)
		}
	}
}
