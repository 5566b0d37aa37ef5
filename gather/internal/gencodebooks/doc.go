// Command gencodebooks turns the plain-data GGML lookup tables in
// testdata/codebooks into the two forms the row compiles: gather/codebooks.go
// (Go arrays for the CPU decoders) and hipkern/codebooks.h (device arrays for
// the kernel's decoders). Both come from one list of tables and one parse of
// each file, so the CPU and the GPU cannot hold different values.
//
// Usage, from the module root (these are the defaults):
//
//	go run ./gather/internal/gencodebooks -dir testdata/codebooks -go gather/codebooks.go -header hipkern/codebooks.h
//
// go generate in gather runs it with the same paths seen from there
// (gather/dequant.go holds its go:generate line).
//
// It refuses, naming the file and line, and writes nothing when:
//   - a file is missing or holds more or fewer values than its table has
//     entries (one value a line, every line ended by a newline);
//   - a grid value is not 0x followed by exactly the element's width of
//     lowercase hex digits (16 for the uint64 grids, 8 for the uint32
//     ones), or a byte-table value is not a decimal integer in its type's
//     range;
//   - iq1s_delta.txt or iq1m_delta.txt is not a single finite float32, or
//     the two differ: ggml's CPU IQ1_M decoder uses IQ1S_DELTA, so the row
//     keeps one constant for IQ1_S, IQ1_M and IQ1_XXXS, which is right only
//     while the two agree.
//
// Both outputs record the sha256 of every source file they were made from.
// The build and the tests never run the command: both outputs are
// committed, and TestCommittedOutputs requires them to be exactly what the
// committed tables generate. docs/codebooks.md says where the tables come
// from; testdata/codebooks/README.md describes the files.
package main
