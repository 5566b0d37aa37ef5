package hipkern

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
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
	n := int64(len(ids) / 4)
	if idType == gguf.TypeI64 {
		n = int64(len(ids) / 8)
	}
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

// The tables and ids of the GPU tests are package gathertest's, as the
// CPU tests' are.
var (
	withEdges = gathertest.WithEdges
	encodeIDs = gathertest.EncodeIDs
)

// randomTable is gathertest.RandomTable for a geometry the test knows to be
// valid.
func randomTable(rng *rand.Rand, typ gguf.Type, vocab, hidden int64) []byte {
	b, err := gathertest.RandomTable(rng, typ, vocab, hidden)
	if err != nil {
		panic(err)
	}
	return b
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
