package engine

import (
	"encoding/binary"
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// The generator fills every payload byte of the packed embedding table with
// random bytes, then overwrites each block's scale fields with the fixed
// values below, so that every decoded value is finite and |x| is at most
// about 1 whatever the random quants, scales and codebook indices are. Where
// the fields sit and how they are encoded comes from gather's codec table
// (gather.Codec.Scales); this file only chooses their values. Each comment
// gives the largest magnitude the block can then decode to.

// scaleEncoding is how a scale field is stored: gather's encodings.
type scaleEncoding = gather.ScaleEncoding

const (
	scaleF16  = gather.ScaleF16  // IEEE binary16, 2 bytes
	scaleF32  = gather.ScaleF32  // IEEE binary32, 4 bytes
	scaleE8M0 = gather.ScaleE8M0 // one exponent byte
)

// scaleField is one fixed scale: its byte offset in the block, its encoding
// and its bit pattern.
type scaleField struct {
	off  int
	enc  scaleEncoding
	bits uint32
}

// Binary16 patterns of the powers of two used below.
const (
	half2m3  = 0x3000 // 2^-3
	half2m4  = 0x2c00
	half2m5  = 0x2800
	half2m6  = 0x2400
	half2m7  = 0x2000
	half2m8  = 0x1c00
	half2m9  = 0x1800
	half2m10 = 0x1400
	half2m11 = 0x1000
	half2m12 = 0x0c00
)

// scaleBits holds, per admitted codec, the bit pattern of each of its scale
// fields, in the order of the codec row's Scales.
var scaleBits = map[gguf.Type][]uint32{
	gguf.TypeQ4_0:     {half2m3},           // 8 * 1/8 = 1
	gguf.TypeQ5_0:     {half2m4},           // 16 * 1/16 = 1
	gguf.TypeQ8_0:     {half2m7},           // 128 * 1/128 = 1
	gguf.TypeQ2_K:     {half2m6, half2m5},  // d, dmin: 15*3/64, 15/32
	gguf.TypeQ3_K:     {half2m7},           // 32*4/128 = 1
	gguf.TypeQ4_K:     {half2m10, half2m6}, // d, dmin: 63*15/1024, 63/64
	gguf.TypeQ5_K:     {half2m11, half2m6}, // d, dmin: 63*31/2048, 63/64
	gguf.TypeQ6_K:     {half2m12},          // 128*32/4096 = 1
	gguf.TypeQ8_K:     {0x3c000000},        // f32 2^-7: 128 * 1/128 = 1
	gguf.TypeIQ2_XXS:  {half2m8},           // 15.5*0.25*43/256
	gguf.TypeIQ2_XS:   {half2m8},           // 15.5*0.25*43/256
	gguf.TypeIQ3_XXS:  {half2m9},           // 15.5*0.5*62/512
	gguf.TypeIQ1_S:    {half2m4},           // 15*1.125/16
	gguf.TypeIQ4_NL:   {half2m7},           // 127/128
	gguf.TypeIQ3_S:    {half2m9},           // 31*15/512
	gguf.TypeIQ2_S:    {half2m8},           // 15.5*0.25*43/256
	gguf.TypeIQ4_XS:   {half2m12},          // 32*127/4096
	gguf.TypeMXFP4:    {124},               // e8m0: 12 * 2^(124-128)
	gguf.TypeIQ1_XXXS: {half2m4},           // 15*1.125/16
}

// codecScales holds, per admitted codec, the scale fields the generator
// fixes: gather's layout with scaleBits' values.
var codecScales = layoutScales(scaleBits)

// layoutScales pairs each codec's values with the offsets and encodings of
// its gather row.
func layoutScales(bits map[gguf.Type][]uint32) map[gguf.Type][]scaleField {
	out := map[gguf.Type][]scaleField{}
	for _, c := range gather.Codecs() {
		vals, ok := bits[c.Type]
		if !ok {
			continue
		}
		for i, f := range c.Scales {
			out[c.Type] = append(out[c.Type], scaleField{off: f.Offset, enc: f.Encoding, bits: vals[i]})
		}
	}
	return out
}

// Q8_K keeps the sum of each 16 quants in int16 block sums after the quants;
// decoders ignore them, but a file whose sums disagree with its quants would
// be invalid for a dot product, so the generator writes the true sums.
const (
	q8KQuants = 4
	q8KBSums  = 260
)

// fixScales overwrites the scale fields of every block of codec in packed.
func fixScales(codec gguf.Type, packed []byte) error {
	fields, ok := codecScales[codec]
	if !ok {
		return fmt.Errorf("no scale-field layout for codec %v", codec)
	}
	tr, ok := gguf.FindGgmlTraits(codec)
	if !ok || len(packed)%tr.BlockBytes != 0 {
		return fmt.Errorf("codec %v: %d bytes are not whole blocks", codec, len(packed))
	}
	for b := 0; b < len(packed); b += tr.BlockBytes {
		block := packed[b : b+tr.BlockBytes]
		for _, f := range fields {
			switch f.enc {
			case scaleF16:
				binary.LittleEndian.PutUint16(block[f.off:], uint16(f.bits))
			case scaleF32:
				binary.LittleEndian.PutUint32(block[f.off:], f.bits)
			case scaleE8M0:
				block[f.off] = byte(f.bits)
			}
		}
		if codec == gguf.TypeQ8_K {
			for j := range 16 {
				var sum int16
				for _, q := range block[q8KQuants+16*j : q8KQuants+16*(j+1)] {
					sum += int16(int8(q))
				}
				binary.LittleEndian.PutUint16(block[q8KBSums+2*j:], uint16(sum))
			}
		}
	}
	return nil
}
