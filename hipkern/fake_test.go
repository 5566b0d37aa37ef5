package hipkern

import (
	"errors"
	"fmt"
	"testing"

	"gathermut/gather"
)

// fakeLib stands in for the kernel library in the binding's CPU-only tests:
// it records calls and answers as configured.
type fakeLib struct {
	abi       int
	runtime   string
	devices   int
	countErr  error
	infoErr   error
	types     []int // table types, packed codecs first
	quant     int   // how many of types are packed codecs
	gathers   []gatherCall
	badPos    int64 // what gather reports; -1 for none
	gatherErr error
	mem       map[uint64][]byte // copyOut answers, by source address
	copyErr   error
	allocs    []int64
	allocErr  error
	frees     []uint64
	closes    int // close calls: a refused library is unloaded again
}

// newFakeLib returns a fake with one device and the admitted codecs plus
// the float types.
func newFakeLib() *fakeLib {
	f := &fakeLib{abi: abiVersion, runtime: "fake", devices: 1, badPos: -1, mem: map[uint64][]byte{}}
	for _, t := range gather.Admitted() {
		f.types = append(f.types, int(t))
	}
	f.quant = len(f.types)
	f.types = append(f.types, 0, 1, 30)
	return f
}

func (f *fakeLib) abiVersion() int     { return f.abi }
func (f *fakeLib) runtimeName() string { return f.runtime }
func (f *fakeLib) deviceCount() (int, error) {
	return f.devices, f.countErr
}
func (f *fakeLib) deviceInfo(dev int) (string, string, error) {
	if dev != 0 { // device 0 is the one Info describes: another answers otherwise
		return fmt.Sprintf("Fake GPU %d", dev), "fake_arch", f.infoErr
	}
	return "Fake GPU", "fake_arch", f.infoErr
}
func (f *fakeLib) tableTypes() ([]int, int) { return f.types, f.quant }
func (f *fakeLib) alloc(dev int, n int64) (uint64, error) {
	f.allocs = append(f.allocs, n)
	return 0x1000, f.allocErr
}
func (f *fakeLib) free(dev int, p uint64) error {
	f.frees = append(f.frees, p)
	return f.allocErr
}
func (f *fakeLib) copyIn(dev int, dst uint64, src []byte) error { return f.copyErr }
func (f *fakeLib) copyOut(dev int, dst []byte, src uint64) error {
	if f.copyErr != nil {
		return f.copyErr
	}
	b, ok := f.mem[src]
	if !ok {
		return errors.New("fake: no memory at that address")
	}
	copy(dst, b)
	return nil
}
func (f *fakeLib) gather(g gatherCall) (int64, error) {
	f.gathers = append(f.gathers, g)
	return f.badPos, f.gatherErr
}
func (f *fakeLib) close() { f.closes++ }

// withLoader installs lib as the loaded library for the test, and restores
// whatever was loaded before (the real library on a GPU machine).
func withLoader(t *testing.T, lib backend, info Info) {
	t.Helper()
	resetLoader(t)
	loader.mu.Lock()
	loader.lib, loader.info = lib, info
	loader.mu.Unlock()
}

// resetLoader empties the loader (nothing loaded, no fatal error) for the
// test, and restores it when the test ends.
func resetLoader(t *testing.T) {
	t.Helper()
	loader.mu.Lock()
	oldLib, oldInfo, oldFatal := loader.lib, loader.info, loader.fatal
	loader.lib, loader.info, loader.fatal = nil, Info{}, nil
	loader.mu.Unlock()
	t.Cleanup(func() {
		loader.mu.Lock()
		loader.lib, loader.info, loader.fatal = oldLib, oldInfo, oldFatal
		loader.mu.Unlock()
	})
}
