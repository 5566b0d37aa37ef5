package gather

import (
	"fmt"
	"math"

	"gathermut/gguf"
)

// DeviceKind names a kind of device that tensors live on and providers serve.
type DeviceKind string

// The device kinds this module knows. Providers may register for others.
const (
	CPU DeviceKind = "cpu"
	GPU DeviceKind = "gpu"
)

// Device is one device: its kind and its ordinal among devices of that kind.
type Device struct {
	Kind    DeviceKind
	Ordinal int
}

// Host is the CPU, where a tensor's Data holds its bytes.
var Host = Device{Kind: CPU}

// String returns "kind:ordinal", e.g. "gpu:1".
func (d Device) String() string { return fmt.Sprintf("%s:%d", d.Kind, d.Ordinal) }

// Tensor describes an n-dimensional array of one element type. For a block
// codec the elements of the last dimension are stored as whole blocks, so a
// 2-D packed table [vocab, hidden] takes vocab*RowSizeBytes(Type, hidden)
// bytes; its strides still count elements (the row stride of a contiguous
// table is hidden).
//
// Data is the host bytes starting at element [0, ..., 0]. It may be a slice
// of a larger buffer at any byte offset and may extend past the tensor's
// last byte; consumers read it by byte assembly and never assume alignment.
// A device tensor has Data nil and is addressed by DevPtr, which only that
// device's provider interprets.
type Tensor struct {
	Type    gguf.Type // element type: F32, F16, BF16, I32, I64, or a block codec
	Shape   []int64   // row-major; a 2-D table is [vocab, hidden]
	Strides []int64   // in elements, per dim; nil means contiguous row-major
	Device  Device
	Data    []byte  // host bytes (CPU tensors); nil for device tensors
	DevPtr  uintptr // device address (non-CPU tensors), interpreted by that device's provider
}

// NewHostTensor returns a contiguous CPU tensor of type t and shape over
// data, which it aliases (the shape is copied). It refuses a negative
// dimension, a packed last dimension that is not whole blocks, a size that
// overflows int64, and data whose length is not exactly the tensor's byte
// size.
func NewHostTensor(t gguf.Type, shape []int64, data []byte) (*Tensor, error) {
	x := &Tensor{Type: t, Shape: append([]int64(nil), shape...), Device: Host, Data: data}
	n, err := x.Bytes()
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != n {
		return nil, fmt.Errorf("gather: %v tensor %v: data holds %d bytes, the tensor takes %d", t, shape, len(data), n)
	}
	return x, nil
}

// Rank returns the number of dimensions.
func (t *Tensor) Rank() int { return len(t.Shape) }

// Contiguous reports whether the tensor is laid out row-major without gaps:
// Strides is nil, or equals the row-major strides in every dimension whose
// size is not 1 (a size-1 dimension is never stepped, so its stride does not
// matter). A tensor with no elements is contiguous, as nothing is laid out.
// Strides of the wrong length are not contiguous.
func (t *Tensor) Contiguous() bool {
	if t.Strides == nil {
		return true
	}
	if len(t.Strides) != len(t.Shape) {
		return false
	}
	for _, d := range t.Shape {
		if d == 0 {
			return true
		}
	}
	want := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if t.Shape[i] != 1 && t.Strides[i] != want {
			return false
		}
		want *= t.Shape[i]
	}
	return true
}

// Bytes returns the tensor's size in bytes when contiguous: its element
// count times the element size, or for a block codec the product of the
// leading dimensions times RowSizeBytes of the last. A 0-D tensor holds one
// element; a 0-D packed tensor is refused, as it has no row to block.
func (t *Tensor) Bytes() (int64, error) {
	if _, ok := gguf.FindGgmlTraits(t.Type); !ok {
		return 0, fmt.Errorf("gather: tensor %v: unknown ggml type id %d", t.Shape, uint32(t.Type))
	}
	empty := false
	for _, d := range t.Shape {
		if d < 0 {
			return 0, fmt.Errorf("gather: %v tensor %v: negative dimension", t.Type, t.Shape)
		}
		empty = empty || d == 0
	}
	rows, last := t.Shape, int64(1)
	if t.Type.IsQuantized() {
		if len(t.Shape) == 0 {
			return 0, fmt.Errorf("gather: %v tensor has no dimensions: a packed tensor needs a row width", t.Type)
		}
		rows, last = t.Shape[:len(t.Shape)-1], t.Shape[len(t.Shape)-1]
	}
	rowBytes, err := gguf.RowSizeBytes(t.Type, last)
	if err != nil {
		return 0, fmt.Errorf("gather: %v tensor %v: %w", t.Type, t.Shape, err)
	}
	if empty {
		return 0, nil
	}
	n := rowBytes
	for _, d := range rows {
		if n > math.MaxInt64/d {
			return 0, fmt.Errorf("gather: %v tensor %v: byte size overflows int64", t.Type, t.Shape)
		}
		n *= d
	}
	return n, nil
}
