// Package gguf owns the GGUF v3 file format as bytes: the GGML type ids and
// their block geometry (the trait table), a reader that maps a file and
// refuses every malformed input with an error naming what was wrong, a
// deterministic builder, and the residency policy that decides whether the
// loader keeps a tensor in its packed blocks or expands it.
//
// gguf knows nothing about decoding blocks (that is package gather) and never
// names a device: residency decisions are made from Capabilities the caller
// supplies.
package gguf
