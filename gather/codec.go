package gather

import "gathermut/gguf"

// ScaleEncoding is how a block's scale field is stored.
type ScaleEncoding uint8

const (
	_ ScaleEncoding = iota // the zero value names no encoding
	// ScaleF16 is an IEEE binary16, 2 bytes little-endian.
	ScaleF16
	// ScaleF32 is an IEEE binary32, 4 bytes little-endian.
	ScaleF32
	// ScaleE8M0 is one biased exponent byte: the scale is 2^(e-127), and
	// the decoder folds in a factor 1/2 (see decodeMXFP4).
	ScaleE8M0
	// ScaleF16Nibbles is an IEEE binary16 spread over the top nibbles of
	// four consecutive little-endian uint16 words, least significant nibble
	// first (IQ1_M); the low 12 bits of each word are payload.
	ScaleF16Nibbles
)

// ScaleField is one block-level scale of a codec: its name in the GGML
// block struct, its byte offset in the block and its encoding. Sub-block
// scales packed among the quants are payload, not scale fields.
type ScaleField struct {
	Name     string
	Offset   int
	Encoding ScaleEncoding
}

// Codec is one row of the codec table: a block type this package decodes.
// Traits is gguf's geometry for Type (name, elements and bytes per block);
// Admitted says whether the EmbeddingQuant providers serve it (the other
// rows are extras, which only Dequantize serves); Scales are its
// block-level scale fields, in block order.
type Codec struct {
	Type     gguf.Type
	Traits   gguf.Traits
	Admitted bool
	Scales   []ScaleField

	// decode is the portable decoder of whole runs of blocks; fast, when
	// set, is an equivalent one for this CPU (setAccel installs it), which
	// gives the same bits.
	decode runDecoder
	fast   runDecoder
}

// runDecoder decodes len(out)/BlockElems whole blocks from the front of
// packed; len(out) is a multiple of the codec's BlockElems and packed holds
// at least that many blocks. It reads by byte assembly only, so packed may
// start at any address.
type runDecoder func(packed []byte, out []float32)

const (
	admittedCodec = true
	extraCodec    = false
)

// f16Scale, f32Scale, e8m0Scale and nibbleScale describe scale fields for
// the table below.
func f16Scale(name string, off int) ScaleField { return ScaleField{name, off, ScaleF16} }
func f32Scale(name string, off int) ScaleField { return ScaleField{name, off, ScaleF32} }
func e8m0Scale(name string, off int) ScaleField {
	return ScaleField{name, off, ScaleE8M0}
}
func nibbleScale(name string, off int) ScaleField {
	return ScaleField{name, off, ScaleF16Nibbles}
}

// codecTable is the codec table, in GGML id order: the 19 admitted codecs
// (docs/row.md, "The 19 admitted codecs") and five extras that have oracle
// vectors (Q4_1, Q5_1, IQ1_M, TQ1_0, TQ2_0); an extra decodes through
// Dequantize but is not admitted until a mutation-catalog entry covers it
// like the rest. Everything else about a codec (the decoder map, the
// admitted list, the engine's scale offsets, the tests' tables) is derived
// from these rows. Each decoder follows docs/codecs.md: float32 arithmetic
// in the reference order, one rounding per operation, every product that
// feeds an add or a subtraction wrapped in float32(...) so that no compiler
// fuses it into an FMA.
var codecTable = []Codec{
	codecRow(gguf.TypeQ4_0, admittedCodec, decodeQ4_0, f16Scale("d", 0)),
	codecRow(gguf.TypeQ4_1, extraCodec, decodeQ4_1, f16Scale("d", 0), f16Scale("m", 2)),
	codecRow(gguf.TypeQ5_0, admittedCodec, decodeQ5_0, f16Scale("d", 0)),
	codecRow(gguf.TypeQ5_1, extraCodec, decodeQ5_1, f16Scale("d", 0), f16Scale("m", 2)),
	codecRow(gguf.TypeQ8_0, admittedCodec, decodeQ8_0, f16Scale("d", 0)),
	codecRow(gguf.TypeQ2_K, admittedCodec, decodeQ2_K, f16Scale("d", 80), f16Scale("dmin", 82)),
	codecRow(gguf.TypeQ3_K, admittedCodec, decodeQ3_K, f16Scale("d", 108)),
	codecRow(gguf.TypeQ4_K, admittedCodec, decodeQ4_K, f16Scale("d", 0), f16Scale("dmin", 2)),
	codecRow(gguf.TypeQ5_K, admittedCodec, decodeQ5_K, f16Scale("d", 0), f16Scale("dmin", 2)),
	codecRow(gguf.TypeQ6_K, admittedCodec, decodeQ6_K, f16Scale("d", 208)),
	codecRow(gguf.TypeQ8_K, admittedCodec, decodeQ8_K, f32Scale("d", 0)),
	codecRow(gguf.TypeIQ2_XXS, admittedCodec, decodeIQ2_XXS, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ2_XS, admittedCodec, decodeIQ2_XS, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ3_XXS, admittedCodec, decodeIQ3_XXS, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ1_S, admittedCodec, decodeIQ1_S, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ4_NL, admittedCodec, decodeIQ4_NL, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ3_S, admittedCodec, decodeIQ3_S, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ2_S, admittedCodec, decodeIQ2_S, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ4_XS, admittedCodec, decodeIQ4_XS, f16Scale("d", 0)),
	codecRow(gguf.TypeIQ1_M, extraCodec, decodeIQ1_M, nibbleScale("d", 48)),
	codecRow(gguf.TypeTQ1_0, extraCodec, decodeTQ1_0, f16Scale("d", 52)),
	codecRow(gguf.TypeTQ2_0, extraCodec, decodeTQ2_0, f16Scale("d", 64)),
	codecRow(gguf.TypeMXFP4, admittedCodec, decodeMXFP4, e8m0Scale("e", 0)),
	codecRow(gguf.TypeIQ1_XXXS, admittedCodec, decodeIQ1_XXXS, f16Scale("d", 0)),
}

// codecRow builds a row with t's geometry from gguf's traits (a type
// without traits would get zero geometry, which TestCodecTable refuses).
func codecRow(t gguf.Type, admitted bool, dec runDecoder, scales ...ScaleField) Codec {
	tr, _ := gguf.FindGgmlTraits(t)
	return Codec{Type: t, Traits: tr, Admitted: admitted, Scales: scales, decode: dec}
}

// codecs indexes codecTable by type; admitted lists the admitted types in
// table (GGML id) order.
var (
	codecs   = indexCodecs(codecTable)
	admitted = admittedTypes(codecTable)
)

func indexCodecs(rows []Codec) map[gguf.Type]*Codec {
	m := make(map[gguf.Type]*Codec, len(rows))
	for i := range rows {
		m[rows[i].Type] = &rows[i]
	}
	return m
}

func admittedTypes(rows []Codec) []gguf.Type {
	var ts []gguf.Type
	for _, c := range rows {
		if c.Admitted {
			ts = append(ts, c.Type)
		}
	}
	return ts
}

// Codecs returns the codec table, one row per decoded block type in GGML
// id order. The caller owns the returned rows (their Scales included).
func Codecs() []Codec {
	out := make([]Codec, len(codecTable))
	for i, c := range codecTable {
		c.Scales = append([]ScaleField(nil), c.Scales...)
		out[i] = c
	}
	return out
}

// CodecOf returns the row of t, and false when t has no decoder. The caller
// owns the returned row.
func CodecOf(t gguf.Type) (Codec, bool) {
	c, ok := codecs[t]
	if !ok {
		return Codec{}, false
	}
	row := *c
	row.Scales = append([]ScaleField(nil), c.Scales...)
	return row, true
}

// Admitted returns the codecs the EmbeddingQuant provider serves, in GGML id
// order. The caller owns the returned slice.
func Admitted() []gguf.Type {
	return append([]gguf.Type(nil), admitted...)
}

// Decodes reports whether t has a block decoder (admitted or extra).
func Decodes(t gguf.Type) bool {
	_, ok := codecs[t]
	return ok
}

// isAdmitted reports whether t is one of the admitted codecs.
func isAdmitted(t gguf.Type) bool {
	c, ok := codecs[t]
	return ok && c.Admitted
}
