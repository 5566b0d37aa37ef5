package gather

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gathermut/gguf"
)

// oracleDir holds reference decodes by the upstream ggml CPU decoders: five
// cases per codec, three of random blocks and two of edge scales and signed
// zeros (testdata/oracle/README.md says how they were made and compared).
const oracleDir = "../testdata/oracle"

type oracleCase struct {
	Dir      string `json:"dir"`
	Codec    string `json:"codec"`
	GgmlType uint32 `json:"ggml_type"`
	Case     string `json:"case"`
	Rows     int    `json:"rows"`
	Cols     int    `json:"cols"`
	Extra    bool   `json:"extra"`
}

type oracleMeta struct {
	Codec        string            `json:"codec"`
	GgmlType     uint32            `json:"ggml_type"`
	BlockElems   int               `json:"block_elems"`
	BlockBytes   int               `json:"block_bytes"`
	BlocksPerRow int               `json:"blocks_per_row"`
	RowBytes     int               `json:"row_bytes"`
	Rows         int               `json:"rows"`
	Cols         int               `json:"cols"`
	Case         string            `json:"case"`
	Extra        bool              `json:"extra"`
	SHA256       map[string]string `json:"sha256"`
}

// oracleData is one case's files, checked against meta.json.
type oracleData struct {
	meta   oracleMeta
	packed []byte
	f32    []uint32
	bf16   []uint16
}

func readOracleIndex(t testing.TB) []oracleCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(oracleDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []oracleCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	return cases
}

func loadOracleCase(t testing.TB, c oracleCase) oracleData {
	t.Helper()
	dir := filepath.Join(oracleDir, c.Dir)
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d oracleData
	if err := json.Unmarshal(raw, &d.meta); err != nil {
		t.Fatalf("%s/meta.json: %v", c.Dir, err)
	}
	m := d.meta
	if m.Codec != c.Codec || m.GgmlType != c.GgmlType || m.Rows != c.Rows || m.Cols != c.Cols || m.Extra != c.Extra || m.Case != c.Case {
		t.Fatalf("%s: meta.json %+v disagrees with index.json %+v", c.Dir, m, c)
	}
	files := map[string][]byte{}
	for _, name := range []string{"packed.bin", "f32.bin", "bf16.bin"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != m.SHA256[name] {
			t.Fatalf("%s/%s: sha256 %s, meta.json says %s", c.Dir, name, got, m.SHA256[name])
		}
		files[name] = data
	}
	n := m.Rows * m.Cols
	if len(files["packed.bin"]) != m.Rows*m.RowBytes || len(files["f32.bin"]) != 4*n || len(files["bf16.bin"]) != 2*n {
		t.Fatalf("%s: file sizes do not match rows %d, cols %d, row_bytes %d", c.Dir, m.Rows, m.Cols, m.RowBytes)
	}
	d.packed = files["packed.bin"]
	d.f32 = make([]uint32, n)
	d.bf16 = make([]uint16, n)
	for i := range n {
		d.f32[i] = binary.LittleEndian.Uint32(files["f32.bin"][4*i:])
		d.bf16[i] = binary.LittleEndian.Uint16(files["bf16.bin"][2*i:])
	}
	return d
}

// isNaN32 reports whether f32 bits are a NaN.
func isNaN32(u uint32) bool { return u&0x7fffffff > 0x7f800000 }

// isNaN16 reports whether bf16 bits are a NaN.
func isNaN16(h uint16) bool { return h&0x7fff > 0x7f80 }

// TestDequantizeOracle decodes every oracle table (every case of every
// codec, the edge-scale cases included) row by row, with the row
// copied to offsets 0..3 of a larger buffer so it starts unaligned, and
// compares f32 bits and bf16 words exactly (a NaN only as a NaN).
//
// Each case is a subtest named by its codec, as gguf.Type prints it, and
// case ("Q4_K/w1"), so that one codec's cases run alone with -run
// '^TestDequantizeOracle$/^Q4_K$' (the mutation tool runs one codec's
// subtest for a mutant in its decoder); its files are read in the subtest,
// so a failure under -test.failfast stops the reading. Within it the rows
// are decoded once per decoder set ("portable/off0".."off3"): the portable
// decoders alone, then, where this CPU has them, with the accelerated
// decoders installed ("accel/off0"..).
func TestDequantizeOracle(t *testing.T) {
	defer setAccel(accelAvailable())
	for _, c := range readOracleIndex(t) {
		t.Run(gguf.Type(c.GgmlType).String()+"/"+c.Case, func(t *testing.T) {
			d := loadOracleCase(t, c)
			m := d.meta
			typ := gguf.Type(m.GgmlType)
			tr, ok := gguf.FindGgmlTraits(typ)
			if !ok || tr.Name != m.Codec || tr.BlockElems != m.BlockElems || tr.BlockBytes != m.BlockBytes {
				t.Fatalf("%s: traits %+v (known %v) do not match the oracle's %s %d/%d", c.Dir, tr, ok, m.Codec, m.BlockElems, m.BlockBytes)
			}
			for _, accel := range accelModes() {
				setAccel(accel)
				for off := range 4 {
					t.Run(fmt.Sprintf("%s/off%d", decoderSet(accel), off), func(t *testing.T) { checkOracleRows(t, typ, d, off) })
				}
			}
		})
	}
}

// accelModes are the decoder sets this machine can run: portable only,
// and accelerated where available.
func accelModes() []bool {
	if accelAvailable() {
		return []bool{false, true}
	}
	return []bool{false}
}

func decoderSet(accel bool) string {
	if accel {
		return "accel"
	}
	return "portable"
}

// checkOracleRows decodes each row of d's table, copied to byte offset off
// of a buffer of 0xa5 bytes, with Dequantize and DequantizeBF16, and
// compares the bits with the oracle's (a NaN only as a NaN).
func checkOracleRows(t *testing.T, typ gguf.Type, d oracleData, off int) {
	m := d.meta
	buf := make([]byte, off+m.RowBytes+8)
	f32 := make([]float32, m.Cols)
	bf := make([]uint16, m.Cols)
	for r := range m.Rows {
		for i := range buf {
			buf[i] = 0xa5 // bytes around the row must not matter
		}
		copy(buf[off:], d.packed[r*m.RowBytes:(r+1)*m.RowBytes])
		row := buf[off : off+m.RowBytes]
		if err := Dequantize(typ, row, f32); err != nil {
			t.Fatalf("row %d: Dequantize: %v", r, err)
		}
		if err := DequantizeBF16(typ, row, bf); err != nil {
			t.Fatalf("row %d: DequantizeBF16: %v", r, err)
		}
		bad := 0
		for col := range m.Cols {
			i := r*m.Cols + col
			want, got := d.f32[i], math.Float32bits(f32[col])
			if got != want && !(isNaN32(want) && isNaN32(got)) {
				if bad++; bad <= 5 {
					t.Errorf("row %d col %d: f32 %#08x (%g), want %#08x (%g)", r, col, got, f32[col], want, math.Float32frombits(want))
				}
			}
			wb, gb := d.bf16[i], bf[col]
			if gb != wb && !(isNaN16(wb) && isNaN16(gb)) {
				if bad++; bad <= 5 {
					t.Errorf("row %d col %d: bf16 %#04x, want %#04x", r, col, gb, wb)
				}
			}
		}
		if bad > 5 {
			t.Errorf("row %d: %d mismatches in all", r, bad)
		}
	}
}

// TestOracleCoversEveryDecoder checks that the oracle holds cases for each
// row of the codec table, marked extra exactly when the row is not
// admitted, and for nothing without a decoder, so a missing directory fails
// here rather than passing silently.
func TestOracleCoversEveryDecoder(t *testing.T) {
	want := map[gguf.Type]bool{}
	for _, c := range codecTable {
		want[c.Type] = !c.Admitted
	}
	cases := map[gguf.Type][]string{}
	for _, c := range readOracleIndex(t) {
		typ := gguf.Type(c.GgmlType)
		extra, ok := want[typ]
		if !ok {
			t.Errorf("oracle case %s: type %v is neither admitted nor an extra", c.Dir, typ)
			continue
		}
		if c.Extra != extra {
			t.Errorf("oracle case %s: extra = %v, want %v", c.Dir, c.Extra, extra)
		}
		if _, err := os.Stat(filepath.Join(oracleDir, c.Dir, "packed.bin")); err != nil {
			t.Errorf("oracle case %s: %v", c.Dir, err)
		}
		cases[typ] = append(cases[typ], c.Case)
	}
	for typ := range want {
		if !Decodes(typ) {
			t.Errorf("%v: no decoder", typ)
		}
		if got := fmt.Sprint(cases[typ]); got != "[w1 w3 w5 scales zeros]" {
			t.Errorf("%v: oracle cases %s, want [w1 w3 w5 scales zeros]", typ, got)
		}
	}
}

// TestAccelMatchesPortable decodes every oracle table, and random tables
// whose scale fields are random bit patterns (NaNs, infinities, subnormals
// and zeros of both signs among them), with each codec's accelerated and
// portable decoders, and requires identical bits, NaN payloads included.
func TestAccelMatchesPortable(t *testing.T) {
	if !accelAvailable() {
		t.Skip("no accelerated decoders on this machine")
	}
	defer setAccel(accelAvailable())
	setAccel(true)
	// Each codec's oracle cases are read in its own subtest, so that a
	// failing codec (with -test.failfast, as the mutation runs use) stops
	// the test before the files of the codecs after it are read.
	cases := map[gguf.Type][]oracleCase{}
	for _, c := range readOracleIndex(t) {
		cases[gguf.Type(c.GgmlType)] = append(cases[gguf.Type(c.GgmlType)], c)
	}
	accelerated := 0
	for _, c := range codecTable {
		if c.fast == nil {
			continue
		}
		accelerated++
		t.Run(c.Traits.Name, func(t *testing.T) {
			var tables [][]byte
			for _, oc := range cases[c.Type] {
				tables = append(tables, loadOracleCase(t, oc).packed)
			}
			rng := splitMix{state: uint64(c.Type)}
			for range 4 {
				packed := make([]byte, 64*c.Traits.BlockBytes)
				for i := range packed {
					packed[i] = byte(rng.next())
				}
				tables = append(tables, packed)
			}
			for k, packed := range tables {
				n := len(packed) / c.Traits.BlockBytes * c.Traits.BlockElems
				want := make([]float32, n)
				got := make([]float32, n+8)
				for i := range got {
					got[i] = -7
				}
				c.decode(packed, want)
				c.fast(packed, got[:n])
				for i := range n {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("table %d element %d: accelerated %#08x, portable %#08x", k, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
					}
				}
				for i := n; i < len(got); i++ {
					if got[i] != -7 {
						t.Fatalf("table %d: the accelerated decoder wrote past out at %d", k, i)
					}
				}
			}
		})
	}
	if accelerated == 0 {
		t.Error("accelerated decoders are available but none is installed")
	}
}
