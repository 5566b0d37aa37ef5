package gathertest_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// scaleBits reads scale field f of a block: binary16 bits, float32 bits or
// the exponent byte, as its encoding stores it.
func scaleBits(blk []byte, f gather.ScaleField) uint32 {
	switch f.Encoding {
	case gather.ScaleF16:
		return uint32(binary.LittleEndian.Uint16(blk[f.Offset:]))
	case gather.ScaleF32:
		return binary.LittleEndian.Uint32(blk[f.Offset:])
	case gather.ScaleE8M0, gather.ScaleUE4M3:
		return uint32(blk[f.Offset])
	}
	var h uint32
	for k := range 4 {
		h |= uint32(binary.LittleEndian.Uint16(blk[f.Offset+2*k:])>>12) << (4 * k)
	}
	return h
}

// TestRandomTable: every scale field of every block of every codec holds a
// normal value of magnitude [2^-10, 2^1) (exponents 112..130 for E8M0),
// both signs occur, the payload is random, and the same seed gives the
// same table; float tables are random bits, NaNs among them.
func TestRandomTable(t *testing.T) {
	for _, c := range gather.Codecs() {
		tb, err := gathertest.RandomTable(rand.New(rand.NewPCG(1, 2)), c.Type, 16, int64(c.Traits.BlockElems))
		if err != nil {
			t.Fatalf("%v: %v", c.Type, err)
		}
		again, _ := gathertest.RandomTable(rand.New(rand.NewPCG(1, 2)), c.Type, 16, int64(c.Traits.BlockElems))
		if len(tb) != 16*c.Traits.BlockBytes || !bytes.Equal(tb, again) {
			t.Fatalf("%v: %d bytes, or not the same table for the same seed", c.Type, len(tb))
		}
		signs := map[uint32]bool{}
		for blk := 0; blk < len(tb); blk += c.Traits.BlockBytes {
			for _, f := range c.Scales {
				v := scaleBits(tb[blk:], f)
				var exp, lo, hi uint32
				switch f.Encoding {
				case gather.ScaleF32:
					exp, lo, hi = v>>23&0xff, 117, 127
					signs[v>>31] = true
				case gather.ScaleE8M0:
					exp, lo, hi = v, 112, 130
					signs[0], signs[1] = true, true
				case gather.ScaleUE4M3:
					exp, lo, hi = v, 1, 0x47 // the byte: halved values in [2^-10, 2)
					signs[0], signs[1] = true, true
				default:
					exp, lo, hi = v>>10&0x1f, 5, 15
					signs[v>>15] = true
				}
				if exp < lo || exp > hi {
					t.Errorf("%v block %d: scale %s = %#x, exponent %d not in [%d, %d]", c.Type, blk/c.Traits.BlockBytes, f.Name, v, exp, lo, hi)
				}
			}
		}
		if len(signs) != 2 {
			t.Errorf("%v: the scales have one sign only", c.Type)
		}
	}
	var nans int
	for _, tt := range []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		tb, err := gathertest.RandomTable(rand.New(rand.NewPCG(3, 4)), tt, 64, 256)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := gguf.FindGgmlTraits(tt)
		if len(tb) != 64*256*tr.BlockBytes {
			t.Fatalf("%v: %d bytes", tt, len(tb))
		}
		for i := 0; i < len(tb); i += tr.BlockBytes {
			switch tt {
			case gguf.TypeF32:
				if u := binary.LittleEndian.Uint32(tb[i:]); u&0x7fffffff > 0x7f800000 {
					nans++
				}
			case gguf.TypeF16:
				if h := binary.LittleEndian.Uint16(tb[i:]); h&0x7fff > 0x7c00 {
					nans++
				}
			default:
				if h := binary.LittleEndian.Uint16(tb[i:]); h&0x7fff > 0x7f80 {
					nans++
				}
			}
		}
	}
	if nans == 0 {
		t.Error("no NaN in the float tables")
	}
}

// TestRandomTableRefuses: types without a codec row, rows of part of a
// block, and tables too large for a test are errors naming them.
func TestRandomTableRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		typ           gguf.Type
		vocab, hidden int64
		want          string
	}{
		{gguf.Type(99), 1, 32, "gathertest: unknown table type type(99)"},
		{gguf.TypeI32, 1, 32, "gathertest: I32 is neither a float type nor a codec of gather's table"},
		{gguf.TypeQ8_1, 1, 32, "gathertest: Q8_1 is neither a float type nor a codec of gather's table"},
		{gguf.TypeQ8_0, 1, 33, "gathertest: gguf: Q8_0 row of 33 elements is not whole blocks of 32"},
		{gguf.TypeQ8_0, 1 << 30, 64, "gathertest: a Q8_0 table of 1073741824 rows of 68 bytes is too large for a test"},
		{gguf.TypeF32, -1, 4, "gathertest: a F32 table cannot have -1 rows"},
	} {
		b, err := gathertest.RandomTable(rng, c.typ, c.vocab, c.hidden)
		if err == nil || err.Error() != c.want || b != nil {
			t.Errorf("RandomTable(%v, %d, %d) = %d bytes, %v; want %q", c.typ, c.vocab, c.hidden, len(b), err, c.want)
		}
	}
	if b, err := gathertest.RandomTable(rng, gguf.TypeF32, 0, 4); err != nil || len(b) != 0 {
		t.Errorf("an empty table: %d bytes, %v", len(b), err)
	}
}

// TestWithEdges: the first eleven blocks take the edge values, one per
// block, two fields of a block different ones; later blocks and float
// tables are left alone.
func TestWithEdges(t *testing.T) {
	edgeF16 := []uint32{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x0200}
	edgeF32 := []uint32{0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x00400000, 0x7f000000}
	edgeE8M0 := []uint32{0, 1, 2, 3, 126, 127, 128, 129, 253, 254, 255}
	edgeUE4M3 := []uint32{0x00, 0x7f, 0x80, 0xff, 0x01, 0x07, 0x08, 0x38, 0x7e, 0xfe, 0xb9}
	for _, c := range gather.Codecs() {
		bb := c.Traits.BlockBytes
		tb, err := gathertest.RandomTable(rand.New(rand.NewPCG(7, 8)), c.Type, 12, int64(c.Traits.BlockElems))
		if err != nil {
			t.Fatal(err)
		}
		orig := bytes.Clone(tb)
		gathertest.WithEdges(c.Type, tb)
		for k := range 11 {
			for i, f := range c.Scales {
				want := edgeF16[(k+i)%11]
				switch f.Encoding {
				case gather.ScaleF32:
					want = edgeF32[k]
				case gather.ScaleE8M0:
					want = edgeE8M0[k]
				case gather.ScaleUE4M3:
					want = edgeUE4M3[(k+i)%11]
				}
				if got := scaleBits(tb[k*bb:], f); got != want {
					t.Errorf("%v block %d: scale %s = %#x, want %#x", c.Type, k, f.Name, got, want)
				}
			}
		}
		// Only the scale bits changed: clear them in both and compare.
		clear := func(b []byte) {
			for k := range 11 {
				for _, f := range c.Scales {
					switch f.Encoding {
					case gather.ScaleF16:
						binary.LittleEndian.PutUint16(b[k*bb+f.Offset:], 0)
					case gather.ScaleF32:
						binary.LittleEndian.PutUint32(b[k*bb+f.Offset:], 0)
					case gather.ScaleE8M0, gather.ScaleUE4M3:
						b[k*bb+f.Offset] = 0
					default:
						for w := range 4 {
							b[k*bb+f.Offset+2*w+1] &= 0x0f
						}
					}
				}
			}
		}
		clear(tb)
		clear(orig)
		if !bytes.Equal(tb, orig) {
			t.Errorf("%v: WithEdges changed more than the scales of the first 11 blocks", c.Type)
		}
	}
	// A table of fewer blocks takes as many edges as it has blocks.
	short := make([]byte, 2*34)
	gathertest.WithEdges(gguf.TypeQ8_0, short)
	if binary.LittleEndian.Uint16(short[34:]) != 0x8000 {
		t.Errorf("the second of two blocks: scale %#x, want 0x8000", binary.LittleEndian.Uint16(short[34:]))
	}
	for _, tt := range []gguf.Type{gguf.TypeI32, gguf.Type(99)} {
		b := bytes.Repeat([]byte{0x7e}, 64)
		gathertest.WithEdges(tt, b)
		if !bytes.Equal(b, bytes.Repeat([]byte{0x7e}, 64)) {
			t.Errorf("WithEdges changed a %v table", tt)
		}
	}
	// Float tables start with their edge values; the rest is kept, and a
	// table shorter than the list takes what fits.
	for _, c := range []struct {
		t     gguf.Type
		first []byte // the first edges, little-endian
		n     int    // bytes of edges
	}{
		{gguf.TypeF32, []byte{0x01, 0x00, 0x80, 0x7f, 0x01, 0x00, 0x80, 0xff}, 36},
		{gguf.TypeF16, []byte{0x01, 0x7c, 0x01, 0xfc}, 18},
		{gguf.TypeBF16, []byte{0x81, 0x7f, 0x81, 0xff}, 18},
	} {
		b := bytes.Repeat([]byte{0x7e}, 64)
		gathertest.WithEdges(c.t, b)
		if !bytes.HasPrefix(b, c.first) || !bytes.Equal(b[c.n:], bytes.Repeat([]byte{0x7e}, 64-c.n)) || bytes.Equal(b[c.n-4:c.n], []byte{0x7e, 0x7e, 0x7e, 0x7e}) {
			t.Errorf("WithEdges on a %v table: % x", c.t, b)
		}
		short := bytes.Repeat([]byte{0x7e}, 3)
		gathertest.WithEdges(c.t, short)
		if c.t != gguf.TypeF32 && !bytes.Equal(short[:2], c.first[:2]) || c.t == gguf.TypeF32 && !bytes.Equal(short, []byte{0x7e, 0x7e, 0x7e}) || short[2] != 0x7e {
			t.Errorf("WithEdges on 3 bytes of a %v table: % x", c.t, short)
		}
	}
}

// TestEncodeIDs: I32 ids are their low 32 bits, I64 ids whole, both
// little-endian.
func TestEncodeIDs(t *testing.T) {
	ids := []int64{1, -1, 1<<32 + 3, math.MinInt64}
	if got, want := gathertest.EncodeIDs(gguf.TypeI32, ids), []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 3, 0, 0, 0, 0, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Errorf("I32: % x, want % x", got, want)
	}
	var want []byte
	for _, id := range ids {
		want = binary.LittleEndian.AppendUint64(want, uint64(id))
	}
	if got := gathertest.EncodeIDs(gguf.TypeI64, ids); !bytes.Equal(got, want) {
		t.Errorf("I64: % x, want % x", got, want)
	}
	if got := gathertest.EncodeIDs(gguf.TypeI64, nil); len(got) != 0 {
		t.Errorf("no ids: % x", got)
	}
}

// TestReference: packed rows are gather's decodes; F16 rows widen exactly
// (every pattern, the same bits as gather.F16ToF32, NaN payloads kept) and
// round with F32ToBF16; BF16 rows to bf16 are their words, signalling NaNs
// too; rows are taken in the order of ids.
func TestReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range gather.Codecs() {
		w := int64(2 * c.Traits.BlockElems)
		tb, err := gathertest.RandomTable(rng, c.Type, 3, w)
		if err != nil {
			t.Fatal(err)
		}
		rb := len(tb) / 3
		f := make([]float32, w)
		h := make([]uint16, w)
		if err := gather.Dequantize(c.Type, tb[2*rb:], f); err != nil {
			t.Fatal(err)
		}
		if err := gather.DequantizeBF16(c.Type, tb[2*rb:], h); err != nil {
			t.Fatal(err)
		}
		var wantF, wantH []byte
		for i := range f {
			wantF = binary.LittleEndian.AppendUint32(wantF, math.Float32bits(f[i]))
			wantH = binary.LittleEndian.AppendUint16(wantH, h[i])
		}
		got, err := gathertest.Reference(c.Type, tb, w, []int64{2, 0, 2}, gguf.TypeF32)
		if err != nil || len(got) != 3*len(wantF) || !bytes.Equal(got[:len(wantF)], wantF) || !bytes.Equal(got[2*len(wantF):], wantF) {
			t.Errorf("%v f32: %v", c.Type, err)
		}
		if got, err := gathertest.Reference(c.Type, tb, w, []int64{2}, gguf.TypeBF16); err != nil || !bytes.Equal(got, wantH) {
			t.Errorf("%v bf16: %v", c.Type, err)
		}
	}

	var f16 []byte
	for h := range 1 << 16 {
		f16 = binary.LittleEndian.AppendUint16(f16, uint16(h))
	}
	f32, err := gathertest.Reference(gguf.TypeF16, f16, 1<<16, []int64{0}, gguf.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := gathertest.Reference(gguf.TypeF16, f16, 1<<16, []int64{0}, gguf.TypeBF16)
	if err != nil {
		t.Fatal(err)
	}
	for h := range 1 << 16 {
		v := gather.F16ToF32(uint16(h))
		if got := binary.LittleEndian.Uint32(f32[4*h:]); got != math.Float32bits(v) {
			t.Fatalf("F16 %#04x: f32 %#08x, want %#08x", h, got, math.Float32bits(v))
		}
		if got := binary.LittleEndian.Uint16(bf[2*h:]); got != gather.F32ToBF16(v) {
			t.Fatalf("F16 %#04x: bf16 %#04x, want %#04x", h, got, gather.F32ToBF16(v))
		}
	}
	words := []byte{0x81, 0x7f, 0xc0, 0xff, 0x80, 0x3f}
	if got, err := gathertest.Reference(gguf.TypeBF16, words, 3, []int64{0}, gguf.TypeBF16); err != nil || !bytes.Equal(got, words) {
		t.Errorf("BF16 to bf16: % x, %v; want the words % x", got, err, words)
	}
	if got, err := gathertest.Reference(gguf.TypeBF16, words, 3, []int64{0}, gguf.TypeF32); err != nil ||
		!bytes.Equal(got, []byte{0, 0, 0x81, 0x7f, 0, 0, 0xc0, 0xff, 0, 0, 0x80, 0x3f}) {
		t.Errorf("BF16 to f32: % x, %v", got, err)
	}
	f32words := []byte{0x01, 0x00, 0x80, 0x7f, 0x00, 0x80, 0x80, 0x3f}
	if got, err := gathertest.Reference(gguf.TypeF32, f32words, 2, []int64{0}, gguf.TypeF32); err != nil || !bytes.Equal(got, f32words) {
		t.Errorf("F32 to f32: % x, %v", got, err)
	}
	if got, err := gathertest.Reference(gguf.TypeF32, f32words, 2, []int64{0}, gguf.TypeBF16); err != nil || !bytes.Equal(got, []byte{0xc0, 0x7f, 0x80, 0x3f}) {
		t.Errorf("F32 to bf16: % x, %v (the signalling NaN quieted, the tie to even)", got, err)
	}
}

// TestReferenceRefuses: an out type other than F32 and BF16, a row width
// of part of a block, and an id outside the table are errors.
func TestReferenceRefuses(t *testing.T) {
	tb := make([]byte, 2*34)
	for _, c := range []struct {
		typ    gguf.Type
		hidden int64
		ids    []int64
		out    gguf.Type
		want   string
	}{
		{gguf.TypeQ8_0, 32, []int64{0}, gguf.TypeF16, "gathertest: reference to F16 out: want F32 or BF16"},
		{gguf.TypeQ8_0, 33, []int64{0}, gguf.TypeF32, "gathertest: gguf: Q8_0 row of 33 elements is not whole blocks of 32"},
		{gguf.TypeQ8_0, 32, []int64{1, 2}, gguf.TypeF32, "gathertest: reference: row 2 is not in the 68-byte table"},
		{gguf.TypeQ8_0, 32, []int64{-1}, gguf.TypeBF16, "gathertest: reference: row -1 is not in the 68-byte table"},
		{gguf.TypeQ8_0, 64, []int64{1}, gguf.TypeF32, "gathertest: reference: row 1 is not in the 68-byte table"},
		{gguf.TypeQ8_1, 32, []int64{0}, gguf.TypeF32, "gathertest: reference: gather: no decoder for ggml type Q8_1 (id 9)"},
		{gguf.TypeQ8_1, 32, []int64{0}, gguf.TypeBF16, "gathertest: reference: gather: no decoder for ggml type Q8_1 (id 9)"},
	} {
		b, err := gathertest.Reference(c.typ, tb[:68], c.hidden, c.ids, c.out)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || b != nil {
			t.Errorf("Reference(%v, %d, %v, %v) = %d bytes, %v; want %q", c.typ, c.hidden, c.ids, c.out, len(b), err, c.want)
		}
	}
}

// TestHost: a host buffer is a copy of its data; a tensor at an offset
// shares the buffer's bytes from there; Bytes is a copy.
func TestHost(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5}
	b, err := gathertest.Host{}.Alloc(data)
	if err != nil {
		t.Fatal(err)
	}
	data[0] = 9
	x := b.Tensor(gguf.TypeI8, []int64{3}, 2)
	shape := x.Shape
	if x.Device != gather.Host || x.Type != gguf.TypeI8 || !bytes.Equal(x.Data, []byte{3, 4, 5}) || x.DevPtr != 0 {
		t.Fatalf("tensor %+v", x)
	}
	x.Data[0] = 7
	shape[0] = 1
	got, _ := b.Bytes()
	if !bytes.Equal(got, []byte{1, 2, 7, 4, 5}) {
		t.Fatalf("buffer % x", got)
	}
	got[0] = 0
	again, _ := b.Bytes()
	if again[0] != 1 || b.Tensor(gguf.TypeI8, []int64{3}, 0).Shape[0] != 3 {
		t.Fatal("Bytes is not a copy, or the shape was shared")
	}
	if d := (gathertest.Host{}).Device(); d != gather.Host {
		t.Fatalf("Host device %v", d)
	}
	if e, _ := (gathertest.Host{}).Alloc(nil); e.Tensor(gguf.TypeF32, []int64{0}, 0).Data != nil {
		t.Fatal("an empty buffer has data")
	}
}
