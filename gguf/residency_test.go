package gguf

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"
)

// fakeCaps is a device described by three sets of types.
type fakeCaps struct {
	gather, dot, repack []Type
}

func has(ts []Type, t Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func (c fakeCaps) CanGather(t Type) bool   { return has(c.gather, t) }
func (c fakeCaps) CanDot(t Type) bool      { return has(c.dot, t) }
func (c fakeCaps) WantsRepack(t Type) bool { return has(c.repack, t) }

// q8kTable is a Q8_K tensor of 4 rows of 2 blocks read through Parse, so
// that its Data borrows a file.
func q8kTable(t *testing.T) (TensorInfo, []byte) {
	t.Helper()
	packed := pattern(4*2*292, 0x33)
	b := NewBuilder()
	must(t, b.AddTensor("token_embd.weight", TypeQ8_K, []uint64{512, 4}, packed))
	f, err := Parse("table.gguf", build(t, b))
	must(t, err)
	info, _ := f.Tensor("token_embd.weight")
	return info, packed
}

func sameBacking(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func TestRoleAndResidencyNames(t *testing.T) {
	var zero Role
	if zero != MatrixWeight {
		t.Error("the zero Role is not MatrixWeight")
	}
	names := map[string]string{
		MatrixWeight.String():   "MatrixWeight",
		EmbeddingTable.String(): "EmbeddingTable",
		Role(7).String():        "Role(7)",
		KeepPacked.String():     "KeepPacked",
		Expand.String():         "Expand",
		Residency(0).String():   "Residency(0)",
		Residency(-1).String():  "Residency(-1)",
	}
	for got, want := range names {
		if got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
	var none noCapabilities
	if none.CanGather(TypeQ8_K) || none.CanDot(TypeQ8_K) || none.WantsRepack(TypeQ8_K) {
		t.Error("nil capabilities claim a capability")
	}
	// The values are fixed (KeepPacked = iota + 1): the zero Residency is
	// neither.
	if KeepPacked != 1 || Expand != 2 {
		t.Errorf("KeepPacked = %d, Expand = %d; want 1 and 2", KeepPacked, Expand)
	}
}

func TestRoute(t *testing.T) {
	gathersQ8K := fakeCaps{gather: []Type{TypeQ8_K, TypeBF16}, dot: []Type{TypeQ4_0, TypeF32}}
	tests := []struct {
		name   string
		typ    Type
		role   Role
		caps   Capabilities
		want   Residency
		reason string
	}{
		{"Q8_K embedding table", TypeQ8_K, EmbeddingTable, gathersQ8K, KeepPacked, "embedding table: device gathers Q8_K"},
		{"Q8_K matrix", TypeQ8_K, MatrixWeight, gathersQ8K, Expand, "matrix: no dot capability for Q8_K"},
		{"Q4_0 matrix", TypeQ4_0, MatrixWeight, gathersQ8K, KeepPacked, "matrix: device has a dot for Q4_0"},
		{"Q4_0 table without a gather", TypeQ4_0, EmbeddingTable, gathersQ8K, Expand, "embedding table: no gather capability for Q4_0"},
		{"IQ1_XXXS table without a gather", TypeIQ1_XXXS, EmbeddingTable, gathersQ8K, Expand, "embedding table: no gather capability for IQ1_XXXS"},
		{"BF16 table", TypeBF16, EmbeddingTable, gathersQ8K, KeepPacked, "embedding table: device gathers BF16"},
		{"BF16 matrix without a dot", TypeBF16, MatrixWeight, gathersQ8K, Expand, "matrix: no dot capability for BF16"},
		{"F32 matrix", TypeF32, MatrixWeight, gathersQ8K, KeepPacked, "matrix: device has a dot for F32"},
		{"F32 table without a gather", TypeF32, EmbeddingTable, gathersQ8K, Expand, "embedding table: no gather capability for F32"},
		{"nil capabilities", TypeQ8_K, EmbeddingTable, nil, Expand, "embedding table: no gather capability for Q8_K"},
		{"nil capabilities matrix", TypeQ4_0, MatrixWeight, nil, Expand, "matrix: no dot capability for Q4_0"},
		{"unknown role", TypeQ8_K, Role(2), fakeCaps{gather: []Type{TypeQ8_K}, dot: []Type{TypeQ8_K}}, Expand, "Role(2): unknown role, expanded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := Route(TensorInfo{Name: "x", Type: tt.typ, Dims: []uint64{256, 4}}, tt.role, tt.caps)
			if got != tt.want || reason != tt.reason {
				t.Errorf("Route = %s, %q; want %s, %q", got, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestOwnQuantBlocksEmbeddingKeepsOriginalBytes(t *testing.T) {
	info, packed := q8kTable(t)
	caps := fakeCaps{gather: []Type{TypeQ8_K}}
	if r, reason := Route(info, EmbeddingTable, caps); r != KeepPacked {
		t.Fatalf("Route = %s (%s), want KeepPacked", r, reason)
	}
	qb, err := OwnQuantBlocks(info, EmbeddingTable, caps)
	must(t, err)
	if qb.Type != TypeQ8_K || len(qb.Dims) != 2 || qb.Dims[0] != 512 || qb.Dims[1] != 4 {
		t.Errorf("QuantBlocks is %s %v", qb.Type, qb.Dims)
	}
	if !qb.Borrowed || qb.Repacked {
		t.Errorf("Borrowed %v, Repacked %v; want a borrowed, unrepacked table", qb.Borrowed, qb.Repacked)
	}
	if !bytes.Equal(qb.Data, packed) || !sameBacking(qb.Data, info.Data) {
		t.Error("Data is not the file's own packed bytes")
	}
	qb.Dims[0] = 1
	if info.Dims[0] != 512 {
		t.Error("QuantBlocks.Dims aliases the TensorInfo's dims")
	}
}

func TestOwnQuantBlocksRefusesQ8KMatrix(t *testing.T) {
	info, _ := q8kTable(t)
	caps := fakeCaps{gather: []Type{TypeQ8_K}, dot: []Type{TypeQ4_0, TypeQ4_K}}
	if r, reason := Route(info, MatrixWeight, caps); r != Expand || reason != "matrix: no dot capability for Q8_K" {
		t.Errorf("Route = %s, %q; want Expand", r, reason)
	}
	var defaultRole Role
	qb, err := OwnQuantBlocks(info, defaultRole, caps)
	want := `gguf: tensor "token_embd.weight": matrix of Q8_K: no dot capability, cannot keep it packed`
	if err == nil || err.Error() != want {
		t.Fatalf("OwnQuantBlocks(Q8_K, default role) = %+v, %v; want error %q", qb.Dims, err, want)
	}
	if qb.Data != nil {
		t.Error("a refused tensor came with data")
	}
	// With a dot for Q8_K the same matrix stays packed.
	qb, err = OwnQuantBlocks(info, MatrixWeight, fakeCaps{dot: []Type{TypeQ8_K}})
	must(t, err)
	if !qb.Borrowed || qb.Repacked || !sameBacking(qb.Data, info.Data) {
		t.Errorf("Borrowed %v, Repacked %v", qb.Borrowed, qb.Repacked)
	}
}

func TestOwnQuantBlocksNeedsGatherForTables(t *testing.T) {
	info, _ := q8kTable(t)
	// A dot capability does not make a table gatherable.
	caps := fakeCaps{dot: []Type{TypeQ8_K}, gather: []Type{TypeQ4_0}}
	if r, _ := Route(info, EmbeddingTable, caps); r != Expand {
		t.Errorf("Route = %s, want Expand", r)
	}
	_, err := OwnQuantBlocks(info, EmbeddingTable, caps)
	want := `gguf: tensor "token_embd.weight": embedding table of Q8_K: no gather capability, cannot keep it packed`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if _, err := OwnQuantBlocks(info, EmbeddingTable, nil); err == nil || !strings.Contains(err.Error(), "no gather capability") {
		t.Errorf("nil caps: error %v", err)
	}
}

// TestOwnQuantBlocksEmbeddingNeverRepacks: a device that wants Q8_K repacked
// still gets the embedding table in its original row layout.
func TestOwnQuantBlocksEmbeddingNeverRepacks(t *testing.T) {
	info, packed := q8kTable(t)
	caps := fakeCaps{gather: []Type{TypeQ8_K}, dot: []Type{TypeQ8_K}, repack: []Type{TypeQ8_K}}
	qb, err := OwnQuantBlocks(info, EmbeddingTable, caps)
	must(t, err)
	if qb.Repacked || !qb.Borrowed || !bytes.Equal(qb.Data, packed) || !sameBacking(qb.Data, info.Data) {
		t.Errorf("embedding table: Repacked %v, Borrowed %v, original bytes %v", qb.Repacked, qb.Borrowed, bytes.Equal(qb.Data, packed))
	}
	// The same tensor as a matrix is repacked, so the layouts do differ.
	mq, err := OwnQuantBlocks(info, MatrixWeight, caps)
	must(t, err)
	if !mq.Repacked || bytes.Equal(mq.Data, packed) {
		t.Error("as a matrix the tensor was not repacked; the test above proves nothing")
	}
}

// taggedRows tags every byte of block j of row r with r and j, so that an
// interleave can be checked position by position.
func taggedRows(rows, blocks, bb int) []byte {
	data := make([]byte, rows*blocks*bb)
	for r := range rows {
		for j := range blocks {
			for k := range bb {
				data[(r*blocks+j)*bb+k] = byte(r<<5 | j<<2 | k%4)
			}
		}
	}
	return data
}

func TestOwnQuantBlocksRepack(t *testing.T) {
	const rows, blocks, bb = 8, 3, 18 // Q4_0: 96 elements per row
	data := taggedRows(rows, blocks, bb)
	orig := append([]byte(nil), data...)
	info := TensorInfo{Name: "blk.0.attn_q.weight", Type: TypeQ4_0, Dims: []uint64{blocks * 32, rows}, Data: data}
	qb, err := OwnQuantBlocks(info, MatrixWeight, fakeCaps{dot: []Type{TypeQ4_0}, repack: []Type{TypeQ4_0}})
	must(t, err)
	if !qb.Repacked || qb.Borrowed || sameBacking(qb.Data, data) || len(qb.Data) != len(data) {
		t.Fatalf("Repacked %v, Borrowed %v, %d bytes", qb.Repacked, qb.Borrowed, len(qb.Data))
	}
	// Output block n: group g = n / (4*blocks), then block j, then row k.
	for n := range rows * blocks {
		g, j, k := n/(4*blocks), n%(4*blocks)/4, n%4
		r := 4*g + k
		got := qb.Data[n*bb : (n+1)*bb]
		want := data[(r*blocks+j)*bb : (r*blocks+j+1)*bb]
		if !bytes.Equal(got, want) {
			t.Fatalf("repacked block %d = row %d block %d? got %x, want %x", n, r, j, got[:4], want[:4])
		}
	}
	if !bytes.Equal(data, orig) {
		t.Error("the repack changed the source bytes")
	}
	// No repack requested: borrowed as it is.
	qb, err = OwnQuantBlocks(info, MatrixWeight, fakeCaps{dot: []Type{TypeQ4_0}, repack: []Type{TypeQ8_K}})
	must(t, err)
	if qb.Repacked || !qb.Borrowed || !sameBacking(qb.Data, data) {
		t.Errorf("without a repack request: Repacked %v, Borrowed %v", qb.Repacked, qb.Borrowed)
	}
}

func TestOwnQuantBlocksRepackF32(t *testing.T) {
	// Float matrices follow the same rules; a block is one element.
	data := taggedRows(4, 2, 4)
	info := TensorInfo{Name: "w", Type: TypeF32, Dims: []uint64{2, 4}, Data: data}
	qb, err := OwnQuantBlocks(info, MatrixWeight, fakeCaps{dot: []Type{TypeF32}, repack: []Type{TypeF32}})
	must(t, err)
	want := []int{0, 2, 4, 6, 1, 3, 5, 7} // source element of each output element
	for n, src := range want {
		if !bytes.Equal(qb.Data[n*4:n*4+4], data[src*4:src*4+4]) {
			t.Errorf("element %d is not source element %d", n, src)
		}
	}
}

func TestOwnQuantBlocksRefuses(t *testing.T) {
	dotAll := fakeCaps{
		gather: []Type{TypeQ4_0, 99},
		dot:    []Type{TypeQ4_0, TypeQ8_K, 99},
		repack: []Type{TypeQ4_0},
	}
	tests := []struct {
		name string
		info TensorInfo
		role Role
		want string
	}{
		{"rows not a multiple of 4", TensorInfo{Name: "w", Type: TypeQ4_0, Dims: []uint64{64, 6}, Data: make([]byte, 6*36)}, MatrixWeight,
			`gguf: tensor "w": repack: 6 rows is not a multiple of 4`},
		{"3-D repack", TensorInfo{Name: "w", Type: TypeQ4_0, Dims: []uint64{32, 4, 2}, Data: make([]byte, 8*18)}, MatrixWeight,
			`gguf: tensor "w": repack: needs a 2-D matrix, have 3 dims`},
		{"1-D repack", TensorInfo{Name: "w", Type: TypeQ4_0, Dims: []uint64{128}, Data: make([]byte, 72)}, MatrixWeight,
			`gguf: tensor "w": repack: needs a 2-D matrix, have 1 dims`},
		{"short data", TensorInfo{Name: "w", Type: TypeQ8_K, Dims: []uint64{256, 2}, Data: make([]byte, 583)}, MatrixWeight,
			`gguf: tensor "w": 583 bytes of data, want 584 for Q8_K dims [256 2]`},
		{"long data", TensorInfo{Name: "w", Type: TypeQ8_K, Dims: []uint64{256, 2}, Data: make([]byte, 585)}, MatrixWeight,
			`gguf: tensor "w": 585 bytes of data, want 584 for Q8_K dims [256 2]`},
		{"short table", TensorInfo{Name: "e", Type: TypeQ4_0, Dims: []uint64{32, 2}, Data: make([]byte, 35)}, EmbeddingTable,
			`gguf: tensor "e": 35 bytes of data, want 36 for Q4_0 dims [32 2]`},
		{"unknown type", TensorInfo{Name: "w", Type: 99, Dims: []uint64{32}}, MatrixWeight,
			`gguf: tensor "w": unknown ggml type id 99`},
		{"not whole blocks", TensorInfo{Name: "w", Type: TypeQ8_K, Dims: []uint64{100, 4}}, MatrixWeight,
			`gguf: tensor "w": dim 0: Q8_K row of 100 elements is not whole blocks of 256`},
		{"no dims", TensorInfo{Name: "w", Type: TypeQ8_K}, MatrixWeight,
			`gguf: tensor "w": dim count 0, want 1 to 4`},
		{"unknown role", TensorInfo{Name: "w", Type: TypeQ4_0, Dims: []uint64{32}, Data: make([]byte, 18)}, Role(5),
			`gguf: tensor "w": unknown role 5`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qb, err := OwnQuantBlocks(tt.info, tt.role, dotAll)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant  %q", err, tt.want)
			}
			if qb.Data != nil || qb.Dims != nil {
				t.Error("a refusal came with blocks")
			}
		})
	}
}
