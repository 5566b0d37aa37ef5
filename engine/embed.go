package engine

import (
	"encoding/binary"
	"errors"
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// embedder is the embed step of one CompleteTokens call: device tensors for
// up to n ids and their bf16 rows, and host staging for both.
type embedder struct {
	e       *Engine
	ids     gather.Tensor // I32 [n]
	rows    gather.Tensor // BF16 [n, hidden]
	idsHost []byte
	rowHost []byte
}

// newEmbedder allocates the embed step's tensors for up to n ids, each of
// exactly the bytes n ids and their rows take, and host staging of the same
// sizes.
func (e *Engine) newEmbedder(n int) (*embedder, error) {
	hidden := e.model.hp.hidden
	idBytes, rowBytes := 4*n, 2*n*hidden
	ids, err := e.mem.alloc(gguf.TypeI32, []int64{int64(n)}, idBytes)
	if err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	rows, err := e.mem.alloc(gguf.TypeBF16, []int64{int64(n), int64(hidden)}, rowBytes)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("engine: embed: %w", err), e.mem.free(&ids))
	}
	return &embedder{e: e, ids: ids, rows: rows, idsHost: make([]byte, idBytes), rowHost: make([]byte, rowBytes)}, nil
}

func (b *embedder) release() error {
	return errors.Join(b.e.mem.free(&b.ids), b.e.mem.free(&b.rows))
}

// embed looks the tokens up in the resident table with the Embedding
// operation (I32 ids, BF16 out) and widens the rows exactly to float32 for
// the residual stream. This is the engine's only gather.
func (b *embedder) embed(tokens []int32) ([][]float32, error) {
	e, n, hidden := b.e, len(tokens), b.e.model.hp.hidden
	for i, id := range tokens {
		binary.LittleEndian.PutUint32(b.idsHost[4*i:], uint32(id))
	}
	ids := leadingRows(b.ids, int64(n), 4)
	if err := e.mem.write(&ids, b.idsHost[:4*n]); err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	out := leadingRows(b.rows, int64(n), 2*hidden)
	// The call is a statement of its own, so that the catalog can delete exactly it (docs/row.md class 2).
	//lint:ignore S1021 merged into one statement, the call could not be deleted on its own
	var err error
	err = gather.Embedding(&out, &e.table, &ids)
	if err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	if err := e.mem.read(b.rowHost[:2*n*hidden], &out); err != nil {
		return nil, fmt.Errorf("engine: embed: %w", err)
	}
	x := make([][]float32, n)
	for t := range x {
		x[t] = make([]float32, hidden)
		for i := range x[t] {
			x[t][i] = gather.BF16ToF32(binary.LittleEndian.Uint16(b.rowHost[2*(t*hidden+i):]))
		}
	}
	return x, nil
}
