package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
)

// parseAllocBound is what Parse may allocate per byte of input. A count is
// never trusted before the bytes behind it are seen, so allocation is
// linear in the file; the factor is what the decoded form costs against
// the encoded one at its densest: a one-byte array element becomes a
// 16-byte []any element.
const parseAllocBound = 17

// TestParseAllocationBound builds the inputs that are densest in things
// Parse must allocate for (one-byte array elements, empty nested arrays,
// tiny keys, tiny tensor infos) and checks that Parse allocates at most
// parseAllocBound bytes per input byte, plus a constant.
func TestParseAllocationBound(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(b *Builder) error
		patch func(data []byte) // corrupts the built file; Parse must refuse it
	}{
		{"lying array count", func(b *Builder) error {
			return b.AddMeta("a", make([]uint8, 16))
		}, func(data []byte) {
			// header 24, key length 8, "a", value type 4, element type 4:
			// the element count claims 2^40 one-byte elements.
			binary.LittleEndian.PutUint64(data[41:], 1<<40)
		}},
		{"uint8 array", func(b *Builder) error {
			return b.AddMeta("a", make([]uint8, 1<<20))
		}, nil},
		{"empty nested arrays", func(b *Builder) error {
			v := make([]any, 1<<16)
			for i := range v {
				v[i] = []any{}
			}
			return b.AddMeta("a", v)
		}, nil},
		{"many keys", func(b *Builder) error {
			for i := range 1 << 15 {
				if err := b.AddMeta(fmt.Sprint(i), uint8(1)); err != nil {
					return err
				}
			}
			return nil
		}, nil},
		{"many tensors", func(b *Builder) error {
			for i := range 1 << 15 {
				if err := b.AddTensor(fmt.Sprint(i), TypeF32, []uint64{0}, nil); err != nil {
					return err
				}
			}
			return nil
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder()
			if err := c.build(b); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := b.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			if c.patch != nil {
				c.patch(data)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f, err := Parse("alloc.gguf", data)
			runtime.ReadMemStats(&after)
			if (err != nil) != (c.patch != nil) {
				t.Fatalf("Parse: %v", err)
			}
			if err != nil {
				t.Logf("refused as it must be: %v", err)
			}
			runtime.KeepAlive(f)
			got := after.TotalAlloc - before.TotalAlloc
			limit := uint64(parseAllocBound*len(data)) + 1<<16
			t.Logf("%d-byte file: Parse allocated %d bytes (%.1f per input byte)", len(data), got, float64(got)/float64(len(data)))
			if got > limit {
				t.Errorf("Parse allocated %d bytes for a %d-byte file, over the bound of %d", got, len(data), limit)
			}
		})
	}
}
