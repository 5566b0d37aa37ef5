package gather

import (
	"fmt"

	"gathermut/gguf"
)

// Embedding selects len(ids) rows of table into out: out[i] = table[ids[i]].
//
// table is 2-D [vocab, hidden], F32, F16, BF16 or an admitted codec; ids is
// 1-D I32 or I64; out is [len(ids), hidden], F32 or BF16. The arguments are
// checked in this order, the first failure returned: (1) ranks (table, ids,
// out), then no negative dimension; (2) out's shape; (3) ids' type; (4)
// table's type; (5) out's type; (6) a packed table's width is whole blocks;
// (7) all three contiguous; (8) all three on one device. The call then goes
// to the default registry's providers for the table's tier
// (OpEmbeddingFloat or OpEmbeddingQuant) on the table's device kind, which
// check, in the order of docs/row.md (see CheckRequest): an empty request
// (no ids or zero width) returns nil at once; a non-empty request on vocab
// 0 is refused; the byte sizes must not overflow int64 (and on the host,
// Data must hold them); every id must be in [0, vocab) (see CheckIDs).
//
// After a refused call out is untouched when the tensors are on the host:
// every check, the ids' included, runs before a row is written. A GPU
// provider that meets a bad id may have written the rows at valid
// positions; it documents what out holds (package hipkern does).
func Embedding(out, table, ids *Tensor) error { return registry.Embedding(out, table, ids) }

// CheckArgs is Embedding's structural validation, steps 1-8 in the order
// Embedding documents, each failure its own error prefixed "gather:
// Embedding: " and naming the argument. It allocates nothing unless it
// fails. Every provider runs it first (a provider may be called directly,
// not only through Embedding), so a provider refuses what Embedding
// refuses, with the same error, before it declines anything.
func CheckArgs(out, table, ids *Tensor) error {
	args := [...]struct {
		name string
		t    *Tensor
		rank int
		want string
	}{
		{"table", table, 2, "2-D [vocab, hidden]"},
		{"ids", ids, 1, "1-D"},
		{"out", out, 2, "2-D [len(ids), hidden]"},
	}
	for _, a := range args {
		if a.t == nil {
			return fmt.Errorf("gather: Embedding: %s is nil", a.name)
		}
	}
	// (1) ranks, then dimensions
	for _, a := range args {
		if a.t.Rank() != a.rank {
			return fmt.Errorf("gather: Embedding: %s must be %s, has rank %d", a.name, a.want, a.t.Rank())
		}
	}
	for _, a := range args {
		for _, d := range a.t.Shape {
			if d < 0 {
				return fmt.Errorf("gather: Embedding: %s shape %v has a negative dimension", a.name, a.t.Shape)
			}
		}
	}
	// (2) out is [len(ids), hidden]
	if out.Shape[0] != ids.Shape[0] || out.Shape[1] != table.Shape[1] {
		return fmt.Errorf("gather: Embedding: out shape %v is not [len(ids), hidden] = [%d %d]",
			out.Shape, ids.Shape[0], table.Shape[1])
	}
	// (3) ids
	if ids.Type != gguf.TypeI32 && ids.Type != gguf.TypeI64 {
		return fmt.Errorf("gather: Embedding: ids type %v is not I32 or I64", ids.Type)
	}
	// (4) table
	if !table.Type.IsFloat() && !isAdmitted(table.Type) {
		return fmt.Errorf("gather: Embedding: table type %v is not admitted", table.Type)
	}
	// (5) out
	if out.Type != gguf.TypeF32 && out.Type != gguf.TypeBF16 {
		return fmt.Errorf("gather: Embedding: out type %v is not F32 or BF16", out.Type)
	}
	// (6) whole blocks (a type without traits cannot have any)
	if tr, ok := gguf.FindGgmlTraits(table.Type); !ok || table.Shape[1]%int64(tr.BlockElems) != 0 {
		return fmt.Errorf("gather: Embedding: table width %d is not whole %v blocks of %d",
			table.Shape[1], table.Type, tr.BlockElems)
	}
	// (7) contiguous
	for _, a := range args {
		if !a.t.Contiguous() {
			return fmt.Errorf("gather: Embedding: %s is not contiguous (shape %v, strides %v)", a.name, a.t.Shape, a.t.Strides)
		}
	}
	// (8) one device
	for _, a := range args {
		if a.t.Device.Kind == "" {
			return fmt.Errorf("gather: Embedding: %s has no device (empty Device.Kind)", a.name)
		}
	}
	if table.Device != ids.Device || table.Device != out.Device {
		return fmt.Errorf("gather: Embedding: tensors on different devices: table %v, ids %v, out %v",
			table.Device, ids.Device, out.Device)
	}
	return nil
}

// CheckRequest runs the checks every provider makes after CheckArgs (which
// must have passed), in the order of docs/row.md. An empty request (no ids,
// or zero width) reports empty and no error, before any other check: the
// provider then returns nil at once, whatever the vocab, the ids or the
// data. Otherwise it refuses a table with no rows (vocab 0), then a byte
// size that overflows int64, in the order out (len(ids)*hidden elements),
// table (vocab*rowBytes), ids. The ids themselves are checked next, by the
// provider (CheckIDs on the host). It allocates nothing unless it fails.
func CheckRequest(out, table, ids *Tensor) (empty bool, err error) {
	n, vocab, hidden := ids.Shape[0], table.Shape[0], table.Shape[1]
	if n == 0 || hidden == 0 {
		return true, nil
	}
	if vocab == 0 {
		return false, fmt.Errorf("gather: Embedding: table has no rows (vocab 0), %d ids requested", n)
	}
	for _, a := range [...]struct {
		name string
		t    *Tensor
	}{{"out", out}, {"table", table}, {"ids", ids}} {
		if _, err := a.t.Bytes(); err != nil {
			return false, fmt.Errorf("gather: Embedding: %s: %w", a.name, err)
		}
	}
	return false, nil
}

// hostData checks that each host tensor's Data holds its bytes, in the
// order out, table, ids. It runs after CheckRequest, which bounded the
// sizes, and before the ids are read: ids that overflow number at least
// 2^60, so checking Data first would hide that overflow behind a short out.
func hostData(out, table, ids *Tensor) error {
	for _, a := range [...]struct {
		name string
		t    *Tensor
	}{{"out", out}, {"table", table}, {"ids", ids}} {
		n, _ := a.t.Bytes() // CheckRequest found no error
		if int64(len(a.t.Data)) < n {
			return fmt.Errorf("gather: Embedding: %s data holds %d bytes, its shape %v of %v needs %d",
				a.name, len(a.t.Data), a.t.Shape, a.t.Type, n)
		}
	}
	return nil
}

// IDRangeError reports an id outside [0, Vocab) at position Pos of ids.
type IDRangeError struct {
	Pos, Value, Vocab int64
}

func (e *IDRangeError) Error() string {
	return fmt.Sprintf("gather: ids[%d] = %d out of range [0, %d)", e.Pos, e.Value, e.Vocab)
}

// IDError returns the error for the bad id value at position pos, e.g.
// "gather: ids[3] = 4294967297 out of range [0, 128)". Every provider
// reports bad ids with it, so all devices agree on the message.
func IDError(pos, value, vocab int64) error {
	return &IDRangeError{Pos: pos, Value: value, Vocab: vocab}
}

// CheckIDs checks 0 <= id < vocab for every id and reports the first bad
// position with IDError.
func CheckIDs(ids []int64, vocab int64) error {
	return checkIDs(int64(len(ids)), vocab, func(i int64) int64 { return ids[i] })
}

// checkIDs checks the n ids that at returns, in order, as int64.
func checkIDs(n, vocab int64, at func(int64) int64) error {
	for i := range n {
		if id := at(i); id < 0 || id >= vocab {
			return IDError(i, id, vocab)
		}
	}
	return nil
}
