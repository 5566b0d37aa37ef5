package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Builder writes a GGUF v3 file. It is deterministic: the same calls, in the
// same order, give the same bytes. Metadata is written in the order it was
// added, tensors in the order they were added, each tensor's data at the next
// multiple of the alignment (general.alignment, or 32), zero-padded, with
// the file padded to a multiple of the alignment after the last tensor.
// Every value it accepts, Parse reads back identically; what Parse would
// refuse, the Builder refuses when it is added.
type Builder struct {
	alignment uint64
	meta      []byte // the encoded kvs, in order
	metaCount uint64
	keys      map[string]bool
	tensors   []builtTensor
	names     map[string]bool
}

type builtTensor struct {
	name string
	typ  Type
	dims []uint64
	data []byte // the caller's slice: not copied, see AddTensor
}

// NewBuilder returns an empty Builder with alignment 32.
func NewBuilder() *Builder {
	return &Builder{
		alignment: defaultAlignment,
		keys:      map[string]bool{},
		names:     map[string]bool{},
	}
}

// AddMeta adds a metadata key. value is one of uint8, int8, uint16, int16,
// uint32, int32, float32, bool, string, uint64, int64, float64; an []any whose
// elements all have one of those types, or are all arrays (nested []any or
// typed slices, each with its own element type, up to 16 levels); or a typed
// slice []uint8 ... []float64, []string, []bool. An empty []any is written
// as an empty uint8 array. general.alignment must be a uint32 power of two;
// it sets the alignment the builder pads to.
func (b *Builder) AddMeta(key string, value any) error {
	if key == "" {
		return refuse("empty key")
	}
	if b.keys[key] {
		return refuse("key %q: duplicate key", key)
	}
	var align uint32
	if key == alignmentKey {
		a, ok := value.(uint32)
		if !ok {
			return refuse("key %q: value of type %T, want uint32", key, value)
		}
		if a == 0 || a&(a-1) != 0 {
			return refuse("key %q: alignment %d is not a power of two", key, a)
		}
		align = a
	}
	vt, enc, err := encodeValue(value, 0)
	if err != nil {
		return refuse("key %q: %w", key, err)
	}
	b.meta = appendString(b.meta, key)
	b.meta = binary.LittleEndian.AppendUint32(b.meta, uint32(vt))
	b.meta = append(b.meta, enc...)
	b.metaCount++
	b.keys[key] = true
	if align != 0 {
		b.alignment = uint64(align)
	}
	return nil
}

// encodeValue returns the value type of v and its encoding; depth is the
// number of arrays v is inside.
func encodeValue(v any, depth int) (valueType, []byte, error) {
	le := binary.LittleEndian
	switch x := v.(type) {
	case uint8:
		return valueUint8, []byte{x}, nil
	case int8:
		return valueInt8, []byte{byte(x)}, nil
	case uint16:
		return valueUint16, le.AppendUint16(nil, x), nil
	case int16:
		return valueInt16, le.AppendUint16(nil, uint16(x)), nil
	case uint32:
		return valueUint32, le.AppendUint32(nil, x), nil
	case int32:
		return valueInt32, le.AppendUint32(nil, uint32(x)), nil
	case float32:
		return valueFloat32, le.AppendUint32(nil, math.Float32bits(x)), nil
	case bool:
		if x {
			return valueBool, []byte{1}, nil
		}
		return valueBool, []byte{0}, nil
	case string:
		return valueString, appendString(nil, x), nil
	case uint64:
		return valueUint64, le.AppendUint64(nil, x), nil
	case int64:
		return valueInt64, le.AppendUint64(nil, uint64(x)), nil
	case float64:
		return valueFloat64, le.AppendUint64(nil, math.Float64bits(x)), nil
	case []any:
		return encodeArray(x, valueUint8, depth+1)
	case []uint8:
		return encodeArray(anySlice(x), valueUint8, depth+1)
	case []int8:
		return encodeArray(anySlice(x), valueInt8, depth+1)
	case []uint16:
		return encodeArray(anySlice(x), valueUint16, depth+1)
	case []int16:
		return encodeArray(anySlice(x), valueInt16, depth+1)
	case []uint32:
		return encodeArray(anySlice(x), valueUint32, depth+1)
	case []int32:
		return encodeArray(anySlice(x), valueInt32, depth+1)
	case []float32:
		return encodeArray(anySlice(x), valueFloat32, depth+1)
	case []bool:
		return encodeArray(anySlice(x), valueBool, depth+1)
	case []string:
		return encodeArray(anySlice(x), valueString, depth+1)
	case []uint64:
		return encodeArray(anySlice(x), valueUint64, depth+1)
	case []int64:
		return encodeArray(anySlice(x), valueInt64, depth+1)
	case []float64:
		return encodeArray(anySlice(x), valueFloat64, depth+1)
	}
	return 0, nil, fmt.Errorf("unsupported metadata value type %T", v)
}

// encodeArray encodes elems as an array at nesting level level. Every
// element must have the first element's type; an empty array is written with
// element type empty (a typed slice's own type, uint8 for []any).
func encodeArray(elems []any, empty valueType, level int) (valueType, []byte, error) {
	if level > maxArrayNesting {
		return 0, nil, fmt.Errorf("array nesting deeper than %d", maxArrayNesting)
	}
	elem := empty
	var body []byte
	for i, e := range elems {
		vt, enc, err := encodeValue(e, level)
		if err != nil {
			return 0, nil, fmt.Errorf("array element %d: %w", i, err)
		}
		if i == 0 {
			elem = vt
		} else if vt != elem {
			return 0, nil, fmt.Errorf("array element %d is %s, element 0 is %s: an array has one element type", i, vt, elem)
		}
		body = append(body, enc...)
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(elem))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(elems)))
	return valueArray, append(out, body...), nil
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// AddTensor adds a tensor of type t with GGUF dims (dims[0] is the row
// width). len(data) must be its byte size, RowSizeBytes(t, dims[0]) times the
// product of dims[1:]. The builder keeps data itself, not a copy: it must not
// change before WriteTo.
func (b *Builder) AddTensor(name string, t Type, dims []uint64, data []byte) error {
	if name == "" {
		return refuse("empty tensor name")
	}
	if b.names[name] {
		return refuse("tensor %q: duplicate tensor name", name)
	}
	size, err := tensorBytes(t, dims)
	if err != nil {
		return refuse("tensor %q: %w", name, err)
	}
	if uint64(len(data)) != size {
		return refuse("tensor %q: %d bytes of data, want %d for %s dims %v", name, len(data), size, t, dims)
	}
	b.tensors = append(b.tensors, builtTensor{name: name, typ: t, dims: append([]uint64(nil), dims...), data: data})
	b.names[name] = true
	return nil
}

// refuse makes a Builder refusal: the message, after "gguf: builder: ",
// and a match for ErrFormat under errors.Is (what the Builder refuses would
// make a malformed file), besides whatever %w wraps.
func refuse(format string, args ...any) error {
	return &refusal{fmt.Errorf("gguf: builder: "+format, args...)}
}

type refusal struct{ err error }

func (r *refusal) Error() string   { return r.err.Error() }
func (r *refusal) Unwrap() []error { return []error{ErrFormat, r.err} }

// WriteTo writes the file to w and returns the bytes written.
func (b *Builder) WriteTo(w io.Writer) (int64, error) {
	le := binary.LittleEndian
	head := []byte(magic)
	head = le.AppendUint32(head, 3)
	head = le.AppendUint64(head, uint64(len(b.tensors)))
	head = le.AppendUint64(head, b.metaCount)
	head = append(head, b.meta...)
	var offset uint64
	for _, t := range b.tensors {
		head = appendString(head, t.name)
		head = le.AppendUint32(head, uint32(len(t.dims)))
		for _, n := range t.dims {
			head = le.AppendUint64(head, n)
		}
		head = le.AppendUint32(head, uint32(t.typ))
		head = le.AppendUint64(head, offset)
		offset = alignUp(offset+uint64(len(t.data)), b.alignment)
	}

	cw := &countingWriter{w: w}
	cw.write(head)
	cw.pad(alignUp(uint64(len(head)), b.alignment) - uint64(len(head)))
	for _, t := range b.tensors {
		cw.write(t.data)
		cw.pad(alignUp(uint64(len(t.data)), b.alignment) - uint64(len(t.data)))
	}
	return cw.n, cw.err
}

// zeros is the padding source: an alignment can be up to 2 GiB, and padding
// is written from this in pieces rather than allocated whole.
var zeros [4096]byte

// countingWriter counts what it writes and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

// pad writes n zero bytes.
func (c *countingWriter) pad(n uint64) {
	for n > 0 {
		k := min(n, uint64(len(zeros)))
		c.write(zeros[:k])
		n -= k
	}
}

func (c *countingWriter) write(p []byte) {
	if c.err != nil || len(p) == 0 {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.err = fmt.Errorf("gguf: builder: write: %w", err)
	}
}
