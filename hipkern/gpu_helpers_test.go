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
	"gathermut/hipkern/internal/emulation"
	"gathermut/hipkern/internal/probe"
)

var gpu0 = gather.Device{Kind: gather.GPU, Ordinal: 0}

// needGPU loads what the GPU tests run on (emulation.ForTest: a GPU
// library, else the host emulation; only the emulation a mutation run
// names in its variable, when it names one) and says which. It skips only
// where neither is to be had (ErrNoEmulation, saying why); an emulation
// that fails otherwise fails the test. The library it returns reaches the
// test probes and benchmarks too.
func needGPU(t testing.TB) (devLib, Info) {
	t.Helper()
	if err := loadForTests(); err != nil {
		if errors.Is(err, emulation.ErrNoEmulation) {
			t.Skipf("hipkern: %v", err)
		}
		t.Fatalf("hipkern: %v", err)
	}
	lib, info, err := loaded()
	if err != nil {
		t.Fatalf("hipkern: loaded, then: %v", err)
	}
	p, err := probe.Open(info.Library)
	if err != nil {
		t.Fatalf("hipkern: %v", err)
	}
	t.Cleanup(p.Close)
	t.Logf("running on %v", info)
	return devLib{lib, p}, info
}

// devLib is the loaded library with its test entry points.
type devLib struct {
	backend
	*probe.Lib
}

// bench times g as gm_bench_gather does (iters launches after a warm-up).
func (l devLib) bench(g gatherCall, iters int) (float64, error) {
	return l.BenchGather(probe.Gather{Dev: g.dev, TableType: g.tableType, Table: g.table, Vocab: g.vocab,
		Hidden: g.hidden, IDs: g.ids, IDBytes: g.idBytes, NIDs: g.nIDs, Out: g.out, OutBF16: g.outBF16}, iters)
}

var testLoad struct {
	once sync.Once
	err  error
}

// loadForTests runs emulation.ForTest once per test binary (a failed
// emulation build is not retried by every test), then Load, which does
// nothing while the library stays loaded (tests that swap the loader
// restore it).
func loadForTests() error {
	testLoad.once.Do(func() { testLoad.err = emulation.ForTest(Load, loadedLibrary) })
	if testLoad.err != nil {
		return testLoad.err
	}
	return Load()
}

// loadedLibrary is the path of the library loaded now, "" for none.
func loadedLibrary() string {
	loader.mu.Lock()
	defer loader.mu.Unlock()
	return loader.info.Library
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
