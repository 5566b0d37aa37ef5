//go:build linux

package gather

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"

	"gathermut/gguf"
)

// guarded returns n bytes of fresh memory that end exactly where a
// PROT_NONE page begins: a read or write one byte past them faults.
func guarded(t *testing.T, n int) []byte {
	t.Helper()
	ps := os.Getpagesize()
	pages := (n+ps-1)/ps + 1
	mem, err := syscall.Mmap(-1, 0, pages*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatalf("mmap %d pages: %v", pages, err)
	}
	t.Cleanup(func() {
		if err := syscall.Munmap(mem); err != nil {
			t.Errorf("munmap: %v", err)
		}
	})
	end := (pages - 1) * ps
	if err := syscall.Mprotect(mem[end:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect the guard page: %v", err)
	}
	return mem[end-n : end : end]
}

// guardedCopy copies b into guarded memory.
func guardedCopy(t *testing.T, b []byte) []byte {
	g := guarded(t, len(b))
	copy(g, b)
	return g
}

// guardBlocks are the run lengths decoded before a guard page: one block,
// two, three and faultBlocks, so that a decoder's last block is every
// block of a pair-at-a-time loop.
var guardBlocks = []int{1, 2, 3, faultBlocks}

// TestDecodeBeforeGuardPage (reads past tails): every float32 path of
// every codec decodes runs whose last block ends exactly at a PROT_NONE
// page, into an output that ends at one too, and gives the portable
// decoder's bits. A wider load on the last block (32 bytes where 16
// remain) or a store past the output faults here, where on the heap it
// reads or writes bytes nobody checks.
func TestDecodeBeforeGuardPage(t *testing.T) {
	defer setAccel(accelAvailable())
	setAccel(accelAvailable())
	for i := range codecTable {
		c := &codecTable[i]
		t.Run(c.Traits.Name, func(t *testing.T) {
			for _, blocks := range guardBlocks {
				packed := randomBlocks(c, blocks, 0x6a4d)
				want := bits32(portableF32(c, packed))
				n := len(want)
				for _, p := range f32Paths {
					g := guarded(t, 4*n)
					out := unsafe.Slice((*float32)(unsafe.Pointer(&g[0])), n)
					err := p.run(c, guardedCopy(t, packed), out)
					if errors.Is(err, errNoPath) {
						continue
					}
					what := fmt.Sprintf("%s, %d blocks", p.name, blocks)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if d := diffBits(bits32(out), want); d != "" {
						t.Fatalf("%s: %s", what, d)
					}
				}
				g := guarded(t, 2*n)
				out := unsafe.Slice((*uint16)(unsafe.Pointer(&g[0])), n)
				if err := DequantizeBF16(c.Type, guardedCopy(t, packed), out); err != nil {
					t.Fatalf("DequantizeBF16, %d blocks: %v", blocks, err)
				}
				for k, w := range want {
					if out[k] != F32ToBF16(math32(w)) {
						t.Fatalf("DequantizeBF16, %d blocks: element %d: %#x, want %#x", blocks, k, out[k], F32ToBF16(math32(w)))
					}
				}
			}
		})
	}
}

// TestProviderBeforeGuardPage (reads past tails): the CPU providers gather
// the last row of a table that ends at a PROT_NONE page, with ids and out
// that end at one too, and give the portable decoders' bytes.
func TestProviderBeforeGuardPage(t *testing.T) {
	for _, pt := range providerTables() {
		t.Run(pt.typ.String(), func(t *testing.T) {
			for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
				a := newGatherArgs(pt.typ, outType, 0x6a4d)
				want := portableGather(t, pt.p, a)
				a.table, a.ids, a.out = guardedCopy(t, a.table), guardedCopy(t, a.ids), guarded(t, len(a.out))
				if err := a.run(pt.p); err != nil {
					t.Fatalf("%v out: %v", outType, err)
				}
				if string(a.out) != string(want) {
					t.Fatalf("%v out: the gather differs from the portable one", outType)
				}
			}
		})
	}
}
