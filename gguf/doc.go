// Package gguf owns the GGUF v3 file format as bytes: the GGML type ids and
// their block geometry (the trait table), a reader that maps a file and
// refuses every malformed input with an error naming what was wrong, a
// deterministic builder, and the residency policy that decides whether the
// loader keeps a tensor in its packed blocks or expands it.
//
// gguf knows nothing about decoding blocks (that is package gather) and never
// names a device: residency decisions are made from Capabilities the caller
// supplies.
//
// # Reading
//
// Parse reads a file held in memory; Open maps one read-only (syscall.Mmap
// on unix, reading into memory elsewhere or where mapping fails) and parses
// it. Versions 2 and 3 are read (they share one layout); version 1 and
// big-endian (byte-swapped) files are refused. Every refusal is a
// *FormatError naming the file, the key or tensor, the field at fault (by
// the name it has in the message: "tensor count", "key length", "array
// length", "dim count", "dim 2", "tensor offset", ...), its byte offset, and
// the fault; errors.Is matches ErrFormat, and ErrTruncated or
// ErrUnknownType where they apply. No length, count, dim or offset is ever
// added to or multiplied by another before it is checked, so the values
// 2^63-1, 2^63 and 2^64-1 and values whose sum or product with another field
// wraps past 2^64 are refused like any other lie (TestParseBoundaries).
//
// Decisions where the format leaves room:
//   - Keys and tensor names must not be empty. Strings are taken as bytes;
//     their UTF-8 is not checked.
//   - A bool other than 0 or 1 is refused, not read as true.
//   - general.alignment must be a uint32 power of two.
//   - A tensor has 1 to 4 dims. A zero dim is allowed (the tensor is empty),
//     but the product of the dims, with zeros counted as one, must fit in an
//     int64, so Elements and Rows never overflow.
//   - Tensor data may be placed anywhere in the data section at an aligned
//     offset; tensors are not required to be contiguous or in order, and
//     overlap is not checked (the data is read-only).
//   - Every count and length is checked against the bytes that remain before
//     anything is allocated for it, so a lying count costs nothing. Parse's
//     allocations are linear in the file size, at most 17 bytes per input
//     byte (TestParseAllocationBound), but not below it: Meta's contract
//     returns arrays as []any, and a one-byte array element costs a 16-byte
//     interface however it is stored; a tensor info costs about 80 bytes of
//     TensorInfo against its 33 or more bytes in the file. "No allocation
//     larger than the file" therefore holds up to that constant factor,
//     which is the strongest form the API allows.
//
// # Building
//
// Builder writes GGUF v3: metadata in the order added, tensor infos and data
// in the order added, each tensor at the next multiple of the alignment,
// zero padding, and the file padded to a multiple of the alignment. An empty
// []any is written as an empty uint8 array (it reads back as an empty []any
// either way). AddMeta and AddTensor refuse what Parse would refuse, with
// the same wording for the field at fault, and their refusals match
// ErrFormat under errors.Is (TestBuilderBoundaries).
//
// # Residency
//
// Route and OwnQuantBlocks apply one rule: an EmbeddingTable stays packed
// iff the device can gather its type, a MatrixWeight (the default role) iff
// the device has a dot for its type. Float types follow the same rule. A
// repack (rows interleaved in groups of 4) is applied only to matrices whose
// device wants it; a matrix that is not 2-D with a row count that is a
// multiple of 4 is refused rather than left unrepacked, so a device that asks
// for the layout always gets it.
package gguf
