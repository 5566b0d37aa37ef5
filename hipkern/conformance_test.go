package hipkern

import (
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// gpuMemory is device memory as package gathertest places tensors in it:
// each buffer is an allocation on dev, freed when the test ends.
type gpuMemory struct {
	t   testing.TB
	dev gather.Device
}

func (m gpuMemory) Device() gather.Device { return m.dev }

func (m gpuMemory) Alloc(data []byte) (gathertest.Buffer, error) {
	p, err := Alloc(m.dev, max(len(data), 1))
	if err != nil {
		return nil, err
	}
	m.t.Cleanup(func() {
		if err := Free(m.dev, p); err != nil {
			m.t.Errorf("Free(%v, %#x): %v", m.dev, p, err)
		}
	})
	if err := CopyIn(m.dev, p, data); err != nil {
		return nil, err
	}
	return gpuBuffer{dev: m.dev, base: p, size: len(data)}, nil
}

// gpuBuffer is one allocation of a gpuMemory.
type gpuBuffer struct {
	dev  gather.Device
	base uintptr
	size int
}

func (b gpuBuffer) Tensor(t gguf.Type, shape []int64, off int) *gather.Tensor {
	return &gather.Tensor{Type: t, Shape: slices.Clone(shape), Device: b.dev, DevPtr: b.base + uintptr(off)}
}

func (b gpuBuffer) Bytes() ([]byte, error) {
	out := make([]byte, b.size)
	return out, CopyOut(b.dev, out, b.base)
}

// TestGPUConformance runs package gathertest's provider suite against both
// registered GPU providers (on a GPU, or on the host emulation): the same
// declines, refusals, empty requests, bad ids, gathers and statistics as
// the CPU providers', except that after a bad id the rows at valid
// positions may have been written (see the package doc) and out is placed
// only at addresses its element size divides.
func TestGPUConformance(t *testing.T) {
	needGPU(t)
	for _, op := range []gather.Op{gather.OpEmbeddingQuant, gather.OpEmbeddingFloat} {
		ps := gather.Providers(op, gather.GPU)
		if len(ps) != 1 {
			t.Fatalf("%d %s providers on the GPU, want 1", len(ps), op)
		}
		s := gathertest.Subject{Provider: ps[0], Op: op, Memory: gpuMemory{t, gpu0}, PartialRows: true}
		if err := gathertest.TestProvider(s); err != nil {
			t.Error(err)
		}
	}
}
