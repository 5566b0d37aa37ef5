package engine

import (
	"encoding/binary"
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// embedder is the embed step of one CompleteTokens call: device buffers for
// up to n ids and their bf16 rows, and host staging for both.
type embedder struct {
	e       *Engine
	ids     buffer
	rows    buffer
	idsHost []byte
	rowHost []byte
}

func (e *Engine) newEmbedder(n int) (*embedder, error) {
	hidden := e.model.hp.hidden
	ids, err := e.mem.alloc(4 * n)
	if err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	rows, err := e.mem.alloc(2 * n * hidden)
	if err != nil {
		e.mem.free(ids)
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	return &embedder{e: e, ids: ids, rows: rows, idsHost: make([]byte, 4*n), rowHost: make([]byte, 2*n*hidden)}, nil
}

func (b *embedder) release() {
	b.e.mem.free(b.ids)
	b.e.mem.free(b.rows)
}

// embed looks the ids up in the resident table with the Embedding operation
// (int32 ids, bf16 out) and widens the rows to float32 for the residual
// stream. This is the engine's only gather.
func (b *embedder) embed(tokens []int32) ([][]float32, error) {
	e, n, hidden := b.e, len(tokens), b.e.model.hp.hidden
	dev := e.mem.device()
	for i, id := range tokens {
		binary.LittleEndian.PutUint32(b.idsHost[4*i:], uint32(id))
	}
	if err := e.mem.copyIn(b.ids, b.idsHost[:4*n]); err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	ids := b.ids.tensor(dev, gguf.TypeI32, 4*n, int64(n))
	out := b.rows.tensor(dev, gguf.TypeBF16, 2*n*hidden, int64(n), int64(hidden))
	// The call stands alone as an assignment so that the mutation catalog can
	// delete exactly it (ROW.md class 2).
	var err error
	err = gather.Embedding(&out, &e.table, &ids)
	if err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	if err := e.mem.copyOut(b.rowHost[:2*n*hidden], b.rows); err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	x := make([][]float32, n)
	for t := range x {
		x[t] = make([]float32, hidden)
		for i := range x[t] {
			x[t][i] = bf16ToF32(binary.LittleEndian.Uint16(b.rowHost[2*(t*hidden+i):]))
		}
	}
	return x, nil
}
