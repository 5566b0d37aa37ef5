package gguf

import (
	"fmt"
	"strconv"
)

// Role is what the loader uses a tensor for. The zero value, MatrixWeight,
// is the default: a tensor is a matrix unless the loader says otherwise.
type Role int

const (
	MatrixWeight   Role = iota // multiplied by activations: needs a dot/matmul for its type to stay packed
	EmbeddingTable             // rows selected by token id: needs a gather for its type to stay packed
)

func (r Role) String() string {
	switch r {
	case MatrixWeight:
		return "MatrixWeight"
	case EmbeddingTable:
		return "EmbeddingTable"
	}
	return "Role(" + strconv.Itoa(int(r)) + ")"
}

// Capabilities says what the target device can do with packed tensors of a
// type. The caller implements it from whatever it has registered; this
// package never names a device.
type Capabilities interface {
	CanGather(t Type) bool   // the device has an embedding gather for tables of type t
	CanDot(t Type) bool      // the device has a (quantized) dot/matmul for matrices of type t
	WantsRepack(t Type) bool // the device wants matrices of type t repacked (rows interleaved)
}

// Residency is how the loader holds a tensor.
type Residency int

const (
	KeepPacked Residency = iota + 1 // kept in its blocks: borrowed from the file or copied once, never expanded
	Expand                          // decoded once at load
)

func (r Residency) String() string {
	switch r {
	case KeepPacked:
		return "KeepPacked"
	case Expand:
		return "Expand"
	}
	return "Residency(" + strconv.Itoa(int(r)) + ")"
}

// noCapabilities stands in for a nil Capabilities: nothing stays packed.
type noCapabilities struct{}

func (noCapabilities) CanGather(Type) bool   { return false }
func (noCapabilities) CanDot(Type) bool      { return false }
func (noCapabilities) WantsRepack(Type) bool { return false }

// Route decides the residency of a tensor and says why. An embedding table
// stays packed iff the device gathers its type; a matrix (the default role)
// iff the device has a dot for its type; anything else is expanded. A nil
// caps has no capabilities.
func Route(info TensorInfo, role Role, caps Capabilities) (Residency, string) {
	if caps == nil {
		caps = noCapabilities{}
	}
	switch role {
	case EmbeddingTable:
		if caps.CanGather(info.Type) {
			return KeepPacked, fmt.Sprintf("embedding table: device gathers %s", info.Type)
		}
		return Expand, fmt.Sprintf("embedding table: no gather capability for %s", info.Type)
	case MatrixWeight:
		return routeMatrix(info, caps)
	}
	return Expand, fmt.Sprintf("%s: unknown role, expanded", role)
}

// routeMatrix is Route for the matrix role. It lives apart so that Route
// holds exactly one KeepPacked return, the embedding one.
func routeMatrix(info TensorInfo, caps Capabilities) (Residency, string) {
	if caps.CanDot(info.Type) {
		return KeepPacked, fmt.Sprintf("matrix: device has a dot for %s", info.Type)
	}
	return Expand, fmt.Sprintf("matrix: no dot capability for %s", info.Type)
}

// QuantBlocks is a tensor kept in its packed form.
type QuantBlocks struct {
	Type     Type
	Dims     []uint64
	Data     []byte // the packed blocks: borrowed from the file, or one copy when repacked
	Borrowed bool   // Data aliases the file mapping
	Repacked bool   // Data is the row-interleaved repack (matrix role only)
}

// repackRows is the number of rows a matrix repack interleaves.
const repackRows = 4

// OwnQuantBlocks takes a tensor's packed bytes for the residency KeepPacked.
// It never expands. A matrix (the default role) needs a dot capability for
// its type, an embedding table a gather capability; without it the tensor
// is refused (the loader expands it instead, as Route says). The bytes are
// borrowed from info.Data, except when the role is MatrixWeight and the
// device wants a repack: then they are copied once into the row-interleaved
// layout. An embedding table is never repacked. A repack needs a 2-D matrix
// whose row count is a multiple of 4; any other shape is refused, not left
// unrepacked, so that a device that asked for the layout always gets it.
func OwnQuantBlocks(info TensorInfo, role Role, caps Capabilities) (QuantBlocks, error) {
	if caps == nil {
		caps = noCapabilities{}
	}
	switch role {
	case EmbeddingTable:
		if !caps.CanGather(info.Type) {
			return QuantBlocks{}, fmt.Errorf("gguf: tensor %q: embedding table of %s: no gather capability, cannot keep it packed", info.Name, info.Type)
		}
	case MatrixWeight:
		if !caps.CanDot(info.Type) {
			return QuantBlocks{}, fmt.Errorf("gguf: tensor %q: matrix of %s: no dot capability, cannot keep it packed", info.Name, info.Type)
		}
	default:
		return QuantBlocks{}, fmt.Errorf("gguf: tensor %q: unknown role %d", info.Name, int(role))
	}
	size, err := tensorBytes(info.Type, info.Dims)
	if err != nil {
		return QuantBlocks{}, fmt.Errorf("gguf: tensor %q: %w", info.Name, err)
	}
	if uint64(len(info.Data)) != size {
		return QuantBlocks{}, fmt.Errorf("gguf: tensor %q: %d bytes of data, want %d for %s dims %v", info.Name, len(info.Data), size, info.Type, info.Dims)
	}
	qb := QuantBlocks{
		Type:     info.Type,
		Dims:     append([]uint64(nil), info.Dims...),
		Data:     info.Data,
		Borrowed: true,
	}
	if role == MatrixWeight && caps.WantsRepack(info.Type) {
		data, err := interleaveRows(info)
		if err != nil {
			return QuantBlocks{}, fmt.Errorf("gguf: tensor %q: repack: %w", info.Name, err)
		}
		qb.Data, qb.Borrowed, qb.Repacked = data, false, true
	}
	return qb, nil
}

// interleaveRows copies a 2-D matrix into the repacked layout: for each group
// of 4 rows r..r+3, block j of row r, block j of r+1, r+2, r+3, then block
// j+1 of each, and so on. info's shape and size have been checked.
func interleaveRows(info TensorInfo) ([]byte, error) {
	if len(info.Dims) != 2 {
		return nil, fmt.Errorf("needs a 2-D matrix, have %d dims", len(info.Dims))
	}
	rows := info.Dims[1]
	if rows%repackRows != 0 {
		return nil, fmt.Errorf("%d rows is not a multiple of %d", rows, repackRows)
	}
	tr, _ := FindGgmlTraits(info.Type)
	bb := uint64(tr.BlockBytes)
	blocks := info.Dims[0] / uint64(tr.BlockElems) // per row
	rowBytes := blocks * bb
	out := make([]byte, len(info.Data))
	dst := out
	for g := uint64(0); g < rows; g += repackRows {
		group := info.Data[g*rowBytes : (g+repackRows)*rowBytes]
		for j := range blocks {
			for k := range uint64(repackRows) {
				src := group[k*rowBytes+j*bb:]
				dst = dst[copy(dst, src[:bb]):]
			}
		}
	}
	return out, nil
}
