package gathertest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"gathermut/gather"
	"gathermut/gguf"
)

// geometry returns t's traits and the byte size of a [vocab, hidden] table.
func geometry(t gguf.Type, vocab, hidden int64) (gguf.Traits, int64, error) {
	tr, ok := gguf.FindGgmlTraits(t)
	if !ok {
		return tr, 0, fmt.Errorf("gathertest: unknown table type %v", t)
	}
	rowBytes, err := gguf.RowSizeBytes(t, hidden)
	if err != nil {
		return tr, 0, fmt.Errorf("gathertest: %w", err)
	}
	if vocab < 0 {
		return tr, 0, fmt.Errorf("gathertest: a %v table cannot have %d rows", t, vocab)
	}
	if rowBytes > 0 && vocab > math.MaxInt32/rowBytes {
		return tr, 0, fmt.Errorf("gathertest: a %v table of %d rows of %d bytes is too large for a test", t, vocab, rowBytes)
	}
	return tr, vocab * rowBytes, nil
}

// RandomTable returns a [vocab, hidden] table of type t (a codec of
// gather's table, or F32, F16, BF16) drawn from rng. A packed table is
// random bytes whose scale fields (gather.CodecOf's Scales) are then set to
// random normal values of either sign with magnitudes in [2^-10, 2^1)
// (E8M0 exponents 112 to 130, UE4M3 bytes 0x01 to 0x47), as a real
// model's are: every payload (quants, high bits, sub-block scales, grid
// indices, signs) is random, and every decoded value is finite. WithEdges
// adds the extreme scales. A float table is random bits, NaNs of every kind
// included: it is only widened or rounded, never computed on, so its NaN
// payloads must come through as the rules say.
func RandomTable(rng *rand.Rand, t gguf.Type, vocab, hidden int64) ([]byte, error) {
	tr, size, err := geometry(t, vocab, hidden)
	if err != nil {
		return nil, err
	}
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	if t.IsFloat() {
		return b, nil
	}
	c, ok := gather.CodecOf(t)
	if !ok {
		return nil, fmt.Errorf("gathertest: %v is neither a float type nor a codec of gather's table", t)
	}
	for blk := 0; blk < len(b); blk += tr.BlockBytes {
		for _, f := range c.Scales {
			var v uint32
			switch f.Encoding {
			case gather.ScaleF16, gather.ScaleF16Nibbles:
				v = uint32(randomF16(rng))
			case gather.ScaleF32:
				v = randomF32(rng)
			case gather.ScaleE8M0:
				v = uint32(112 + rng.IntN(19))
			case gather.ScaleUE4M3:
				v = uint32(1 + rng.IntN(0x47)) // halved values in [2^-10, 2)
			}
			if err := f.Put(b[blk:blk+tr.BlockBytes], v); err != nil {
				return nil, fmt.Errorf("gathertest: %v: %w", t, err)
			}
		}
	}
	return b, nil
}

// randomF16 returns a normal binary16 pattern of either sign with a
// magnitude in [2^-10, 2^1).
func randomF16(rng *rand.Rand) uint16 {
	return uint16(rng.IntN(2))<<15 | uint16(5+rng.IntN(11))<<10 | uint16(rng.IntN(1<<10))
}

// randomF32 returns a normal float32 pattern of either sign with a
// magnitude in [2^-10, 2^1).
func randomF32(rng *rand.Rand) uint32 {
	return uint32(rng.IntN(2))<<31 | uint32(117+rng.IntN(11))<<23 | uint32(rng.IntN(1<<23))
}

// The edge values WithEdges writes into scale fields: signed zeros, the
// smallest and largest subnormals, the smallest and largest normals, ±1;
// for MXFP4 the exponents whose scales are subnormal (0, 1), around 1
// (126..129) and overflowing in products (253..255).
var (
	edgeF16  = []uint16{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x0200}
	edgeF32  = []uint32{0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x00400000, 0x7f000000}
	edgeE8M0 = []byte{0, 1, 2, 3, 126, 127, 128, 129, 253, 254, 255}
	// UE4M3 (NVFP4): the three zero bytes 0x00, 0x7f and 0x80 (bit 7 is
	// ignored), 0xff (240, not zero), the subnormals 0x01 and 0x07, the
	// smallest normal 0x08, 1 (0x38), the largest 0x7e (448), and 0xfe
	// and 0xb9 (bit 7 set).
	edgeUE4M3 = []byte{0x00, 0x7f, 0x80, 0xff, 0x01, 0x07, 0x08, 0x38, 0x7e, 0xfe, 0xb9}
)

// The edge values WithEdges writes at the start of a float table: NaNs
// whose payload lies only in the bits a bf16 rounding drops (0x7f800001:
// a rounding that missed the NaN would carry it to Inf), signalling NaNs
// of both signs (a BF16 row to bf16 copies them, every other path quiets
// them), the quiet NaN with the largest payload, ±Inf, the largest finite
// value (rounds to Inf in bf16) and the smallest subnormal.
var (
	edgeFloatF32  = []uint32{0x7f800001, 0xff800001, 0x7f80ffff, 0x7fbfffff, 0x7fffffff, 0x7f800000, 0xff800000, 0x7f7fffff, 0x00000001}
	edgeFloatF16  = []uint16{0x7c01, 0xfc01, 0x7dff, 0x7e00, 0x7fff, 0x7c00, 0xfc00, 0x7bff, 0x0001}
	edgeFloatBF16 = []uint16{0x7f81, 0xff81, 0x7fbf, 0x7fc0, 0x7fff, 0x7f80, 0xff80, 0x7f7f, 0x0001}
)

// edgeBlocks is how many blocks WithEdges rewrites: one per edge value.
const edgeBlocks = 11

// WithEdges rewrites the scale fields of the first blocks of a packed
// table of type t with the edge values, one value a block (a codec with two
// fp16 fields gets two different ones); a float32 scale (Q8_K's d) and an
// E8M0 exponent (MXFP4's) and a UE4M3 byte (NVFP4's, four fields a block,
// each a different one) take their own lists. A float table (F32, F16,
// BF16) starts with the float edge values (NaN payloads, infinities, the
// largest and smallest values), as many as it holds; a type that is
// neither is left as it is.
func WithEdges(t gguf.Type, table []byte) {
	switch t {
	case gguf.TypeF32:
		for i, v := range edgeFloatF32 {
			if 4*i+4 <= len(table) {
				binary.LittleEndian.PutUint32(table[4*i:], v)
			}
		}
		return
	case gguf.TypeF16, gguf.TypeBF16:
		vs := edgeFloatF16
		if t == gguf.TypeBF16 {
			vs = edgeFloatBF16
		}
		for i, v := range vs {
			if 2*i+2 <= len(table) {
				binary.LittleEndian.PutUint16(table[2*i:], v)
			}
		}
		return
	}
	c, ok := gather.CodecOf(t)
	if !ok {
		return
	}
	bb := c.Traits.BlockBytes
	for k := 0; k < edgeBlocks && (k+1)*bb <= len(table); k++ {
		for i, f := range c.Scales {
			v := uint32(edgeF16[(k+i)%edgeBlocks])
			switch f.Encoding {
			case gather.ScaleF32:
				v = edgeF32[k]
			case gather.ScaleE8M0:
				v = uint32(edgeE8M0[k])
			case gather.ScaleUE4M3:
				v = uint32(edgeUE4M3[(k+i)%edgeBlocks])
			}
			f.Put(table[k*bb:(k+1)*bb], v) // the row's own layout: no error here
		}
	}
}

// EncodeIDs writes ids as little-endian I32 (each truncated to its low 32
// bits, as a caller storing it in an int32 would) or I64.
func EncodeIDs(t gguf.Type, ids []int64) []byte {
	var b []byte
	for _, id := range ids {
		if t == gguf.TypeI64 {
			b = binary.LittleEndian.AppendUint64(b, uint64(id))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(id))
		}
	}
	return b
}

// elemSize is the byte size of an element of the out type (F32 or BF16).
func elemSize(out gguf.Type) int {
	if out == gguf.TypeBF16 {
		return 2
	}
	return 4
}

// Reference returns the bytes out must hold after gathering ids (each in
// range) from a [len(table)/rowBytes, hidden] table of type t into an out
// of type F32 or BF16: each selected row decoded on its own and written
// little-endian. A packed row goes through gather.Dequantize or
// gather.DequantizeBF16 (which the oracle tests check against ggml); a
// float row is widened exactly by this function's own arithmetic and
// rounded with gather.F32ToBF16 for bf16, except that a BF16 row gathered
// to bf16 is its stored words, NaN payloads included.
func Reference(t gguf.Type, table []byte, hidden int64, ids []int64, out gguf.Type) ([]byte, error) {
	if out != gguf.TypeF32 && out != gguf.TypeBF16 {
		return nil, fmt.Errorf("gathertest: reference to %v out: want F32 or BF16", out)
	}
	rowBytes, err := gguf.RowSizeBytes(t, hidden)
	if err != nil {
		return nil, fmt.Errorf("gathertest: %w", err)
	}
	var b []byte
	for _, id := range ids {
		lo := id * rowBytes
		if id < 0 || lo+rowBytes > int64(len(table)) {
			return nil, fmt.Errorf("gathertest: reference: row %d is not in the %d-byte table", id, len(table))
		}
		row, err := referenceRow(t, table[lo:lo+rowBytes], int(hidden), out)
		if err != nil {
			return nil, err
		}
		b = append(b, row...)
	}
	return b, nil
}

// referenceRow decodes one row; see Reference.
func referenceRow(t gguf.Type, row []byte, hidden int, out gguf.Type) ([]byte, error) {
	var b []byte
	bf16 := out == gguf.TypeBF16
	if t.IsFloat() {
		for e := range hidden {
			bits := widenBits(t, row, e)
			switch {
			case !bf16:
				b = binary.LittleEndian.AppendUint32(b, bits)
			case t == gguf.TypeBF16:
				b = binary.LittleEndian.AppendUint16(b, uint16(bits>>16))
			default:
				b = binary.LittleEndian.AppendUint16(b, gather.F32ToBF16(math.Float32frombits(bits)))
			}
		}
		return b, nil
	}
	if bf16 {
		h := make([]uint16, hidden)
		if err := gather.DequantizeBF16(t, row, h); err != nil {
			return nil, fmt.Errorf("gathertest: reference: %w", err)
		}
		for _, w := range h {
			b = binary.LittleEndian.AppendUint16(b, w)
		}
		return b, nil
	}
	f := make([]float32, hidden)
	if err := gather.Dequantize(t, row, f); err != nil {
		return nil, fmt.Errorf("gathertest: reference: %w", err)
	}
	for _, v := range f {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b, nil
}

// widenBits returns element e of a float row as float32 bits. F16 is
// widened by arithmetic for finite values (each is exact in float64 and in
// float32) and by moving the bits for Inf and NaN (the payload shifted up,
// as the exact widening keeps it): an implementation independent of the
// package's bit-assembly F16ToF32.
func widenBits(t gguf.Type, row []byte, e int) uint32 {
	switch t {
	case gguf.TypeF32:
		return binary.LittleEndian.Uint32(row[4*e:])
	case gguf.TypeBF16:
		return uint32(binary.LittleEndian.Uint16(row[2*e:])) << 16
	}
	h := binary.LittleEndian.Uint16(row[2*e:])
	sign := uint32(h>>15) << 31
	exp, man := int(h>>10)&0x1f, int(h&0x3ff)
	if exp == 0x1f {
		return sign | 0x7f800000 | uint32(man)<<13
	}
	v := math.Ldexp(float64(man), -24) // subnormal: man * 2^-24
	if exp != 0 {
		v = math.Ldexp(float64(1024+man), exp-25)
	}
	return sign | math.Float32bits(float32(v))
}
