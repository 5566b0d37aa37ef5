package gather

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"gathermut/gguf"
)

// Scale edges by encoding: zeros and the smallest and largest subnormals
// of both signs, infinities, quiet NaNs with and without a payload and
// signalling NaNs, each with its sign bit clear and set. The oracle's
// "scales" cases have only NaNs with the sign bit clear.
var (
	edgeScalesF16 = []uint32{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x7c00, 0xfc00,
		0x7e00, 0xfe00, 0x7e01, 0xfe55, 0x7d00, 0xfd00, 0x7c01, 0xfc01}
	edgeScalesF32 = []uint32{0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff,
		0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fc00123, 0xffc00456, 0x7fa00000, 0xffa00000,
		0x7f800001, 0xff800001}
	edgeScalesE8M0  = []uint32{0x00, 0x01, 0x02, 0x7f, 0xfe, 0xff}
	edgeScalesUE4M3 = []uint32{0x00, 0x7f, 0x80, 0xff, 0x01, 0x07, 0xfe, 0x87}
)

// edgesOf returns the edge list of encoding e.
func edgesOf(e ScaleEncoding) []uint32 {
	switch e {
	case ScaleF32:
		return edgeScalesF32
	case ScaleE8M0:
		return edgeScalesE8M0
	case ScaleUE4M3:
		return edgeScalesUE4M3
	}
	return edgeScalesF16
}

// edgeBlocks returns 16 random blocks of c whose scale field i in block k
// holds edge (k + 5i) of its encoding's list, so that a codec with two
// fields meets edges in pairs.
func edgeScaleBlocks(t *testing.T, c *Codec) []byte {
	t.Helper()
	const blocks = 16
	packed := randomBlocks(c, blocks, 0xed9e)
	bb := c.Traits.BlockBytes
	for k := range blocks {
		for i, f := range c.Scales {
			edges := edgesOf(f.Encoding)
			if err := f.Put(packed[k*bb:(k+1)*bb], edges[(k+5*i)%len(edges)]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return packed
}

// TestScaleEdgesEveryPath (NaN, infinity and signed-zero handling): for
// every codec, blocks whose scale fields are zeros, subnormals, infinities
// and NaNs of both signs decode to the portable decoder's bits through
// every float32 path and, rounded, through DequantizeBF16; an admitted
// codec's CPU gather of those blocks as rows (one block a row, in reverse
// order) gives the same bits to f32 and bf16.
func TestScaleEdgesEveryPath(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for i := range codecTable {
		c := &codecTable[i]
		t.Run(c.Traits.Name, func(t *testing.T) {
			packed := edgeScaleBlocks(t, c)
			ref := portableF32(c, packed)
			want := bits32(ref)
			for _, p := range f32Paths {
				got := make([]float32, len(ref))
				if err := p.run(c, packed, got); err == errNoPath {
					continue
				} else if err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
				if d := diffBits(bits32(got), want); d != "" {
					t.Fatalf("%s: %s", p.name, d)
				}
			}
			wantBF16 := make([]uint16, len(ref))
			for k, v := range ref {
				wantBF16[k] = F32ToBF16(v)
			}
			gotBF16 := make([]uint16, len(ref))
			if err := DequantizeBF16(c.Type, packed, gotBF16); err != nil {
				t.Fatal(err)
			}
			if d := diffBits(gotBF16, wantBF16); d != "" {
				t.Fatalf("DequantizeBF16: %s", d)
			}
			if c.Admitted {
				checkEdgeGather(t, c, packed, want, wantBF16)
			}
		})
	}
}

// checkEdgeGather gathers every block of packed as a one-block row, last
// row first, with the CPU provider, to f32 and bf16, and compares with the
// portable decoder's bits want (rounded: wantBF16), row by row.
func checkEdgeGather(t *testing.T, c *Codec, packed []byte, want []uint32, wantBF16 []uint16) {
	t.Helper()
	be := c.Traits.BlockElems
	rows := len(packed) / c.Traits.BlockBytes
	for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
		a := gatherArgs{typ: c.Type, outType: outType, vocab: int64(rows), hidden: int64(be), table: packed}
		var exp []byte
		for r := rows - 1; r >= 0; r-- {
			a.ids = binary.LittleEndian.AppendUint32(a.ids, uint32(r))
			for e := r * be; e < (r+1)*be; e++ {
				if outType == gguf.TypeBF16 {
					exp = binary.LittleEndian.AppendUint16(exp, wantBF16[e])
				} else {
					exp = binary.LittleEndian.AppendUint32(exp, want[e])
				}
			}
		}
		a.out = make([]byte, len(exp))
		if err := a.run(cpuQuant{}); err != nil {
			t.Fatalf("%v gather: %v", outType, err)
		}
		for k := range exp {
			if a.out[k] != exp[k] {
				t.Fatalf("%v gather: byte %d (row %d from the end): %#x, want %#x", outType, k, k/(len(exp)/rows), a.out[k], exp[k])
			}
		}
	}
}

// signRuleScales are the scale values of TestScaleSignRule, as binary16
// (as binary32 for an f32 field): zeros, the smallest subnormal, quiet and
// signalling NaNs with payloads, each with both signs.
var signRuleScales = []struct {
	name     string
	f16, f32 uint32
}{
	{"+0", 0x0000, 0x00000000}, {"-0", 0x8000, 0x80000000},
	{"+min subnormal", 0x0001, 0x00000001}, {"-min subnormal", 0x8001, 0x80000001},
	{"+qNaN", 0x7e00, 0x7fc00000}, {"-qNaN", 0xfe00, 0xffc00000},
	{"+qNaN payload", 0x7e2a, 0x7fc54000}, {"-qNaN payload", 0xfe2a, 0xffc54000},
	{"+sNaN", 0x7d00, 0x7fa00000}, {"-sNaN", 0xfd00, 0xffa00000},
}

// widenScale returns scale bits s of encoding e as float32 bits (binary16
// widened by its definition: a NaN keeps its sign and payload).
func widenScale(e ScaleEncoding, s uint32) uint32 {
	if e == ScaleF32 {
		return s
	}
	sign := s & 0x8000 << 16
	exp, man := s>>10&31, s&0x3ff
	switch exp {
	case 31:
		return sign | 0x7f800000 | man<<13
	case 0:
		return sign | math.Float32bits(float32(math.Ldexp(float64(man), -24)))
	}
	return sign | math.Float32bits(float32(math.Ldexp(float64(1024+man), int(exp)-25)))
}

// linearInScale reports whether every value c decodes is its one scale
// field d times a finite function of the payload (the rule's codecs).
func linearInScale(c *Codec) bool {
	if len(c.Scales) != 1 {
		return false
	}
	e := c.Scales[0].Encoding
	return e == ScaleF16 || e == ScaleF32 || e == ScaleF16Nibbles
}

// signRuleWant returns the bits an element decodes to with scale bits w
// (float32), where it decodes to ref with scale 1, and the bits compared:
// for a zero w, w's sign XOR ref's (a product's sign, and a negation's);
// for a NaN w, w's payload, the quiet bit not compared, with w's sign, or
// its flip where flips says the value is -d itself (upstream negates d;
// a product returns its NaN operand, sign kept, on x86 and arm64 alike);
// else ref·w, exact for the power-of-two w used.
func signRuleWant(w, ref uint32, flips bool) (want, mask uint32) {
	const quiet = 0x00400000
	f := math.Float32frombits(w)
	switch {
	case f != f && flips:
		return (w ^ ref&0x80000000) &^ quiet, ^uint32(quiet)
	case f != f:
		return w &^ quiet, ^uint32(quiet)
	case f == 0:
		return w ^ ref&0x80000000, ^uint32(0)
	}
	return math.Float32bits(float32(float64(math.Float32frombits(ref)) * float64(f))), ^uint32(0)
}

// negatesScale are the codecs whose values take their sign by a flip of
// d's magnitude, not by a product: Q1_0's d and -d (ggml's neg_d) and the
// sign-table codecs IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS and IQ3_S. Their
// oracle outputs from NaN scales with the sign bit clear are NaNs of both
// signs (IQ2_XXS "scales": 246 with the bit clear, 266 set), where a
// product codec's are all positive (IQ1_S: 512 and 0).
var negatesScale = map[gguf.Type]bool{
	gguf.TypeQ1_0: true, gguf.TypeIQ2_XXS: true, gguf.TypeIQ2_XS: true, gguf.TypeIQ2_S: true,
	gguf.TypeIQ3_XXS: true, gguf.TypeIQ3_S: true,
}

// TestScaleSignRule (NaN and signed-zero handling): for each codec whose
// values are its one scale d times the payload's value, a table decoded
// with d = 1 gives ref; with d a zero of either sign every path must give
// a zero with the sign of d XOR the sign of ref; with a NaN d of either
// sign and payload, a NaN with d's payload and d's sign, flipped where
// the value is -d itself (upstream's -d flips a NaN's sign; -1*d and 0-d
// do not, and 0-d turns -(+0) into +0); with d the smallest subnormal of
// either sign, exactly ref·d. The expected bits are derived here, not
// taken from a decoder.
func TestScaleSignRule(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for i := range codecTable {
		c := &codecTable[i]
		if !linearInScale(c) {
			continue
		}
		t.Run(c.Traits.Name, func(t *testing.T) {
			f := c.Scales[0]
			one := uint32(0x3c00)
			if f.Encoding == ScaleF32 {
				one = 0x3f800000
			}
			ref := bits32(decodeWithScale(t, c, f, one, c.decode))
			for _, s := range signRuleScales {
				bits := s.f16
				if f.Encoding == ScaleF32 {
					bits = s.f32
				}
				w := widenScale(f.Encoding, bits)
				for _, p := range f32Paths {
					got, ok := decodePath(t, c, f, bits, p)
					if !ok {
						continue
					}
					for k, g := range bits32(got) {
						want, mask := signRuleWant(w, ref[k], negatesScale[c.Type])
						if g&mask != want {
							t.Fatalf("%s, d %s (%#x): element %d: %#08x, want %#08x (mask %#x; %#08x with d = 1)",
								p.name, s.name, bits, k, g, want, mask, ref[k])
						}
					}
				}
			}
		})
	}
}

// decodeWithScale decodes faultBlocks random blocks of c, scale field f set
// to bits in each, with dec.
func decodeWithScale(t *testing.T, c *Codec, f ScaleField, bits uint32, dec runDecoder) []float32 {
	t.Helper()
	packed := randomBlocks(c, faultBlocks, 0x5166)
	bb := c.Traits.BlockBytes
	for k := range faultBlocks {
		if err := f.Put(packed[k*bb:(k+1)*bb], bits); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]float32, faultBlocks*c.Traits.BlockElems)
	dec(packed, out)
	return out
}

// decodePath is decodeWithScale through path p; false where p has no
// decoder for c here.
func decodePath(t *testing.T, c *Codec, f ScaleField, bits uint32, p f32Path) ([]float32, bool) {
	t.Helper()
	var err error
	out := decodeWithScale(t, c, f, bits, func(packed []byte, o []float32) { err = p.run(c, packed, o) })
	if err == errNoPath {
		return nil, false
	}
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	return out, true
}

// q4KGroupPatterns are the 6-bit scales and mins of the eight groups of
// TestQ4KScaleMinEdges' blocks: zero scales and mins next to non-zero ones,
// alternating every group and every two groups, each in both phases (so
// that each group differs from the one before it and from the one two
// before, the previous chunk's group of the same nibble), and distinct
// non-zero ones.
var q4KGroupPatterns = []struct{ sc, m [8]uint8 }{
	{sc: [8]uint8{0, 63, 0, 1, 0, 17, 0, 40}, m: [8]uint8{5, 0, 63, 0, 33, 0, 1, 0}},
	{sc: [8]uint8{63, 0, 2, 0, 31, 0, 48, 0}, m: [8]uint8{0, 63, 0, 9, 0, 62, 0, 1}},
	{sc: [8]uint8{0, 0, 63, 3, 0, 0, 12, 57}, m: [8]uint8{7, 63, 0, 0, 44, 2, 0, 0}},
	{sc: [8]uint8{63, 5, 0, 0, 29, 1, 0, 0}, m: [8]uint8{0, 0, 63, 21, 0, 0, 3, 50}},
	{sc: [8]uint8{1, 2, 3, 5, 8, 13, 21, 34}, m: [8]uint8{63, 62, 60, 57, 50, 40, 27, 11}},
}

// packScaleMinK4 packs eight 6-bit scales and mins into Q4_K's and Q5_K's
// 12 scale bytes, the inverse of scaleMinK4.
func packScaleMinK4(sc, m [8]uint8) [12]byte {
	var s [12]byte
	for j := range 4 {
		s[j] = sc[j] | sc[j+4]>>4<<6
		s[j+4] = m[j] | m[j+4]>>4<<6
		s[j+8] = sc[j+4]&15 | m[j+4]&15<<4
	}
	return s
}

// TestQ4KScaleMinEdges (NaN and infinity handling, docs/faults.md class
// 3): Q4_K blocks with every pair of d and dmin, each a finite value or an
// edge of edgeScalesF16 (so a finite d meets every non-finite dmin and the
// other way round), with zero and non-zero scales and mins side by side
// and every nibble in every group, decode to the portable decoder's bits
// through every float32 path. The AVX2 decoder fuses (d·sc)·q - dmin·m
// where dmin is finite and rounds twice elsewhere; an infinite d·sc times
// a zero q less a NaN dmin·m is where the two differ, and a group whose
// scale or min alone is zero is where a group given its neighbour's d·sc
// or dmin·m shows.
func TestQ4KScaleMinEdges(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	c, err := codecFor(gguf.TypeQ4_K)
	if err != nil {
		t.Fatal(err)
	}
	scales := append([]uint32{0x3c00, 0xc000, 0x7bff, 0x0400}, edgeScalesF16...)
	var block [144]byte
	for i := range 128 {
		block[16+i] = byte(i%16 | (i*7+3)%16<<4)
	}
	var packed []byte
	var what []string
	for _, d := range scales {
		for _, dmin := range scales {
			for p, g := range q4KGroupPatterns {
				s := packScaleMinK4(g.sc, g.m)
				for j := range 8 {
					if sc, m := scaleMinK4(j, s[:]); sc != g.sc[j] || m != g.m[j] {
						t.Fatalf("packScaleMinK4: group %d unpacks to %d, %d, want %d, %d", j, sc, m, g.sc[j], g.m[j])
					}
				}
				binary.LittleEndian.PutUint16(block[0:], uint16(d))
				binary.LittleEndian.PutUint16(block[2:], uint16(dmin))
				copy(block[4:], s[:])
				packed = append(packed, block[:]...)
				what = append(what, fmt.Sprintf("d %#04x, dmin %#04x, groups %d", d, dmin, p))
			}
		}
	}
	want := bits32(portableF32(c, packed))
	for _, p := range f32Paths[1:] {
		got := make([]float32, len(want))
		if err := p.run(c, packed, got); errors.Is(err, errNoPath) {
			continue
		} else if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		for k, g := range bits32(got) {
			if g != want[k] {
				t.Fatalf("%s: block %d (%s), element %d: %#x, want %#x", p.name, k/256, what[k/256], k%256, g, want[k])
			}
		}
	}
}
