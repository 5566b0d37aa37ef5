package gather

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"unsafe"

	"gathermut/gguf"
)

// The tests of this file and of guard_linux_test.go are those of
// docs/faults.md: each names the fault class it stands for.

// errNoPath says a decoding path has no decoder for a codec on this machine
// (no accelerated decoder).
var errNoPath = errors.New("no decoder on this path here")

// f32Path is one way the package decodes a run of whole blocks to float32.
type f32Path struct {
	name string
	run  func(c *Codec, packed []byte, out []float32) error
}

// f32Paths are every float32 decoding path: the portable decoder, the
// accelerated one where this machine has it, and Dequantize (whichever of
// the two is installed).
var f32Paths = []f32Path{
	{"portable", func(c *Codec, p []byte, o []float32) error { c.decode(p, o); return nil }},
	{"accelerated", func(c *Codec, p []byte, o []float32) error {
		if c.fast == nil {
			return errNoPath
		}
		c.fast(p, o)
		return nil
	}},
	{"Dequantize", func(c *Codec, p []byte, o []float32) error { return Dequantize(c.Type, p, o) }},
}

// faultBlocks is how many blocks a decoded run has: odd, so that a decoder
// that works two blocks at a time has a lone last one.
const faultBlocks = 5

// poison32 and poison16 fill the memory around an output: a decoder that
// writes outside its output changes them.
const (
	poison32 = 0x7fbadbad
	poison16 = 0xfbad
)

// randomBlocks returns blocks blocks of c filled with splitmix64 bytes: every
// scale field takes random bits, NaNs and infinities among them.
func randomBlocks(c *Codec, blocks int, seed uint64) []byte {
	rng := splitMix{state: seed ^ uint64(c.Type)<<32}
	p := make([]byte, blocks*c.Traits.BlockBytes)
	for i := range p {
		p[i] = byte(rng.next())
	}
	return p
}

// portableF32 decodes packed with c's portable decoder into fresh memory.
func portableF32(c *Codec, packed []byte) []float32 {
	out := make([]float32, len(packed)/c.Traits.BlockBytes*c.Traits.BlockElems)
	c.decode(packed, out)
	return out
}

// diffBits returns where got and want first differ bit for bit, or "".
func diffBits[T uint16 | uint32](got, want []T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("element %d: %#x, want %#x", i, got[i], want[i])
		}
	}
	return ""
}

// bits32 returns the bit patterns of fs.
func bits32(fs []float32) []uint32 {
	b := make([]uint32, len(fs))
	for i, f := range fs {
		b[i] = math.Float32bits(f)
	}
	return b
}

// placed returns the index of the first element of buf, of size bytes each,
// whose address lies off bytes past a 32-byte boundary; buf has 32 bytes
// of room for it.
func placed(base unsafe.Pointer, size, off int) int {
	lead := (off - int(uintptr(base)%32) + 64) % 32
	if lead%size != 0 {
		panic(fmt.Sprintf("offset %d is not a multiple of the element size %d", off, size))
	}
	return lead / size
}

// checkPoison reports the first element of buf outside [lo, hi) that is not
// poison.
func checkPoison[T uint16 | uint32](t *testing.T, buf []T, lo, hi int, poison T, what string) {
	t.Helper()
	for i, v := range buf {
		if (i < lo || i >= hi) && v != poison {
			t.Fatalf("%s: element %d outside the output [%d, %d) was written: %#x", what, i, lo, hi, v)
		}
	}
}

// packedAt copies packed into fresh memory at byte offset off past a
// 32-byte boundary and returns the copy.
func packedAt(packed []byte, off int) []byte {
	buf := make([]byte, len(packed)+64)
	lo := placed(unsafe.Pointer(&buf[0]), 1, off)
	p := buf[lo : lo+len(packed) : lo+len(packed)]
	copy(p, packed)
	return p
}

// TestOutputOffsets (misaligned access): every float32 path of every codec
// decodes a run into an output that starts off bytes past a 32-byte
// boundary, for every offset a float32 can have (0, 4, ..., 28), from
// packed bytes that start at byte offset off = 0..31, and gives the
// portable decoder's bits without writing outside the output. An aligned
// store (VMOVAPS, VMOVDQA) faults at all but offset 0; an aligned load at
// all but a multiple of 32.
func TestOutputOffsets(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for i := range codecTable {
		c := &codecTable[i]
		t.Run(c.Traits.Name, func(t *testing.T) {
			packed := randomBlocks(c, faultBlocks, 0x0ff5e7)
			want := bits32(portableF32(c, packed))
			n := len(want)
			for _, p := range f32Paths {
				buf := make([]uint32, n+16)
				for off := range 32 {
					lo := placed(unsafe.Pointer(&buf[0]), 4, off&^3)
					for k := range buf {
						buf[k] = poison32
					}
					out := unsafe.Slice((*float32)(unsafe.Pointer(&buf[lo])), n)
					err := p.run(c, packedAt(packed, off), out)
					if errors.Is(err, errNoPath) {
						break
					}
					what := fmt.Sprintf("%s, packed at +%d, out at +%d", p.name, off, off&^3)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if d := diffBits(buf[lo:lo+n], want); d != "" {
						t.Fatalf("%s: %s", what, d)
					}
					checkPoison(t, buf, lo, lo+n, poison32, what)
				}
			}
		})
	}
}

// TestOutputOffsetsBF16 (misaligned access): DequantizeBF16 of every codec
// into an output at every offset a bf16 can have (0, 2, ..., 30) past a
// 32-byte boundary, from packed bytes at offset 0..31, gives F32ToBF16 of
// the portable decoder's values and writes nothing else.
func TestOutputOffsetsBF16(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for i := range codecTable {
		c := &codecTable[i]
		t.Run(c.Traits.Name, func(t *testing.T) {
			packed := randomBlocks(c, faultBlocks, 0xbf16)
			var want []uint16
			for _, v := range portableF32(c, packed) {
				want = append(want, F32ToBF16(v))
			}
			n := len(want)
			buf := make([]uint16, n+32)
			for off := range 32 {
				lo := placed(unsafe.Pointer(&buf[0]), 2, off&^1)
				for k := range buf {
					buf[k] = poison16
				}
				what := fmt.Sprintf("packed at +%d, out at +%d", off, off&^1)
				if err := DequantizeBF16(c.Type, packedAt(packed, off), buf[lo:lo+n]); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if d := diffBits(buf[lo:lo+n], want); d != "" {
					t.Fatalf("%s: %s", what, d)
				}
				checkPoison(t, buf, lo, lo+n, poison16, what)
			}
		})
	}
}

// providerTable is a CPU provider and a table type it serves.
type providerTable struct {
	p   Provider
	typ gguf.Type
}

// providerTables lists every table type with its CPU provider: the
// admitted codecs with cpuQuant, F32, F16 and BF16 with cpuFloat.
func providerTables() []providerTable {
	var pts []providerTable
	for _, typ := range Admitted() {
		pts = append(pts, providerTable{cpuQuant{}, typ})
	}
	for _, typ := range []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		pts = append(pts, providerTable{cpuFloat{}, typ})
	}
	return pts
}

// gatherArgs is one CPU gather's buffers: a table of vocab rows of hidden
// elements, I32 ids, and out, all host bytes.
type gatherArgs struct {
	typ, outType  gguf.Type
	vocab, hidden int64
	table, ids    []byte
	out           []byte
}

// run calls p.Embedding on a's buffers.
func (a gatherArgs) run(p Provider) error {
	n := int64(len(a.ids) / 4)
	return p.Embedding(
		&Tensor{Type: a.outType, Shape: []int64{n, a.hidden}, Device: Host, Data: a.out},
		&Tensor{Type: a.typ, Shape: []int64{a.vocab, a.hidden}, Device: Host, Data: a.table},
		&Tensor{Type: gguf.TypeI32, Shape: []int64{n}, Device: Host, Data: a.ids})
}

// faultIDs are the ids the provider tests gather: the last row (whose last
// block ends the table) first and last, and the first.
var faultIDs = []int32{2, 0, 2}

// newGatherArgs returns random table bytes of three rows of typ, three
// blocks (or 40 float elements) wide, faultIDs, and a zeroed out of outType.
func newGatherArgs(typ, outType gguf.Type, seed uint64) gatherArgs {
	tr, _ := gguf.FindGgmlTraits(typ)
	hidden := int64(3 * tr.BlockElems)
	if tr.BlockElems == 1 {
		hidden = 40
	}
	a := gatherArgs{typ: typ, outType: outType, vocab: 3, hidden: hidden}
	rng := splitMix{state: seed ^ uint64(typ)}
	a.table = make([]byte, int(a.vocab*hidden)/tr.BlockElems*tr.BlockBytes)
	for i := range a.table {
		a.table[i] = byte(rng.next())
	}
	for _, id := range faultIDs {
		a.ids = binary.LittleEndian.AppendUint32(a.ids, uint32(id))
	}
	esize := 4
	if outType == gguf.TypeBF16 {
		esize = 2
	}
	a.out = make([]byte, len(faultIDs)*int(hidden)*esize)
	return a
}

// portableGather returns what p gathers for a with the portable decoders
// into fresh buffers.
func portableGather(t *testing.T, p Provider, a gatherArgs) []byte {
	t.Helper()
	defer setAccel(accelAvailable())
	setAccel(false)
	a.out = make([]byte, len(a.out))
	if err := a.run(p); err != nil {
		t.Fatalf("portable reference: %v", err)
	}
	return a.out
}

// TestProviderOffsets (misaligned access): the CPU providers gather every
// table type, to f32 and bf16, with the table, the ids and the output each
// at byte offset 0..31 past a 32-byte boundary, and give the portable
// decoders' bytes without writing outside out.
func TestProviderOffsets(t *testing.T) {
	for _, pt := range providerTables() {
		t.Run(pt.typ.String(), func(t *testing.T) {
			for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
				a := newGatherArgs(pt.typ, outType, 0x0ff5e7)
				want := portableGather(t, pt.p, a)
				n := len(a.out)
				buf := make([]byte, n+64)
				for off := range 32 {
					b := a
					b.table, b.ids = packedAt(a.table, off), packedAt(a.ids, off)
					lo := placed(unsafe.Pointer(&buf[0]), 1, off)
					for k := range buf {
						buf[k] = 0xad
					}
					b.out = buf[lo : lo+n : lo+n]
					what := fmt.Sprintf("%v out at +%d", outType, off)
					if err := b.run(pt.p); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if string(b.out) != string(want) {
						t.Fatalf("%s: the gather differs from the portable one", what)
					}
					for k, v := range buf {
						if (k < lo || k >= lo+n) && v != 0xad {
							t.Fatalf("%s: byte %d outside out [%d, %d) was written", what, k, lo, lo+n)
						}
					}
				}
			}
		})
	}
}

// math32 is math.Float32frombits.
func math32(b uint32) float32 { return math.Float32frombits(b) }
