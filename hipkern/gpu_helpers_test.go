package hipkern

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

var gpu0 = gather.Device{Kind: gather.GPU, Ordinal: 0}

// needGPU loads the library, else the host emulation, and says which one
// the test runs on. It skips only where neither is to be had (the
// emulation refused with ErrNoEmulation, saying why); an emulation that
// fails otherwise fails the test.
func needGPU(t testing.TB) (backend, Info) {
	t.Helper()
	lib, info, err := loaded()
	if err != nil {
		// No GPU library here: run on the host emulation where it can be
		// built (and LibEnv names no library under test).
		eerr := emulateOnce()
		if errors.Is(eerr, ErrNoEmulation) {
			t.Skipf("hipkern: no GPU library: %v; %v", err, eerr)
		}
		if eerr != nil {
			t.Fatalf("hipkern: no GPU library (%v), and the host emulation fails: %v", err, eerr)
		}
		if lib, info, err = loaded(); err != nil {
			t.Fatalf("hipkern: the host emulation loaded, then: %v", err)
		}
	}
	t.Logf("running on %v", info)
	return lib, info
}

var (
	emulation    sync.Once
	emulationErr error
)

// emulateOnce loads the host emulation at most once per test binary.
func emulateOnce() error {
	emulation.Do(func() { emulationErr = LoadEmulation() })
	return emulationErr
}

// poison is the byte every output buffer starts as; guard is how many
// poisoned bytes follow the output, checked after every call.
const (
	poison = 0xa5
	guard  = 64
)

// devBuf is a device allocation freed when the test ends.
type devBuf struct {
	dev  gather.Device
	base uintptr
	size int
}

func newDevBuf(t testing.TB, dev gather.Device, size int) *devBuf {
	t.Helper()
	p, err := Alloc(dev, size)
	if err != nil {
		t.Fatalf("Alloc(%v, %d): %v", dev, size, err)
	}
	t.Cleanup(func() {
		if err := Free(dev, p); err != nil {
			t.Errorf("Free(%v, %#x): %v", dev, p, err)
		}
	})
	return &devBuf{dev: dev, base: p, size: size}
}

// upload copies data to a new device buffer at byte offset off.
func upload(t testing.TB, dev gather.Device, data []byte, off int) uintptr {
	t.Helper()
	b := newDevBuf(t, dev, len(data)+off)
	if err := CopyIn(dev, b.base+uintptr(off), data); err != nil {
		t.Fatal(err)
	}
	return b.base + uintptr(off)
}

// download copies n bytes at p back to the host.
func download(t testing.TB, dev gather.Device, p uintptr, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if err := CopyOut(dev, b, p); err != nil {
		t.Fatal(err)
	}
	return b
}

// poisoned returns a device buffer of n+guard poisoned bytes at offset off.
func poisoned(t testing.TB, dev gather.Device, n, off int) uintptr {
	t.Helper()
	return upload(t, dev, bytes.Repeat([]byte{poison}, n+guard), off)
}

// devTensor describes device memory at p as a tensor.
func devTensor(dev gather.Device, typ gguf.Type, shape []int64, p uintptr) *gather.Tensor {
	return &gather.Tensor{Type: typ, Shape: shape, Device: dev, DevPtr: p}
}

// outSize is the element size of an output type.
func outSize(t gguf.Type) int {
	if t == gguf.TypeBF16 {
		return 2
	}
	return 4
}

// cpuGather is the reference: gather.Embedding on host tensors (the CPU
// providers).
func cpuGather(t testing.TB, typ gguf.Type, vocab, hidden int64, table []byte, idType gguf.Type, ids []byte, outType gguf.Type) []byte {
	t.Helper()
	n := int64(len(ids) / idWidth(idType))
	tt, err := gather.NewHostTensor(typ, []int64{vocab, hidden}, table)
	if err != nil {
		t.Fatal(err)
	}
	it, err := gather.NewHostTensor(idType, []int64{n}, ids)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, int(n*hidden)*outSize(outType))
	ot, err := gather.NewHostTensor(outType, []int64{n, hidden}, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := gather.Embedding(ot, tt, it); err != nil {
		t.Fatalf("CPU reference %v: %v", typ, err)
	}
	return out
}

func idWidth(t gguf.Type) int {
	if t == gguf.TypeI64 {
		return 8
	}
	return 4
}

// encodeIDs writes ids as little-endian I32 or I64.
func encodeIDs(idType gguf.Type, ids []int64) []byte {
	w := idWidth(idType)
	b := make([]byte, w*len(ids))
	for i, v := range ids {
		if w == 8 {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		} else {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(v)))
		}
	}
	return b
}

// scaleFields gives, per codec, the byte offsets of its f16 scale fields
// (randomTable keeps them finite); Q8_K's float32 d and MXFP4's E8M0 byte
// are handled apart.
var scaleFields = map[gguf.Type][]int{
	gguf.TypeQ4_0: {0}, gguf.TypeQ5_0: {0}, gguf.TypeQ8_0: {0}, gguf.TypeIQ4_NL: {0},
	gguf.TypeQ2_K: {80, 82}, gguf.TypeQ3_K: {108}, gguf.TypeQ4_K: {0, 2}, gguf.TypeQ5_K: {0, 2},
	gguf.TypeQ6_K: {208}, gguf.TypeQ8_K: {}, gguf.TypeMXFP4: {},
	gguf.TypeIQ2_XXS: {0}, gguf.TypeIQ2_XS: {0}, gguf.TypeIQ3_XXS: {0}, gguf.TypeIQ1_S: {0},
	gguf.TypeIQ3_S: {0}, gguf.TypeIQ2_S: {0}, gguf.TypeIQ4_XS: {0}, gguf.TypeIQ1_XXXS: {0},
}

// randomTable returns vocab rows of hidden elements of typ. Packed blocks
// are random bytes with every scale field made finite but otherwise random
// (zeros, subnormals and large values included; MXFP4's exponent takes all
// 256 values, so subnormal and infinite outputs occur), so no decode makes
// a NaN, whose bits would be platform-dependent. Float tables are random
// bits, NaNs included: they are only widened or rounded, never computed on.
func randomTable(rng *rand.Rand, typ gguf.Type, vocab, hidden int64) []byte {
	rowBytes, err := gguf.RowSizeBytes(typ, hidden)
	if err != nil {
		panic(err)
	}
	b := make([]byte, vocab*rowBytes)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	tr, _ := gguf.FindGgmlTraits(typ)
	if tr.BlockElems == 1 {
		return b
	}
	for blk := 0; blk < len(b); blk += tr.BlockBytes {
		for _, off := range scaleFields[typ] {
			h := binary.LittleEndian.Uint16(b[blk+off:])
			if h&0x7c00 == 0x7c00 { // Inf or NaN: drop an exponent bit
				h &^= 0x0400
			}
			binary.LittleEndian.PutUint16(b[blk+off:], h)
		}
		if typ == gguf.TypeQ8_K {
			u := binary.LittleEndian.Uint32(b[blk:])
			if f := math.Float32frombits(u); math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
				u &^= 0x00800000
			}
			binary.LittleEndian.PutUint32(b[blk:], u)
		}
	}
	return b
}

// Edge values of the scale fields: signed zeros, the smallest and largest
// subnormals, the smallest and largest normals, one. withEdges writes them,
// in turn, into the first blocks of a table.
var (
	edgeF16   = []uint16{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x0200}
	edgeF32   = []uint32{0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x00400000, 0x7f000000}
	edgeE8M0  = []byte{0, 1, 2, 3, 126, 127, 128, 129, 253, 254, 255}
	edgeCount = 11 // each list's length: the blocks withEdges rewrites
)

// withEdges rewrites the scale fields of the first edgeCount blocks of a
// packed table with the edge values (Q8_K's float32 d and MXFP4's E8M0 byte
// their own); MXFP4's exponents 0 and 1 give subnormal scales, 255 one whose
// products overflow to infinity.
func withEdges(typ gguf.Type, table []byte) {
	tr, _ := gguf.FindGgmlTraits(typ)
	if tr.BlockElems == 1 {
		return
	}
	for k := 0; k < edgeCount && (k+1)*tr.BlockBytes <= len(table); k++ {
		blk := table[k*tr.BlockBytes:]
		switch typ {
		case gguf.TypeQ8_K:
			binary.LittleEndian.PutUint32(blk, edgeF32[k])
		case gguf.TypeMXFP4:
			blk[0] = edgeE8M0[k]
		default:
			for i, off := range scaleFields[typ] {
				binary.LittleEndian.PutUint16(blk[off:], edgeF16[(k+i)%edgeCount])
			}
		}
	}
}

// randomIDs returns n ids in [0, vocab), with 0 and vocab-1 among them.
func randomIDs(rng *rand.Rand, n int, vocab int64) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = rng.Int64N(vocab)
	}
	if n >= 2 {
		ids[0], ids[n-1] = vocab-1, 0
	}
	return ids
}

// diff describes the first difference of got from want in out elements.
func diff(got, want []byte, elem int) string {
	for i := range want {
		if got[i] != want[i] {
			e := i / elem
			return fmt.Sprintf("first difference at element %d: got % x, want % x", e,
				got[e*elem:(e+1)*elem], want[e*elem:(e+1)*elem])
		}
	}
	return ""
}

// checkGuard fails if the guard bytes after an output were written.
func checkGuard(t testing.TB, tail []byte, what string) {
	t.Helper()
	for i, c := range tail {
		if c != poison {
			t.Errorf("%s: byte %d after out was written (%#x): the kernel wrote outside out", what, i, c)
			return
		}
	}
}
