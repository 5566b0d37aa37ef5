package engine

import (
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// deviceMemory is where the engine keeps what the Embedding operation reads
// and writes: the resident table, the ids and the bf16 output rows, each a
// gather.Tensor on the memory's device. The host implementation hands the
// gather plain byte slices; a GPU implementation (over hipkern.Alloc,
// CopyIn, CopyOut and Free) fills DevPtr instead, and the rest of the engine
// does not change.
type deviceMemory interface {
	device() gather.Device
	// hold makes host bytes readable on the device as a tensor for the
	// engine's life; the host borrows them (no copy).
	hold(typ gguf.Type, shape []int64, host []byte) (gather.Tensor, error)
	// alloc makes a tensor of the given byte size.
	alloc(typ gguf.Type, shape []int64, bytes int) (gather.Tensor, error)
	// write copies src into the front of dst; read copies the front of src
	// into dst.
	write(dst *gather.Tensor, src []byte) error
	read(dst []byte, src *gather.Tensor) error
	free(t *gather.Tensor) error
}

// leadingRows views the first rows of t (whose rows take rowBytes each) as
// a tensor of its own.
func leadingRows(t gather.Tensor, rows int64, rowBytes int) gather.Tensor {
	v := t
	v.Shape = append([]int64{rows}, t.Shape[1:]...)
	if t.Data != nil {
		v.Data = t.Data[:int(rows)*rowBytes]
	}
	return v
}

// hostMemory is the CPU: tensors hold Go byte slices.
type hostMemory struct{}

func (hostMemory) device() gather.Device { return gather.Host }

func (hostMemory) hold(typ gguf.Type, shape []int64, host []byte) (gather.Tensor, error) {
	return gather.Tensor{Type: typ, Shape: shape, Device: gather.Host, Data: host}, nil
}

func (hostMemory) alloc(typ gguf.Type, shape []int64, bytes int) (gather.Tensor, error) {
	return gather.Tensor{Type: typ, Shape: shape, Device: gather.Host, Data: make([]byte, bytes)}, nil
}

func (hostMemory) write(dst *gather.Tensor, src []byte) error {
	copy(dst.Data, src)
	return nil
}

func (hostMemory) read(dst []byte, src *gather.Tensor) error {
	copy(dst, src.Data)
	return nil
}

func (hostMemory) free(*gather.Tensor) error { return nil }

// memoryFor returns the memory of the device Params.Device names. "gpu"
// needs a loadable kernel library and a GPU; without them Load fails: the
// engine never falls back to the CPU silently.
func memoryFor(device string) (deviceMemory, error) {
	switch device {
	case "", "cpu":
		return hostMemory{}, nil
	case "gpu":
		return newGPUMemory(hipRuntime)
	}
	return nil, fmt.Errorf("engine: unknown device %q (want \"cpu\" or \"gpu\")", device)
}
