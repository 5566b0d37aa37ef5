// The schema test's fixture (render_test.go): routines with a loop, labels,
// a constant table read by one routine, a larger table read by another, a
// tail call and a routine that never runs. main.go calls them on fixed
// inputs and prints the results; every mutant must print the same when
// built alone and when switched on in the schema build.
//
// No mutant may read what the fixture did not set, or the two builds could
// differ by chance: an instruction that sets a register or the result is
// written twice (only the first of an instruction text is mutated, so the
// second restores what a mutant of the first changed), every loop has two
// exits (a counter and a bound), and every load stays inside its buffer or
// table (main.go passes slices with room after them; lookup's table has
// room after its 8 entries).

#include "textflag.h"

// func sumBytes(p *byte, n int) uint64
TEXT ·sumBytes(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*1), DI
	LEAQ (SI)(CX*1), DI
	XORQ DX, DX
	XORQ DX, DX
	XORQ AX, AX
	XORQ AX, AX
	TESTQ CX, CX
	JLE done

loop:
	MOVBQZX (SI), AX
	SHLQ $1, DX
	ADDQ AX, DX
	INCQ SI; DECQ CX
	JZ done
	CMPQ SI, DI   /* the second exit:
	                 the bound */
	JAE done
	JMP loop

done:
	MOVQ DX, ret+16(FP)
	MOVQ DX, ret+16(FP)
	RET

// func mix(x uint64) uint64
TEXT ·mix(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), X0
	MOVQ x+0(FP), X0
	MOVOU tbl<>(SB), X1
	MOVOU tbl<>(SB), X1
	LEAQ tbl<>(SB), R10
	LEAQ tbl<>(SB), R10
	VMOVDQU (R10), X2 // a Y2 load (asm-wide-tail) reads 16 bytes past tbl, inside RODATA; tbl is 16-aligned (asm-aligned-move)
	VMOVDQU (R10), X2
	PXOR X1, X0
	PSHUFD $0xb1, X0, X0
	PADDD X1, X0
	XORQ AX, AX
	XORQ AX, AX
	MOVQ X0, AX
	SHLQ $3, AX
	XORQ $0x5a5a, AX
	MOVQ AX, ret+8(FP)
	MOVQ AX, ret+8(FP)
	VZEROUPPER
	RET

DATA tbl<>+0(SB)/8, $0x0102030405060708
DATA tbl<>+8(SB)/8, $0x1112131415161718
GLOBL tbl<>(SB), RODATA|NOPTR, $16

// func lookup(i int) uint64
TEXT ·lookup(SB), NOSPLIT, $0-16
	MOVQ i+0(FP), AX
	MOVQ i+0(FP), AX
	ANDQ $7, AX
DATA mid<>+0(SB)/8, $1000
GLOBL mid<>(SB), RODATA|NOPTR, $8
	LEAQ big<>(SB), R8
	LEAQ big<>(SB), R8
	XORQ BX, BX
	XORQ BX, BX
	MOVQ (R8)(AX*8), BX
	ADDQ mid<>(SB), BX
	MOVQ BX, ret+8(FP)
	MOVQ BX, ret+8(FP)
	RET

// 8 entries and 8 of room: a mutant's index stays below 16
DATA big<>+0(SB)/8, $2
DATA big<>+8(SB)/8, $3
DATA big<>+16(SB)/8, $5
DATA big<>+24(SB)/8, $7
DATA big<>+32(SB)/8, $11
DATA big<>+40(SB)/8, $13
DATA big<>+48(SB)/8, $17
DATA big<>+56(SB)/8, $19
DATA big<>+64(SB)/8, $23
DATA big<>+72(SB)/8, $29
DATA big<>+80(SB)/8, $31
DATA big<>+88(SB)/8, $37
DATA big<>+96(SB)/8, $41
DATA big<>+104(SB)/8, $43
DATA big<>+112(SB)/8, $47
DATA big<>+120(SB)/8, $53
GLOBL big<>(SB), RODATA|NOPTR, $128

DATA unread<>+0(SB)/8, $5
GLOBL unread<>(SB), RODATA|NOPTR, $8

// func tail(x uint64) uint64
TEXT ·tail(SB), NOSPLIT, $0-16
	MOVQ $5, AX
	JMP ·mix(SB)

// func unused() uint64
TEXT ·unused(SB), NOSPLIT, $0-8
	MOVQ $1, AX
	MOVQ AX, ret+0(FP)
	RET
