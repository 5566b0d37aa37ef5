package gather

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"gathermut/gguf"
)

// Shared test helpers: a plain scalar reference for one gathered row, random
// tables with valid scale fields, and tensor builders.

// traitsOf returns t's geometry or fails the test.
func traitsOf(tb testing.TB, t gguf.Type) gguf.Traits {
	tb.Helper()
	tr, ok := gguf.FindGgmlTraits(t)
	if !ok {
		tb.Fatalf("no traits for %v", t)
	}
	return tr
}

// refRow is the reference for one gathered row: the table row's bytes
// decoded element by element into a fresh slice and written little-endian
// as the out type (F32 or BF16) would hold them. Packed rows go through
// Dequantize or DequantizeBF16 directly; float rows are widened exactly
// (F16 by an independent widening, widenF16Bits), rounded with F32ToBF16 for bf16,
// and BF16 to bf16 is the stored word.
func refRow(tb testing.TB, t gguf.Type, row []byte, hidden int, bf16 bool) []byte {
	tb.Helper()
	var words []uint32 // f32 bits, or bf16 words
	switch t {
	case gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16:
		for e := range hidden {
			var bits uint32
			switch t {
			case gguf.TypeF32:
				bits = binary.LittleEndian.Uint32(row[4*e:])
			case gguf.TypeF16:
				bits = widenF16Bits(binary.LittleEndian.Uint16(row[2*e:]))
			case gguf.TypeBF16:
				bits = uint32(binary.LittleEndian.Uint16(row[2*e:])) << 16
			}
			switch {
			case !bf16:
				words = append(words, bits)
			case t == gguf.TypeBF16:
				words = append(words, bits>>16)
			default:
				words = append(words, uint32(F32ToBF16(math.Float32frombits(bits))))
			}
		}
	default:
		if bf16 {
			h := make([]uint16, hidden)
			if err := DequantizeBF16(t, row, h); err != nil {
				tb.Fatalf("reference DequantizeBF16(%v): %v", t, err)
			}
			for _, w := range h {
				words = append(words, uint32(w))
			}
		} else {
			f := make([]float32, hidden)
			if err := Dequantize(t, row, f); err != nil {
				tb.Fatalf("reference Dequantize(%v): %v", t, err)
			}
			for _, v := range f {
				words = append(words, math.Float32bits(v))
			}
		}
	}
	var b []byte
	for _, w := range words {
		if bf16 {
			b = binary.LittleEndian.AppendUint16(b, uint16(w))
		} else {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
	}
	return b
}

// widenF16Bits widens an IEEE binary16 pattern to float32 bits: by arithmetic
// for finite values (every one is exact in float64 and float32), by bits
// for Inf and NaN (payload shifted up, as the widening keeps it).
func widenF16Bits(h uint16) uint32 {
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

// refGather is the reference output of gathering ids from table.
func refGather(tb testing.TB, t gguf.Type, table []byte, hidden int, ids []int64, bf16 bool) []byte {
	tb.Helper()
	rb, err := gguf.RowSizeBytes(t, int64(hidden))
	if err != nil {
		tb.Fatal(err)
	}
	var out []byte
	for _, id := range ids {
		out = append(out, refRow(tb, t, table[id*rb:(id+1)*rb], hidden, bf16)...)
	}
	return out
}

// randomTable returns vocab rows of hidden elements of type t: random bytes
// with every scale field overwritten by a finite value (fp16 magnitudes
// 2^-10..2^1, Q8_K's float32 d likewise, MXFP4 exponents 112..130), so that
// every decoded value is finite. Float tables get random finite values.
func randomTable(tb testing.TB, rng *rand.Rand, t gguf.Type, vocab, hidden int) []byte {
	tb.Helper()
	rb, err := gguf.RowSizeBytes(t, int64(hidden))
	if err != nil {
		tb.Fatal(err)
	}
	data := make([]byte, vocab*int(rb))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	tr := traitsOf(tb, t)
	switch t {
	case gguf.TypeF32:
		for i := 0; i < len(data); i += 4 {
			binary.LittleEndian.PutUint32(data[i:], randomF32(rng))
		}
		return data
	case gguf.TypeF16:
		for i := 0; i < len(data); i += 2 {
			binary.LittleEndian.PutUint16(data[i:], randomF16(rng))
		}
		return data
	case gguf.TypeBF16:
		for i := 0; i < len(data); i += 2 {
			binary.LittleEndian.PutUint16(data[i:], uint16(randomF32(rng)>>16))
		}
		return data
	}
	c, ok := CodecOf(t)
	if !ok {
		tb.Fatalf("randomTable: no codec row for %v", t)
	}
	for b := 0; b < len(data); b += tr.BlockBytes {
		blk := data[b : b+tr.BlockBytes]
		for _, f := range c.Scales {
			switch f.Encoding {
			case ScaleF16:
				binary.LittleEndian.PutUint16(blk[f.Offset:], randomF16(rng))
			case ScaleF32:
				binary.LittleEndian.PutUint32(blk[f.Offset:], randomF32(rng))
			case ScaleE8M0:
				blk[f.Offset] = byte(112 + rng.IntN(19))
			default:
				tb.Fatalf("randomTable: %v: no generator for %v scales", t, f.Encoding)
			}
		}
	}
	return data
}

// randomF16 returns a finite normal fp16 pattern of either sign with
// magnitude in [2^-10, 2^1).
func randomF16(rng *rand.Rand) uint16 {
	return uint16(rng.IntN(2))<<15 | uint16(5+rng.IntN(11))<<10 | uint16(rng.IntN(1<<10))
}

// randomF32 returns a finite normal float32 pattern of either sign with
// magnitude in [2^-10, 2^1).
func randomF32(rng *rand.Rand) uint32 {
	return uint32(rng.IntN(2))<<31 | uint32(117+rng.IntN(11))<<23 | uint32(rng.IntN(1<<23))
}

// idBytes encodes ids as I32 or I64 little-endian.
func idBytes(ids []int64, t gguf.Type) []byte {
	var b []byte
	for _, id := range ids {
		if t == gguf.TypeI64 {
			b = binary.LittleEndian.AppendUint64(b, uint64(id))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(id)))
		}
	}
	return b
}

// atOffset returns b copied into a fresh buffer at byte offset off, and the
// buffer: the copy is deliberately misaligned when off is not 0.
func atOffset(b []byte, off int) (data, buf []byte) {
	buf = make([]byte, off+len(b))
	copy(buf[off:], b)
	return buf[off:], buf
}

// hostTensor builds a CPU tensor without NewHostTensor's exact-size check.
func hostTensor(t gguf.Type, data []byte, shape ...int64) *Tensor {
	return &Tensor{Type: t, Shape: shape, Device: Host, Data: data}
}

// outBytes is the size of an out tensor of n rows of hidden elements.
func outSize(n, hidden int, bf16 bool) int {
	if bf16 {
		return 2 * n * hidden
	}
	return 4 * n * hidden
}

// outType is F32 or BF16.
func outType(bf16 bool) gguf.Type {
	if bf16 {
		return gguf.TypeBF16
	}
	return gguf.TypeF32
}
