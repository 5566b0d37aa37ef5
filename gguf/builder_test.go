package gguf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// build writes b and fails the test on an error.
func build(t testing.TB, b *Builder) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := b.WriteTo(&buf)
	if err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
	}
	return buf.Bytes()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// pattern is n bytes that differ from position to position.
func pattern(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7) ^ seed
	}
	return p
}

// nested returns levels arrays, each holding the next, the innermost
// holding inner.
func nested(levels int, inner any) any {
	v := inner
	for range levels {
		v = []any{v}
	}
	return v
}

// metaCases is one value of every metadata type, as given to AddMeta and as
// Meta must return it.
func metaCases() []struct {
	key       string
	in, want  any
	valueType valueType
} {
	nan32 := math.Float32frombits(0x7fc01234)
	nan64 := math.Float64frombits(0x7ff8000000005678)
	return []struct {
		key       string
		in, want  any
		valueType valueType
	}{
		{"u8", uint8(200), uint8(200), valueUint8},
		{"i8", int8(-5), int8(-5), valueInt8},
		{"u16", uint16(65000), uint16(65000), valueUint16},
		{"i16", int16(-300), int16(-300), valueInt16},
		{"u32", uint32(4000000000), uint32(4000000000), valueUint32},
		{"i32", int32(-70000), int32(-70000), valueInt32},
		{"f32", float32(1.5), float32(1.5), valueFloat32},
		{"f32.nan", nan32, nan32, valueFloat32},
		{"bool.true", true, true, valueBool},
		{"bool.false", false, false, valueBool},
		{"string", "héllo, gguf", "héllo, gguf", valueString},
		{"string.empty", "", "", valueString},
		{"u64", uint64(math.MaxUint64), uint64(math.MaxUint64), valueUint64},
		{"i64", int64(math.MinInt64), int64(math.MinInt64), valueInt64},
		{"f64", -2.25, -2.25, valueFloat64},
		{"f64.nan", nan64, nan64, valueFloat64},
		{"array.any", []any{uint32(1), uint32(2), uint32(3)}, []any{uint32(1), uint32(2), uint32(3)}, valueArray},
		{"array.empty", []any{}, []any{}, valueArray},
		{"array.u8", []uint8{1, 255}, []any{uint8(1), uint8(255)}, valueArray},
		{"array.i8", []int8{-1, 2}, []any{int8(-1), int8(2)}, valueArray},
		{"array.u16", []uint16{3, 65535}, []any{uint16(3), uint16(65535)}, valueArray},
		{"array.i16", []int16{-4, 5}, []any{int16(-4), int16(5)}, valueArray},
		{"array.u32", []uint32{6}, []any{uint32(6)}, valueArray},
		{"array.i32", []int32{-7, 8}, []any{int32(-7), int32(8)}, valueArray},
		{"array.f32", []float32{0.5, -1e30}, []any{float32(0.5), float32(-1e30)}, valueArray},
		{"array.bool", []bool{true, false, true}, []any{true, false, true}, valueArray},
		{"array.string", []string{"a", "", "ccc"}, []any{"a", "", "ccc"}, valueArray},
		{"array.string.empty", []string{}, []any{}, valueArray},
		{"array.u64", []uint64{9, math.MaxUint64}, []any{uint64(9), uint64(math.MaxUint64)}, valueArray},
		{"array.i64", []int64{math.MinInt64, 10}, []any{int64(math.MinInt64), int64(10)}, valueArray},
		{"array.f64", []float64{math.Inf(-1), 0.125}, []any{math.Inf(-1), 0.125}, valueArray},
		{"array.nested", []any{[]any{int8(1)}, []string{"x", "y"}, []any{}},
			[]any{[]any{int8(1)}, []any{"x", "y"}, []any{}}, valueArray},
		{"array.nested.16", nested(16, uint8(7)), nested(16, uint8(7)), valueArray},
	}
}

// metaEqual compares metadata values, floats by their bits so that NaN
// payloads count.
func metaEqual(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !metaEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestMetaRoundTrip(t *testing.T) {
	b := NewBuilder()
	cases := metaCases()
	for _, c := range cases {
		must(t, b.AddMeta(c.key, c.in))
	}
	f, err := Parse("meta.gguf", build(t, b))
	must(t, err)
	keys := f.MetaKeys()
	if len(keys) != len(cases) {
		t.Fatalf("MetaKeys() has %d keys, want %d", len(keys), len(cases))
	}
	for i, c := range cases {
		if keys[i] != c.key {
			t.Errorf("MetaKeys()[%d] = %q, want %q", i, keys[i], c.key)
		}
		got, ok := f.Meta(c.key)
		if !ok {
			t.Errorf("Meta(%q) missing", c.key)
			continue
		}
		if !metaEqual(got, c.want) {
			t.Errorf("Meta(%q) = %#v, want %#v", c.key, got, c.want)
		}
		if vt := f.meta[c.key].vtype; vt != c.valueType {
			t.Errorf("key %q written as %s, want %s", c.key, vt, c.valueType)
		}
	}
	if v, ok := f.Meta("missing"); ok || v != nil {
		t.Errorf("Meta(missing) = %v, %v", v, ok)
	}
	if len(f.Tensors()) != 0 || f.Alignment() != 32 || f.Version() != 3 {
		t.Errorf("tensors %d, alignment %d, version %d", len(f.Tensors()), f.Alignment(), f.Version())
	}
}

// TestMetaArrayElementTypes checks the element type written for arrays:
// the typed slice's type, and uint8 for an empty []any.
func TestMetaArrayElementTypes(t *testing.T) {
	tests := []struct {
		in   any
		elem valueType
	}{
		{[]any{}, valueUint8},
		{[]string{}, valueString},
		{[]float64{}, valueFloat64},
		{[]any{"a"}, valueString},
		{[]any{[]any{}}, valueArray},
		{[]bool{true}, valueBool},
	}
	for _, tt := range tests {
		vt, enc, err := encodeValue(tt.in, 0)
		if err != nil || vt != valueArray {
			t.Fatalf("encodeValue(%#v) = %s, %v", tt.in, vt, err)
		}
		if got := valueType(enc[0]) | valueType(enc[1])<<8 | valueType(enc[2])<<16 | valueType(enc[3])<<24; got != tt.elem {
			t.Errorf("%#v written with element type %s, want %s", tt.in, got, tt.elem)
		}
	}
}

// TestBuilderExactBytes spells out a whole small file byte by byte, so the
// layout is checked against the format, not against the reader.
func TestBuilderExactBytes(t *testing.T) {
	b := NewBuilder()
	must(t, b.AddMeta("a", uint32(7)))
	must(t, b.AddTensor("t", TypeF32, []uint64{2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	want := []byte("GGUF")
	want = append(want, 3, 0, 0, 0) // version
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0, 'a') // key
	want = append(want, 4, 0, 0, 0)                  // uint32
	want = append(want, 7, 0, 0, 0)
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0, 't') // tensor name
	want = append(want, 1, 0, 0, 0)                  // dims
	want = append(want, 2, 0, 0, 0, 0, 0, 0, 0)
	want = append(want, 0, 0, 0, 0)             // F32
	want = append(want, 0, 0, 0, 0, 0, 0, 0, 0) // offset
	want = append(want, make([]byte, 96-74)...) // pad to the data section
	want = append(want, 1, 2, 3, 4, 5, 6, 7, 8)
	want = append(want, make([]byte, 128-104)...) // pad the file
	if got := build(t, b); !bytes.Equal(got, want) {
		t.Errorf("built\n%x\nwant\n%x", got, want)
	}
}

// goldenBuilder uses every metadata type, several tensor types and an
// alignment of 64.
func goldenBuilder(t testing.TB) *Builder {
	b := NewBuilder()
	must(t, b.AddMeta("general.architecture", "llama"))
	must(t, b.AddMeta(alignmentKey, uint32(64)))
	for _, c := range metaCases() {
		must(t, b.AddMeta(c.key, c.in))
	}
	must(t, b.AddTensor("token_embd.weight", TypeQ8_K, []uint64{256, 2}, pattern(2*292, 1)))
	must(t, b.AddTensor("blk.0.attn_q.weight", TypeQ4_0, []uint64{64, 3}, pattern(3*36, 2)))
	must(t, b.AddTensor("output_norm.weight", TypeF32, []uint64{5}, pattern(20, 3)))
	must(t, b.AddTensor("blk.0.ffn_up.weight", TypeMXFP4, []uint64{32, 2, 2}, pattern(4*17, 4)))
	must(t, b.AddTensor("empty", TypeBF16, []uint64{0, 3}, nil))
	return b
}

// goldenSHA256 is the sha256 of goldenBuilder's file. It changes only when
// the byte format does; TestBuilderExactBytes and TestBuilderGolden's
// reading back say whether such a change is right. When it was set, the file
// was also read with an independent GGUF parser (gpustack/gguf-parser-go
// v0.28.1, outside this module), which saw the same keys, values, types,
// dims, offsets and a data section at byte 1728.
const goldenSHA256 = "0d563df6ca64ae4dfb02913251f485d9c3eb28dc0e85d717d2bfc499d2b193cb"

func TestBuilderGolden(t *testing.T) {
	one := build(t, goldenBuilder(t))
	two := build(t, goldenBuilder(t))
	if !bytes.Equal(one, two) {
		t.Fatal("two builds from the same calls differ")
	}
	sum := sha256.Sum256(one)
	if got := hex.EncodeToString(sum[:]); got != goldenSHA256 {
		t.Errorf("golden file sha256 %s, want %s", got, goldenSHA256)
	}
	if len(one)%64 != 0 {
		t.Errorf("file length %d is not a multiple of the alignment 64", len(one))
	}
	f, err := Parse("golden.gguf", one)
	must(t, err)
	if f.Alignment() != 64 {
		t.Errorf("Alignment() = %d, want 64", f.Alignment())
	}
	wantOffsets := []uint64{0, 640, 768, 832, 960}
	for i, ti := range f.Tensors() {
		if ti.Offset != wantOffsets[i] {
			t.Errorf("tensor %q at offset %d, want %d", ti.Name, ti.Offset, wantOffsets[i])
		}
		if start := f.dataStart + ti.Offset; !bytes.Equal(one[start:start+uint64(len(ti.Data))], ti.Data) {
			t.Errorf("tensor %q Data is not the file's bytes at its offset", ti.Name)
		}
	}
	// The padding is zeros.
	first := f.Tensors()[0]
	if pad := one[f.dataStart+uint64(len(first.Data)) : f.dataStart+640]; !bytes.Equal(pad, make([]byte, len(pad))) {
		t.Errorf("padding after the first tensor is not zeros: %x", pad)
	}
}

func TestBuilderDeterministicAcrossOrders(t *testing.T) {
	// The same calls give the same bytes; different orders differ.
	mk := func(keys ...string) []byte {
		b := NewBuilder()
		for _, k := range keys {
			must(t, b.AddMeta(k, k))
		}
		return build(t, b)
	}
	if !bytes.Equal(mk("x", "y"), mk("x", "y")) {
		t.Error("same calls gave different bytes")
	}
	if bytes.Equal(mk("x", "y"), mk("y", "x")) {
		t.Error("keys added in another order gave the same bytes")
	}
}

func TestBuilderTensorsRoundTrip(t *testing.T) {
	b := NewBuilder()
	type tensor struct {
		name string
		typ  Type
		dims []uint64
		data []byte
	}
	var tensors []tensor
	for i, tr := range wantTraits {
		dims := []uint64{uint64(tr.elems) * 2, 3}
		if i%3 == 1 {
			dims = []uint64{uint64(tr.elems), 2, 1, 2}
		}
		size := uint64(tr.bytes) * dims[0] / uint64(tr.elems) * TensorInfo{Dims: dims}.Rows()
		tn := tensor{fmt.Sprintf("t.%s", tr.name), Type(tr.id), dims, pattern(int(size), byte(i))}
		tensors = append(tensors, tn)
		must(t, b.AddTensor(tn.name, tn.typ, tn.dims, tn.data))
	}
	f, err := Parse("tensors.gguf", build(t, b))
	must(t, err)
	got := f.Tensors()
	if len(got) != len(tensors) {
		t.Fatalf("%d tensors, want %d", len(got), len(tensors))
	}
	for i, w := range tensors {
		g := got[i]
		if g.Name != w.name || g.Type != w.typ || fmt.Sprint(g.Dims) != fmt.Sprint(w.dims) || !bytes.Equal(g.Data, w.data) {
			t.Errorf("tensor %d = %s %s %v (%d bytes), want %s %s %v (%d bytes)", i, g.Name, g.Type, g.Dims, len(g.Data), w.name, w.typ, w.dims, len(w.data))
		}
		if g.Offset%32 != 0 {
			t.Errorf("tensor %q at unaligned offset %d", g.Name, g.Offset)
		}
		if byName, ok := f.Tensor(w.name); !ok || byName.Name != w.name || !bytes.Equal(byName.Data, w.data) {
			t.Errorf("Tensor(%q) = %v, %v", w.name, byName.Name, ok)
		}
	}
}

func TestBuilderRefuses(t *testing.T) {
	tests := []struct {
		name string
		do   func(b *Builder) error
		want string
	}{
		{"empty key", func(b *Builder) error { return b.AddMeta("", uint8(1)) }, "gguf: builder: empty key"},
		{"duplicate key", func(b *Builder) error {
			must(t, b.AddMeta("k", uint8(1)))
			return b.AddMeta("k", uint8(2))
		}, `gguf: builder: key "k": duplicate key`},
		{"int", func(b *Builder) error { return b.AddMeta("k", 1) }, `key "k": unsupported metadata value type int`},
		{"nil", func(b *Builder) error { return b.AddMeta("k", nil) }, "unsupported metadata value type <nil>"},
		{"map", func(b *Builder) error { return b.AddMeta("k", map[string]int{}) }, "unsupported metadata value type map[string]int"},
		{"[]int", func(b *Builder) error { return b.AddMeta("k", []int{1}) }, "unsupported metadata value type []int"},
		{"bad element", func(b *Builder) error { return b.AddMeta("k", []any{uint8(1), 2}) },
			`key "k": array element 1: unsupported metadata value type int`},
		{"mixed array", func(b *Builder) error { return b.AddMeta("k", []any{uint8(1), "x"}) },
			"array element 1 is string, element 0 is uint8: an array has one element type"},
		{"mixed nested array", func(b *Builder) error { return b.AddMeta("k", []any{[]any{}, uint8(1)}) },
			"array element 1 is uint8, element 0 is array"},
		{"nesting 17", func(b *Builder) error { return b.AddMeta("k", nested(17, uint8(1))) }, "array nesting deeper than 16"},
		{"alignment int", func(b *Builder) error { return b.AddMeta(alignmentKey, 64) },
			`key "general.alignment": value of type int, want uint32`},
		{"alignment 0", func(b *Builder) error { return b.AddMeta(alignmentKey, uint32(0)) }, "alignment 0 is not a power of two"},
		{"alignment 96", func(b *Builder) error { return b.AddMeta(alignmentKey, uint32(96)) }, "alignment 96 is not a power of two"},
		{"empty tensor name", func(b *Builder) error { return b.AddTensor("", TypeF32, []uint64{1}, make([]byte, 4)) },
			"gguf: builder: empty tensor name"},
		{"duplicate tensor", func(b *Builder) error {
			must(t, b.AddTensor("t", TypeF32, []uint64{1}, make([]byte, 4)))
			return b.AddTensor("t", TypeF32, []uint64{1}, make([]byte, 4))
		}, `gguf: builder: tensor "t": duplicate tensor name`},
		{"no dims", func(b *Builder) error { return b.AddTensor("t", TypeF32, nil, nil) }, `tensor "t": dim count 0, want 1 to 4`},
		{"5 dims", func(b *Builder) error { return b.AddTensor("t", TypeF32, []uint64{1, 1, 1, 1, 1}, make([]byte, 4)) },
			"dim count 5, want 1 to 4"},
		{"unknown type", func(b *Builder) error { return b.AddTensor("t", 99, []uint64{1}, nil) },
			`gguf: builder: tensor "t": unknown ggml type id 99`},
		{"unknown type and no dims", func(b *Builder) error { return b.AddTensor("t", 99, nil, nil) }, // the type first
			`gguf: builder: tensor "t": unknown ggml type id 99`},
		{"not whole blocks", func(b *Builder) error { return b.AddTensor("t", TypeQ8_K, []uint64{255}, make([]byte, 292)) },
			"dim 0: Q8_K row of 255 elements is not whole blocks of 256"},
		{"element overflow", func(b *Builder) error { return b.AddTensor("t", TypeI8, []uint64{1 << 32, 0, 1 << 31}, nil) },
			"dim 2 (2147483648): element count of dims [4294967296 0 2147483648] overflows int64"},
		{"dim beyond int64", func(b *Builder) error { return b.AddTensor("t", TypeI8, []uint64{1 << 63}, nil) },
			"dim 0 (9223372036854775808): element count of dims [9223372036854775808] overflows int64"},
		{"byte size overflow", func(b *Builder) error { return b.AddTensor("t", TypeF32, []uint64{1 << 31, 1 << 31}, nil) },
			"dim 1 (2147483648): byte size of F32 dims [2147483648 2147483648] overflows int64"},
		{"short data", func(b *Builder) error { return b.AddTensor("t", TypeQ4_0, []uint64{64, 2}, make([]byte, 71)) },
			`tensor "t": 71 bytes of data, want 72 for Q4_0 dims [64 2]`},
		{"long data", func(b *Builder) error { return b.AddTensor("t", TypeQ4_0, []uint64{64, 2}, make([]byte, 73)) },
			"73 bytes of data, want 72"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder()
			err := tt.do(b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("%v does not match ErrFormat", err)
			}
			// A refused call leaves nothing behind: the file still parses
			// and holds only what was accepted.
			f, perr := Parse("after.gguf", build(t, b))
			must(t, perr)
			if len(f.keys) > 1 || len(f.tensors) > 1 || f.Alignment() != 32 {
				t.Errorf("a refused call left %d keys, %d tensors, alignment %d", len(f.keys), len(f.tensors), f.Alignment())
			}
		})
	}
}

func TestBuilderAcceptsLimits(t *testing.T) {
	b := NewBuilder()
	must(t, b.AddTensor("four", TypeF32, []uint64{1, 1, 1, 1}, make([]byte, 4)))
	must(t, b.AddTensor("zero", TypeQ8_K, []uint64{0}, nil))
	must(t, b.AddTensor("max", TypeI8, []uint64{0, math.MaxInt64}, nil))
	must(t, b.AddTensor("no rows", TypeF32, []uint64{4, 0}, nil))
	must(t, b.AddTensor("max then one", TypeI8, []uint64{0, math.MaxInt64, 1}, nil))
	must(t, b.AddMeta(alignmentKey, uint32(1)))
	f, err := Parse("limits.gguf", build(t, b))
	must(t, err)
	if f.Alignment() != 1 {
		t.Errorf("alignment %d, want 1", f.Alignment())
	}
	if m, _ := f.Tensor("max"); m.Rows() != math.MaxInt64 || m.Elements() != 0 || len(m.Data) != 0 {
		t.Errorf("max: rows %d, elements %d, %d bytes", m.Rows(), m.Elements(), len(m.Data))
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		n := w.after
		w.after = 0
		return n, errors.New("disk full")
	}
	w.after -= len(p)
	return len(p), nil
}

func TestBuilderWriteError(t *testing.T) {
	for _, after := range []int{0, 10, 63, 64, 95} {
		b := NewBuilder()
		must(t, b.AddTensor("t", TypeF32, []uint64{8}, make([]byte, 32)))
		n, err := b.WriteTo(&failingWriter{after: after})
		if err == nil || !strings.Contains(err.Error(), "gguf: builder: write: disk full") {
			t.Errorf("after %d: error %v", after, err)
		}
		if n != int64(after) {
			t.Errorf("after %d: WriteTo reported %d bytes", after, n)
		}
	}
}

// discard counts bytes and keeps none.
type discard struct{ n int64 }

func (d *discard) Write(p []byte) (int, error) { d.n += int64(len(p)); return len(p), nil }

// TestBuilderHugeAlignment writes a file whose alignment is 16 MiB: the
// padding is streamed, not allocated.
func TestBuilderHugeAlignment(t *testing.T) {
	b := NewBuilder()
	must(t, b.AddMeta(alignmentKey, uint32(1<<24)))
	must(t, b.AddTensor("t", TypeF32, []uint64{1}, []byte{1, 2, 3, 4}))
	var w discard
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := b.WriteTo(&w)
	runtime.ReadMemStats(&after)
	must(t, err)
	if n != 2<<24 || w.n != n {
		t.Errorf("wrote %d bytes (reported %d), want %d", w.n, n, 2<<24)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("WriteTo allocated %d bytes for 32 MiB of mostly padding", alloc)
	}
}

// TestBuilderTypedSliceNesting: a typed slice is an array level of its own,
// like an []any, so 15 []any around one is the deepest nesting (16) the
// Builder writes, and 16 around one is refused.
func TestBuilderTypedSliceNesting(t *testing.T) {
	slices := []struct {
		in   any
		want []any
	}{
		{[]uint8{1}, []any{uint8(1)}},
		{[]int8{-2}, []any{int8(-2)}},
		{[]uint16{3}, []any{uint16(3)}},
		{[]int16{-4}, []any{int16(-4)}},
		{[]uint32{5}, []any{uint32(5)}},
		{[]int32{-6}, []any{int32(-6)}},
		{[]float32{7.5}, []any{float32(7.5)}},
		{[]bool{true}, []any{true}},
		{[]string{"nine"}, []any{"nine"}},
		{[]uint64{10}, []any{uint64(10)}},
		{[]int64{-11}, []any{int64(-11)}},
		{[]float64{12.25}, []any{12.25}},
	}
	for _, s := range slices {
		name := fmt.Sprintf("%T", s.in)
		b := NewBuilder()
		must(t, b.AddMeta("deepest", nested(15, s.in)))
		err := b.AddMeta("too.deep", nested(16, s.in))
		if err == nil || !strings.HasPrefix(err.Error(), `gguf: builder: key "too.deep": array element 0: `) ||
			!strings.HasSuffix(err.Error(), ": array nesting deeper than 16") {
			t.Errorf("%s inside 16 arrays: error %v, want array nesting deeper than 16", name, err)
		}
		f, err := Parse("nested.gguf", build(t, b))
		must(t, err)
		if got, _ := f.Meta("deepest"); !metaEqual(got, nested(15, s.want)) {
			t.Errorf("%s inside 15 arrays read back as %#v", name, got)
		}
		if keys := f.MetaKeys(); len(keys) != 1 {
			t.Errorf("%s: keys %q, want only the accepted one", name, keys)
		}
	}
}

// TestEncodeErrorResults: a refused value encodes to nothing, with the zero
// value type, so no caller can mistake it for a uint8 array or a value.
func TestEncodeErrorResults(t *testing.T) {
	type result struct {
		vt  valueType
		enc []byte
		err error
	}
	tests := []struct {
		name string
		got  result
		want string
	}{
		{"unsupported scalar", func() result { vt, enc, err := encodeValue(1, 0); return result{vt, enc, err} }(),
			"unsupported metadata value type int"},
		{"too deep", func() result {
			vt, enc, err := encodeArray([]any{uint8(1)}, valueArray, maxArrayNesting+1)
			return result{vt, enc, err}
		}(), "array nesting deeper than 16"},
		{"bad element", func() result {
			vt, enc, err := encodeArray([]any{uint16(1), 2}, valueUint8, 1)
			return result{vt, enc, err}
		}(), "array element 1: unsupported metadata value type int"},
		{"mixed elements", func() result {
			vt, enc, err := encodeArray([]any{"a", "b", float32(1)}, valueUint8, 1)
			return result{vt, enc, err}
		}(), "array element 2 is float32, element 0 is string: an array has one element type"},
	}
	for _, tt := range tests {
		if tt.got.err == nil || tt.got.err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, tt.got.err, tt.want)
		}
		if tt.got.vt != 0 || tt.got.enc != nil {
			t.Errorf("%s: refused value encoded as %s %x", tt.name, tt.got.vt, tt.got.enc)
		}
	}
}

// recordingWriter records every Write call and fails the one numbered
// failAt (from 1), accepting half of its bytes; the calls after it succeed,
// so only the Builder can stop writing after an error.
type recordingWriter struct {
	failAt int
	calls  []int // the length of each call
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.calls = append(w.calls, len(p))
	if len(w.calls) == w.failAt {
		return len(p) / 2, fmt.Errorf("write %d failed", w.failAt)
	}
	return len(p), nil
}

// TestBuilderWriteCalls: WriteTo never makes an empty Write (empty tensors
// have no bytes to write) and makes none after the first error, which is the
// one it reports.
func TestBuilderWriteCalls(t *testing.T) {
	mk := func() *Builder {
		b := NewBuilder()
		must(t, b.AddTensor("empty", TypeF32, []uint64{0}, nil))
		must(t, b.AddTensor("full", TypeF32, []uint64{8}, pattern(32, 1)))
		must(t, b.AddTensor("empty.too", TypeQ8_K, []uint64{0, 4}, nil))
		must(t, b.AddTensor("last", TypeF32, []uint64{3}, pattern(12, 2)))
		return b
	}
	// head, its padding, "full" (no padding: 32 bytes), "last", its padding.
	var all recordingWriter
	n, err := mk().WriteTo(&all)
	must(t, err)
	if len(all.calls) != 5 || all.calls[2] != 32 || all.calls[3] != 12 || all.calls[4] != 20 {
		t.Fatalf("Write calls of %v bytes, want head, padding, 32, 12 and 20", all.calls)
	}
	var sum int
	for i, c := range all.calls {
		if c == 0 {
			t.Errorf("Write call %d is empty", i)
		}
		sum += c
	}
	if n != int64(sum) {
		t.Errorf("WriteTo reported %d bytes, Write saw %d", n, sum)
	}
	for failAt := 1; failAt <= len(all.calls); failAt++ {
		w := &recordingWriter{failAt: failAt}
		n, err := mk().WriteTo(w)
		want := fmt.Sprintf("gguf: builder: write: write %d failed", failAt)
		if err == nil || err.Error() != want {
			t.Errorf("failing call %d: error %v, want %q", failAt, err, want)
		}
		if len(w.calls) != failAt {
			t.Errorf("failing call %d: WriteTo went on to %d calls", failAt, len(w.calls))
		}
		var accepted int
		for _, c := range all.calls[:failAt-1] {
			accepted += c
		}
		accepted += all.calls[failAt-1] / 2
		if n != int64(accepted) {
			t.Errorf("failing call %d: WriteTo reported %d bytes, the writer took %d", failAt, n, accepted)
		}
	}
}
