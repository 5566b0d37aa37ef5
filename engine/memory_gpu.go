package engine

import (
	"errors"
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
	"gathermut/hipkern"
)

// gpuMemory keeps the embed step's tensors on GPU 0 through hipkern: the
// packed table is copied there once at load (in its blocks, never
// expanded), the ids are copied in and the bf16 rows copied out per call.
type gpuMemory struct {
	dev gather.Device
	rt  gpuRuntime
}

// gpuRuntime is the device API gpuMemory uses: hipkern's, or in tests one
// that fails on demand (a real device cannot be made to fail a copy, and a
// machine whose GPU library loads cannot make Load fail: without this,
// newGPUMemory's refusal would be judged only where there is no GPU).
type gpuRuntime struct {
	load    func() error
	alloc   func(dev gather.Device, n int) (uintptr, error)
	free    func(dev gather.Device, p uintptr) error
	copyIn  func(dev gather.Device, dst uintptr, src []byte) error
	copyOut func(dev gather.Device, dst []byte, src uintptr) error
}

var hipRuntime = gpuRuntime{load: hipkern.Load, alloc: hipkern.Alloc, free: hipkern.Free, copyIn: hipkern.CopyIn, copyOut: hipkern.CopyOut}

// newGPUMemory loads the kernel library through rt (hipkern.Load, which
// registers the GPU providers with gather) and refuses the GPU when none is
// usable: never a silent CPU fallback.
func newGPUMemory(rt gpuRuntime) (deviceMemory, error) {
	if err := rt.load(); err != nil {
		return nil, fmt.Errorf("engine: device gpu: no GPU provider available: %w", err)
	}
	return gpuMemory{dev: gather.Device{Kind: gather.GPU, Ordinal: 0}, rt: rt}, nil
}

func (m gpuMemory) device() gather.Device { return m.dev }

// hold copies host to a new device tensor; on a failed copy the allocation
// is released again.
func (m gpuMemory) hold(typ gguf.Type, shape []int64, host []byte) (gather.Tensor, error) {
	t, err := m.alloc(typ, shape, len(host))
	if err != nil {
		return gather.Tensor{}, err
	}
	if err := m.rt.copyIn(m.dev, t.DevPtr, host); err != nil {
		return gather.Tensor{}, errors.Join(fmt.Errorf("engine: copy %d table bytes to %v: %w", len(host), m.dev, err), m.free(&t))
	}
	return t, nil
}

func (m gpuMemory) alloc(typ gguf.Type, shape []int64, bytes int) (gather.Tensor, error) {
	p, err := m.rt.alloc(m.dev, bytes)
	if err != nil {
		return gather.Tensor{}, fmt.Errorf("engine: %w", err)
	}
	return gather.Tensor{Type: typ, Shape: shape, Device: m.dev, DevPtr: p}, nil
}

func (m gpuMemory) write(dst *gather.Tensor, src []byte) error {
	return m.rt.copyIn(m.dev, dst.DevPtr, src)
}

func (m gpuMemory) read(dst []byte, src *gather.Tensor) error {
	return m.rt.copyOut(m.dev, dst, src.DevPtr)
}

// free releases t's device memory and clears its address; a tensor without
// one (never allocated, or freed already) is left alone.
func (m gpuMemory) free(t *gather.Tensor) error {
	if t.DevPtr == 0 {
		return nil
	}
	err := m.rt.free(m.dev, t.DevPtr)
	t.DevPtr = 0
	return err
}
