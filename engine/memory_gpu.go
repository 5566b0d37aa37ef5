package engine

import (
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
	"gathermut/hipkern"
)

// gpuMemory keeps the embed step's tensors on GPU 0 through hipkern: the
// packed table is copied there once at load (in its blocks, never
// expanded), the ids are copied in and the bf16 rows copied out per call.
type gpuMemory struct{ dev gather.Device }

// newGPUMemory loads the kernel library (which registers the GPU providers
// with gather) and refuses the GPU when none is usable: never a silent CPU
// fallback.
func newGPUMemory() (deviceMemory, error) {
	if err := hipkern.Load(); err != nil {
		return nil, fmt.Errorf("engine: device gpu: no GPU provider available: %w", err)
	}
	return gpuMemory{dev: gather.Device{Kind: gather.GPU, Ordinal: 0}}, nil
}

func (m gpuMemory) device() gather.Device { return m.dev }

func (m gpuMemory) hold(typ gguf.Type, shape []int64, host []byte) (gather.Tensor, error) {
	t, err := m.alloc(typ, shape, len(host))
	if err != nil {
		return t, err
	}
	if err := hipkern.CopyIn(m.dev, t.DevPtr, host); err != nil {
		return t, fmt.Errorf("engine: copy %d table bytes to %v: %w (and free: %v)", len(host), m.dev, err, m.free(&t))
	}
	return t, nil
}

func (m gpuMemory) alloc(typ gguf.Type, shape []int64, bytes int) (gather.Tensor, error) {
	p, err := hipkern.Alloc(m.dev, bytes)
	if err != nil {
		return gather.Tensor{}, fmt.Errorf("engine: %w", err)
	}
	return gather.Tensor{Type: typ, Shape: shape, Device: m.dev, DevPtr: p}, nil
}

func (m gpuMemory) write(dst *gather.Tensor, src []byte) error {
	return hipkern.CopyIn(m.dev, dst.DevPtr, src)
}

func (m gpuMemory) read(dst []byte, src *gather.Tensor) error {
	return hipkern.CopyOut(m.dev, dst, src.DevPtr)
}

func (m gpuMemory) free(t *gather.Tensor) error {
	if t.DevPtr == 0 {
		return nil
	}
	err := hipkern.Free(m.dev, t.DevPtr)
	t.DevPtr = 0
	return err
}
