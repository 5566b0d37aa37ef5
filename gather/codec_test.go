package gather

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"gathermut/gguf"
)

// readScale reads the bits of scale field f from block, as Put writes them.
func readScale(t *testing.T, block []byte, f ScaleField) uint32 {
	t.Helper()
	b := block[f.Offset:]
	switch f.Encoding {
	case ScaleF16:
		return uint32(binary.LittleEndian.Uint16(b))
	case ScaleF32:
		return binary.LittleEndian.Uint32(b)
	case ScaleF16Nibbles:
		var v uint32
		for k := range 4 {
			v |= uint32(binary.LittleEndian.Uint16(b[2*k:])>>12) << (4 * k)
		}
		return v
	case ScaleE8M0, ScaleUE4M3:
		return uint32(b[0])
	}
	t.Fatalf("no reader for scale encoding %d", f.Encoding)
	return 0
}

// TestSetUnitScales: with every scale field at its unit, each codec of the
// table (extras too) decodes random payload bytes, through each of its
// decoders, to finite values whose largest magnitude is in (0.25, 1.07];
// the fields hold exactly the units afterwards, and Q8_K's block sums are
// the sums of each 16 quants.
func TestSetUnitScales(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for _, c := range codecTable {
		t.Run(c.Type.String(), func(t *testing.T) {
			packed := make([]byte, 64*c.Traits.BlockBytes)
			rng := splitMix{state: 0x5ca1e ^ uint64(c.Type)}
			for i := range packed {
				packed[i] = byte(rng.next())
			}
			if err := c.SetUnitScales(packed); err != nil {
				t.Fatalf("%v: %v", c.Type, err)
			}
			for b := 0; b < len(packed); b += c.Traits.BlockBytes {
				for _, f := range c.Scales {
					if got := readScale(t, packed[b:], f); got != f.Unit {
						t.Fatalf("%v block %d: field %s = %#x, want its unit %#x", c.Type, b/c.Traits.BlockBytes, f.Name, got, f.Unit)
					}
				}
			}
			decoders := []runDecoder{c.decode}
			if c.fast != nil {
				decoders = append(decoders, c.fast)
			}
			for k, dec := range decoders {
				vals := make([]float32, 64*c.Traits.BlockElems)
				dec(packed, vals)
				var peak float64
				for _, v := range vals {
					if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
						t.Fatalf("%v decoder %d: decoded %v", c.Type, k, v)
					}
					peak = max(peak, math.Abs(float64(v)))
				}
				if peak > 1.07 || peak <= 0.25 {
					t.Errorf("%v decoder %d: largest |value| %v, want within (0.25, 1.07]", c.Type, k, peak)
				}
			}
		})
	}
	c := codecs[gguf.TypeQ4_0]
	if err := c.SetUnitScales(make([]byte, 19)); err == nil || err.Error() != "gather: Q4_0: 19 bytes are not whole blocks of 18" {
		t.Errorf("SetUnitScales(19 bytes) error = %v", err)
	}
}

// TestSetUnitScalesGeometry: SetUnitScales on codecs of the edge
// geometries: blocks of one byte (every byte a block: each gets its scale),
// a table of no blocks, and the refusals: a codec whose blocks have no
// bytes or fewer than a scale field needs gets a clear error, not a
// division by zero, a panic or a silently skipped field.
func TestSetUnitScalesGeometry(t *testing.T) {
	i8 := Codec{Type: gguf.TypeI8, Traits: gguf.Traits{Name: "I8", BlockElems: 1, BlockBytes: 1},
		Scales: []ScaleField{{"e", 0, ScaleE8M0, 0x7f}}}
	short := Codec{Type: gguf.TypeQ4_0, Traits: gguf.Traits{Name: "SHORT", BlockElems: 32, BlockBytes: 4},
		Scales: []ScaleField{{"e", 0, ScaleE8M0, 0x7f}, {"d", 3, ScaleF16, 0x3c00}}}
	for _, c := range []struct {
		name   string
		codec  Codec
		packed []byte
		want   []byte // packed afterwards
		err    string
	}{
		{"one-byte blocks", i8, []byte{1, 2, 3}, []byte{0x7f, 0x7f, 0x7f}, ""},
		{"one-byte blocks, no scales", Codec{Traits: i8.Traits}, []byte{1, 2, 3}, []byte{1, 2, 3}, ""},
		{"no blocks", *codecs[gguf.TypeQ4_0], []byte{}, []byte{}, ""},
		{"zero codec", Codec{}, []byte{}, []byte{}, "gather: : block size 0 bytes is not positive"},
		{"zero-byte blocks", Codec{Traits: gguf.Traits{Name: "Z", BlockElems: 32}}, []byte{1, 2}, []byte{1, 2},
			"gather: Z: block size 0 bytes is not positive"},
		{"negative block size", Codec{Traits: gguf.Traits{Name: "N", BlockElems: 32, BlockBytes: -2}}, []byte{1, 2}, []byte{1, 2},
			"gather: N: block size -2 bytes is not positive"},
		{"field outside the block", short, []byte{1, 2, 3, 4}, []byte{0x7f, 2, 3, 4},
			"gather: SHORT: gather: scale field d at byte 3 (2 bytes) is outside a block of 4 bytes"},
	} {
		packed := append([]byte(nil), c.packed...)
		err := c.codec.SetUnitScales(packed)
		if got := fmt.Sprint(err); c.err == "" && err != nil || c.err != "" && got != c.err {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
		if string(packed) != string(c.want) {
			t.Errorf("%s: packed % x afterwards, want % x", c.name, packed, c.want)
		}
	}
}

// TestSetUnitScalesQ8KBlockSums: Q8_K's block sums are the sums of each 16
// quants, negative sums included.
func TestSetUnitScalesQ8KBlockSums(t *testing.T) {
	block := make([]byte, 292)
	for i := range 256 {
		block[4+i] = byte(int8(i%7 - 5)) // mixed signs
	}
	block[4] = 0x80 // -128
	for i := range 128 {
		block[4+128+i] = 0x7f // sums of 16 * 127, beyond int8
	}
	if err := codecs[gguf.TypeQ8_K].SetUnitScales(block); err != nil {
		t.Fatal(err)
	}
	for j := range 16 {
		var want int
		for i := 16 * j; i < 16*(j+1); i++ {
			want += int(int8(block[4+i]))
		}
		if got := int(int16(binary.LittleEndian.Uint16(block[260+2*j:]))); got != want {
			t.Errorf("bsums[%d] = %d, want %d", j, got, want)
		}
	}
}

// TestScaleFieldPut: each encoding writes its bytes and nothing else (the
// payload bits beside IQ1_M's nibbles stay), and a field outside the block
// or of no known encoding is refused.
func TestScaleFieldPut(t *testing.T) {
	for _, c := range []struct {
		f     ScaleField
		bits  uint32
		want  []byte
		block int
	}{
		{ScaleField{"d", 1, ScaleF16, 0}, 0xabcd, []byte{0x55, 0xcd, 0xab, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55}, 10},
		{ScaleField{"d", 2, ScaleF32, 0}, 0x11223344, []byte{0x55, 0x55, 0x44, 0x33, 0x22, 0x11, 0x55, 0x55, 0x55, 0x55}, 10},
		{ScaleField{"d", 6, ScaleF32, 0}, 0x11223344, []byte{0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x44, 0x33, 0x22, 0x11}, 10},
		{ScaleField{"e", 9, ScaleE8M0, 0}, 0x1fe, []byte{0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xfe}, 10},
		{ScaleField{"d", 0, ScaleUE4M3, 0}, 0xff, []byte{0xff, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55}, 10},
		{ScaleField{"d", 1, ScaleF16Nibbles, 0}, 0x4321, []byte{0x55, 0x55, 0x15, 0x55, 0x25, 0x55, 0x35, 0x55, 0x45, 0x55}, 10},
	} {
		block := []byte(strings.Repeat("\x55", c.block))
		if err := c.f.Put(block, c.bits); err != nil {
			t.Errorf("%+v: %v", c.f, err)
			continue
		}
		if string(block) != string(c.want) {
			t.Errorf("%+v: block % x, want % x", c.f, block, c.want)
		}
	}
	for _, c := range []struct {
		f    ScaleField
		want string
	}{
		{ScaleField{"d", 9, ScaleF16, 0}, "gather: scale field d at byte 9 (2 bytes) is outside a block of 10 bytes"},
		{ScaleField{"d", 7, ScaleF32, 0}, "gather: scale field d at byte 7 (4 bytes) is outside a block of 10 bytes"},
		{ScaleField{"d", -1, ScaleE8M0, 0}, "gather: scale field d at byte -1 (1 bytes) is outside a block of 10 bytes"},
		{ScaleField{"d", 3, ScaleF16Nibbles, 0}, "gather: scale field d at byte 3 (8 bytes) is outside a block of 10 bytes"},
		{ScaleField{"x", 0, 0, 0}, "gather: scale field x: unknown encoding 0"},
		{ScaleField{"y", 0, 99, 0}, "gather: scale field y: unknown encoding 99"},
		{ScaleField{"z", 11, 99, 0}, "gather: scale field z: unknown encoding 99"}, // checked before the offset
	} {
		block := []byte(strings.Repeat("\x55", 10))
		if err := c.f.Put(block, 1); err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %s", c.f, err, c.want)
		}
		if string(block) != strings.Repeat("\x55", 10) {
			t.Errorf("%+v: a refused Put wrote % x", c.f, block)
		}
	}
}
