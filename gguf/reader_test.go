package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestQ8KThroughOpen builds a file with a Q8_K table, opens it and checks
// its geometry and its exact packed bytes.
func TestQ8KThroughOpen(t *testing.T) {
	const hidden, vocab = 512, 3 // 2 blocks of 292 bytes per row
	packed := pattern(vocab*2*292, 0x5a)
	b := NewBuilder()
	must(t, b.AddMeta("general.architecture", "llama"))
	must(t, b.AddTensor("output_norm.weight", TypeF32, []uint64{3}, pattern(12, 9)))
	must(t, b.AddTensor("token_embd.weight", TypeQ8_K, []uint64{hidden, vocab}, packed))
	path := writeFile(t, "q8k.gguf", build(t, b))

	f, err := Open(path)
	must(t, err)
	defer f.Close()
	if f.Name() != path || f.Version() != 3 || f.Alignment() != 32 {
		t.Errorf("Name %q, Version %d, Alignment %d", f.Name(), f.Version(), f.Alignment())
	}
	info, ok := f.Tensor("token_embd.weight")
	if !ok {
		t.Fatal("token_embd.weight missing")
	}
	if info.Type != TypeQ8_K || len(info.Dims) != 2 || info.Dims[0] != hidden || info.Dims[1] != vocab {
		t.Fatalf("token_embd.weight is %s %v, want Q8_K [512 3]", info.Type, info.Dims)
	}
	if info.Rows() != vocab || info.Elements() != hidden*vocab {
		t.Errorf("Rows %d, Elements %d", info.Rows(), info.Elements())
	}
	if info.Offset != 32 {
		t.Errorf("Offset %d, want 32 (after the 12-byte F32 tensor, aligned)", info.Offset)
	}
	row, err := RowSizeBytes(info.Type, int64(info.Dims[0]))
	if err != nil || row != 584 {
		t.Fatalf("RowSizeBytes(Q8_K, 512) = %d, %v; want 584", row, err)
	}
	if len(info.Data) != vocab*584 || !bytes.Equal(info.Data, packed) {
		t.Errorf("Data is %d bytes, not the %d packed bytes written", len(info.Data), len(packed))
	}
	// Data borrows the file: its bytes are where the file has them.
	raw, err := os.ReadFile(path)
	must(t, err)
	start := f.dataStart + info.Offset
	if !bytes.Equal(raw[start:start+uint64(len(packed))], packed) {
		t.Error("the file does not hold the packed bytes at the data offset")
	}
	if cap(info.Data) != len(info.Data) {
		t.Errorf("Data has capacity %d beyond its %d bytes: an append would overwrite the next tensor", cap(info.Data), len(info.Data))
	}
}

func TestOpenClose(t *testing.T) {
	b := NewBuilder()
	must(t, b.AddTensor("a", TypeF32, []uint64{2}, pattern(8, 1)))
	must(t, b.AddTensor("b", TypeQ4_0, []uint64{32, 2}, pattern(36, 2)))
	path := writeFile(t, "m.gguf", build(t, b))
	f, err := Open(path)
	must(t, err)
	if f.release == nil && runtime.GOOS != "windows" && runtime.GOOS != "js" && runtime.GOOS != "wasip1" && runtime.GOOS != "plan9" {
		t.Error("Open did not map the file")
	}
	must(t, f.Close())
	for _, ti := range f.Tensors() {
		if ti.Data != nil {
			t.Errorf("tensor %q keeps Data after Close", ti.Name)
		}
	}
	if ti, _ := f.Tensor("b"); ti.Data != nil || ti.Name != "b" {
		t.Errorf("Tensor(b) after Close: %q with %d bytes", ti.Name, len(ti.Data))
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	pf, err := Parse("mem", build(t, b))
	must(t, err)
	if err := pf.Close(); err != nil {
		t.Errorf("Close of a parsed File: %v", err)
	}
}

func TestCloseReportsUnmapError(t *testing.T) {
	f := &File{name: "x.gguf", release: func() error { return errors.New("munmap failed") }}
	err := f.Close()
	if err == nil || err.Error() != "gguf: x.gguf: close: munmap failed" {
		t.Errorf("Close() = %v", err)
	}
	if f.release != nil {
		t.Error("Close kept the release function")
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, "empty.gguf", nil)
	bad := writeFile(t, "bad.gguf", header(1, 0, 0).b)
	tests := []struct {
		name, path, want string
		is               error
	}{
		{"missing", filepath.Join(dir, "none.gguf"), "gguf: " + filepath.Join(dir, "none.gguf") + ": open ", os.ErrNotExist},
		{"empty", empty, "gguf: " + empty + ": truncated file: magic needs 4 bytes, 0 remain", ErrTruncated},
		{"malformed", bad, "gguf: " + bad + ": unsupported version 1", ErrFormat},
		{"directory", dir, "gguf: " + dir + ": not a regular file", nil},
	}
	if runtime.GOOS == "windows" {
		tests = tests[:3]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Open(tt.path)
			if err == nil {
				f.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q, want prefix %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v) is false", tt.is)
			}
		})
	}
}

// TestOpenReadsUnmappableFile opens a /proc file, which reports size 0 and
// cannot be mapped: its bytes are read instead, so the error is about its
// content, not a truncation.
func TestOpenReadsUnmappableFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	_, err := Open("/proc/self/status")
	if err == nil || !strings.Contains(err.Error(), `gguf: /proc/self/status: bad magic "Name"`) {
		t.Errorf("Open(/proc/self/status) = %v, want a bad magic error", err)
	}
}

func TestParseVersion2(t *testing.T) {
	b := NewBuilder()
	must(t, b.AddMeta("k", "v"))
	must(t, b.AddTensor("t", TypeF16, []uint64{4}, pattern(8, 3)))
	data := build(t, b)
	binary.LittleEndian.PutUint32(data[4:], 2)
	f, err := Parse("v2.gguf", data)
	must(t, err)
	if f.Version() != 2 {
		t.Errorf("Version() = %d", f.Version())
	}
	if v, _ := f.Meta("k"); v != "v" {
		t.Errorf("Meta(k) = %v", v)
	}
	if ti, ok := f.Tensor("t"); !ok || !bytes.Equal(ti.Data, pattern(8, 3)) {
		t.Errorf("tensor t = %v, %v", ti, ok)
	}
}

func TestTensorsAreCopies(t *testing.T) {
	b := NewBuilder()
	must(t, b.AddTensor("t", TypeF32, []uint64{1}, pattern(4, 0)))
	must(t, b.AddMeta("k", uint8(1)))
	f, err := Parse("m", build(t, b))
	must(t, err)
	ts := f.Tensors()
	ts[0].Name = "changed"
	keys := f.MetaKeys()
	keys[0] = "changed"
	if f.Tensors()[0].Name != "t" || f.MetaKeys()[0] != "k" {
		t.Error("Tensors or MetaKeys hand out the File's own slice")
	}
	if _, ok := f.Tensor("changed"); ok {
		t.Error("Tensor(changed) found a renamed copy")
	}
	if ti, ok := f.Tensor("nothing"); ok || ti.Name != "" {
		t.Errorf("Tensor(nothing) = %q, %v", ti.Name, ok)
	}
}

// TestParseLayouts reads files whose tensors the Builder would not lay out:
// out of order, overlapping, an empty one sharing an offset.
func TestParseLayouts(t *testing.T) {
	data := header(3, 3, 1).
		kv(alignmentKey, valueUint32).u32(16).
		tensor("late", TypeF32, []uint64{2}, 16).
		tensor("early", TypeF32, []uint64{6}, 0).
		tensor("empty", TypeQ8_K, []uint64{0, 5}, 16).
		pad(16).bytes(pattern(24, 4)).b
	f, err := Parse("layout.gguf", data)
	must(t, err)
	if f.Alignment() != 16 {
		t.Errorf("Alignment() = %d", f.Alignment())
	}
	start := len(data) - 24
	late, _ := f.Tensor("late")
	early, _ := f.Tensor("early")
	if !bytes.Equal(late.Data, data[start+16:start+24]) || !bytes.Equal(early.Data, data[start:start+24]) {
		t.Error("tensors do not read their own offsets")
	}
	got := f.Tensors()
	if got[0].Name != "late" || got[1].Name != "early" || got[2].Name != "empty" {
		t.Errorf("tensors not in file order: %s %s %s", got[0].Name, got[1].Name, got[2].Name)
	}
}

func TestParseEmptyTensorAtEnd(t *testing.T) {
	// No data section at all: the only tensor is empty.
	data := header(3, 1, 0).tensor("e", TypeF32, []uint64{0}, 0).b
	// No spare capacity: a slice past the end of the input would panic.
	data = data[:len(data):len(data)]
	f, err := Parse("e.gguf", data)
	must(t, err)
	if e, _ := f.Tensor("e"); len(e.Data) != 0 {
		t.Errorf("empty tensor has %d bytes", len(e.Data))
	}
	if f.dataStart != 64 {
		t.Errorf("data section at %d, want 64", f.dataStart)
	}
}

func TestTensorInfoCounts(t *testing.T) {
	tests := []struct {
		dims           []uint64
		rows, elements uint64
	}{
		{nil, 1, 1},
		{[]uint64{5}, 1, 5},
		{[]uint64{5, 3}, 3, 15},
		{[]uint64{2, 3, 4}, 12, 24},
		{[]uint64{2, 0, 4}, 0, 0},
		{[]uint64{0, 7}, 7, 0},
		{[]uint64{2, 3, 4, 5}, 60, 120},
	}
	for _, tt := range tests {
		ti := TensorInfo{Dims: tt.dims}
		if r, e := ti.Rows(), ti.Elements(); r != tt.rows || e != tt.elements {
			t.Errorf("dims %v: Rows %d, Elements %d; want %d, %d", tt.dims, r, e, tt.rows, tt.elements)
		}
	}
}

// TestTensorBytes checks the shared geometry check directly: its errors
// carry no prefix (each caller adds its own), and a refused size is 0.
func TestTensorBytes(t *testing.T) {
	tests := []struct {
		t       Type
		dims    []uint64
		want    uint64
		wantErr string
	}{
		{TypeF32, []uint64{3}, 12, ""},
		{TypeQ8_K, []uint64{512, 3}, 3 * 584, ""},
		{TypeQ4_0, []uint64{64, 2, 3, 1}, 6 * 36, ""},
		{TypeF32, []uint64{4, 0}, 0, ""},
		{TypeF32, nil, 0, "dim count 0, want 1 to 4"},
		{TypeF32, []uint64{1, 1, 1, 1, 1}, 0, "dim count 5, want 1 to 4"},
		{TypeI8, []uint64{1 << 32, 1 << 32}, 0, "dim 1 (4294967296): element count of dims [4294967296 4294967296] overflows int64"},
		{TypeQ4_0, []uint64{33}, 0, "dim 0: Q4_0 row of 33 elements is not whole blocks of 32"},
		{99, []uint64{1}, 0, "unknown ggml type id 99"},
		{TypeF32, []uint64{1 << 31, 1 << 31}, 0, "dim 1 (2147483648): byte size of F32 dims [2147483648 2147483648] overflows int64"},
	}
	for _, tt := range tests {
		got, err := tensorBytes(tt.t, tt.dims)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("tensorBytes(%s, %v) = %d, %v; want %d", tt.t, tt.dims, got, err, tt.want)
			}
			continue
		}
		if err == nil || err.Error() != tt.wantErr || got != 0 {
			t.Errorf("tensorBytes(%s, %v) = %d, %v; want 0 and error %q", tt.t, tt.dims, got, err, tt.wantErr)
		}
	}
}

// TestDecoderShortFields: a fixed-size field cut short reads as 0 with the
// truncation error, and consumes nothing.
func TestDecoderShortFields(t *testing.T) {
	tests := []struct {
		width int
		read  func(d *decoder) (uint64, error)
	}{
		{1, func(d *decoder) (uint64, error) { v, err := d.u8("f"); return uint64(v), err }},
		{2, func(d *decoder) (uint64, error) { v, err := d.u16("f"); return uint64(v), err }},
		{4, func(d *decoder) (uint64, error) { v, err := d.u32("f"); return uint64(v), err }},
		{8, func(d *decoder) (uint64, error) { v, err := d.u64("f"); return uint64(v), err }},
	}
	for _, tt := range tests {
		full := bytes.Repeat([]byte{0xff}, tt.width)
		d := &decoder{file: "f.gguf", data: full}
		if v, err := tt.read(d); err != nil || v != 1<<(8*tt.width)-1 || d.pos != tt.width {
			t.Errorf("%d-byte field: %#x, %v, at %d", tt.width, v, err, d.pos)
		}
		d = &decoder{file: "f.gguf", data: full[1:]}
		v, err := tt.read(d)
		want := fmt.Sprintf("gguf: f.gguf: truncated file: f needs %d bytes, %d remain (at byte 0x0)", tt.width, tt.width-1)
		if err == nil || err.Error() != want || !errors.Is(err, ErrTruncated) {
			t.Errorf("%d-byte field cut short: error %v, want %q", tt.width, err, want)
		}
		if v != 0 || d.pos != 0 {
			t.Errorf("%d-byte field cut short: read %#x, moved to %d", tt.width, v, d.pos)
		}
	}
}
