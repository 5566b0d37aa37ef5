package hipkern

import (
	"encoding/binary"
	"fmt"

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

// Embedding gathers on the GPU that holds the tensors. It validates as
// every provider does (gather.CheckArgs, so a direct call refuses what
// gather.Embedding refuses, with the same error), declines tensors that
// are not on a GPU and table types it does not support, then runs
// gather.CheckRequest (an empty request returns at once, with no
// allocation and no launch; vocab 0 and sizes that overflow int64 are
// refused), checks what only the GPU has (the device ordinal, the device
// addresses) and launches. The kernel checks every id; the smallest bad
// position comes back from its error record, and its value is read back
// from the ids to name it.
func (p *provider) Embedding(out, table, ids *gather.Tensor) error {
	if err := gather.CheckArgs(out, table, ids); err != nil {
		return err
	}
	dev := table.Device // CheckArgs: ids and out are on it too
	if dev.Kind != gather.GPU {
		return fmt.Errorf("hipkern: %s: tensors on %v, not a GPU: %w", p.name, dev, gather.ErrDeclined)
	}
	if !p.Supports(table.Type) {
		return fmt.Errorf("hipkern: %s: %v tables: %w", p.name, table.Type, gather.ErrDeclined)
	}
	if empty, err := gather.CheckRequest(out, table, ids); empty || err != nil {
		return err
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
	n, vocab, hidden := ids.Shape[0], table.Shape[0], table.Shape[1]
	bad, err := p.lib.gather(gatherCall{
		dev: dev.Ordinal, tableType: int(table.Type), table: uint64(table.DevPtr), vocab: vocab, hidden: hidden,
		ids: uint64(ids.DevPtr), idBytes: idBytes, nIDs: n, out: uint64(out.DevPtr), outBF16: out.Type == gguf.TypeBF16,
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
