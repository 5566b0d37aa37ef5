package gguf

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
)

// The 64-bit boundary values every length, count, dim and offset is tried
// with.
const (
	maxInt64  = math.MaxInt64          // 2^63 - 1
	bit63     = uint64(1) << 63        // 2^63
	maxUint64 = uint64(math.MaxUint64) // 2^64 - 1
)

var boundaryValues = []struct {
	name string
	v    uint64
}{
	{"2^63-1", maxInt64},
	{"2^63", bit63},
	{"2^64-1", maxUint64},
}

// boundaryCase is one file that lies in one field: the field, the value it
// holds, the bytes, the offset of the field and the message Parse must give.
// wraps, where set, is the uint64 sum (or product) the value is chosen to
// wrap, as the reader would compute it if it trusted the value; the test
// checks that it does wrap, below 2^16.
type boundaryCase struct {
	field string
	value string
	data  []byte
	at    int64
	want  string
	wraps func() uint64
}

// trailer is what follows the lying field: enough bytes that the lie is
// the only thing wrong with the file up to that field.
var trailer = make([]byte, 64)

// boundaryCases lists, for every length, count, dim and offset the reader
// reads, a file holding 2^63-1, 2^63 and 2^64-1 there, and files holding
// values whose sum (or product) with the field they combine with wraps past
// 2^64.
func boundaryCases() []boundaryCase {
	var cs []boundaryCase
	add := func(field, value string, data []byte, at int64, want string, wraps func() uint64) {
		cs = append(cs, boundaryCase{field, value, data, at, want, wraps})
	}
	each := func(field string, file func(v uint64) ([]byte, int64), want func(v uint64) string) {
		for _, bv := range boundaryValues {
			data, at := file(bv.v)
			add(field, bv.name, data, at, want(bv.v), nil)
		}
	}

	// Header counts, checked against the fewest bytes a record takes.
	tensorCount := func(v uint64) ([]byte, int64) { return header(3, v, 0).bytes(trailer).b, 8 }
	tensorCountMsg := func(v uint64) string {
		return fmt.Sprintf("tensor count %d exceeds what the remaining 64 bytes can hold", v)
	}
	each("tensor count", tensorCount, tensorCountMsg)
	// 33 * v is 2^64 + 11: a multiplying check would let one record through.
	v := uint64(math.MaxUint64)/minTensorInfoBytes + 1
	data, at := tensorCount(v)
	add("tensor count", "x33 wraps", data, at, tensorCountMsg(v), func() uint64 { return v * minTensorInfoBytes })

	kvCount := func(v uint64) ([]byte, int64) { return header(3, 0, v).bytes(trailer).b, 16 }
	kvCountMsg := func(v uint64) string {
		return fmt.Sprintf("metadata kv count %d exceeds what the remaining 64 bytes can hold", v)
	}
	each("metadata kv count", kvCount, kvCountMsg)
	kv := uint64(math.MaxUint64)/minKVBytes + 1
	data, at = kvCount(kv)
	add("metadata kv count", "x14 wraps", data, at, kvCountMsg(kv), func() uint64 { return kv * minKVBytes })

	// Lengths of strings: the end of the string is the position after the
	// length field plus the length; the wrapping length makes that end 0.
	length := func(field string, file func(v uint64) ([]byte, int64), msg func(v uint64) string) {
		each(field, file, msg)
		_, at := file(0)
		end := uint64(at) + 8
		w := -end // 2^64 - end
		data, at := file(w)
		add(field, "end wraps to 0", data, at, msg(w), func() uint64 { return end + w })
	}
	length("key length",
		func(v uint64) ([]byte, int64) { return header(3, 0, 1).u64(v).bytes(trailer).b, 24 },
		func(v uint64) string {
			return fmt.Sprintf("metadata kv 0: key length %d exceeds the 64 bytes remaining", v)
		})
	length("string value length",
		func(v uint64) ([]byte, int64) {
			return oneKV("a", valueString, func(r *raw) { r.u64(v).bytes(trailer) }), 37
		},
		func(v uint64) string {
			return fmt.Sprintf(`key "a": string value length %d exceeds the 64 bytes remaining`, v)
		})
	length("string value length in an array",
		func(v uint64) ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) { r.u32(uint32(valueString)).u64(1).u64(v).bytes(trailer) }), 49
		},
		func(v uint64) string {
			return fmt.Sprintf(`key "a": string value length %d exceeds the 64 bytes remaining`, v)
		})
	length("tensor name length",
		func(v uint64) ([]byte, int64) { return header(3, 1, 0).u64(v).bytes(trailer).b, 24 },
		func(v uint64) string {
			return fmt.Sprintf("tensor info 0: tensor name length %d exceeds the 64 bytes remaining", v)
		})

	// Array lengths: for one-byte elements the end of the array wraps; for
	// wider ones the byte count (length times element size) does.
	arrayLen := func(elem valueType, nested bool) (func(v uint64) ([]byte, int64), func(v uint64) string) {
		file := func(v uint64) ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) {
				if nested {
					r.u32(uint32(valueArray)).u64(1)
				}
				r.u32(uint32(elem)).u64(v).bytes(trailer)
			}), 41 + map[bool]int64{false: 0, true: 12}[nested]
		}
		msg := func(v uint64) string {
			return fmt.Sprintf(`key "a": array length %d of %s values exceeds what the remaining 64 bytes can hold`, v, elem)
		}
		return file, msg
	}
	file, msg := arrayLen(valueUint8, false)
	length("array length", file, msg)
	file, msg = arrayLen(valueUint8, true)
	length("array length in an array", file, msg)
	for _, w := range []struct {
		elem valueType
		n    uint64
	}{
		{valueUint16, 1 << 63},
		{valueFloat32, 1 << 62},
		{valueUint64, 1 << 61},
		{valueString, 1 << 61},
		{valueArray, uint64(math.MaxUint64)/12 + 1},
	} {
		file, msg := arrayLen(w.elem, false)
		data, at := file(w.n)
		size := uint64(valueTypes[w.elem].minBytes)
		add("array length", fmt.Sprintf("x%d wraps", size), data, at, msg(w.n), func() uint64 { return w.n * size })
	}

	// The dim count is a u32: its largest values, and 2^29, whose dims
	// would take 2^32 bytes, a u32 multiply's wrap to 0.
	for _, n := range []uint32{1 << 29, 1 << 31, math.MaxUint32} {
		data := header(3, 1, 0).str("t").u32(n).bytes(trailer).b
		add("dim count", fmt.Sprint(n), data, 33, fmt.Sprintf(`tensor "t": dim count %d, want 1 to 4`, n), nil)
	}

	// Each of four dims in turn, the others 1, type F32.
	for i := range maxDims {
		dims := []uint64{1, 1, 1, 1}
		for _, bv := range boundaryValues {
			dims[i] = bv.v
			data, at := oneTensor("t", TypeF32, dims, 0, trailer)
			var want string
			switch {
			case bv.v > maxInt64:
				want = fmt.Sprintf("dim %d (%d): element count of dims %v overflows int64", i, bv.v, dims)
			case i == 0:
				want = fmt.Sprintf("dim 0: F32 row of %d elements: byte size overflows int64", bv.v)
			default:
				want = fmt.Sprintf("dim %d (%d): byte size of F32 dims %v overflows int64", i, bv.v, dims)
			}
			add(fmt.Sprintf("dim %d", i), bv.name, data, at+4+8*int64(i), `tensor "t": `+want, nil)
		}
	}
	// Dims whose product, in elements (zeros counted as one) or in bytes,
	// wraps.
	for _, w := range []struct {
		name    string
		typ     Type
		dims    []uint64
		dim     int
		want    string
		product []uint64
	}{
		{"elements 2^32 x 2^32", TypeI8, []uint64{1 << 32, 1 << 32}, 1,
			"element count of dims [4294967296 4294967296] overflows int64", []uint64{1 << 32, 1 << 32}},
		{"elements 2^16 x 2^16 x 2^16 x 2^16", TypeI8, []uint64{1 << 16, 1 << 16, 1 << 16, 1 << 16}, 3,
			"element count of dims [65536 65536 65536 65536] overflows int64", []uint64{1 << 16, 1 << 16, 1 << 16, 1 << 16}},
		{"elements 3 x (2^64+2)/3", TypeI8, []uint64{3, (1<<64 + 2) / 3}, 1,
			"element count of dims [3 6148914691236517206] overflows int64", []uint64{3, (1<<64 + 2) / 3}},
		{"elements 2 x 2^63 x 0", TypeI8, []uint64{2, 1 << 63, 0}, 1,
			"element count of dims [2 9223372036854775808 0] overflows int64", []uint64{2, 1 << 63}},
		{"row bytes 2^62 x 4", TypeF32, []uint64{1 << 62}, 0,
			"F32 row of 4611686018427387904 elements: byte size overflows int64", []uint64{1 << 62, 4}},
		{"bytes 2^31 x 4 x 2^31", TypeF32, []uint64{1 << 31, 1 << 31}, 1,
			"byte size of F32 dims [2147483648 2147483648] overflows int64", []uint64{1 << 31, 4, 1 << 31}},
	} {
		data, at := oneTensor("t", w.typ, w.dims, 0, trailer)
		want := fmt.Sprintf("dim %d (%d): %s", w.dim, w.dims[w.dim], w.want)
		if w.dim == 0 {
			want = "dim 0: " + w.want
		}
		add("dims", w.name, data, at+4+8*int64(w.dim), `tensor "t": `+want, func() uint64 {
			p := uint64(1)
			for _, f := range w.product {
				p *= f
			}
			return p
		})
	}

	// The tensor type is a u32 id.
	for _, id := range []uint32{1 << 31, math.MaxUint32} {
		data, at := oneTensor("t", Type(id), []uint64{1}, 0, trailer)
		add("tensor type", fmt.Sprint(id), data, at+4+8, fmt.Sprintf(`tensor "t": unknown ggml type id %d`, id), nil)
	}

	// Tensor offsets: with alignment 32 the odd values are refused as
	// misaligned; with alignment 1 every value reaches the range check.
	// The F32 [8] tensor takes 32 bytes, and the file holds them.
	for _, align := range []uint32{32, 1} {
		offsetFile := func(off uint64) ([]byte, int64, uint64) {
			r := header(3, 1, 1).kv(alignmentKey, valueUint32).u32(align).str("t").u32(1).u64(8).u32(0)
			at := r.at()
			r.u64(off).pad(int(align))
			start := uint64(len(r.b))
			return r.bytes(trailer[:32]).b, at, start
		}
		outside := func(off, start uint64) string {
			return fmt.Sprintf(`tensor "t": data of 32 bytes at tensor offset %#x lies outside the file (the data section at byte %#x holds 32 bytes)`, off, start)
		}
		field := fmt.Sprintf("tensor offset, alignment %d", align)
		for _, bv := range boundaryValues {
			data, at, start := offsetFile(bv.v)
			want := outside(bv.v, start)
			if bv.v%uint64(align) != 0 {
				want = fmt.Sprintf(`tensor "t": tensor offset %#x is not a multiple of alignment %d`, bv.v, align)
			}
			add(field, bv.name, data, at, want, nil)
		}
		// offset + size wraps to 0; the data section start + offset wraps
		// to 0, the start of the file.
		_, _, start := offsetFile(0)
		for _, w := range []struct {
			name string
			off  uint64
			sum  func(off uint64) uint64
		}{
			{"offset + size wraps to 0", math.MaxUint64 - 31, func(off uint64) uint64 { return off + 32 }},
			{"data start + offset wraps to 0", -start, func(off uint64) uint64 { return start + off }},
		} {
			data, at, _ := offsetFile(w.off)
			add(field, w.name, data, at, outside(w.off, start), func() uint64 { return w.sum(w.off) })
		}
	}

	// The largest alignment puts the data section at 2^31, past the end of
	// the file; the offset that makes its start wrap to 0 is aligned.
	for _, off := range []uint64{0, math.MaxUint64 - (1<<31 - 1)} {
		r := header(3, 1, 1).kv(alignmentKey, valueUint32).u32(1 << 31).str("t").u32(1).u64(8).u32(0)
		at := r.at()
		data := r.u64(off).bytes(trailer).b
		want := fmt.Sprintf(`tensor "t": data of 32 bytes at tensor offset %#x lies outside the file (the data section at byte 0x80000000 holds 0 bytes)`, off)
		var wraps func() uint64
		if off != 0 {
			wraps = func() uint64 { return 1<<31 + off }
		}
		add("tensor offset, alignment 2^31", fmt.Sprintf("%#x", off), data, at, want, wraps)
	}
	return cs
}

// parseRefusalAllocs is what Parse may allocate to refuse a file of a few
// hundred bytes: its records so far and the error. A lie of 2^63 that sized
// anything would cost exabytes; one that sized anything by the remaining
// bytes would cost more than this.
const parseRefusalAllocs = 4096

// allocated returns the fewest bytes any of three calls of f allocated: the
// minimum drops what other goroutines of the test binary allocate meanwhile.
// It measures on one P: with many (GOMAXPROCS 16 on a 16-core machine) the
// goroutine may move between Ps during f, and fmt's per-P buffer pools then
// allocate a fresh buffer on each P it visits, which is the runtime's
// bookkeeping, not what f keeps.
func allocated(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	best := uint64(math.MaxUint64)
	var before, after runtime.MemStats
	for range 3 {
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}

// TestParseBoundaries: for every length, count, dim and offset the reader
// reads, Parse refuses 2^63-1, 2^63, 2^64-1 and the values whose sum with
// what they combine with wraps, with a *FormatError that names the field and
// points at it, without a panic, and allocating no more than a small
// constant.
func TestParseBoundaries(t *testing.T) {
	fields := map[string]bool{}
	for _, c := range boundaryCases() {
		fields[c.field] = true
		t.Run(c.field+"/"+c.value, func(t *testing.T) {
			if c.wraps != nil {
				if s := c.wraps(); s >= 1<<16 {
					t.Fatalf("the case does not wrap: the sum is %#x", s)
				}
			}
			var err error
			parse := func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("Parse panicked: %v", p)
					}
				}()
				_, err = Parse("edge.gguf", c.data)
			}
			n := allocated(parse)
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			if want := "gguf: edge.gguf: " + c.want + fmt.Sprintf(" (at byte %#x)", c.at); err.Error() != want {
				t.Errorf("error %q\nwant       %q", err, want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
				t.Errorf("%v is not a *FormatError matching ErrFormat", err)
			}
			t.Logf("%v; %d bytes allocated", err, n)
			if n > parseRefusalAllocs {
				t.Errorf("Parse allocated %d bytes to refuse a %d-byte file, over %d", n, len(c.data), parseRefusalAllocs)
			}
		})
	}
	// Every field the reader reads as a length, count, dim or offset has
	// rows (the type and dim count are u32 ids and counts).
	for _, f := range []string{"tensor count", "metadata kv count", "key length", "string value length",
		"array length", "tensor name length", "dim count", "dim 0", "dim 1", "dim 2", "dim 3", "tensor type",
		"tensor offset, alignment 32"} {
		if !fields[f] {
			t.Errorf("no boundary rows for %s", f)
		}
	}
}

// builderAllocs is what one refused AddTensor may allocate: its message.
const builderAllocs = 2048

// TestBuilderBoundaries: the Builder refuses every dim holding 2^63-1, 2^63
// or 2^64-1 and dims whose product wraps, naming the dim, matching
// ErrFormat, without a panic, allocating no more than its message, and
// leaving nothing behind.
func TestBuilderBoundaries(t *testing.T) {
	type row struct {
		name string
		typ  Type
		dims []uint64
		data []byte
		want string
	}
	var rows []row
	for i := range maxDims {
		for _, bv := range boundaryValues {
			dims := []uint64{1, 1, 1, 1}
			dims[i] = bv.v
			var want string
			switch {
			case bv.v > maxInt64:
				want = fmt.Sprintf("dim %d (%d): element count of dims %v overflows int64", i, bv.v, dims)
			case i == 0:
				want = fmt.Sprintf("dim 0: F32 row of %d elements: byte size overflows int64", bv.v)
			default:
				want = fmt.Sprintf("dim %d (%d): byte size of F32 dims %v overflows int64", i, bv.v, dims)
			}
			rows = append(rows, row{fmt.Sprintf("dim %d/%s", i, bv.name), TypeF32, dims, trailer[:4], want})
		}
	}
	for _, bv := range boundaryValues {
		// I8: the byte size is the element count, and fits at 2^63-1.
		dims := []uint64{bv.v}
		want := fmt.Sprintf("dim 0 (%d): element count of dims %v overflows int64", bv.v, dims)
		if bv.v == maxInt64 {
			want = fmt.Sprintf("4 bytes of data, want %d for I8 dims %v", bv.v, dims)
		}
		rows = append(rows, row{"I8 dim 0/" + bv.name, TypeI8, dims, trailer[:4], want})
	}
	rows = append(rows,
		row{"dims/elements 2^32 x 2^32", TypeI8, []uint64{1 << 32, 1 << 32}, nil, "dim 1 (4294967296): element count of dims [4294967296 4294967296] overflows int64"},
		row{"dims/elements 3 x (2^64+2)/3", TypeI8, []uint64{3, (1<<64 + 2) / 3}, nil, "dim 1 (6148914691236517206): element count of dims [3 6148914691236517206] overflows int64"},
		row{"dims/row bytes 4 x 2^62", TypeF32, []uint64{1 << 62}, nil, "dim 0: F32 row of 4611686018427387904 elements: byte size overflows int64"},
		row{"dims/bytes 4 x 2^31 x 2^31", TypeF32, []uint64{1 << 31, 1 << 31}, nil, "dim 1 (2147483648): byte size of F32 dims [2147483648 2147483648] overflows int64"},
		row{"dim count/5", TypeF32, []uint64{1, 1, 1, 1, 1}, trailer[:4], "dim count 5, want 1 to 4"},
		row{"tensor type/2^31", 1 << 31, []uint64{1}, trailer[:4], "unknown ggml type id 2147483648"},
		row{"tensor type/2^32-1", math.MaxUint32, []uint64{1}, trailer[:4], "unknown ggml type id 4294967295"},
	)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			b := NewBuilder()
			var err error
			n := allocated(func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("AddTensor panicked: %v", p)
					}
				}()
				err = b.AddTensor("t", r.typ, r.dims, r.data)
			})
			if want := `gguf: builder: tensor "t": ` + r.want; err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant  %s", err, want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("%v does not match ErrFormat", err)
			}
			t.Logf("%v; %d bytes allocated", err, n)
			if n > builderAllocs {
				t.Errorf("AddTensor allocated %d bytes to refuse, over %d", n, builderAllocs)
			}
			if len(b.tensors) != 0 || len(b.names) != 0 {
				t.Errorf("the refused tensor was kept")
			}
		})
	}
}
