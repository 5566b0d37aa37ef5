package gather

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"gathermut/gguf"
)

// valid returns a valid Embedding call on the host: a Q8_0 table [4, 64]
// (block k's scale is 2^k, its quants count up from -16), ids [2, 0, 3] as
// I32, out F32.
func valid() (out, table, ids *Tensor) {
	tb := make([]byte, 8*34)
	for k := range 8 {
		binary.LittleEndian.PutUint16(tb[34*k:], 0x3c00+uint16(k)<<10) // 2^k
		for e := range 32 {
			tb[34*k+2+e] = byte(e - 16)
		}
	}
	table = hostTensor(gguf.TypeQ8_0, tb, 4, 64)
	ids = hostTensor(gguf.TypeI32, idBytes([]int64{2, 0, 3}, gguf.TypeI32), 3)
	out = hostTensor(gguf.TypeF32, make([]byte, 3*64*4), 3, 64)
	return out, table, ids
}

const pre = "gather: Embedding: "

// TestEmbeddingFirstBadID reports the first of several bad ids.
func TestEmbeddingFirstBadID(t *testing.T) {
	o, tb, _ := valid()
	for _, c := range []struct {
		ids  []int64
		want string
	}{
		{[]int64{4, -1, 9}, "gather: ids[0] = 4 out of range [0, 4)"},
		{[]int64{3, -1, 9}, "gather: ids[1] = -1 out of range [0, 4)"},
		{[]int64{0, 1, 1 << 40}, "gather: ids[2] = 1099511627776 out of range [0, 4)"},
	} {
		err := Embedding(o, tb, hostTensor(gguf.TypeI64, idBytes(c.ids, gguf.TypeI64), 3))
		if err == nil || err.Error() != c.want {
			t.Errorf("ids %v: got %v, want %s", c.ids, err, c.want)
		}
	}
}

// TestCheckIDs covers the exported id check and message.
func TestCheckIDs(t *testing.T) {
	if got, want := IDError(3, 1<<32+1, 128).Error(), "gather: ids[3] = 4294967297 out of range [0, 128)"; got != want {
		t.Fatalf("IDError: got %q, want %q", got, want)
	}
	for _, c := range []struct {
		ids   []int64
		vocab int64
		want  string
	}{
		{nil, 0, ""},
		{nil, 5, ""},
		{[]int64{0, 4, 2}, 5, ""},
		{[]int64{0}, 1, ""},
		{[]int64{0}, 0, "gather: ids[0] = 0 out of range [0, 0)"},
		{[]int64{0, 5}, 5, "gather: ids[1] = 5 out of range [0, 5)"},
		{[]int64{0, 1, 2, -1}, 5, "gather: ids[3] = -1 out of range [0, 5)"},
		{[]int64{1, 2, 3, math.MinInt64}, 128, "gather: ids[3] = -9223372036854775808 out of range [0, 128)"},
		{[]int64{math.MaxInt64, -1}, 128, "gather: ids[0] = 9223372036854775807 out of range [0, 128)"},
		{[]int64{1<<32 + 1}, 1 << 33, ""},
	} {
		err := CheckIDs(c.ids, c.vocab)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckIDs(%v, %d) = %q, want %q", c.ids, c.vocab, got, c.want)
		}
	}
}

// TestEmbeddingEmptyAllocatesNothing: an empty request allocates nothing,
// neither through Embedding nor in the provider.
func TestEmbeddingEmptyAllocatesNothing(t *testing.T) {
	for _, tt := range []gguf.Type{gguf.TypeQ8_0, gguf.TypeF32} {
		table := hostTensor(tt, nil, 0, 32)
		out := hostTensor(gguf.TypeBF16, nil, 0, 32)
		ids := hostTensor(gguf.TypeI32, nil, 0)
		p := Providers(opFor(tt), CPU)[0]
		for name, call := range map[string]func() error{
			"Embedding": func() error { return Embedding(out, table, ids) },
			"provider":  func() error { return p.Embedding(out, table, ids) },
		} {
			var err error
			if n := testing.AllocsPerRun(20, func() { err = call() }); n != 0 || err != nil {
				t.Errorf("%v %s: %v allocations, error %v", tt, name, n, err)
			}
		}
	}
}

// bf16Cases are f32 patterns and the bf16 words round-to-nearest-even gives:
// ties to even both ways and both signs, NaN quieted with its top bits kept,
// infinities and rounding up to infinity.
var bf16Cases = []struct{ f32, bf16 uint32 }{
	{0x3f808000, 0x3f80}, // tie, even below
	{0x3f818000, 0x3f82}, // tie, odd below: up
	{0xbf808000, 0xbf80},
	{0xbf818000, 0xbf82},
	{0x3f808001, 0x3f81}, // above the tie
	{0x3f807fff, 0x3f80},
	{0x7f800001, 0x7fc0}, // signalling NaN: quieted
	{0xff810000, 0xffc1},
	{0x7fc00000, 0x7fc0},
	{0x7fffffff, 0x7fff},
	{0x7f800000, 0x7f80}, // +Inf
	{0xff800000, 0xff80},
	{0x7f7fffff, 0x7f80}, // max finite rounds to Inf
	{0x80000000, 0x8000}, // -0
	{0x00008000, 0x0000}, // subnormal tie
	{0x00018000, 0x0002},
}

// TestEmbeddingBF16Rounding runs the bf16 cases through Embedding on an F32
// table, and ties built from F16 and Q8_0 tables.
func TestEmbeddingBF16Rounding(t *testing.T) {
	n := int64(len(bf16Cases))
	var tb, want []byte
	for _, c := range bf16Cases {
		tb = binary.LittleEndian.AppendUint32(tb, c.f32)
		want = binary.LittleEndian.AppendUint16(want, uint16(c.bf16))
	}
	check := func(name string, tt gguf.Type, tb []byte, width int64, want []byte, wantF32 []byte) {
		t.Helper()
		for _, bf16 := range []bool{true, false} {
			w := want
			if !bf16 {
				w = wantF32
			}
			out := hostTensor(outType(bf16), make([]byte, len(w)), 1, width)
			tdata, _ := atOffset(tb, 1)
			if err := Embedding(out, hostTensor(tt, tdata, 1, width), hostTensor(gguf.TypeI32, idBytes([]int64{0}, gguf.TypeI32), 1)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(out.Data, w) {
				t.Errorf("%s %v out:\n got %x\nwant %x", name, outType(bf16), out.Data, w)
			}
		}
	}
	check("F32 table", gguf.TypeF32, tb, n, want, tb)

	// F16 0x3c04 = 1 + 2^-8 widens to the tie 0x3f808000; 0x3c0c to 0x3f818000.
	var h, hw, hf []byte
	for _, c := range []struct {
		f16  uint16
		f32  uint32
		bf16 uint16
	}{
		{0x3c04, 0x3f808000, 0x3f80}, {0x3c0c, 0x3f818000, 0x3f82},
		{0xbc04, 0xbf808000, 0xbf80}, {0xbc0c, 0xbf818000, 0xbf82},
		{0x7c01, 0x7f802000, 0x7fc0}, {0xfe00, 0xffc00000, 0xffc0},
		{0x0001, 0x33800000, 0x3380}, {0x8000, 0x80000000, 0x8000},
	} {
		h = binary.LittleEndian.AppendUint16(h, c.f16)
		hf = binary.LittleEndian.AppendUint32(hf, c.f32)
		hw = binary.LittleEndian.AppendUint16(hw, c.bf16)
	}
	check("F16 table", gguf.TypeF16, h, 8, hw, hf)

	// Q8_0 with d = 1 + 2^-8 (tie below odd? no: 0x3f808000 is even below) and
	// q = 1, -1; d = 1 + 3·2^-8 gives 0x3f818000. The other 30 quants are 0.
	for _, c := range []struct {
		d          uint16
		q          int8
		f32        uint32
		bf16, zero uint16
	}{
		{0x3c04, 1, 0x3f808000, 0x3f80, 0x0000},
		{0x3c04, -1, 0xbf808000, 0xbf80, 0x0000},
		{0x3c0c, 1, 0x3f818000, 0x3f82, 0x0000},
		{0xbc0c, 1, 0xbf818000, 0xbf82, 0x8000},
	} {
		blk := make([]byte, 34)
		binary.LittleEndian.PutUint16(blk, c.d)
		blk[2+5] = byte(c.q)
		var wb, wf []byte
		for e := range 32 {
			if e == 5 {
				wb = binary.LittleEndian.AppendUint16(wb, c.bf16)
				wf = binary.LittleEndian.AppendUint32(wf, c.f32)
			} else {
				wb = binary.LittleEndian.AppendUint16(wb, c.zero)
				wf = binary.LittleEndian.AppendUint32(wf, uint32(c.zero)<<16)
			}
		}
		check(fmt.Sprintf("Q8_0 d=%#x q=%d", c.d, c.q), gguf.TypeQ8_0, blk, 32, wb, wf)
	}
}

// TestEmbeddingNaN: a NaN scale makes NaN outputs; bf16 keeps them NaN with
// the quiet bit set. NaN sign and payload from arithmetic are the platform's,
// so only NaN-ness and quietness are checked.
func TestEmbeddingNaN(t *testing.T) {
	blk := make([]byte, 34)
	binary.LittleEndian.PutUint16(blk, 0x7e00)
	for e := range 32 {
		blk[2+e] = byte(e - 16)
	}
	table := hostTensor(gguf.TypeQ8_0, blk, 1, 32)
	ids := hostTensor(gguf.TypeI32, make([]byte, 4), 1)
	o32 := hostTensor(gguf.TypeF32, make([]byte, 128), 1, 32)
	o16 := hostTensor(gguf.TypeBF16, make([]byte, 64), 1, 32)
	if err := Embedding(o32, table, ids); err != nil {
		t.Fatal(err)
	}
	if err := Embedding(o16, table, ids); err != nil {
		t.Fatal(err)
	}
	for e := range 32 {
		f := binary.LittleEndian.Uint32(o32.Data[4*e:])
		h := binary.LittleEndian.Uint16(o16.Data[2*e:])
		if f&0x7fffffff <= 0x7f800000 {
			t.Errorf("f32 element %d = %#x, want NaN", e, f)
		}
		if h&0x7fff <= 0x7f80 || h&0x0040 == 0 {
			t.Errorf("bf16 element %d = %#x, want a quiet NaN", e, h)
		}
	}
}

// TestEmbeddingBF16TableCopies: a BF16 table to bf16 out copies the words,
// NaN payloads included (a signalling 0x7f81 stays 0x7f81, where
// F32ToBF16(BF16ToF32(w)) would quiet it to 0x7fc1); to f32 out it widens
// exactly.
func TestEmbeddingBF16TableCopies(t *testing.T) {
	words := []uint16{0x7f81, 0xff81, 0x7fc0, 0x3f80, 0x8001, 0x0000, 0x7f80, 0xc2f7}
	var tb, wf []byte
	for _, w := range words {
		tb = binary.LittleEndian.AppendUint16(tb, w)
		wf = binary.LittleEndian.AppendUint32(wf, uint32(w)<<16)
	}
	if F32ToBF16(BF16ToF32(0x7f81)) != 0x7fc1 {
		t.Fatal("premise: the round trip quiets a signalling NaN")
	}
	tdata, _ := atOffset(tb, 3)
	table := hostTensor(gguf.TypeBF16, tdata, 1, int64(len(words)))
	ids := hostTensor(gguf.TypeI64, make([]byte, 8), 1)
	o16 := hostTensor(gguf.TypeBF16, make([]byte, len(tb)), 1, int64(len(words)))
	o32 := hostTensor(gguf.TypeF32, make([]byte, len(wf)), 1, int64(len(words)))
	if err := Embedding(o16, table, ids); err != nil {
		t.Fatal(err)
	}
	if err := Embedding(o32, table, ids); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(o16.Data, tb) {
		t.Errorf("bf16 out %x, want the table's words %x", o16.Data, tb)
	}
	if !bytes.Equal(o32.Data, wf) {
		t.Errorf("f32 out %x, want %x", o32.Data, wf)
	}
}

// TestEmbeddingOracle gathers rows of every oracle table (upstream ggml
// decodes, independent of this package's decoders), the edge-scale cases
// included, in reverse and repeated order through Embedding, into f32 and
// bf16 out, and compares them with the oracle's rows by the oracle's rule:
// bits exactly, signed zeros included, a NaN only as a NaN. Extra codecs
// decode but Embedding refuses them.
func TestEmbeddingOracle(t *testing.T) {
	seen := map[gguf.Type]bool{}
	for _, c := range readOracleIndex(t) {
		t.Run(c.Dir, func(t *testing.T) {
			d := loadOracleCase(t, c)
			tt := gguf.Type(c.GgmlType)
			var ids []int64
			for r := c.Rows - 1; r >= 0; r-- {
				ids = append(ids, int64(r), int64(c.Rows-1))
			}
			n := int64(len(ids))
			tdata, _ := atOffset(d.packed, 1)
			table := hostTensor(tt, tdata, int64(c.Rows), int64(c.Cols))
			for _, idt := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
				for _, bf16 := range []bool{false, true} {
					out := hostTensor(outType(bf16), make([]byte, outSize(int(n), c.Cols, bf16)), n, int64(c.Cols))
					err := Embedding(out, table, hostTensor(idt, idBytes(ids, idt), n))
					if c.Extra {
						want := fmt.Sprintf(pre+"table type %v is not admitted", tt)
						if err == nil || err.Error() != want {
							t.Fatalf("extra codec: got %v, want %s", err, want)
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					var want []byte
					for _, id := range ids {
						for e := range c.Cols {
							k := int(id)*c.Cols + e
							if bf16 {
								want = binary.LittleEndian.AppendUint16(want, d.bf16[k])
							} else {
								want = binary.LittleEndian.AppendUint32(want, d.f32[k])
							}
						}
					}
					if e := oracleMismatch(out.Data, want, bf16); e >= 0 {
						t.Fatalf("%v %v out differs from the oracle at element %d", idt, outType(bf16), e)
					}
				}
			}
			if !c.Extra {
				seen[tt] = true
			}
		})
	}
	for _, a := range Admitted() {
		if !seen[a] {
			t.Errorf("no oracle table gathered for %v", a)
		}
	}
}

// oracleMismatch returns the first element where got differs from want
// (little-endian f32 words, or bf16 words when bf16), or -1: bits must be
// equal unless both are NaN, whose sign and payload are the platform's.
func oracleMismatch(got, want []byte, bf16 bool) int {
	if len(got) != len(want) {
		return 0
	}
	if bf16 {
		for e := range len(want) / 2 {
			g, w := binary.LittleEndian.Uint16(got[2*e:]), binary.LittleEndian.Uint16(want[2*e:])
			if g != w && !(isNaN16(g) && isNaN16(w)) {
				return e
			}
		}
		return -1
	}
	for e := range len(want) / 4 {
		g, w := binary.LittleEndian.Uint32(got[4*e:]), binary.LittleEndian.Uint32(want[4*e:])
		if g != w && !(isNaN32(g) && isNaN32(w)) {
			return e
		}
	}
	return -1
}
