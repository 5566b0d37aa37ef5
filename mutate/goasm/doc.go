// Package goasm reads Go assembly (the syntax of cmd/asm, as in
// gather/decode_amd64.s) and makes mutants of its routines, and renders
// the assembly part of a package's mutant schema.
//
// # Reading
//
// Parse works line by line: comments (// and /* */, which may span lines)
// and preprocessor lines (#include, #define with continuations, #ifdef ...)
// are skipped, a comment counting as whitespace (it may sit inside a
// statement); statements are split at newlines and at semicolons outside
// parentheses and quotes; a statement is optional labels ("name:"), an
// opcode and operands split at commas outside parentheses, brackets and
// quotes (DATA ..., $"a,b"). TEXT starts a routine, which runs to its last
// instruction before the next TEXT; DATA and GLOBL lines are data, not
// part of a routine's body (their Routine is ""), even between its
// instructions. Operands that name a label of their routine are marked, so
// a copy of the routine can rename them. Errors name the line.
//
// # Operators
//
// The classes that make real SIMD bugs (Operators): asm-arith (an
// instruction replaced by its twin: ADD and SUB, MUL to ADD, AND and OR,
// XOR to AND, SHL and SHR, sign extension to zero extension (not the
// reverse: zero-extending a value below 128, which most widened nibbles
// and codes are, equals sign-extending it), MIN and MAX),
// asm-shuffle (the low bit of a shuffle, permute, blend, insert or extract
// selector), asm-shift-count (an immediate shift count +-1 within the
// lane width), asm-const (any other immediate +-1: strides, masks, loop
// bounds, CPUID leaves), asm-data (a constant table's value +1: every
// entry of a mask or control vector of up to 32 bytes, the first, middle
// and last entry of a larger lookup table, nothing of a symbol no routine
// reads; the size is the end of the symbol's last DATA entry), asm-disp (a
// register-based load or store one byte off; argument slots (FP) and
// symbols (SB) are left alone), asm-branch (a conditional jump or SETcc
// inverted), asm-boundary (its boundary moved: JB and JBE, JL and JLE,
// ...) and asm-drop (an instruction deleted; never RET, a directive,
// VZEROUPPER, which is asm-drop-vzeroupper's, or a routine's final JMP,
// which would run off its end). Three more model the row's SIMD memory
// faults (issue 36): asm-aligned-move (an unaligned vector move with a
// memory operand made aligned: VMOVUPS to VMOVAPS, VMOVDQU to VMOVDQA,
// MOVUPS to MOVAPS, MOVOU to MOVOA; it faults on an output or input that
// is not 16/32-byte aligned, so only a test at every byte offset kills
// it; made once per routine, mnemonic, base registers and displacement
// modulo 32, since two such moves fault on the same inputs),
// asm-wide-tail (a load from memory widened to the next size: VMOVD to
// VMOVQ, VMOVQ to VMOVDQU, a 16-byte X load to its 32-byte Y form; the
// extra bytes are usually never used, so only an input whose last block
// ends at a guard page kills it) and asm-drop-vzeroupper (VZEROUPPER
// deleted: the dirty upper YMM state changes no result, only the speed of
// SSE code after the routine; a test that reads XINUSE (XGETBV with ECX
// 1, bit 2) after a decoder returns kills it). All three are in the
// default set: the row's decoders have these faults' shapes (59, 20 and
// 27 mutants on gather/decode_amd64.s). Every mnemonic an operator writes is
// one Go's assembler knows (SSE's 32-bit lanes are L: PADDL and PSUBL).
// PCALIGN, NOP, NO_LOCAL_POINTERS and PREFETCH* get no mutants: a changed
// alignment does not assemble, and the others change no result.
//
// Generated code unrolls its loops: the same instruction text appears
// many times in a routine and each copy breaks the same way under the same
// tests. So by default only the first occurrence of an instruction text in
// a routine is mutated (Options.Repeats keeps them all), and
// Options.PerClass keeps at most that many mutants of each operator in each
// routine, spread evenly over it. Every routine still gets every class
// that applies to it; the tool's setting is in mutate/doc.go. The DATA
// mutants are not sampled: they belong to no routine, and their own rule
// bounds them per symbol.
//
// # The assembly schema
//
// A Go schema switches expressions; assembly has no expressions to wrap,
// and a compare-and-branch in the middle of a routine would clobber the
// flags a loop counter left for its jump. So Render switches whole
// routines: at the entry of each routine that holds a mutant (where no
// register or flag is live: ABI0 passes arguments on the stack) it marks
// the routine's coverage site in the package's hits (the Go schema's
// []byte, whose first word is its data pointer; skipped while it is still
// nil during package initialization) and compares the running mutant
// (the Go schema's int) with each of the routine's mutants, jumping to a
// copy of the body with that mutant made and its labels renamed. The
// original body follows the dispatch unchanged, so a process that runs no
// mutant of the routine runs it as written. A DATA mutant gets a renamed
// copy of its symbol with the changed value, and a variant of each routine
// that reads the symbol. A routine whose last instruction is not RET or
// JMP is refused (a copy after it would run on), as is a routine of the
// register ABI (<ABIInternal>: the dispatch's scratch register R11 carries
// an argument there). DATA and GLOBL lines between a routine's
// instructions stay in the original body only (a copy's would define the
// symbol twice).
//
// The Go side must initialize the switch before any package variable whose
// initializer calls a routine (the CPU feature check runs at
// initialization): the schema's support file is named so that it sorts
// first among the package's files, and Go initializes package variables in
// file order where no dependency says otherwise.
package goasm
