package gather

import (
	"encoding/binary"
	"fmt"

	"gathermut/gguf"
)

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
	// ScaleUE4M3 is one unsigned E4M3 byte (NVFP4): bit 7 ignored, 4
	// exponent bits (bias 7), 3 mantissa bits; 0x7f is zero. The decoder
	// folds in a factor 1/2 (see ue4m3Half).
	ScaleUE4M3
)

// ScaleField is one block-level scale of a codec: its name in the GGML
// block struct, its byte offset in the block, its encoding, and Unit, the
// bit pattern (in that encoding) a test table stores there: with every
// scale field at its Unit, every value the block can decode to is finite
// and at most about 1 in magnitude, whatever its payload (SetUnitScales;
// the engine's test models are made so). Sub-block scales packed among the
// quants are payload, not scale fields.
type ScaleField struct {
	Name     string
	Offset   int
	Encoding ScaleEncoding
	Unit     uint32
}

// Put stores bits, a value of the field's encoding (binary16 bits, float32
// bits or a one-byte code), in the field of block; the payload bits that
// share the field's bytes (IQ1_M's) stay. It refuses an encoding it does
// not know and a block too short for the field.
func (f ScaleField) Put(block []byte, bits uint32) error {
	size := f.Encoding.size()
	if size == 0 {
		return fmt.Errorf("gather: scale field %s: unknown encoding %d", f.Name, f.Encoding)
	}
	if f.Offset < 0 || f.Offset+size > len(block) {
		return fmt.Errorf("gather: scale field %s at byte %d (%d bytes) is outside a block of %d bytes", f.Name, f.Offset, size, len(block))
	}
	b := block[f.Offset:]
	switch f.Encoding {
	case ScaleF16:
		binary.LittleEndian.PutUint16(b, uint16(bits))
	case ScaleF32:
		binary.LittleEndian.PutUint32(b, bits)
	case ScaleF16Nibbles:
		// Nibble k of the value is the top nibble of word k.
		for k := range 4 {
			w := binary.LittleEndian.Uint16(b[2*k:])
			binary.LittleEndian.PutUint16(b[2*k:], w&0x0fff|uint16(bits>>(4*k)&15)<<12)
		}
	case ScaleE8M0, ScaleUE4M3:
		b[0] = byte(bits)
	}
	return nil
}

// size is the bytes a field of encoding e spans, 0 for no encoding.
func (e ScaleEncoding) size() int {
	switch e {
	case ScaleF16:
		return 2
	case ScaleF32:
		return 4
	case ScaleE8M0, ScaleUE4M3:
		return 1
	case ScaleF16Nibbles:
		return 8
	}
	return 0
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
	// derive, when set, rewrites the fields of one block that a valid
	// block derives from its payload and no decoder reads (Q8_K's block
	// sums); SetUnitScales runs it after the scales are set.
	derive func(block []byte)
}

// SetUnitScales sets every scale field of every block in packed to its Unit
// and rewrites the fields the format derives from the payload, so that a
// table of random payload bytes becomes one whose every decoded value is
// finite and at most about 1 in magnitude. It refuses packed that is not
// whole blocks of c, a codec whose blocks have no bytes (the zero Codec),
// and a scale field that does not fit in a block (it stops there: the
// fields before it in the first block are set).
func (c Codec) SetUnitScales(packed []byte) error {
	bb := c.Traits.BlockBytes
	if bb <= 0 {
		return fmt.Errorf("gather: %s: block size %d bytes is not positive", c.Traits.Name, bb)
	}
	if len(packed)%bb != 0 {
		return fmt.Errorf("gather: %s: %d bytes are not whole blocks of %d", c.Traits.Name, len(packed), bb)
	}
	for b := 0; b < len(packed); b += bb {
		block := packed[b : b+bb]
		for _, f := range c.Scales {
			if err := f.Put(block, f.Unit); err != nil {
				return fmt.Errorf("gather: %s: %w", c.Traits.Name, err)
			}
		}
		if c.derive != nil {
			c.derive(block)
		}
	}
	return nil
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

// f16Scale, f32Scale, e8m0Scale, nibbleScale and ue4m3Scale describe scale
// fields for the table below: name, offset and unit value.
func f16Scale(name string, off int, unit uint32) ScaleField {
	return ScaleField{name, off, ScaleF16, unit}
}
func f32Scale(name string, off int, unit uint32) ScaleField {
	return ScaleField{name, off, ScaleF32, unit}
}
func e8m0Scale(name string, off int, unit uint32) ScaleField {
	return ScaleField{name, off, ScaleE8M0, unit}
}
func nibbleScale(name string, off int, unit uint32) ScaleField {
	return ScaleField{name, off, ScaleF16Nibbles, unit}
}
func ue4m3Scale(name string, off int, unit uint32) ScaleField {
	return ScaleField{name, off, ScaleUE4M3, unit}
}

// Binary16 patterns of the powers of two the rows' units use.
const (
	half2p0  = 0x3c00 // 1
	half2m1  = 0x3800 // 2^-1
	half2m3  = 0x3000
	half2m4  = 0x2c00
	half2m5  = 0x2800
	half2m6  = 0x2400
	half2m7  = 0x2000
	half2m8  = 0x1c00
	half2m9  = 0x1800
	half2m10 = 0x1400
	half2m11 = 0x1000
	half2m12 = 0x0c00
	float2m7 = 0x3c000000 // float32 2^-7
	ue4m3m4  = 0x20       // UE4M3 2^-3, halved by the decoder: 2^-4
)

// codecTable is the codec table, in GGML id order: the 22 admitted codecs
// (docs/row.md, "The admitted codecs") and five extras that have oracle
// vectors (Q4_1, Q5_1, IQ1_M, TQ1_0, TQ2_0); an extra decodes through
// Dequantize but is not admitted until a mutation-catalog entry covers it
// like the rest. It is the one place a codec's geometry (through gguf's
// traits), admission and scale layout are written: the decoder map, the
// admitted list, the CPU provider's support, the kernel's codec list and
// constants (hipkern/codecs.h, generated from this table by
// internal/gencodebooks), the engine's test models and the tests' tables
// are derived from these rows. Each decoder follows docs/codecs.md: float32
// arithmetic in the reference order, one rounding per operation, every
// product that feeds an add or a subtraction wrapped in float32(...) so
// that no compiler fuses it into an FMA. Each scale's unit is commented
// with the largest magnitude the block then decodes to.
var codecTable = []Codec{
	codecRow(gguf.TypeQ4_0, admittedCodec, decodeQ4_0, f16Scale("d", 0, half2m3)),                                 // 8/8
	codecRow(gguf.TypeQ4_1, extraCodec, decodeQ4_1, f16Scale("d", 0, half2m5), f16Scale("m", 2, half2m5)),         // 15/32 + 1/32
	codecRow(gguf.TypeQ5_0, admittedCodec, decodeQ5_0, f16Scale("d", 0, half2m4)),                                 // 16/16
	codecRow(gguf.TypeQ5_1, extraCodec, decodeQ5_1, f16Scale("d", 0, half2m6), f16Scale("m", 2, half2m6)),         // 31/64 + 1/64
	codecRow(gguf.TypeQ8_0, admittedCodec, decodeQ8_0, f16Scale("d", 0, half2m7)),                                 // 128/128
	codecRow(gguf.TypeQ2_K, admittedCodec, decodeQ2_K, f16Scale("d", 80, half2m6), f16Scale("dmin", 82, half2m5)), // 15*3/64, 15/32
	codecRow(gguf.TypeQ3_K, admittedCodec, decodeQ3_K, f16Scale("d", 108, half2m7)),                               // 32*4/128
	codecRow(gguf.TypeQ4_K, admittedCodec, decodeQ4_K, f16Scale("d", 0, half2m10), f16Scale("dmin", 2, half2m6)),  // 63*15/1024, 63/64
	codecRow(gguf.TypeQ5_K, admittedCodec, decodeQ5_K, f16Scale("d", 0, half2m11), f16Scale("dmin", 2, half2m6)),  // 63*31/2048, 63/64
	codecRow(gguf.TypeQ6_K, admittedCodec, decodeQ6_K, f16Scale("d", 208, half2m12)),                              // 128*32/4096
	codecRow(gguf.TypeQ8_K, admittedCodec, decodeQ8_K, f32Scale("d", 0, float2m7)).withDerived(q8KBlockSums),      // 128/128
	codecRow(gguf.TypeIQ2_XXS, admittedCodec, decodeIQ2_XXS, f16Scale("d", 0, half2m8)),                           // 15.5*0.25*43/256
	codecRow(gguf.TypeIQ2_XS, admittedCodec, decodeIQ2_XS, f16Scale("d", 0, half2m8)),                             // 15.5*0.25*43/256
	codecRow(gguf.TypeIQ3_XXS, admittedCodec, decodeIQ3_XXS, f16Scale("d", 0, half2m9)),                           // 15.5*0.5*62/512
	codecRow(gguf.TypeIQ1_S, admittedCodec, decodeIQ1_S, f16Scale("d", 0, half2m4)),                               // 15*1.125/16
	codecRow(gguf.TypeIQ4_NL, admittedCodec, decodeIQ4_NL, f16Scale("d", 0, half2m7)),                             // 127/128
	codecRow(gguf.TypeIQ3_S, admittedCodec, decodeIQ3_S, f16Scale("d", 0, half2m9)),                               // 31*15/512
	codecRow(gguf.TypeIQ2_S, admittedCodec, decodeIQ2_S, f16Scale("d", 0, half2m8)),                               // 15.5*0.25*43/256
	codecRow(gguf.TypeIQ4_XS, admittedCodec, decodeIQ4_XS, f16Scale("d", 0, half2m12)),                            // 32*127/4096
	codecRow(gguf.TypeIQ1_M, extraCodec, decodeIQ1_M, nibbleScale("d", 48, half2m4)),                              // 15*1.125/16
	codecRow(gguf.TypeTQ1_0, extraCodec, decodeTQ1_0, f16Scale("d", 52, half2m1)),                                 // 1/2
	codecRow(gguf.TypeTQ2_0, extraCodec, decodeTQ2_0, f16Scale("d", 64, half2m1)),                                 // 2/2
	codecRow(gguf.TypeMXFP4, admittedCodec, decodeMXFP4, e8m0Scale("e", 0, 124)),                                  // 12 * 2^(124-128)
	codecRow(gguf.TypeNVFP4, admittedCodec, decodeNVFP4,
		ue4m3Scale("d[0]", 0, ue4m3m4), ue4m3Scale("d[1]", 1, ue4m3m4), ue4m3Scale("d[2]", 2, ue4m3m4), ue4m3Scale("d[3]", 3, ue4m3m4)), // 12 * 2^-4
	codecRow(gguf.TypeQ1_0, admittedCodec, decodeQ1_0, f16Scale("d", 0, half2p0)),         // 1
	codecRow(gguf.TypeQ2_0, admittedCodec, decodeQ2_0, f16Scale("d", 0, half2m1)),         // 2/2
	codecRow(gguf.TypeIQ1_XXXS, admittedCodec, decodeIQ1_XXXS, f16Scale("d", 0, half2m4)), // 15*1.125/16
}

// codecRow builds a row with t's geometry from gguf's traits (a type
// without traits would get zero geometry, which TestCodecTable refuses).
func codecRow(t gguf.Type, admitted bool, dec runDecoder, scales ...ScaleField) Codec {
	tr, _ := gguf.FindGgmlTraits(t)
	return Codec{Type: t, Traits: tr, Admitted: admitted, Scales: scales, decode: dec}
}

// withDerived returns the row with derive set.
func (c Codec) withDerived(derive func(block []byte)) Codec {
	c.derive = derive
	return c
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
