package gather

import (
	"encoding/binary"

	"gathermut/gguf"
)

// Arguments for the package's internal tests: host tensors, ids, out
// buffers. The random tables, the reference gather and the refusal table
// are package gathertest's, which the external tests (package gather_test)
// use.

// idBytes encodes ids as I32 or I64 little-endian.
func idBytes(ids []int64, t gguf.Type) []byte {
	var b []byte
	for _, id := range ids {
		if t == gguf.TypeI64 {
			b = binary.LittleEndian.AppendUint64(b, uint64(id))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(id)))
		}
	}
	return b
}

// atOffset returns b copied into a fresh buffer at byte offset off, and the
// buffer: the copy is deliberately misaligned when off is not 0.
func atOffset(b []byte, off int) (data, buf []byte) {
	buf = make([]byte, off+len(b))
	copy(buf[off:], b)
	return buf[off:], buf
}

// hostTensor builds a CPU tensor without NewHostTensor's exact-size check.
func hostTensor(t gguf.Type, data []byte, shape ...int64) *Tensor {
	return &Tensor{Type: t, Shape: shape, Device: Host, Data: data}
}

// outSize is the size of an out tensor of n rows of hidden elements.
func outSize(n, hidden int, bf16 bool) int {
	if bf16 {
		return 2 * n * hidden
	}
	return 4 * n * hidden
}

// outType is F32 or BF16.
func outType(bf16 bool) gguf.Type {
	if bf16 {
		return gguf.TypeBF16
	}
	return gguf.TypeF32
}
