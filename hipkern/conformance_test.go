package hipkern

import (
	"errors"
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
// only at addresses its element size divides. The gathers of each table
// type are a subtest named as gguf.Type prints it ("Q4_K": -run
// '^TestGPUConformance$/^Q4_K$' checks one codec), the other checks one
// per provider named by its operation ("EmbeddingQuant").
func TestGPUConformance(t *testing.T) {
	needGPU(t)
	for _, op := range []gather.Op{gather.OpEmbeddingQuant, gather.OpEmbeddingFloat} {
		ps := gather.Providers(op, gather.GPU)
		if len(ps) != 1 {
			t.Fatalf("%d %s providers on the GPU, want 1", len(ps), op)
		}
		subject := func(t *testing.T) gathertest.Subject {
			return gathertest.Subject{Provider: ps[0], Op: op, Memory: gpuMemory{t, gpu0}, PartialRows: true}
		}
		t.Run(string(op), func(t *testing.T) {
			s := subject(t)
			err := errors.Join(gathertest.CheckDeclines(s), gathertest.CheckRefusals(s), gathertest.CheckEmpty(s),
				gathertest.CheckBadIDs(s), gathertest.CheckStats(s))
			if err != nil {
				t.Error(err)
			}
		})
		types, err := gathertest.TierTypes(op)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range types {
			t.Run(typ.String(), func(t *testing.T) {
				if err := gathertest.CheckGathersOf(subject(t), typ); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
