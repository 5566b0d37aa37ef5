package hipkern

import (
	"encoding/binary"
	"fmt"
	"math"

	"gathermut/gather"
	"gathermut/gguf"
)

// The GPU providers' names, as gather's statistics report them.
const (
	quantName = "hip.EmbeddingQuant"
	floatName = "hip.EmbeddingFloat"
)

// provider serves gather.Embedding for tensors on the GPU: the packed tier
// (quant) or the float tier, with the table types the library reports.
type provider struct {
	name    string
	lib     backend
	types   map[gguf.Type]bool
	devices int
}

// newProvider returns the packed-table (quant) or float-table provider of
// lib, supporting exactly the table types the library says it gathers in
// that tier. devices is how many GPUs the library sees.
func newProvider(lib backend, quant bool, devices int) *provider {
	all, nq := lib.tableTypes()
	tier := all[nq:]
	name := floatName
	if quant {
		tier, name = all[:nq], quantName
	}
	p := &provider{name: name, lib: lib, types: make(map[gguf.Type]bool), devices: devices}
	for _, t := range tier {
		p.types[gguf.Type(t)] = true
	}
	return p
}

func (p *provider) Name() string { return p.name }

func (p *provider) Supports(t gguf.Type) bool { return p.types[t] }

// Embedding gathers on the GPU that holds the tensors. It declines tensors
// that are not all on one GPU and table types it does not support; then, in
// ROW.md's order, it returns at once for an empty request (no allocation, no
// launch), refuses vocab 0 and sizes that overflow int64, and launches. The
// kernel checks every id; the smallest bad position comes back from its
// error record, and its value is read back from the ids to name it.
func (p *provider) Embedding(out, table, ids *gather.Tensor) error {
	if out == nil || table == nil || ids == nil {
		return fmt.Errorf("hipkern: %s: nil tensor", p.name)
	}
	dev := table.Device
	if dev.Kind != gather.GPU || ids.Device != dev || out.Device != dev {
		return fmt.Errorf("hipkern: %s: tensors on %v, %v, %v, not one GPU: %w", p.name, table.Device, ids.Device,
			out.Device, gather.ErrDeclined)
	}
	if !p.Supports(table.Type) {
		return fmt.Errorf("hipkern: %s: %v tables: %w", p.name, table.Type, gather.ErrDeclined)
	}
	if err := checkShapes(out, table, ids); err != nil {
		return fmt.Errorf("hipkern: %s: %w", p.name, err)
	}
	n, vocab, hidden := ids.Shape[0], table.Shape[0], table.Shape[1]
	if n == 0 || hidden == 0 {
		return nil
	}
	if vocab == 0 {
		return fmt.Errorf("hipkern: %s: table has no rows (vocab 0), %d ids requested", p.name, n)
	}
	rowBytes, err := gguf.RowSizeBytes(table.Type, hidden)
	if err != nil {
		return fmt.Errorf("hipkern: %s: table: %w", p.name, err)
	}
	outElem := int64(4)
	if out.Type == gguf.TypeBF16 {
		outElem = 2
	}
	if !fitsInt64(n, hidden, outElem) {
		return fmt.Errorf("hipkern: %s: out of %d x %d elements overflows int64 bytes", p.name, n, hidden)
	}
	if !fitsInt64(vocab, rowBytes) {
		return fmt.Errorf("hipkern: %s: table of %d rows x %d bytes overflows int64", p.name, vocab, rowBytes)
	}
	if dev.Ordinal < 0 || dev.Ordinal >= p.devices {
		return fmt.Errorf("hipkern: %s: device %v: the library sees %d GPUs", p.name, dev, p.devices)
	}
	for _, a := range []struct {
		name string
		t    *gather.Tensor
	}{{"table", table}, {"ids", ids}, {"out", out}} {
		if a.t.DevPtr == 0 {
			return fmt.Errorf("hipkern: %s: %s has no device address", p.name, a.name)
		}
	}
	idBytes := 4
	if ids.Type == gguf.TypeI64 {
		idBytes = 8
	}
	bad, err := p.lib.gather(gatherCall{
		dev: dev.Ordinal, tableType: int(table.Type), table: uint64(table.DevPtr), vocab: vocab, hidden: hidden,
		ids: uint64(ids.DevPtr), idBytes: idBytes, nIDs: n, out: uint64(out.DevPtr), outBF16: outElem == 2,
	})
	if err != nil {
		return fmt.Errorf("hipkern: %s: %w", p.name, err)
	}
	if bad < 0 {
		return nil
	}
	value, err := p.readID(dev.Ordinal, ids.DevPtr, idBytes, bad)
	if err != nil {
		return fmt.Errorf("hipkern: %s: ids[%d] is out of range; reading it back: %w", p.name, bad, err)
	}
	return gather.IDError(bad, value, vocab)
}

// readID copies ids[pos] back from the device, as int64 (an int32 id
// sign-extended).
func (p *provider) readID(dev int, ids uintptr, idBytes int, pos int64) (int64, error) {
	var b [8]byte
	if err := p.lib.copyOut(dev, b[:idBytes], uint64(ids)+uint64(pos)*uint64(idBytes)); err != nil {
		return 0, err
	}
	if idBytes == 8 {
		return int64(binary.LittleEndian.Uint64(b[:])), nil
	}
	return int64(int32(binary.LittleEndian.Uint32(b[:]))), nil
}

// checkShapes repeats the structural checks gather.Embedding makes, for a
// caller that reaches the provider directly: ranks, out's shape, no negative
// dimension, the ids and out types.
func checkShapes(out, table, ids *gather.Tensor) error {
	if len(table.Shape) != 2 || len(ids.Shape) != 1 || len(out.Shape) != 2 {
		return fmt.Errorf("ranks table %d, ids %d, out %d; want 2, 1, 2", len(table.Shape), len(ids.Shape), len(out.Shape))
	}
	if table.Shape[0] < 0 || table.Shape[1] < 0 || ids.Shape[0] < 0 {
		return fmt.Errorf("negative dimension: table %v, ids %v", table.Shape, ids.Shape)
	}
	if out.Shape[0] != ids.Shape[0] || out.Shape[1] != table.Shape[1] {
		return fmt.Errorf("out shape %v is not [len(ids), hidden] = [%d %d]", out.Shape, ids.Shape[0], table.Shape[1])
	}
	if ids.Type != gguf.TypeI32 && ids.Type != gguf.TypeI64 {
		return fmt.Errorf("ids type %v is not I32 or I64", ids.Type)
	}
	if out.Type != gguf.TypeF32 && out.Type != gguf.TypeBF16 {
		return fmt.Errorf("out type %v is not F32 or BF16", out.Type)
	}
	return nil
}

// fitsInt64 reports whether multiplying the non-negative factors in turn
// stays within an int64.
func fitsInt64(factors ...int64) bool {
	p := int64(1)
	for _, f := range factors {
		if f != 0 && p > math.MaxInt64/f {
			return false
		}
		p *= f
	}
	return true
}
