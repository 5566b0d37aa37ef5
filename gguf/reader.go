package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

const (
	magic            = "GGUF"
	defaultAlignment = 32
	maxDims          = 4
	alignmentKey     = "general.alignment"

	// The fewest bytes a metadata kv (u64 key length, a one-byte key, u32
	// value type, a one-byte value) and a tensor info (u64 name length, a
	// one-byte name, u32 dim count, one u64 dim, u32 type, u64 offset) take;
	// empty keys and names are refused. Counts are checked against these
	// before anything is allocated for them.
	minKVBytes         = 8 + 1 + 4 + 1
	minTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8
)

// File is a parsed GGUF file: its metadata, in file order, and its tensor
// infos, whose Data borrow the bytes given to Parse (or the mapping made by
// Open).
type File struct {
	name      string
	version   uint32
	alignment uint64
	dataStart uint64 // byte offset of the data section in the file

	keys []string
	meta map[string]metaEntry

	tensors []TensorInfo
	byName  map[string]int

	release func() error // unmaps what Open mapped; nil after Close or for Parse
}

type metaEntry struct {
	value  any
	vtype  valueType
	offset int // byte offset of the value
}

// TensorInfo describes one tensor of a GGUF file.
type TensorInfo struct {
	Name   string
	Type   Type
	Dims   []uint64 // GGUF order: Dims[0] is the row width (elements per row); Dims[1] rows
	Offset uint64   // relative to the start of the data section
	Data   []byte   // the tensor's bytes, borrowed from the file; invalid after Close
}

// Elements is the product of Dims. For a TensorInfo read by Parse or Open it
// is known not to overflow.
func (t TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Rows is the product of Dims[1:]: 1 for a 1-D tensor.
func (t TensorInfo) Rows() uint64 {
	n := uint64(1)
	for i := 1; i < len(t.Dims); i++ {
		n *= t.Dims[i]
	}
	return n
}

// dimNames name the dims in messages; dims[0] is the row width.
var dimNames = [maxDims]string{"dim 0", "dim 1", "dim 2", "dim 3"}

// geometryError is a refusal of a tensor's dims: the dim at fault (an index
// into dims) and what is wrong.
type geometryError struct {
	dim int
	msg string
}

func (e *geometryError) Error() string { return e.msg }

// tensorBytes is the byte size of a tensor of type t with GGUF dims, with
// the geometry checks Parse, the Builder and OwnQuantBlocks share: an
// unknown type is an *UnknownTypeError, a dim count outside 1 to 4 is
// refused, and the rest is tensorGeometry's.
func tensorBytes(t Type, dims []uint64) (uint64, error) {
	tr, ok := ggmlTraits[t]
	if !ok {
		return 0, &UnknownTypeError{Type: t}
	}
	if len(dims) == 0 || len(dims) > maxDims {
		return 0, fmt.Errorf("dim count %d, want 1 to %d", len(dims), maxDims)
	}
	size, gerr := tensorGeometry(tr, dims)
	if gerr != nil {
		return 0, gerr
	}
	return size, nil
}

// tensorGeometry is the byte size of a tensor with traits tr and 1 to 4
// GGUF dims. Each refusal names the dim at fault: the first at which a
// product overflows.
func tensorGeometry(tr Traits, dims []uint64) (uint64, *geometryError) {
	// Zero dims count as one here, so that neither Elements nor Rows of an
	// accepted tensor overflows, even when another dim is zero.
	prod := uint64(1)
	for i, n := range dims {
		if prod > math.MaxInt64/max(n, 1) {
			return 0, &geometryError{i, fmt.Sprintf("%s (%d): element count of dims %v overflows int64", dimNames[i], n, dims)}
		}
		prod *= max(n, 1)
	}
	row, err := traitRowBytes(tr, int64(dims[0]))
	if err != nil {
		return 0, &geometryError{0, fmt.Sprintf("%s: %v", dimNames[0], err)}
	}
	if slices.Contains(dims, 0) {
		return 0, nil
	}
	// Every dim is at least 1 here, so the partial products only grow: the
	// first one that overflows names the dim at fault.
	size := uint64(row)
	for i := 1; i < len(dims); i++ {
		if size > math.MaxInt64/dims[i] {
			return 0, &geometryError{i, fmt.Sprintf("%s (%d): byte size of %s dims %v overflows int64", dimNames[i], dims[i], tr.Name, dims)}
		}
		size *= dims[i]
	}
	return size, nil
}

// Name returns the name the file was parsed or opened under.
func (f *File) Name() string { return f.name }

// Version returns the GGUF version of the file: 2 or 3.
func (f *File) Version() uint32 { return f.version }

// Alignment returns the data alignment: general.alignment, or 32.
func (f *File) Alignment() uint64 { return f.alignment }

// Meta returns the value of a metadata key as one of uint8, int8, uint16,
// int16, uint32, int32, float32, bool, string, uint64, int64, float64, or
// []any for an array (elements of an array of arrays are []any too). The
// returned slices are shared with the File; do not modify them.
func (f *File) Meta(key string) (any, bool) {
	e, ok := f.meta[key]
	return e.value, ok
}

// MetaKeys returns the metadata keys in file order.
func (f *File) MetaKeys() []string {
	return append([]string(nil), f.keys...)
}

// Tensors returns the tensor infos in file order.
func (f *File) Tensors() []TensorInfo {
	return append([]TensorInfo(nil), f.tensors...)
}

// Tensor returns the tensor info called name.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	i, ok := f.byName[name]
	if !ok {
		return TensorInfo{}, false
	}
	return f.tensors[i], true
}

// Close releases the mapping Open made; the Data of every TensorInfo handed
// out before is invalid afterwards, and the File's own infos lose their Data.
// Closing twice, or closing a File from Parse, does nothing.
func (f *File) Close() error {
	for i := range f.tensors {
		f.tensors[i].Data = nil
	}
	release := f.release
	f.release = nil
	if release == nil {
		return nil
	}
	if err := release(); err != nil {
		return fmt.Errorf("gguf: %s: close: %w", f.name, err)
	}
	return nil
}

// Parse reads a GGUF file held in data. name is used in error messages. The
// TensorInfo Data slices alias data. Every malformed input is refused with a
// *FormatError; no input makes Parse panic, and no count or length read from
// data sizes an allocation before it has been checked against the bytes that
// remain.
func Parse(name string, data []byte) (*File, error) {
	d := &decoder{file: name, data: data}
	f := &File{name: name, alignment: defaultAlignment}
	if err := d.header(f); err != nil {
		return nil, err
	}
	return f, nil
}

// decoder walks the bytes of one file. subject names the record being read,
// for error messages; it is formatted only when an error is made.
type decoder struct {
	file string
	data []byte
	pos  int

	kind  string // "key", "tensor", or "" for the header
	name  string
	index int
	named bool
}

func (d *decoder) subject() string {
	switch {
	case d.kind == "":
		return ""
	case d.named:
		return fmt.Sprintf("%s %q", d.kind, d.name)
	case d.kind == "key":
		return fmt.Sprintf("metadata kv %d", d.index)
	default:
		return fmt.Sprintf("tensor info %d", d.index)
	}
}

func (d *decoder) enter(kind string, index int) {
	d.kind, d.index, d.name, d.named = kind, index, "", false
}

func (d *decoder) nameIt(name string) { d.name, d.named = name, true }

// enterNamed starts a record whose name is already known; its index is
// never formatted.
func (d *decoder) enterNamed(kind, name string) { d.kind, d.name, d.named = kind, name, true }

func (d *decoder) errAt(off int, sentinel error, format string, args ...any) *FormatError {
	return &FormatError{
		File:    d.file,
		Subject: d.subject(),
		Offset:  int64(off),
		Msg:     fmt.Sprintf(format, args...),
		Err:     sentinel,
	}
}

func (d *decoder) remaining() int { return len(d.data) - d.pos }

// take returns the next n bytes, or a truncation error naming what was
// being read.
func (d *decoder) take(n int, what string) ([]byte, error) {
	if d.remaining() < n {
		return nil, d.errAt(d.pos, ErrTruncated, "truncated file: %s needs %d bytes, %d remain", what, n, d.remaining())
	}
	b := d.data[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *decoder) u8(what string) (uint8, error) {
	b, err := d.take(1, what)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (d *decoder) u16(what string) (uint16, error) {
	b, err := d.take(2, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (d *decoder) u32(what string) (uint32, error) {
	b, err := d.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(what string) (uint64, error) {
	b, err := d.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a u64 length and that many bytes.
func (d *decoder) str(what string) (string, error) {
	at := d.pos
	n, err := d.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > uint64(d.remaining()) {
		return "", d.errAt(at, nil, "%s length %d exceeds the %d bytes remaining", what, n, d.remaining())
	}
	b, _ := d.take(int(n), what)
	return string(b), nil
}

func (d *decoder) header(f *File) error {
	m, err := d.take(len(magic), "magic")
	if err != nil {
		return err
	}
	if string(m) != magic {
		return d.errAt(0, nil, "bad magic %q (want %q)", m, magic)
	}
	if f.version, err = d.u32("version"); err != nil {
		return err
	}
	switch v := f.version; {
	case v == 2 || v == 3:
	case bits.ReverseBytes32(v) == 2 || bits.ReverseBytes32(v) == 3:
		return d.errAt(4, nil, "version %#08x is byte-swapped: a big-endian GGUF file, which this reader does not support", v)
	default:
		return d.errAt(4, nil, "unsupported version %d (want 2 or 3)", v)
	}
	tensorCountAt := d.pos
	tensorCount, err := d.u64("tensor count")
	if err != nil {
		return err
	}
	kvCountAt := d.pos
	kvCount, err := d.u64("metadata kv count")
	if err != nil {
		return err
	}
	if kvCount > uint64(d.remaining()/minKVBytes) {
		return d.errAt(kvCountAt, nil, "metadata kv count %d exceeds what the remaining %d bytes can hold", kvCount, d.remaining())
	}
	if err := d.metadata(f, int(kvCount)); err != nil {
		return err
	}
	if err := d.alignment(f); err != nil {
		return err
	}
	d.kind = "" // the tensor count is a header field
	if tensorCount > uint64(d.remaining()/minTensorInfoBytes) {
		return d.errAt(tensorCountAt, nil, "tensor count %d exceeds what the remaining %d bytes can hold", tensorCount, d.remaining())
	}
	return d.tensorInfos(f, int(tensorCount))
}

func (d *decoder) metadata(f *File, n int) error {
	f.keys = make([]string, 0, n)
	f.meta = make(map[string]metaEntry, n)
	for i := range n {
		d.enter("key", i)
		at := d.pos
		key, err := d.str("key")
		if err != nil {
			return err
		}
		if key == "" {
			return d.errAt(at, nil, "empty key")
		}
		d.nameIt(key)
		if first, dup := f.meta[key]; dup {
			return d.errAt(at, nil, "duplicate key (first value at byte %#x)", first.offset)
		}
		vt, err := d.u32("value type")
		if err != nil {
			return err
		}
		valueAt := d.pos
		v, err := d.value(valueType(vt), 0)
		if err != nil {
			return err
		}
		f.keys = append(f.keys, key)
		f.meta[key] = metaEntry{value: v, vtype: valueType(vt), offset: valueAt}
	}
	return nil
}

// value reads one value of type vt; depth is the number of arrays it is
// inside.
func (d *decoder) value(vt valueType, depth int) (any, error) {
	switch vt {
	case valueUint8:
		return d.u8("uint8 value")
	case valueInt8:
		v, err := d.u8("int8 value")
		return int8(v), err
	case valueUint16:
		return d.u16("uint16 value")
	case valueInt16:
		v, err := d.u16("int16 value")
		return int16(v), err
	case valueUint32:
		return d.u32("uint32 value")
	case valueInt32:
		v, err := d.u32("int32 value")
		return int32(v), err
	case valueFloat32:
		v, err := d.u32("float32 value")
		return math.Float32frombits(v), err
	case valueBool:
		at := d.pos
		v, err := d.u8("bool value")
		if err != nil {
			return nil, err
		}
		if v > 1 {
			return nil, d.errAt(at, nil, "bool value %d is not 0 or 1", v)
		}
		return v == 1, nil
	case valueString:
		return d.str("string value")
	case valueArray:
		return d.array(depth + 1)
	case valueUint64:
		return d.u64("uint64 value")
	case valueInt64:
		v, err := d.u64("int64 value")
		return int64(v), err
	case valueFloat64:
		v, err := d.u64("float64 value")
		return math.Float64frombits(v), err
	}
	return nil, d.errAt(d.pos-4, nil, "unknown metadata value type %d", uint32(vt))
}

// array reads an array's element type, count and elements; level is its
// nesting level, 1 for an array that is not inside another.
func (d *decoder) array(level int) (any, error) {
	at := d.pos
	if level > maxArrayNesting {
		return nil, d.errAt(at, nil, "array nesting deeper than %d", maxArrayNesting)
	}
	et, err := d.u32("array element type")
	if err != nil {
		return nil, err
	}
	elem := valueType(et)
	if !elem.known() {
		return nil, d.errAt(at, nil, "unknown metadata value type %d", et)
	}
	countAt := d.pos
	n, err := d.u64("array length")
	if err != nil {
		return nil, err
	}
	if n > uint64(d.remaining()/valueTypes[elem].minBytes) {
		return nil, d.errAt(countAt, nil, "array length %d of %s values exceeds what the remaining %d bytes can hold", n, elem, d.remaining())
	}
	out := make([]any, n)
	for i := range out {
		if out[i], err = d.value(elem, level); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *decoder) alignment(f *File) error {
	e, ok := f.meta[alignmentKey]
	if !ok {
		return nil
	}
	d.enterNamed("key", alignmentKey)
	a, ok := e.value.(uint32)
	if !ok {
		return d.errAt(e.offset, nil, "value type %s, want uint32", e.vtype)
	}
	if a == 0 || a&(a-1) != 0 {
		return d.errAt(e.offset, nil, "alignment %d is not a power of two", a)
	}
	f.alignment = uint64(a)
	return nil
}

// tensorLayout is what the second pass over the tensor infos needs.
type tensorLayout struct {
	size     uint64
	offsetAt int // byte offset of the tensor's offset field
}

func (d *decoder) tensorInfos(f *File, n int) error {
	f.tensors = make([]TensorInfo, 0, n)
	f.byName = make(map[string]int, n)
	layouts := make([]tensorLayout, 0, n)
	for i := range n {
		d.enter("tensor", i)
		info, layout, err := d.tensorInfo(f)
		if err != nil {
			return err
		}
		f.byName[info.Name] = len(f.tensors)
		f.tensors = append(f.tensors, info)
		layouts = append(layouts, layout)
	}
	// The data section starts at the first multiple of the alignment after
	// the infos; it may lie past the end of a file whose tensors are empty.
	f.dataStart = alignUp(uint64(d.pos), f.alignment)
	fileLen := uint64(len(d.data))
	start := min(f.dataStart, fileLen)
	avail := fileLen - start
	for i := range f.tensors {
		t := &f.tensors[i]
		d.enterNamed("tensor", t.Name)
		size := layouts[i].size
		if t.Offset > avail || size > avail-t.Offset {
			return d.errAt(layouts[i].offsetAt, nil,
				"data of %d bytes at tensor offset %#x lies outside the file (the data section at byte %#x holds %d bytes)",
				size, t.Offset, f.dataStart, avail)
		}
		b := start + t.Offset
		t.Data = d.data[b : b+size : b+size]
	}
	return nil
}

func (d *decoder) tensorInfo(f *File) (TensorInfo, tensorLayout, error) {
	at := d.pos
	name, err := d.str("tensor name")
	if err != nil {
		return TensorInfo{}, tensorLayout{}, err
	}
	if name == "" {
		return TensorInfo{}, tensorLayout{}, d.errAt(at, nil, "empty tensor name")
	}
	d.nameIt(name)
	if _, dup := f.byName[name]; dup {
		return TensorInfo{}, tensorLayout{}, d.errAt(at, nil, "duplicate tensor name")
	}
	dimsAt := d.pos
	nd, err := d.u32("dim count")
	if err != nil {
		return TensorInfo{}, tensorLayout{}, err
	}
	if nd == 0 || nd > maxDims {
		return TensorInfo{}, tensorLayout{}, d.errAt(dimsAt, nil, "dim count %d, want 1 to %d", nd, maxDims)
	}
	dims := make([]uint64, nd)
	for j := range dims {
		if dims[j], err = d.u64(dimNames[j]); err != nil {
			return TensorInfo{}, tensorLayout{}, err
		}
	}
	typeAt := d.pos
	typ, err := d.u32("tensor type")
	if err != nil {
		return TensorInfo{}, tensorLayout{}, err
	}
	offsetAt := d.pos
	offset, err := d.u64("tensor offset")
	if err != nil {
		return TensorInfo{}, tensorLayout{}, err
	}
	info := TensorInfo{Name: name, Type: Type(typ), Dims: dims, Offset: offset}

	tr, ok := FindGgmlTraits(info.Type)
	if !ok {
		ut := &UnknownTypeError{Type: info.Type}
		return TensorInfo{}, tensorLayout{}, d.errAt(typeAt, ut, "%v", ut)
	}
	size, gerr := tensorGeometry(tr, dims)
	if gerr != nil {
		// The dim count was checked above, so the refusal names a dim:
		// point at it.
		return TensorInfo{}, tensorLayout{}, d.errAt(dimsAt+4+8*gerr.dim, nil, "%v", gerr)
	}
	if offset%f.alignment != 0 {
		return TensorInfo{}, tensorLayout{}, d.errAt(offsetAt, nil, "tensor offset %#x is not a multiple of alignment %d", offset, f.alignment)
	}
	return info, tensorLayout{size: size, offsetAt: offsetAt}, nil
}

func alignUp(n, align uint64) uint64 {
	return (n + align - 1) / align * align
}
