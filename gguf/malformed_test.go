package gguf

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// malformedCase is one file the reader must refuse: the bytes, the offset
// the error must point at, the text it must contain, and the more specific
// sentinel it must match (besides ErrFormat), if any.
type malformedCase struct {
	name     string
	build    func() (data []byte, at int64)
	want     string
	sentinel error
}

// oneKV is a v3 file holding one kv written by value, after its key and type.
func oneKV(key string, vt valueType, value func(r *raw)) []byte {
	r := header(3, 0, 1).kv(key, vt)
	value(r)
	return r.b
}

// oneTensor is a v3 file with one tensor info and its data, aligned to 32.
func oneTensor(name string, t Type, dims []uint64, offset uint64, data []byte) ([]byte, int64) {
	r := header(3, 1, 0)
	r.str(name)
	at := r.at()
	r.u32(uint32(len(dims)))
	for _, d := range dims {
		r.u64(d)
	}
	r.u32(uint32(t)).u64(offset)
	return r.pad(32).bytes(data).b, at
}

func malformedCases() []malformedCase {
	return []malformedCase{
		{"empty", func() ([]byte, int64) { return nil, 0 },
			"truncated file: magic needs 4 bytes, 0 remain", ErrTruncated},
		{"bad magic", func() ([]byte, int64) { return []byte("GGML\x03\x00\x00\x00"), 0 },
			`bad magic "GGML" (want "GGUF")`, nil},
		{"bad magic and a truncated version", func() ([]byte, int64) { return []byte("GGML\x03"), 0 },
			`bad magic "GGML" (want "GGUF")`, nil},
		{"version 1", func() ([]byte, int64) { return header(1, 0, 0).b, 4 },
			"unsupported version 1 (want 2 or 3)", nil},
		{"version 4", func() ([]byte, int64) { return header(4, 0, 0).b, 4 },
			"unsupported version 4 (want 2 or 3)", nil},
		{"version 0", func() ([]byte, int64) { return header(0, 0, 0).b, 4 },
			"unsupported version 0 (want 2 or 3)", nil},
		{"byte-swapped version 3", func() ([]byte, int64) { return header(0x03000000, 0, 0).b, 4 },
			"version 0x03000000 is byte-swapped: a big-endian GGUF file", nil},
		{"byte-swapped version 2", func() ([]byte, int64) { return header(0x02000000, 0, 0).b, 4 },
			"version 0x02000000 is byte-swapped", nil},
		{"truncated version", func() ([]byte, int64) { return []byte("GGUF\x03\x00"), 4 },
			"truncated file: version needs 4 bytes, 2 remain", ErrTruncated},
		{"truncated header", func() ([]byte, int64) { return header(3, 0, 0).b[:11], 8 },
			"truncated file: tensor count needs 8 bytes, 3 remain", ErrTruncated},
		{"truncated kv count", func() ([]byte, int64) { return header(3, 0, 0).b[:20], 16 },
			"truncated file: metadata kv count needs 8 bytes, 4 remain", ErrTruncated},
		{"kv count beyond the file", func() ([]byte, int64) {
			return header(3, 0, 2).kv("a", valueUint8).u8(1).b, 16
		}, "metadata kv count 2 exceeds what the remaining 14 bytes can hold", nil},
		{"kv count one past the minimum size", func() ([]byte, int64) {
			// 27 bytes hold one 14-byte kv, not two.
			return header(3, 0, 2).kv("abcdefghijklmn", valueUint8).u8(1).b, 16
		}, "metadata kv count 2 exceeds what the remaining 27 bytes can hold", nil},
		{"tensor count beyond the file", func() ([]byte, int64) {
			return header(3, 1<<40, 0).bytes(make([]byte, 31)).b, 8
		}, "tensor count 1099511627776 exceeds what the remaining 31 bytes can hold", nil},
		{"tensor count one past the minimum size", func() ([]byte, int64) {
			return header(3, 2, 0).bytes(make([]byte, 2*33-1)).b, 8
		}, "tensor count 2 exceeds what the remaining 65 bytes can hold", nil},
		{"tensor count beyond the file after metadata", func() ([]byte, int64) {
			return header(3, 1, 1).kv("a", valueString).str("xyz").bytes(make([]byte, 32)).b, 8
		}, "tensor count 1 exceeds what the remaining 32 bytes can hold", nil},
		{"key length beyond the file", func() ([]byte, int64) {
			return header(3, 0, 1).u64(1 << 62).bytes(make([]byte, 6)).b, 24
		}, "metadata kv 0: key length 4611686018427387904 exceeds the 6 bytes remaining", nil},
		{"empty key", func() ([]byte, int64) { return oneKV("", valueUint8, func(r *raw) { r.u8(0).u8(0) }), 24 },
			"metadata kv 0: empty key", nil},
		{"empty second key", func() ([]byte, int64) {
			r := header(3, 0, 2).kv("a", valueUint8).u8(1)
			at := r.at()
			return r.kv("", valueUint8).u8(2).u8(0).b, at
		}, "metadata kv 1: empty key", nil},
		{"truncated value type", func() ([]byte, int64) {
			return header(3, 0, 1).str("abcdefghijklmn").b, 46
		}, `key "abcdefghijklmn": truncated file: value type needs 4 bytes, 0 remain`, ErrTruncated},
		{"duplicate key", func() ([]byte, int64) {
			r := header(3, 0, 2).kv("a", valueUint8).u8(1)
			at := r.at()
			return r.kv("a", valueUint8).u8(2).b, at
		}, `key "a": duplicate key (first value at byte 0x25)`, nil},
		{"unknown value type", func() ([]byte, int64) {
			return oneKV("a", 13, func(r *raw) { r.u64(0) }), 33
		}, `key "a": unknown metadata value type 13`, nil},
		{"truncated value", func() ([]byte, int64) {
			return oneKV("a", valueUint32, func(r *raw) { r.u16(1) }), 37
		}, `key "a": truncated file: uint32 value needs 4 bytes, 2 remain`, ErrTruncated},
		{"bool 2", func() ([]byte, int64) { return oneKV("a", valueBool, func(r *raw) { r.u8(2) }), 37 },
			`key "a": bool value 2 is not 0 or 1`, nil},
		{"string length beyond the file", func() ([]byte, int64) {
			return oneKV("a", valueString, func(r *raw) { r.u64(5).bytes([]byte("abcd")) }), 37
		}, `key "a": string value length 5 exceeds the 4 bytes remaining`, nil},
		{"array count beyond the file", func() ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) { r.u32(uint32(valueUint32)).u64(3).u32(1).u32(2).u16(3) }), 41
		}, `key "a": array length 3 of uint32 values exceeds what the remaining 10 bytes can hold`, nil},
		{"array of arrays count beyond the file", func() ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) {
				r.u32(uint32(valueArray)).u64(2).u32(uint32(valueUint8)).u64(0).bytes(make([]byte, 11))
			}), 41
		}, `key "a": array length 2 of array values exceeds what the remaining 23 bytes can hold`, nil},
		{"array count 2^61 of uint64", func() ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) { r.u32(uint32(valueUint64)).u64(1 << 61).u64(1) }), 41
		}, `key "a": array length 2305843009213693952 of uint64 values exceeds what the remaining 8 bytes can hold`, nil},
		{"unknown array element type", func() ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) { r.u32(13).u64(0) }), 37
		}, `key "a": unknown metadata value type 13`, nil},
		{"bad bool inside an array", func() ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) { r.u32(uint32(valueBool)).u64(2).u8(1).u8(7) }), 50
		}, `key "a": bool value 7 is not 0 or 1`, nil},
		{"array nesting 17", func() ([]byte, int64) {
			return oneKV("a", valueArray, func(r *raw) {
				for range 16 {
					r.u32(uint32(valueArray)).u64(1)
				}
				r.u32(uint32(valueUint8)).u64(0)
			}), 37 + 16*12
		}, `key "a": array nesting deeper than 16`, nil},
		{"alignment zero", func() ([]byte, int64) {
			return oneKV(alignmentKey, valueUint32, func(r *raw) { r.u32(0) }), 53
		}, `key "general.alignment": alignment 0 is not a power of two`, nil},
		{"alignment 48", func() ([]byte, int64) {
			return oneKV(alignmentKey, valueUint32, func(r *raw) { r.u32(48) }), 53
		}, `key "general.alignment": alignment 48 is not a power of two`, nil},
		{"alignment as int32", func() ([]byte, int64) {
			return oneKV(alignmentKey, valueInt32, func(r *raw) { r.u32(32) }), 53
		}, `key "general.alignment": value type int32, want uint32`, nil},
		{"bad alignment before another key", func() ([]byte, int64) {
			return header(3, 0, 2).kv(alignmentKey, valueUint32).u32(3).kv("z", valueUint8).u8(0).b, 53
		}, `key "general.alignment": alignment 3 is not a power of two`, nil},
		{"alignment as uint64", func() ([]byte, int64) {
			return oneKV(alignmentKey, valueUint64, func(r *raw) { r.u64(32) }), 53
		}, `key "general.alignment": value type uint64, want uint32`, nil},
		{"empty tensor name", func() ([]byte, int64) {
			b, _ := oneTensor("", TypeF32, []uint64{1}, 0, make([]byte, 4))
			return b, 24
		}, "tensor info 0: empty tensor name", nil},
		{"tensor name beyond the file", func() ([]byte, int64) {
			return header(3, 1, 0).u64(100).bytes(make([]byte, 32)).b, 24
		}, "tensor info 0: tensor name length 100 exceeds the 32 bytes remaining", nil},
		{"empty second tensor name", func() ([]byte, int64) {
			r := header(3, 2, 0).tensor("a", TypeF32, []uint64{8}, 0)
			at := r.at()
			return r.tensor("", TypeF32, []uint64{8}, 32).pad(32).bytes(make([]byte, 64)).b, at
		}, "tensor info 1: empty tensor name", nil},
		{"truncated dim count", func() ([]byte, int64) {
			return header(3, 1, 0).str("abcdefghijklmnopqrstuvwxy").b, 57
		}, `tensor "abcdefghijklmnopqrstuvwxy": truncated file: dim count needs 4 bytes, 0 remain`, ErrTruncated},
		{"truncated tensor type", func() ([]byte, int64) {
			return header(3, 1, 0).str("abcdefghijklm").u32(1).u64(1).b, 57
		}, `tensor "abcdefghijklm": truncated file: tensor type needs 4 bytes, 0 remain`, ErrTruncated},
		{"duplicate tensor name", func() ([]byte, int64) {
			r := header(3, 2, 0).tensor("t", TypeF32, []uint64{8}, 0)
			at := r.at()
			return r.tensor("t", TypeF32, []uint64{8}, 32).pad(32).bytes(make([]byte, 64)).b, at
		}, `tensor "t": duplicate tensor name`, nil},
		{"no dims", func() ([]byte, int64) { return oneTensor("t", TypeF32, nil, 0, make([]byte, 32)) },
			`tensor "t": dim count 0, want 1 to 4`, nil},
		{"5 dims", func() ([]byte, int64) {
			return oneTensor("t", TypeF32, []uint64{1, 1, 1, 1, 1}, 0, make([]byte, 32))
		}, `tensor "t": dim count 5, want 1 to 4`, nil},
		{"2^32 dims", func() ([]byte, int64) {
			return header(3, 1, 0).str("t").u32(math.MaxUint32).bytes(make([]byte, 40)).b, 33
		}, `tensor "t": dim count 4294967295, want 1 to 4`, nil},
		{"truncated dims", func() ([]byte, int64) {
			return header(3, 1, 0).str("t").u32(4).u64(1).u64(1).u64(1).u32(0).b, 61
		}, `tensor "t": truncated file: dim 3 needs 8 bytes, 4 remain`, ErrTruncated},
		{"truncated tensor offset", func() ([]byte, int64) {
			return header(3, 1, 0).str("tensor").u32(1).u64(1).u32(0).u16(0).u32(0).b, 54
		}, `tensor "tensor": truncated file: tensor offset needs 8 bytes, 6 remain`, ErrTruncated},
		{"unknown tensor type", func() ([]byte, int64) {
			b, at := oneTensor("t", 99, []uint64{32}, 0, make([]byte, 32))
			return b, at + 4 + 8
		}, `tensor "t": unknown ggml type id 99`, ErrUnknownType},
		{"removed tensor type 4", func() ([]byte, int64) {
			b, at := oneTensor("t", 4, []uint64{32}, 0, make([]byte, 32))
			return b, at + 4 + 8
		}, `tensor "t": unknown ggml type id 4`, ErrUnknownType},
		{"dim beyond int64", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{1 << 63}, 0, nil)
			return b, at + 4
		}, `tensor "t": dim 0 (9223372036854775808): element count of dims [9223372036854775808] overflows int64`, nil},
		{"element count overflow", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{1 << 32, 1 << 32}, 0, nil)
			return b, at + 4 + 8
		}, `tensor "t": dim 1 (4294967296): element count of dims [4294967296 4294967296] overflows int64`, nil},
		{"element count overflow beside a zero dim", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{0, 1 << 32, 1 << 31}, 0, nil)
			return b, at + 4 + 16
		}, `tensor "t": dim 2 (2147483648): element count of dims [0 4294967296 2147483648] overflows int64`, nil},
		{"row byte size overflow", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{1 << 62}, 0, nil)
			return b, at + 4
		}, `tensor "t": dim 0: F32 row of 4611686018427387904 elements: byte size overflows int64`, nil},
		{"tensor byte size overflow", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{1 << 31, 1 << 31}, 0, nil)
			return b, at + 4 + 8
		}, `tensor "t": dim 1 (2147483648): byte size of F32 dims [2147483648 2147483648] overflows int64`, nil},
		{"row not whole blocks", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeQ4_0, []uint64{33, 1}, 0, make([]byte, 64))
			return b, at + 4
		}, `tensor "t": dim 0: Q4_0 row of 33 elements is not whole blocks of 32`, nil},
		{"Q8_K row not whole blocks", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeQ8_K, []uint64{128, 2}, 0, make([]byte, 292))
			return b, at + 4
		}, `tensor "t": dim 0: Q8_K row of 128 elements is not whole blocks of 256`, nil},
		{"row not whole blocks at a misaligned offset", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeQ4_0, []uint64{33, 1}, 16, make([]byte, 64))
			return b, at + 4
		}, `tensor "t": dim 0: Q4_0 row of 33 elements is not whole blocks of 32`, nil},
		{"misaligned offset", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{4}, 16, make([]byte, 64))
			return b, at + 4 + 8 + 4
		}, `tensor "t": tensor offset 0x10 is not a multiple of alignment 32`, nil},
		{"offset misaligned for general.alignment 64", func() ([]byte, int64) {
			r := header(3, 1, 1).kv(alignmentKey, valueUint32).u32(64).str("t").u32(1).u64(4).u32(0)
			at := r.at()
			return r.u64(32).pad(64).bytes(make([]byte, 128)).b, at
		}, `tensor "t": tensor offset 0x20 is not a multiple of alignment 64`, nil},
		{"data past the end", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{8}, 0, make([]byte, 31))
			return b, at + 4 + 8 + 4
		}, `tensor "t": data of 32 bytes at tensor offset 0x0 lies outside the file (the data section at byte 0x40 holds 31 bytes)`, nil},
		{"offset past the end", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{1}, 1<<63, make([]byte, 32))
			return b, at + 4 + 8 + 4
		}, `tensor "t": data of 4 bytes at tensor offset 0x8000000000000000 lies outside the file`, nil},
		{"first of two tensors past the end", func() ([]byte, int64) {
			r := header(3, 2, 0).str("a").u32(1).u64(8).u32(0)
			at := r.at()
			return r.u64(32).tensor("b", TypeF32, []uint64{8}, 0).pad(32).bytes(make([]byte, 63)).b, at
		}, `tensor "a": data of 32 bytes at tensor offset 0x20 lies outside the file (the data section at byte 0x60 holds 63 bytes)`, nil},
		{"largest byte size is no overflow", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{1, math.MaxInt64 / 4}, 0, nil)
			return b, at + 4 + 16 + 4
		}, `tensor "t": data of 9223372036854775804 bytes at tensor offset 0x0 lies outside the file`, nil},
		{"empty tensor past the end", func() ([]byte, int64) {
			b, at := oneTensor("t", TypeF32, []uint64{0}, 64, make([]byte, 32))
			return b, at + 4 + 8 + 4
		}, `tensor "t": data of 0 bytes at tensor offset 0x40 lies outside the file (the data section at byte 0x40 holds 32 bytes)`, nil},
		{"data section past the end", func() ([]byte, int64) {
			// The infos end at byte 57; the data section would start at 64.
			b, at := oneTensor("t", TypeF32, []uint64{1}, 0, nil)
			return b[:57], at + 4 + 8 + 4
		}, `tensor "t": data of 4 bytes at tensor offset 0x0 lies outside the file (the data section at byte 0x40 holds 0 bytes)`, nil},
	}
}

func TestParseRefusesMalformed(t *testing.T) {
	for _, c := range malformedCases() {
		t.Run(c.name, func(t *testing.T) {
			data, at := c.build()
			f, err := Parse("model.gguf", data)
			if err == nil {
				t.Fatalf("Parse accepted it: %d tensors, %d keys", len(f.tensors), len(f.keys))
			}
			msg := err.Error()
			if want := "gguf: model.gguf: " + c.want; !strings.HasPrefix(msg, want) {
				t.Errorf("error %q\ndoes not start %q", msg, want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("errors.Is(err, ErrFormat) is false for %q", msg)
			}
			for _, s := range []error{ErrTruncated, ErrUnknownType} {
				if got := errors.Is(err, s); got != (s == c.sentinel) {
					t.Errorf("errors.Is(err, %v) = %v for %q", s, got, msg)
				}
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("errors.As(*FormatError) is false for %q", msg)
			}
			if fe.File != "model.gguf" {
				t.Errorf("FormatError.File = %q", fe.File)
			}
			if fe.Offset != at {
				t.Errorf("FormatError.Offset = %#x, want %#x (%q)", fe.Offset, at, msg)
			}
		})
	}
}

func TestUnknownTensorTypeIsReachable(t *testing.T) {
	data, _ := oneTensor("t", 99, []uint64{32}, 0, make([]byte, 32))
	_, err := Parse("model.gguf", data)
	var ut *UnknownTypeError
	if !errors.As(err, &ut) || ut.Type != 99 {
		t.Errorf("errors.As(*UnknownTypeError) on %v gave %+v", err, ut)
	}
}

func TestFormatErrorText(t *testing.T) {
	tests := []struct {
		err  *FormatError
		want string
	}{
		{&FormatError{File: "model.gguf", Subject: `tensor "blk.0.attn_q.weight"`, Offset: 0x88, Msg: "offset 0x1234 not a multiple of alignment 32"},
			`gguf: model.gguf: tensor "blk.0.attn_q.weight": offset 0x1234 not a multiple of alignment 32 (at byte 0x88)`},
		{&FormatError{File: "m.gguf", Offset: 0, Msg: `bad magic "GGML" (want "GGUF")`},
			`gguf: m.gguf: bad magic "GGML" (want "GGUF") (at byte 0x0)`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q\nwant      %q", got, tt.want)
		}
	}
}

// TestFormatErrorUnwrap: Unwrap lists ErrFormat, then the specific cause
// only when there is one (never a nil entry).
func TestFormatErrorUnwrap(t *testing.T) {
	tests := []struct {
		cause error
		want  []error
	}{
		{nil, []error{ErrFormat}},
		{ErrTruncated, []error{ErrFormat, ErrTruncated}},
	}
	for _, tt := range tests {
		got := (&FormatError{File: "m.gguf", Msg: "bad", Err: tt.cause}).Unwrap()
		if len(got) != len(tt.want) {
			t.Errorf("Unwrap() with cause %v = %v, want %v", tt.cause, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Unwrap() with cause %v = %v, want %v", tt.cause, got, tt.want)
			}
		}
	}
}

func TestUnknownTypeError(t *testing.T) {
	err := error(&UnknownTypeError{Type: 99})
	if err.Error() != "unknown ggml type id 99" {
		t.Errorf("Error() = %q", err.Error())
	}
	if !errors.Is(err, ErrUnknownType) {
		t.Error("errors.Is(UnknownTypeError, ErrUnknownType) is false")
	}
	if errors.Is(err, ErrFormat) {
		t.Error("an UnknownTypeError on its own is not a format error")
	}
}

// TestParseMinimalRecords reads files whose records have exactly the fewest
// bytes the count checks assume, ending at the end of the file: the checks
// must let them through.
func TestParseMinimalRecords(t *testing.T) {
	files := map[string][]byte{
		"two 14-byte kvs":   header(3, 0, 2).kv("a", valueUint8).u8(1).kv("b", valueBool).u8(1).b,
		"string at the end": header(3, 0, 1).kv("s", valueString).str("xyz").b,
		"two 33-byte tensor infos": header(3, 2, 0).
			tensor("a", TypeF32, []uint64{0}, 0).tensor("b", TypeQ8_K, []uint64{0}, 0).b,
	}
	for name, data := range files {
		if _, err := Parse(name, data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestParseArrayCountBounds: for every element type, an array of two
// smallest elements that ends the file is read, and the same array one byte
// short is refused by the count check, naming the element type.
func TestParseArrayCountBounds(t *testing.T) {
	smallest := map[valueType]func(r *raw){
		valueUint8:   func(r *raw) { r.u8(9) },
		valueInt8:    func(r *raw) { r.u8(9) },
		valueUint16:  func(r *raw) { r.u16(9) },
		valueInt16:   func(r *raw) { r.u16(9) },
		valueUint32:  func(r *raw) { r.u32(9) },
		valueInt32:   func(r *raw) { r.u32(9) },
		valueFloat32: func(r *raw) { r.u32(9) },
		valueBool:    func(r *raw) { r.u8(1) },
		valueString:  func(r *raw) { r.str("") },
		valueArray:   func(r *raw) { r.u32(uint32(valueUint8)).u64(0) },
		valueUint64:  func(r *raw) { r.u64(9) },
		valueInt64:   func(r *raw) { r.u64(9) },
		valueFloat64: func(r *raw) { r.u64(9) },
	}
	names := []string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}
	sizes := []int{1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8}
	for vt := valueUint8; vt <= valueFloat64; vt++ {
		r := header(3, 0, 1).kv("a", valueArray).u32(uint32(vt)).u64(2)
		smallest[vt](r)
		smallest[vt](r)
		if len(r.b) != 49+2*sizes[vt] {
			t.Fatalf("%s: the test's smallest element is not %d bytes", names[vt], sizes[vt])
		}
		f, err := Parse("exact.gguf", r.b)
		if err != nil {
			t.Errorf("array of two smallest %s values: %v", names[vt], err)
		} else if v, _ := f.Meta("a"); len(v.([]any)) != 2 {
			t.Errorf("array of %s read as %#v", names[vt], v)
		}
		_, err = Parse("short.gguf", r.b[:len(r.b)-1])
		want := fmt.Sprintf(`gguf: short.gguf: key "a": array length 2 of %s values exceeds what the remaining %d bytes can hold (at byte 0x29)`, names[vt], 2*sizes[vt]-1)
		if err == nil || err.Error() != want {
			t.Errorf("one byte short: %v\nwant %s", err, want)
		}
		if vt.String() != names[vt] {
			t.Errorf("valueType(%d).String() = %q, want %q", vt, vt.String(), names[vt])
		}
	}
	if s := valueType(13).String(); s != "value type 13" {
		t.Errorf("valueType(13).String() = %q", s)
	}
}

// TestParseTruncatedValues cuts a file inside a value of every scalar type.
func TestParseTruncatedValues(t *testing.T) {
	tests := []struct {
		vt    valueType
		value []byte
		want  string
	}{
		{valueUint8, nil, "uint8 value needs 1 bytes, 0 remain"},
		{valueInt8, nil, "int8 value needs 1 bytes, 0 remain"},
		{valueUint16, []byte{1}, "uint16 value needs 2 bytes, 1 remain"},
		{valueInt16, []byte{1}, "int16 value needs 2 bytes, 1 remain"},
		{valueUint32, []byte{1, 2, 3}, "uint32 value needs 4 bytes, 3 remain"},
		{valueInt32, []byte{1}, "int32 value needs 4 bytes, 1 remain"},
		{valueFloat32, []byte{1, 2}, "float32 value needs 4 bytes, 2 remain"},
		{valueBool, nil, "bool value needs 1 bytes, 0 remain"},
		{valueString, []byte{1, 2, 3}, "string value length needs 8 bytes, 3 remain"},
		{valueArray, []byte{1, 2}, "array element type needs 4 bytes, 2 remain"},
		{valueArray, []byte{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7}, "array length needs 8 bytes, 7 remain"},
		{valueUint64, []byte{1, 2, 3, 4, 5, 6, 7}, "uint64 value needs 8 bytes, 7 remain"},
		{valueInt64, []byte{1}, "int64 value needs 8 bytes, 1 remain"},
		{valueFloat64, []byte{1, 2, 3, 4}, "float64 value needs 8 bytes, 4 remain"},
	}
	for _, tt := range tests {
		// A long key keeps the kv count check out of the way.
		data := header(3, 0, 1).kv("abcdefghijklmnop", tt.vt).bytes(tt.value).b
		_, err := Parse("cut.gguf", data)
		want := `gguf: cut.gguf: key "abcdefghijklmnop": truncated file: ` + tt.want
		if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: %v\nwant %s", tt.vt, err, want)
		}
	}
}
