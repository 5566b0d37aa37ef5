package gguf

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// wantTraits is every GGML type the reader knows, written out from the
// format's block definitions (ggml's block structs, the unsloth fork for
// 64-66), not copied from types.go: id, name, elements and bytes per block.
var wantTraits = []struct {
	id           uint32
	name         string
	elems, bytes int
}{
	{0, "F32", 1, 4},
	{1, "F16", 1, 2},
	{2, "Q4_0", 32, 2 + 16},
	{3, "Q4_1", 32, 2 + 2 + 16},
	{6, "Q5_0", 32, 2 + 4 + 16},
	{7, "Q5_1", 32, 2 + 2 + 4 + 16},
	{8, "Q8_0", 32, 2 + 32},
	{9, "Q8_1", 32, 2 + 2 + 32},
	{10, "Q2_K", 256, 16 + 64 + 2 + 2},
	{11, "Q3_K", 256, 32 + 64 + 12 + 2},
	{12, "Q4_K", 256, 2 + 2 + 12 + 128},
	{13, "Q5_K", 256, 2 + 2 + 12 + 32 + 128},
	{14, "Q6_K", 256, 128 + 64 + 16 + 2},
	{15, "Q8_K", 256, 4 + 256 + 2*16},
	{16, "IQ2_XXS", 256, 2 + 64},
	{17, "IQ2_XS", 256, 2 + 64 + 8},
	{18, "IQ3_XXS", 256, 2 + 96},
	{19, "IQ1_S", 256, 2 + 32 + 16},
	{20, "IQ4_NL", 32, 2 + 16},
	{21, "IQ3_S", 256, 2 + 64 + 8 + 32 + 4},
	{22, "IQ2_S", 256, 2 + 64 + 8 + 8},
	{23, "IQ4_XS", 256, 2 + 2 + 4 + 128},
	{24, "I8", 1, 1},
	{25, "I16", 1, 2},
	{26, "I32", 1, 4},
	{27, "I64", 1, 8},
	{28, "F64", 1, 8},
	{29, "IQ1_M", 256, 32 + 16 + 8},
	{30, "BF16", 1, 2},
	{34, "TQ1_0", 256, 48 + 4 + 2},
	{35, "TQ2_0", 256, 64 + 2},
	{39, "MXFP4", 32, 1 + 16},
	{40, "NVFP4", 64, 4 + 32},
	{41, "Q1_0", 128, 2 + 16},
	{42, "Q2_0", 64, 2 + 16},
	{64, "IQ1_XS", 256, 46},
	{65, "IQ1_XXS", 256, 42},
	{66, "IQ1_XXXS", 256, 2 + 32 + 4},
}

func TestTraitTable(t *testing.T) {
	known := map[uint32]bool{}
	for _, w := range wantTraits {
		known[w.id] = true
		got, ok := FindGgmlTraits(Type(w.id))
		if !ok {
			t.Errorf("type %d (%s) is missing from the trait table", w.id, w.name)
			continue
		}
		want := Traits{Name: w.name, BlockElems: w.elems, BlockBytes: w.bytes}
		if got != want {
			t.Errorf("type %d: traits %+v, want %+v", w.id, got, want)
		}
		if s := Type(w.id).String(); s != w.name {
			t.Errorf("Type(%d).String() = %q, want %q", w.id, s, w.name)
		}
		if typ, ok := TypeByName(w.name); !ok || typ != Type(w.id) {
			t.Errorf("TypeByName(%q) = %d, %v; want %d", w.name, uint32(typ), ok, w.id)
		}
	}
	if len(ggmlTraits) != len(wantTraits) {
		t.Errorf("trait table has %d entries, want %d", len(ggmlTraits), len(wantTraits))
	}
	for id := uint32(0); id < 1024; id++ {
		if _, ok := FindGgmlTraits(Type(id)); ok != known[id] {
			t.Errorf("FindGgmlTraits(%d) ok = %v, want %v", id, ok, known[id])
		}
	}
	for _, name := range []string{"", "q4_0", "Q4_0 ", "TypeQ4_0", "Q4_2", "type(4)"} {
		if typ, ok := TypeByName(name); ok {
			t.Errorf("TypeByName(%q) = %d, want no type", name, uint32(typ))
		}
	}
	for _, id := range []uint32{4, 5, 31, 32, 33, 36, 37, 38, 43, 63, 67, 99, math.MaxUint32} {
		if tr, ok := FindGgmlTraits(Type(id)); ok {
			t.Errorf("type %d is unknown, got %+v", id, tr)
		}
	}
}

// TestQ8KTrait pins the one entry the row depends on most: a float32 scale,
// 256 int8 values and 16 int16 block sums.
func TestQ8KTrait(t *testing.T) {
	tr, ok := FindGgmlTraits(TypeQ8_K)
	if !ok || tr != (Traits{Name: "Q8_K", BlockElems: 256, BlockBytes: 292}) || TypeQ8_K != 15 {
		t.Fatalf("Q8_K = type %d %+v %v, want type 15 {Q8_K 256 292}", uint32(TypeQ8_K), tr, ok)
	}
	if n, err := RowSizeBytes(TypeQ8_K, 4096); err != nil || n != 16*292 {
		t.Fatalf("RowSizeBytes(Q8_K, 4096) = %d, %v; want 4672", n, err)
	}
}

func TestTypeNamesAndKinds(t *testing.T) {
	tests := []struct {
		t          Type
		name       string
		quant, flt bool
	}{
		{TypeF32, "F32", false, true},
		{TypeF16, "F16", false, true},
		{TypeBF16, "BF16", false, true},
		{TypeF64, "F64", false, false},
		{TypeI32, "I32", false, false},
		{TypeQ4_0, "Q4_0", true, false},
		{TypeQ8_K, "Q8_K", true, false},
		{TypeMXFP4, "MXFP4", true, false},
		{TypeIQ1_XXXS, "IQ1_XXXS", true, false},
		{99, "type(99)", false, false},
		{4, "type(4)", false, false},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.name {
			t.Errorf("String() = %q, want %q", got, tt.name)
		}
		if got := tt.t.IsQuantized(); got != tt.quant {
			t.Errorf("%s.IsQuantized() = %v", tt.name, got)
		}
		if got := tt.t.IsFloat(); got != tt.flt {
			t.Errorf("%s.IsFloat() = %v", tt.name, got)
		}
	}
}

// TestTypeByName: every name of the trait table gives its type back, and
// a name it does not know gives 0, false.
func TestTypeByName(t *testing.T) {
	for typ, tr := range ggmlTraits {
		if got, ok := TypeByName(tr.Name); !ok || got != typ {
			t.Errorf("TypeByName(%q) = %v, %v; want %v, true", tr.Name, got, ok, typ)
		}
	}
	for _, c := range []struct {
		name string
		want Type
		ok   bool
	}{
		{"Q4_K", TypeQ4_K, true},
		{"BF16", TypeBF16, true},
		{"F32", TypeF32, true},
		{"q4_k", 0, false},
		{"Q9_9", 0, false},
		{"type(4)", 0, false},
		{"", 0, false},
	} {
		if got, ok := TypeByName(c.name); got != c.want || ok != c.ok {
			t.Errorf("TypeByName(%q) = %d, %v; want %d, %v", c.name, uint32(got), ok, uint32(c.want), c.ok)
		}
	}
}

func TestRowSizeBytes(t *testing.T) {
	tests := []struct {
		t       Type
		cols    int64
		want    int64
		wantErr string
	}{
		{TypeF32, 3, 12, ""},
		{TypeF16, 5, 10, ""},
		{TypeBF16, 4096, 8192, ""},
		{TypeQ4_0, 0, 0, ""},
		{TypeQ4_0, 64, 36, ""},
		{TypeQ8_0, 4096, 128 * 34, ""},
		{TypeQ8_K, 512, 584, ""},
		{TypeMXFP4, 32, 17, ""},
		{TypeIQ1_XXXS, 768, 3 * 38, ""},
		{TypeF32, math.MaxInt64 / 4, math.MaxInt64 / 4 * 4, ""},
		{TypeF32, math.MaxInt64/4 + 1, 0, "gguf: F32 row of 2305843009213693952 elements: byte size overflows int64"},
		{TypeQ8_K, math.MaxInt64 / 292 * 256, math.MaxInt64 / 292 * 292, ""},
		{TypeQ8_K, (math.MaxInt64/292 + 1) * 256, 0, "byte size overflows int64"},
		{99, 32, 0, "gguf: unknown ggml type id 99"},
		{TypeQ4_0, -32, 0, "gguf: Q4_0 row of -32 elements: negative width"},
		{TypeQ4_0, -33, 0, "gguf: Q4_0 row of -33 elements: negative width"}, // checked before whole blocks
		{TypeF32, -1, 0, "negative width"},
		{TypeQ4_0, 33, 0, "gguf: Q4_0 row of 33 elements is not whole blocks of 32"},
		{TypeQ8_K, 255, 0, "gguf: Q8_K row of 255 elements is not whole blocks of 256"},
		{TypeQ8_K, 257, 0, "not whole blocks of 256"},
	}
	for _, tt := range tests {
		got, err := RowSizeBytes(tt.t, tt.cols)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("RowSizeBytes(%s, %d) = %d, %v; want %d", tt.t, tt.cols, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("RowSizeBytes(%s, %d) = %d, %v; want error %q", tt.t, tt.cols, got, err, tt.wantErr)
		}
		if got != 0 {
			t.Errorf("RowSizeBytes(%s, %d) returned %d with its error", tt.t, tt.cols, got)
		}
		// The unexported form is the same without the package prefix, and
		// also returns 0 with its error: tensorBytes passes it on.
		inner, ierr := rowSizeBytes(tt.t, tt.cols)
		if ierr == nil || "gguf: "+ierr.Error() != err.Error() || inner != 0 {
			t.Errorf("rowSizeBytes(%s, %d) = %d, %v; want 0 and %q without its prefix", tt.t, tt.cols, inner, ierr, err)
		}
	}
	if _, err := RowSizeBytes(99, 32); !errors.Is(err, ErrUnknownType) {
		t.Errorf("errors.Is(RowSizeBytes(99), ErrUnknownType) is false: %v", err)
	}
}
