package engine

import (
	"fmt"

	"gathermut/gguf"
)

// tensorSpec is one tensor a llama model of given hyperparameters must hold:
// its GGUF name, its GGUF dims (dims[0] is the row width) and the role the
// residency policy routes it with.
type tensorSpec struct {
	name string
	dims []uint64
	role gguf.Role
}

const embeddingTensor = "token_embd.weight"

// tensorSpecs lists the model's tensors in file order. Only the token
// embedding is an EmbeddingTable; everything else, norm gains included, is a
// MatrixWeight (the default role).
func (hp hparams) tensorSpecs() []tensorSpec {
	h, v := uint64(hp.hidden), uint64(hp.vocab)
	q, kv, ffn := uint64(hp.qDim()), uint64(hp.kvDim()), uint64(hp.ffn)
	specs := []tensorSpec{{embeddingTensor, []uint64{h, v}, gguf.EmbeddingTable}}
	for l := range hp.layers {
		p := fmt.Sprintf("blk.%d.", l)
		specs = append(specs,
			tensorSpec{p + "attn_norm.weight", []uint64{h}, gguf.MatrixWeight},
			tensorSpec{p + "attn_q.weight", []uint64{h, q}, gguf.MatrixWeight},
			tensorSpec{p + "attn_k.weight", []uint64{h, kv}, gguf.MatrixWeight},
			tensorSpec{p + "attn_v.weight", []uint64{h, kv}, gguf.MatrixWeight},
			tensorSpec{p + "attn_output.weight", []uint64{q, h}, gguf.MatrixWeight},
			tensorSpec{p + "ffn_norm.weight", []uint64{h}, gguf.MatrixWeight},
			tensorSpec{p + "ffn_gate.weight", []uint64{h, ffn}, gguf.MatrixWeight},
			tensorSpec{p + "ffn_up.weight", []uint64{h, ffn}, gguf.MatrixWeight},
			tensorSpec{p + "ffn_down.weight", []uint64{ffn, h}, gguf.MatrixWeight},
		)
	}
	return append(specs,
		tensorSpec{"output_norm.weight", []uint64{h}, gguf.MatrixWeight},
		tensorSpec{"output.weight", []uint64{h, v}, gguf.MatrixWeight},
	)
}
