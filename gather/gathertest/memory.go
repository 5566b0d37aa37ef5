package gathertest

import (
	"bytes"
	"slices"

	"gathermut/gather"
	"gathermut/gguf"
)

// Memory places the tensors of the suite's calls on the device a provider
// serves, and reads them back.
type Memory interface {
	// Device is the device every tensor of the memory is on.
	Device() gather.Device
	// Alloc returns a new buffer on the device holding a copy of data.
	Alloc(data []byte) (Buffer, error)
}

// Buffer is one allocation of a Memory.
type Buffer interface {
	// Tensor describes the buffer's bytes from byte off on as a
	// contiguous tensor of type t and shape (the shape is copied). The
	// shape may need more bytes than the buffer holds: the suite builds
	// such tensors only for calls that must be refused or answered before
	// any byte is read.
	Tensor(t gguf.Type, shape []int64, off int) *gather.Tensor
	// Bytes returns a copy of the buffer's bytes as they are now.
	Bytes() ([]byte, error)
}

// Host is the memory of the CPU providers: a buffer is a Go byte slice, and
// a tensor's Data runs from its offset to the end of the buffer (so an out
// tensor's Data is longer than out, as gather.Tensor allows).
type Host struct{}

// Device returns gather.Host.
func (Host) Device() gather.Device { return gather.Host }

// Alloc copies data into a new slice.
func (Host) Alloc(data []byte) (Buffer, error) { return hostBuffer(bytes.Clone(data)), nil }

type hostBuffer []byte

func (b hostBuffer) Tensor(t gguf.Type, shape []int64, off int) *gather.Tensor {
	return &gather.Tensor{Type: t, Shape: slices.Clone(shape), Device: gather.Host, Data: b[off:]}
}

func (b hostBuffer) Bytes() ([]byte, error) { return bytes.Clone(b), nil }
