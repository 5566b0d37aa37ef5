package gather

import (
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gathermut/gguf"
)

// codecGeometry is the codec table's rows, which the tests iterate.
var codecGeometry = Codecs()

// rowDoc is the behaviour contract, whose table of admitted codecs
// TestAdmitted reads.
const rowDoc = "../docs/row.md"

// docAdmitted reads the table under docs/row.md's heading "The N admitted
// codecs": each codec's name, type id, elements and bytes per block, in
// the page's order. N must be the number of rows.
func docAdmitted(t *testing.T) []gguf.Traits {
	t.Helper()
	raw, err := os.ReadFile(rowDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	head := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "## The ") && strings.HasSuffix(l, " admitted codecs")
	})
	if head < 0 {
		t.Fatalf("%s has no heading \"## The N admitted codecs\"", rowDoc)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lines[head], "## The "), " admitted codecs"))
	if err != nil {
		t.Fatalf("%s: heading %q: %v", rowDoc, lines[head], err)
	}
	var rows []gguf.Traits
	var ids []gguf.Type
	for _, l := range lines[head+1:] {
		if strings.HasPrefix(l, "## ") {
			break
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if !strings.HasPrefix(l, "| ") || len(cells) != 4 {
			continue
		}
		var v [3]int
		ok := true
		for i := range v {
			if v[i], err = strconv.Atoi(strings.TrimSpace(cells[i+1])); err != nil {
				ok = false
			}
		}
		if !ok {
			continue // the header row
		}
		rows = append(rows, gguf.Traits{Name: strings.TrimSpace(cells[0]), BlockElems: v[1], BlockBytes: v[2]})
		ids = append(ids, gguf.Type(v[0]))
	}
	if len(rows) != n {
		t.Fatalf("%s: heading says %d admitted codecs, its table has %d rows", rowDoc, n, len(rows))
	}
	for i, id := range ids {
		if tr, ok := gguf.FindGgmlTraits(id); !ok || tr != rows[i] {
			t.Errorf("%s: %+v is type %d, whose traits are %+v (known %v)", rowDoc, rows[i], uint32(id), tr, ok)
		}
	}
	return rows
}

// TestAdmitted checks Admitted() against the table of admitted codecs in
// docs/row.md (the contract, written independently of the codec table):
// the same codecs, type ids and geometry, in GGML id order; that the
// caller owns the slice it gets; and that no extra is admitted.
func TestAdmitted(t *testing.T) {
	var want []gguf.Type
	for _, tr := range docAdmitted(t) {
		typ, _ := gguf.TypeByName(tr.Name)
		want = append(want, typ)
	}
	got := Admitted()
	if !slices.Equal(got, want) {
		t.Fatalf("Admitted() = %v, docs/row.md lists %v", got, want)
	}
	got[0] = gguf.TypeF32
	if again := Admitted(); !slices.Equal(again, want) {
		t.Fatalf("Admitted() after the caller changed its copy = %v", again)
	}
	for _, c := range codecGeometry {
		if c.Admitted != slices.Contains(want, c.Type) {
			t.Errorf("%v: admitted %v in the table", c.Type, c.Admitted)
		}
	}
}

// TestDecodes checks which types have a decoder: every row of the table,
// and no float, integer, removed or unknown type, nor the known block
// types without a row.
func TestDecodes(t *testing.T) {
	for _, c := range codecGeometry {
		if !Decodes(c.Type) {
			t.Errorf("Decodes(%v) = false", c.Type)
		}
	}
	if len(codecs) != len(codecGeometry) {
		t.Errorf("%d codecs indexed, %d rows", len(codecs), len(codecGeometry))
	}
	for _, typ := range []gguf.Type{
		gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_1, gguf.TypeI8, gguf.TypeI32, gguf.TypeF64,
		gguf.TypeIQ1_XS, gguf.TypeIQ1_XXS, 4, 31, 99,
	} {
		if Decodes(typ) {
			t.Errorf("Decodes(%v) = true", typ)
		}
	}
}

// TestCodecTable checks each row against gguf's traits for its type, that
// DequantizeBF16's chunk is whole blocks of every codec, that the index and
// the admitted list are the table's, and that Codecs and CodecOf hand out
// copies.
func TestCodecTable(t *testing.T) {
	for i, c := range codecTable {
		t.Run(c.Type.String(), func(t *testing.T) {
			tr, ok := gguf.FindGgmlTraits(c.Type)
			if !ok || tr != c.Traits {
				t.Errorf("%v: row traits %+v, gguf has %+v (known %v)", c.Type, c.Traits, tr, ok)
			}
			if bf16Chunk%c.Traits.BlockElems != 0 {
				t.Errorf("%v: bf16Chunk %d is not whole blocks of %d", c.Type, bf16Chunk, c.Traits.BlockElems)
			}
			if i > 0 && codecTable[i-1].Type >= c.Type {
				t.Errorf("%v: row after %v, want GGML id order", c.Type, codecTable[i-1].Type)
			}
			if codecs[c.Type] != &codecTable[i] {
				t.Errorf("%v: the index does not point at its row", c.Type)
			}
			if got, ok := CodecOf(c.Type); !ok || got.Type != c.Type || !slices.Equal(got.Scales, c.Scales) {
				t.Errorf("CodecOf(%v) = %+v, %v", c.Type, got, ok)
			}
			if c.decode == nil {
				t.Errorf("%v: no decoder", c.Type)
			}
			end := 0
			for _, f := range c.Scales {
				if f.Offset < end || f.Encoding.size() == 0 || f.Offset+f.Encoding.size() > c.Traits.BlockBytes {
					t.Errorf("%v: scale field %+v has no encoding, or overlaps the previous one or the block end", c.Type, f)
				}
				end = f.Offset + f.Encoding.size()
			}
			if len(c.Scales) == 0 {
				t.Errorf("%v: no scale field", c.Type)
			}
		})
	}
	if _, ok := CodecOf(gguf.TypeF32); ok {
		t.Error("CodecOf(F32) found a row")
	}
	rows := Codecs()
	rows[0].Scales[0].Offset = 99
	if codecTable[0].Scales[0].Offset != 0 {
		t.Error("changing Codecs()'s rows changed the table")
	}
	row, _ := CodecOf(gguf.TypeQ4_1)
	row.Scales[1].Offset = 99
	if codecTable[1].Scales[1].Offset != 2 {
		t.Error("changing CodecOf's row changed the table")
	}
}

// TestDequantizeErrors checks every refusal of Dequantize and
// DequantizeBF16, its message, and that a refused call writes nothing.
func TestDequantizeErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		typ       gguf.Type
		packedLen int
		outLen    int
		want      string
	}{
		{"unknown id", 99, 1024, 32, "gather: unknown ggml type id 99"},
		{"removed id", 4, 1024, 32, "gather: unknown ggml type id 4"},
		{"huge id", 1 << 31, 1024, 32, "gather: unknown ggml type id 2147483648"},
		{"float type", gguf.TypeF32, 1024, 32, "gather: no decoder for ggml type F32 (id 0)"},
		{"bf16", gguf.TypeBF16, 1024, 32, "gather: no decoder for ggml type BF16 (id 30)"},
		{"Q8_1 has traits only", gguf.TypeQ8_1, 1024, 32, "gather: no decoder for ggml type Q8_1 (id 9)"},
		{"fork IQ1_XS", gguf.TypeIQ1_XS, 1024, 256, "gather: no decoder for ggml type IQ1_XS (id 64)"},
		{"packed one byte short", gguf.TypeQ4_K, 287, 512, "gather: Q4_K: 512 elements need 288 packed bytes, have 287"},
		{"packed empty", gguf.TypeQ2_K, 0, 256, "gather: Q2_K: 256 elements need 84 packed bytes, have 0"},
		{"MXFP4 short", gguf.TypeMXFP4, 33, 64, "gather: MXFP4: 64 elements need 34 packed bytes, have 33"},
		{"out not whole blocks", gguf.TypeQ8_0, 1024, 33, "gather: Q8_0: 33 output elements are not whole blocks of 32"},
		{"out smaller than a block", gguf.TypeIQ2_XXS, 1024, 255, "gather: IQ2_XXS: 255 output elements are not whole blocks of 256"},
		{"whole blocks checked first", gguf.TypeQ4_0, 0, 31, "gather: Q4_0: 31 output elements are not whole blocks of 32"},
		{"whole blocks checked before a short packed run", gguf.TypeQ4_0, 17, 33, "gather: Q4_0: 33 output elements are not whole blocks of 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			packed := make([]byte, tc.packedLen)
			f32 := make([]float32, tc.outLen)
			for i := range f32 {
				f32[i] = 7
			}
			err := Dequantize(tc.typ, packed, f32)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Dequantize error %v, want %q", err, tc.want)
			}
			bf := make([]uint16, tc.outLen)
			for i := range bf {
				bf[i] = 0x4040
			}
			err = DequantizeBF16(tc.typ, packed, bf)
			if err == nil || err.Error() != tc.want {
				t.Errorf("DequantizeBF16 error %v, want %q", err, tc.want)
			}
			for i := range f32 {
				if f32[i] != 7 || bf[i] != 0x4040 {
					t.Fatalf("a refused call wrote element %d", i)
				}
			}
		})
	}
}

// TestDequantizeEmpty checks that zero elements need no bytes.
func TestDequantizeEmpty(t *testing.T) {
	for _, c := range codecGeometry {
		if err := Dequantize(c.Type, nil, nil); err != nil {
			t.Errorf("%s: Dequantize(nil, nil): %v", c.Traits.Name, err)
		}
		if err := DequantizeBF16(c.Type, nil, []uint16{}); err != nil {
			t.Errorf("%s: DequantizeBF16(nil, nil): %v", c.Traits.Name, err)
		}
	}
}

// oracleByCodec returns the w3 oracle case of each codec (3 blocks a row).
func oracleByCodec(t *testing.T) map[string]oracleData {
	t.Helper()
	out := map[string]oracleData{}
	for _, c := range readOracleIndex(t) {
		if c.Case == "w3" {
			out[c.Codec] = loadOracleCase(t, c)
		}
	}
	return out
}

// checkRow compares decoded f32 and bf16 values with the oracle's.
func checkRow(t *testing.T, f32 []float32, bf []uint16, wantF32 []uint32, wantBF []uint16) {
	t.Helper()
	for i := range wantF32 {
		if got := math.Float32bits(f32[i]); got != wantF32[i] && !(isNaN32(got) && isNaN32(wantF32[i])) {
			t.Fatalf("element %d: f32 %#08x, want %#08x", i, got, wantF32[i])
		}
		if bf[i] != wantBF[i] && !(isNaN16(bf[i]) && isNaN16(wantBF[i])) {
			t.Fatalf("element %d: bf16 %#04x, want %#04x", i, bf[i], wantBF[i])
		}
	}
}

// TestDequantizeBounds gives each decoder exactly the bytes it needs at the
// very end of a buffer (any read past them would panic) and output slices
// followed by sentinels (any write past them would show), then checks that
// trailing packed bytes beyond the blocks are ignored.
func TestDequantizeBounds(t *testing.T) {
	oracle := oracleByCodec(t)
	for _, c := range codecGeometry {
		t.Run(c.Traits.Name, func(t *testing.T) {
			d, ok := oracle[c.Traits.Name]
			if !ok {
				t.Fatalf("no w3 oracle case for %s", c.Traits.Name)
			}
			m := d.meta
			row := d.packed[:m.RowBytes]
			buf := make([]byte, 5+m.RowBytes)
			copy(buf[5:], row)
			exact := buf[5:]

			f32 := make([]float32, m.Cols+3)
			bf := make([]uint16, m.Cols+3)
			for i := m.Cols; i < m.Cols+3; i++ {
				f32[i], bf[i] = -1, 0xdead
			}
			if err := Dequantize(c.Type, exact, f32[:m.Cols]); err != nil {
				t.Fatal(err)
			}
			if err := DequantizeBF16(c.Type, exact, bf[:m.Cols]); err != nil {
				t.Fatal(err)
			}
			for i := m.Cols; i < m.Cols+3; i++ {
				if f32[i] != -1 || bf[i] != 0xdead {
					t.Fatalf("wrote past the output at element %d", i)
				}
			}
			checkRow(t, f32, bf, d.f32[:m.Cols], d.bf16[:m.Cols])

			// Two rows of packed bytes, one row of output: only the front is read.
			if err := Dequantize(c.Type, d.packed[:2*m.RowBytes], f32[:m.Cols]); err != nil {
				t.Fatal(err)
			}
			if err := DequantizeBF16(c.Type, d.packed[:2*m.RowBytes], bf[:m.Cols]); err != nil {
				t.Fatal(err)
			}
			checkRow(t, f32, bf, d.f32[:m.Cols], d.bf16[:m.Cols])
		})
	}
}

// TestDequantizeWholeTable decodes each oracle table in one call, all rows
// at once, since rows are whole blocks back to back.
func TestDequantizeWholeTable(t *testing.T) {
	oracle := oracleByCodec(t)
	for _, c := range codecGeometry {
		t.Run(c.Traits.Name, func(t *testing.T) {
			d, ok := oracle[c.Traits.Name]
			if !ok {
				t.Fatalf("no w3 oracle case for %s", c.Traits.Name)
			}
			n := d.meta.Rows * d.meta.Cols
			f32 := make([]float32, n)
			bf := make([]uint16, n)
			if err := Dequantize(c.Type, d.packed, f32); err != nil {
				t.Fatal(err)
			}
			if err := DequantizeBF16(c.Type, d.packed, bf); err != nil {
				t.Fatal(err)
			}
			checkRow(t, f32, bf, d.f32, d.bf16)
		})
	}
}

// TestDequantizeAllocs checks that decoding allocates nothing per call:
// DequantizeBF16 reuses its one-block scratch instead of allocating it.
func TestDequantizeAllocs(t *testing.T) {
	packed := make([]byte, 16*144)
	f32 := make([]float32, 16*256)
	bf := make([]uint16, 16*256)
	if n := testing.AllocsPerRun(100, func() { _ = Dequantize(gguf.TypeQ4_K, packed, f32) }); n != 0 {
		t.Errorf("Dequantize: %v allocations per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = DequantizeBF16(gguf.TypeQ4_K, packed, bf) }); n >= 0.5 {
		t.Errorf("DequantizeBF16: %v allocations per call", n)
	}
}

// TestScaleFieldsScaleOutput checks each row's scale fields against both
// decoders: a block of random payload decodes to exactly twice the values
// when every scale field of the row is doubled (f16 and f32 1 -> 2, E8M0
// 127 -> 128), so a field's offset or encoding that is not where the
// decoder reads its scale fails.
func TestScaleFieldsScaleOutput(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for _, c := range codecTable {
		t.Run(c.Type.String(), func(t *testing.T) {
			rng := splitMix{state: 0x5ca1e ^ uint64(c.Type)}
			blocks := make([]byte, 4*c.Traits.BlockBytes)
			for i := range blocks {
				blocks[i] = byte(rng.next())
			}
			scaled := func(twice bool) []byte {
				p := append([]byte(nil), blocks...)
				for b := 0; b < len(p); b += c.Traits.BlockBytes {
					for _, f := range c.Scales {
						setScale(t, p[b+f.Offset:], f.Encoding, twice)
					}
				}
				return p
			}
			base, twice := scaled(false), scaled(true)
			decoders := []runDecoder{c.decode}
			if c.fast != nil {
				decoders = append(decoders, c.fast)
			}
			for k, dec := range decoders {
				a := make([]float32, 4*c.Traits.BlockElems)
				b := make([]float32, len(a))
				dec(base, a)
				dec(twice, b)
				nonzero := 0
				for i := range a {
					if math.Float32bits(b[i]) != math.Float32bits(2*a[i]) {
						t.Fatalf("%s decoder %d: element %d: %g with doubled scales, %g without", c.Traits.Name, k, i, b[i], a[i])
					}
					if a[i] != 0 {
						nonzero++
					}
				}
				if nonzero == 0 {
					t.Fatalf("%s decoder %d: every element is zero", c.Traits.Name, k)
				}
			}
		})
	}
}

// setScale writes 1 (E8M0: 127), or 2 (128) when twice, at the front of b
// in encoding e.
func setScale(t *testing.T, b []byte, e ScaleEncoding, twice bool) {
	t.Helper()
	h := uint16(0x3c00)
	if twice {
		h = 0x4000
	}
	switch e {
	case ScaleF16:
		binary.LittleEndian.PutUint16(b, h)
	case ScaleF32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(F16ToF32(h)))
	case ScaleE8M0:
		b[0] = byte(127 + h>>14&1)
	case ScaleUE4M3:
		b[0] = byte(0x40 + h>>14&1*8) // ue4m3Half: 1, or 2
	case ScaleF16Nibbles:
		for i := range 4 {
			w := binary.LittleEndian.Uint16(b[2*i:])
			binary.LittleEndian.PutUint16(b[2*i:], w&0x0fff|(h>>(4*i)&15)<<12)
		}
	default:
		t.Fatalf("no test value for scale encoding %d", e)
	}
}

// TestDecodeRunUsesAccel installs a stand-in accelerated decoder for Q8_0
// and checks that Dequantize and DequantizeBF16 call it, with exactly the
// run's bytes, instead of the portable decoder.
func TestDecodeRunUsesAccel(t *testing.T) {
	c := codecs[gguf.TypeQ8_0]
	saved := c.fast
	defer func() { c.fast = saved }()
	var packedLen int
	c.fast = func(p []byte, o []float32) {
		packedLen = len(p)
		for i := range o {
			o[i] = 42
		}
	}
	out := make([]float32, 64)
	if err := Dequantize(gguf.TypeQ8_0, make([]byte, 3*34+5), out); err != nil {
		t.Fatal(err)
	}
	if packedLen != 2*34 || out[0] != 42 || out[63] != 42 {
		t.Fatalf("the accelerated decoder got %d bytes and wrote %v..%v", packedLen, out[0], out[63])
	}
	bf := make([]uint16, 64)
	if err := DequantizeBF16(gguf.TypeQ8_0, make([]byte, 2*34), bf); err != nil {
		t.Fatal(err)
	}
	if bf[0] != F32ToBF16(42) || bf[63] != F32ToBF16(42) {
		t.Fatalf("DequantizeBF16 did not use the accelerated decoder: %#x..%#x", bf[0], bf[63])
	}
}

// TestDequantizeLargeRun decodes a run of 300 blocks of every codec in one
// call and block by block, with the portable and the accelerated decoder,
// and requires the same bits: the per-run loops must cover every block and
// only its own elements however long the run (the oracle tables are
// shorter than 32 blocks a row).
func TestDequantizeLargeRun(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	const blocks = 300
	for _, c := range codecTable {
		t.Run(c.Type.String(), func(t *testing.T) {
			rng := splitMix{state: 0x1a29e ^ uint64(c.Type)}
			packed := make([]byte, blocks*c.Traits.BlockBytes)
			for i := range packed {
				packed[i] = byte(rng.next())
			}
			decoders := []runDecoder{c.decode}
			if c.fast != nil {
				decoders = append(decoders, c.fast)
			}
			for k, dec := range decoders {
				whole := make([]float32, blocks*c.Traits.BlockElems)
				dec(packed, whole)
				for b := range blocks {
					one := make([]float32, c.Traits.BlockElems)
					dec(packed[b*c.Traits.BlockBytes:(b+1)*c.Traits.BlockBytes], one)
					for i, v := range one {
						if w := whole[b*c.Traits.BlockElems+i]; math.Float32bits(w) != math.Float32bits(v) {
							t.Fatalf("%s decoder %d: block %d element %d: %#x in the run, %#x alone", c.Traits.Name, k, b, i, math.Float32bits(w), math.Float32bits(v))
						}
					}
				}
			}
		})
	}
}
