// Command gencodebooks writes what the kernel and the CPU decoders compile
// from the row's plain data. It turns the GGML lookup tables in
// testdata/codebooks into gather/codebooks.go (Go arrays for the CPU
// decoders) and hipkern/codebooks.h (device arrays for the kernel's
// decoders); both come from one list of tables and one parse of each file,
// so the CPU and the GPU cannot hold different values. And it reads
// gather's codec table (the codecTable rows of gather/codec.go, parsed as
// Go source, with gguf's traits for their geometry) and writes
// hipkern/codecs.h: for each admitted codec a GmGeom<NAME> struct with its
// type id, elements and bytes per block, which the device decoder
// Codec<NAME> in decoders.h derives from, and GM_ADMITTED_CODECS, the list
// gather.hip builds its launch table from. So the kernel's codec list and
// constants are never written by hand: admitting a codec in the table and
// regenerating adds it to the kernel, which then does not compile until
// decoders.h has its decoder. The table is read as source, not imported,
// so the command runs even while package gather does not compile (a new
// decoder waiting for a new codebook, say).
//
// Usage, from the module root (these are the defaults):
//
//	go run ./gather/internal/gencodebooks -dir testdata/codebooks -go gather/codebooks.go -header hipkern/codebooks.h \
//	    -codecs gather/codec.go -codecs-header hipkern/codecs.h
//
// go generate in gather runs it with the same paths seen from there, by
// the go:generate line of gather/dequant.go.
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
//     while the two agree;
//   - a row of the codec table is not written
//     codecRow(gguf.Type<NAME>, admittedCodec|extraCodec, ...) (method calls
//     on the result allowed), names a type gguf does not know, or repeats
//     one.
//
// The codebook outputs record the sha256 of every source file they were
// made from. The build and the tests never run the command: the outputs
// are committed, and TestCommittedOutputs requires them to be exactly what
// the committed tables and codec table generate. docs/codebooks.md says
// where the tables come from; testdata/codebooks/README.md describes the
// files.
package main
