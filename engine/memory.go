package engine

import (
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// deviceMemory is where the engine keeps what the Embedding operation reads
// and writes: the resident table, the ids and the bf16 output rows. The host
// implementation hands the gather plain byte slices; a GPU implementation
// (over hipkern.Alloc/CopyIn/CopyOut/Free) fills DevPtr instead, and the rest
// of the engine does not change.
type deviceMemory interface {
	device() gather.Device
	// hold makes host bytes readable by the device for the engine's life;
	// the host borrows them (no copy).
	hold(host []byte) (buffer, error)
	alloc(n int) (buffer, error)
	copyIn(dst buffer, src []byte) error
	copyOut(dst []byte, src buffer) error
	free(b buffer) error
}

// buffer is one allocation: host bytes on the CPU, a device address
// elsewhere.
type buffer struct {
	host []byte
	ptr  uintptr
	size int
}

// tensor views the first bytes of b as a tensor of typ and shape on dev.
func (b buffer) tensor(dev gather.Device, typ gguf.Type, bytes int, shape ...int64) gather.Tensor {
	t := gather.Tensor{Type: typ, Shape: shape, Device: dev, DevPtr: b.ptr}
	if b.host != nil {
		t.Data = b.host[:bytes]
	}
	return t
}

// hostMemory is the CPU: buffers are Go byte slices.
type hostMemory struct{}

func (hostMemory) device() gather.Device { return gather.Host }

func (hostMemory) hold(host []byte) (buffer, error) {
	return buffer{host: host, size: len(host)}, nil
}

func (hostMemory) alloc(n int) (buffer, error) {
	return buffer{host: make([]byte, n), size: n}, nil
}

func (hostMemory) copyIn(dst buffer, src []byte) error {
	copy(dst.host, src)
	return nil
}

func (hostMemory) copyOut(dst []byte, src buffer) error {
	copy(dst, src.host)
	return nil
}

func (hostMemory) free(buffer) error { return nil }

// memoryFor returns the memory of the device Params.Device names. "gpu" is
// refused until a GPU memory implementation is wired in: the engine never
// falls back to the CPU silently.
func memoryFor(device string) (deviceMemory, error) {
	switch device {
	case "", "cpu":
		return hostMemory{}, nil
	case "gpu":
		return nil, fmt.Errorf("engine: device gpu: no GPU provider available (this engine has no GPU memory backend yet; use device \"cpu\")")
	}
	return nil, fmt.Errorf("engine: unknown device %q (want \"cpu\" or \"gpu\")", device)
}
