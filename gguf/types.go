package gguf

import (
	"fmt"
	"math"
)

// Type is a GGML tensor type id as stored in a GGUF tensor header.
type Type uint32

// GGML type ids. Ids 4, 5, 31-33 and 36-38 were removed upstream and are
// unknown here. 64-66 are the unsloth fork's IQ1 types; 40-42 are the ids
// upstream ggml assigned later (NVFP4, Q1_0, Q2_0).
const (
	TypeF32      Type = 0
	TypeF16      Type = 1
	TypeQ4_0     Type = 2
	TypeQ4_1     Type = 3
	TypeQ5_0     Type = 6
	TypeQ5_1     Type = 7
	TypeQ8_0     Type = 8
	TypeQ8_1     Type = 9
	TypeQ2_K     Type = 10
	TypeQ3_K     Type = 11
	TypeQ4_K     Type = 12
	TypeQ5_K     Type = 13
	TypeQ6_K     Type = 14
	TypeQ8_K     Type = 15
	TypeIQ2_XXS  Type = 16
	TypeIQ2_XS   Type = 17
	TypeIQ3_XXS  Type = 18
	TypeIQ1_S    Type = 19
	TypeIQ4_NL   Type = 20
	TypeIQ3_S    Type = 21
	TypeIQ2_S    Type = 22
	TypeIQ4_XS   Type = 23
	TypeI8       Type = 24
	TypeI16      Type = 25
	TypeI32      Type = 26
	TypeI64      Type = 27
	TypeF64      Type = 28
	TypeIQ1_M    Type = 29
	TypeBF16     Type = 30
	TypeTQ1_0    Type = 34
	TypeTQ2_0    Type = 35
	TypeMXFP4    Type = 39
	TypeNVFP4    Type = 40
	TypeQ1_0     Type = 41
	TypeQ2_0     Type = 42
	TypeIQ1_XS   Type = 64
	TypeIQ1_XXS  Type = 65
	TypeIQ1_XXXS Type = 66
)

// Traits is the block geometry of one GGML type: a row of n elements takes
// n/BlockElems blocks of BlockBytes bytes each. Float and integer types are
// blocks of one element.
type Traits struct {
	Name       string
	BlockElems int
	BlockBytes int
}

// ggmlTraits is the trait table. Each entry is keyed by its type id so that
// one entry can be removed or perturbed on its own (the mutation catalog does
// exactly that to the Q8_K entry).
var ggmlTraits = map[Type]Traits{
	TypeF32:      {Name: "F32", BlockElems: 1, BlockBytes: 4},
	TypeF16:      {Name: "F16", BlockElems: 1, BlockBytes: 2},
	TypeQ4_0:     {Name: "Q4_0", BlockElems: 32, BlockBytes: 18},
	TypeQ4_1:     {Name: "Q4_1", BlockElems: 32, BlockBytes: 20},
	TypeQ5_0:     {Name: "Q5_0", BlockElems: 32, BlockBytes: 22},
	TypeQ5_1:     {Name: "Q5_1", BlockElems: 32, BlockBytes: 24},
	TypeQ8_0:     {Name: "Q8_0", BlockElems: 32, BlockBytes: 34},
	TypeQ8_1:     {Name: "Q8_1", BlockElems: 32, BlockBytes: 36},
	TypeQ2_K:     {Name: "Q2_K", BlockElems: 256, BlockBytes: 84},
	TypeQ3_K:     {Name: "Q3_K", BlockElems: 256, BlockBytes: 110},
	TypeQ4_K:     {Name: "Q4_K", BlockElems: 256, BlockBytes: 144},
	TypeQ5_K:     {Name: "Q5_K", BlockElems: 256, BlockBytes: 176},
	TypeQ6_K:     {Name: "Q6_K", BlockElems: 256, BlockBytes: 210},
	TypeQ8_K:     {Name: "Q8_K", BlockElems: 256, BlockBytes: 292},
	TypeIQ2_XXS:  {Name: "IQ2_XXS", BlockElems: 256, BlockBytes: 66},
	TypeIQ2_XS:   {Name: "IQ2_XS", BlockElems: 256, BlockBytes: 74},
	TypeIQ3_XXS:  {Name: "IQ3_XXS", BlockElems: 256, BlockBytes: 98},
	TypeIQ1_S:    {Name: "IQ1_S", BlockElems: 256, BlockBytes: 50},
	TypeIQ4_NL:   {Name: "IQ4_NL", BlockElems: 32, BlockBytes: 18},
	TypeIQ3_S:    {Name: "IQ3_S", BlockElems: 256, BlockBytes: 110},
	TypeIQ2_S:    {Name: "IQ2_S", BlockElems: 256, BlockBytes: 82},
	TypeIQ4_XS:   {Name: "IQ4_XS", BlockElems: 256, BlockBytes: 136},
	TypeI8:       {Name: "I8", BlockElems: 1, BlockBytes: 1},
	TypeI16:      {Name: "I16", BlockElems: 1, BlockBytes: 2},
	TypeI32:      {Name: "I32", BlockElems: 1, BlockBytes: 4},
	TypeI64:      {Name: "I64", BlockElems: 1, BlockBytes: 8},
	TypeF64:      {Name: "F64", BlockElems: 1, BlockBytes: 8},
	TypeIQ1_M:    {Name: "IQ1_M", BlockElems: 256, BlockBytes: 56},
	TypeBF16:     {Name: "BF16", BlockElems: 1, BlockBytes: 2},
	TypeTQ1_0:    {Name: "TQ1_0", BlockElems: 256, BlockBytes: 54},
	TypeTQ2_0:    {Name: "TQ2_0", BlockElems: 256, BlockBytes: 66},
	TypeMXFP4:    {Name: "MXFP4", BlockElems: 32, BlockBytes: 17},
	TypeNVFP4:    {Name: "NVFP4", BlockElems: 64, BlockBytes: 36},
	TypeQ1_0:     {Name: "Q1_0", BlockElems: 128, BlockBytes: 18},
	TypeQ2_0:     {Name: "Q2_0", BlockElems: 64, BlockBytes: 18},
	TypeIQ1_XS:   {Name: "IQ1_XS", BlockElems: 256, BlockBytes: 46},
	TypeIQ1_XXS:  {Name: "IQ1_XXS", BlockElems: 256, BlockBytes: 42},
	TypeIQ1_XXXS: {Name: "IQ1_XXXS", BlockElems: 256, BlockBytes: 38},
}

// FindGgmlTraits returns the block geometry of t, and false for an id the
// table does not know.
func FindGgmlTraits(t Type) (Traits, bool) {
	tr, ok := ggmlTraits[t]
	return tr, ok
}

// TypeByName returns the type whose GGML name is name ("Q4_K", "BF16"),
// and 0, false for a name the trait table does not know (the zero Type,
// as a map lookup gives; 0 is also F32's id, so the bool decides). Names
// match exactly: "q4_k" is not Q4_K.
func TypeByName(name string) (Type, bool) {
	for t, tr := range ggmlTraits {
		if tr.Name == name {
			return t, true
		}
	}
	return 0, false
}

// String returns the GGML name of t, or "type(N)" for an unknown id.
func (t Type) String() string {
	if tr, ok := ggmlTraits[t]; ok {
		return tr.Name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// IsQuantized reports whether t is a known block-quantized type: one with
// more than one element per block.
func (t Type) IsQuantized() bool {
	tr, ok := ggmlTraits[t]
	return ok && tr.BlockElems > 1
}

// IsFloat reports whether t is one of the float element types a gather can
// copy without decoding blocks: F32, F16 or BF16.
func (t Type) IsFloat() bool {
	return t == TypeF32 || t == TypeF16 || t == TypeBF16
}

// RowSizeBytes returns the bytes one row of cols elements of type t takes:
// cols/BlockElems blocks of BlockBytes. It refuses an unknown type, a
// negative width, a width that is not whole blocks, and a size that does not
// fit in an int64.
func RowSizeBytes(t Type, cols int64) (int64, error) {
	n, err := rowSizeBytes(t, cols)
	if err != nil {
		return 0, fmt.Errorf("gguf: %w", err)
	}
	return n, nil
}

// rowSizeBytes is RowSizeBytes with errors that carry no package prefix, for
// callers that add their own context.
func rowSizeBytes(t Type, cols int64) (int64, error) {
	tr, ok := ggmlTraits[t]
	if !ok {
		return 0, &UnknownTypeError{Type: t}
	}
	return traitRowBytes(tr, cols)
}

// traitRowBytes is the byte size of a row of cols elements of the type
// whose traits are tr.
func traitRowBytes(tr Traits, cols int64) (int64, error) {
	if cols < 0 {
		return 0, fmt.Errorf("%s row of %d elements: negative width", tr.Name, cols)
	}
	if cols%int64(tr.BlockElems) != 0 {
		return 0, fmt.Errorf("%s row of %d elements is not whole blocks of %d", tr.Name, cols, tr.BlockElems)
	}
	blocks := cols / int64(tr.BlockElems)
	if blocks > math.MaxInt64/int64(tr.BlockBytes) {
		return 0, fmt.Errorf("%s row of %d elements: byte size overflows int64", tr.Name, cols)
	}
	return blocks * int64(tr.BlockBytes), nil
}
