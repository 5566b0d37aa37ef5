package goasm

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func mutantLines(t *testing.T, src string, opts Options) []string {
	t.Helper()
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mutants(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s %d %s: %s -> %s", m.Operator, m.Line, m.Routine, m.Original, m.Replacement))
		// the mutant's parts agree
		ins := f.Instrs[m.Instr]
		orig := src[ins.Start:ins.End]
		if m.Original != orig || m.Start < ins.Start || m.End > ins.End || m.Line != ins.Line {
			t.Errorf("%s: original %q, edit [%d, %d), line %d; statement %q [%d, %d) line %d", m.Operator, m.Original, m.Start, m.End, m.Line, orig, ins.Start, ins.End, ins.Line)
		}
		if want := strings.TrimSpace(src[ins.Start:m.Start] + m.Text + src[m.End:ins.End]); m.Replacement != want {
			t.Errorf("%s: replacement %q, want %q", m.Operator, m.Replacement, want)
		}
	}
	return out
}

const opsRoutine = `#include "textflag.h"

TEXT ·f(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	ADDQ $0x12, AX
	VMULPS Y0, Y2, Y2
	VPERMQ $0xd8, Y1, Y1
	VPSRLW $0x04, X1, X1
	SHLQ $63, BX
	VMOVUPS Y2, 32(CX)
	MOVQ (AX)(BX*8), DX
	MOVQ -8(DI), DX
	MOVQ c0F<>+8(SB), R8
	LEAQ ·table(SB), R9
	JNZ done
	JB done
	SETCS SI
	PREFETCHT0 64(SI)
	PCALIGN $32
	VZEROUPPER
	CMPQ AX, $-1
	MOVQ $0, DX
	MOVBQSX (SI), AX
done:
	RET
`

func TestMutantsPerOperator(t *testing.T) {
	got := mutantLines(t, opsRoutine, Options{})
	// in file order; at one offset, the opcode's mutants before the whole statement's
	want := []string{
		"asm-drop 4 ·f: MOVQ p+0(FP), SI -> ",
		"asm-arith 5 ·f: ADDQ $0x12, AX -> SUBQ $0x12, AX",
		"asm-drop 5 ·f: ADDQ $0x12, AX -> ",
		"asm-const 5 ·f: ADDQ $0x12, AX -> ADDQ $0x13, AX",
		"asm-const 5 ·f: ADDQ $0x12, AX -> ADDQ $0x11, AX",
		"asm-arith 6 ·f: VMULPS Y0, Y2, Y2 -> VADDPS Y0, Y2, Y2",
		"asm-drop 6 ·f: VMULPS Y0, Y2, Y2 -> ",
		"asm-drop 7 ·f: VPERMQ $0xd8, Y1, Y1 -> ",
		"asm-shuffle 7 ·f: VPERMQ $0xd8, Y1, Y1 -> VPERMQ $0xd9, Y1, Y1",
		"asm-arith 8 ·f: VPSRLW $0x04, X1, X1 -> VPSLLW $0x04, X1, X1",
		"asm-drop 8 ·f: VPSRLW $0x04, X1, X1 -> ",
		"asm-shift-count 8 ·f: VPSRLW $0x04, X1, X1 -> VPSRLW $0x05, X1, X1",
		"asm-shift-count 8 ·f: VPSRLW $0x04, X1, X1 -> VPSRLW $0x03, X1, X1",
		"asm-arith 9 ·f: SHLQ $63, BX -> SHRQ $63, BX",
		"asm-drop 9 ·f: SHLQ $63, BX -> ",
		"asm-shift-count 9 ·f: SHLQ $63, BX -> SHLQ $62, BX",
		"asm-drop 10 ·f: VMOVUPS Y2, 32(CX) -> ",
		"asm-aligned-move 10 ·f: VMOVUPS Y2, 32(CX) -> VMOVAPS Y2, 32(CX)",
		"asm-disp 10 ·f: VMOVUPS Y2, 32(CX) -> VMOVUPS Y2, 33(CX)",
		"asm-drop 11 ·f: MOVQ (AX)(BX*8), DX -> ",
		"asm-disp 11 ·f: MOVQ (AX)(BX*8), DX -> MOVQ 1(AX)(BX*8), DX",
		"asm-drop 12 ·f: MOVQ -8(DI), DX -> ",
		"asm-disp 12 ·f: MOVQ -8(DI), DX -> MOVQ -7(DI), DX",
		"asm-drop 13 ·f: MOVQ c0F<>+8(SB), R8 -> ",
		"asm-drop 14 ·f: LEAQ ·table(SB), R9 -> ",
		"asm-branch 15 ·f: JNZ done -> JZ done",
		"asm-drop 15 ·f: JNZ done -> ",
		"asm-branch 16 ·f: JB done -> JAE done",
		"asm-boundary 16 ·f: JB done -> JBE done",
		"asm-drop 16 ·f: JB done -> ",
		"asm-branch 17 ·f: SETCS SI -> SETCC SI",
		"asm-boundary 17 ·f: SETCS SI -> SETLS SI",
		"asm-drop 17 ·f: SETCS SI -> ",
		"asm-drop-vzeroupper 20 ·f: VZEROUPPER -> ",
		"asm-drop 21 ·f: CMPQ AX, $-1 -> ",
		"asm-const 21 ·f: CMPQ AX, $-1 -> CMPQ AX, $0",
		"asm-const 21 ·f: CMPQ AX, $-1 -> CMPQ AX, $-2",
		"asm-drop 22 ·f: MOVQ $0, DX -> ",
		"asm-const 22 ·f: MOVQ $0, DX -> MOVQ $1, DX",
		"asm-arith 23 ·f: MOVBQSX (SI), AX -> MOVBQZX (SI), AX",
		"asm-drop 23 ·f: MOVBQSX (SI), AX -> ",
		"asm-disp 23 ·f: MOVBQSX (SI), AX -> MOVBQSX 1(SI), AX",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mutants\n got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	// one operator alone
	got = mutantLines(t, opsRoutine, Options{Operators: []string{"asm-boundary"}})
	if strings.Join(got, "\n") != "asm-boundary 16 ·f: JB done -> JBE done\nasm-boundary 17 ·f: SETCS SI -> SETLS SI" {
		t.Errorf("asm-boundary alone: %v", got)
	}
	f, _ := Parse([]byte(opsRoutine))
	if _, err := Mutants(f, Options{Operators: []string{"asm-arith", "arith"}}); err == nil || !strings.Contains(err.Error(), `"arith"`) {
		t.Errorf("unknown operator: %v", err)
	}
}

// memoryRoutine holds every shape the memory operators look at: moves
// to and from memory, between registers, loads into X and Y registers;
// the second store is 32 bytes from the first (the same alignment: no
// second aligned-move mutant); a symbol's load gets neither mutant.
const memoryRoutine = `TEXT ·m(SB), NOSPLIT, $0
	VMOVUPS Y2, 32(CX)
	VMOVUPS Y3, 64(CX)
	VMOVDQU 2(AX), X1
	VMOVDQU 4(AX), Y0
	VMOVDQU X1, X2
	MOVUPS (SI), X3
	MOVOU X4, 16(DI)
	VMOVD (SI), X5
	VMOVQ 8(SI), X6
	VMOVQ X6, (DI)
	VMOVD AX, X7
	VMOVAPS (SI), X8
	VMOVDQU tbl<>+16(SB), X9
	VZEROUPPER
	RET
`

func TestMemoryOperators(t *testing.T) {
	for _, c := range []struct {
		op   string
		want []string
	}{
		{"asm-aligned-move", []string{
			"asm-aligned-move 2 ·m: VMOVUPS Y2, 32(CX) -> VMOVAPS Y2, 32(CX)",
			"asm-aligned-move 4 ·m: VMOVDQU 2(AX), X1 -> VMOVDQA 2(AX), X1",
			"asm-aligned-move 5 ·m: VMOVDQU 4(AX), Y0 -> VMOVDQA 4(AX), Y0",
			"asm-aligned-move 7 ·m: MOVUPS (SI), X3 -> MOVAPS (SI), X3",
			"asm-aligned-move 8 ·m: MOVOU X4, 16(DI) -> MOVOA X4, 16(DI)",
		}},
		{"asm-wide-tail", []string{
			"asm-wide-tail 4 ·m: VMOVDQU 2(AX), X1 -> VMOVDQU 2(AX), Y1",
			"asm-wide-tail 9 ·m: VMOVD (SI), X5 -> VMOVQ (SI), X5",
			"asm-wide-tail 10 ·m: VMOVQ 8(SI), X6 -> VMOVDQU 8(SI), X6",
			"asm-wide-tail 13 ·m: VMOVAPS (SI), X8 -> VMOVAPS (SI), Y8",
		}},
		{"asm-drop-vzeroupper", []string{"asm-drop-vzeroupper 15 ·m: VZEROUPPER -> "}},
	} {
		t.Run(c.op, func(t *testing.T) {
			got := mutantLines(t, memoryRoutine, Options{Operators: []string{c.op}})
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(c.want, "\n\t"))
			}
		})
	}
}

func TestMutantsRepeats(t *testing.T) {
	src := "TEXT ·f(SB),0,$0\n\tADDQ $1, AX\n\tADDQ  $1,AX\n\tADDQ $2, AX\n\tRET\n" +
		"TEXT ·g(SB),0,$0\n\tADDQ $1, AX\n\tRET\n"
	ops := Options{Operators: []string{"asm-arith"}}
	got := mutantLines(t, src, ops)
	want := "asm-arith 2 ·f: ADDQ $1, AX -> SUBQ $1, AX\n" +
		"asm-arith 4 ·f: ADDQ $2, AX -> SUBQ $2, AX\n" +
		"asm-arith 7 ·g: ADDQ $1, AX -> SUBQ $1, AX"
	if strings.Join(got, "\n") != want {
		t.Errorf("repeated instruction text, first occurrence per routine:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	ops.Repeats = true
	if got := mutantLines(t, src, ops); len(got) != 4 || !strings.Contains(got[1], "3 ·f: ADDQ  $1,AX -> SUBQ  $1,AX") {
		t.Errorf("Repeats keeps every occurrence: %v", got)
	}
}

func TestMutantsPerClass(t *testing.T) {
	var b strings.Builder
	for _, r := range []string{"f", "g"} {
		fmt.Fprintf(&b, "TEXT ·%s(SB),0,$0\n", r)
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, "\tADDQ $%d, AX\n", 10+i)
		}
		b.WriteString("\tJB x\nx:\n\tRET\n")
	}
	b.WriteString("DATA t<>+0(SB)/8, $1\nDATA t<>+8(SB)/8, $2\nDATA t<>+16(SB)/8, $3\nGLOBL t<>(SB), RODATA, $24\n")
	b.WriteString("TEXT ·h(SB),0,$0\n\tMOVQ t<>(SB), AX\n\tRET\n")
	src := b.String()
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	all, err := Mutants(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	count := func(ms []Mutant) map[string]int {
		c := map[string]int{}
		for _, m := range ms {
			c[m.Routine+" "+m.Operator]++
		}
		return c
	}
	if c := count(all); c["·f asm-const"] != 20 || c["·f asm-arith"] != 10 || c[" asm-data"] != 3 {
		t.Fatalf("unsampled counts %v", c)
	}
	sampled, err := Mutants(f, Options{PerClass: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := count(sampled)
	want := map[string]int{
		"·f asm-const": 3, "·f asm-arith": 3, "·f asm-drop": 3, "·f asm-branch": 1, "·f asm-boundary": 1,
		"·g asm-const": 3, "·g asm-arith": 3, "·g asm-drop": 3, "·g asm-branch": 1, "·g asm-boundary": 1,
		"·h asm-drop": 1,
		" asm-data":   3, // data is not sampled: its own rule bounds it
	}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("PerClass 3: %v\nwant %v", c, want)
	}
	// evenly spread: of 10 arith mutants, the 0th, 3rd and 6th; in file order
	var lines []int
	for _, m := range sampled {
		if m.Routine == "·f" && m.Operator == "asm-arith" {
			lines = append(lines, m.Line)
		}
	}
	if fmt.Sprint(lines) != "[2 5 8]" {
		t.Errorf("sampled arith lines %v, want [2 5 8]", lines)
	}
	for i := 1; i < len(sampled); i++ {
		if sampled[i].Start < sampled[i-1].Start {
			t.Errorf("sampled mutants out of file order at %d", i)
		}
	}
}

func TestMutantsData(t *testing.T) {
	src := `TEXT ·f(SB),0,$0
	VMOVDQU mask<>(SB), Y0
	VPSHUFB ctl<>+0(SB), Y0, Y0
	MOVQ big<>(SB), AX
	MOVQ (AX), BX
	MOVQ mask16<>(SB), CX
	RET
DATA mask<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA mask<>+24(SB)/8, $0xffffffffffffffff
GLOBL mask<>(SB), RODATA|NOPTR, $32
DATA ctl<>+0(SB)/4, $0x03020100
DATA ctl<>+4(SB)/4, $7
DATA ctl<>+8(SB)/4, $0x0b0a0908
DATA ctl<>+12(SB)/4, $0x0f0e0d0c
DATA ctl<>+16(SB)/4, $0x03020100
DATA ctl<>+20(SB)/4, $0x07060504
DATA ctl<>+24(SB)/4, $0x0b0a0908
DATA ctl<>+28(SB)/4, $0x0f0e0d0c
GLOBL ctl<>(SB), RODATA|NOPTR, $32
DATA big<>+0(SB)/8, $10
DATA big<>+8(SB)/8, $11
DATA big<>+16(SB)/8, $12
DATA big<>+24(SB)/8, $13
DATA big<>+32(SB)/8, $14
DATA big<>+40(SB)/8, $15
GLOBL big<>(SB), RODATA|NOPTR, $48
DATA mask16<>+0(SB)/8, $1
GLOBL mask16<>(SB), RODATA|NOPTR, $8
DATA unread<>+0(SB)/8, $5
GLOBL unread<>(SB), RODATA|NOPTR, $8
DATA mask1<>+0(SB)/1, $0xff
GLOBL mask1<>(SB), RODATA|NOPTR, $1
`
	got := mutantLines(t, src, Options{Operators: []string{"asm-data"}})
	want := []string{
		// a 32-byte mask: every entry (8-byte entries wrap within 64 bits)
		"asm-data 8 : DATA mask<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f -> DATA mask<>+0(SB)/8, $0x0f0f0f0f0f0f0f10",
		"asm-data 9 : DATA mask<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f -> DATA mask<>+8(SB)/8, $0x0f0f0f0f0f0f0f10",
		"asm-data 10 : DATA mask<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f -> DATA mask<>+16(SB)/8, $0x0f0f0f0f0f0f0f10",
		"asm-data 11 : DATA mask<>+24(SB)/8, $0xffffffffffffffff -> DATA mask<>+24(SB)/8, $0x0000000000000000",
		// a 32-byte control vector in 4-byte entries: every entry too
		"asm-data 13 : DATA ctl<>+0(SB)/4, $0x03020100 -> DATA ctl<>+0(SB)/4, $0x03020101",
		"asm-data 14 : DATA ctl<>+4(SB)/4, $7 -> DATA ctl<>+4(SB)/4, $8",
		"asm-data 15 : DATA ctl<>+8(SB)/4, $0x0b0a0908 -> DATA ctl<>+8(SB)/4, $0x0b0a0909",
		"asm-data 16 : DATA ctl<>+12(SB)/4, $0x0f0e0d0c -> DATA ctl<>+12(SB)/4, $0x0f0e0d0d",
		"asm-data 17 : DATA ctl<>+16(SB)/4, $0x03020100 -> DATA ctl<>+16(SB)/4, $0x03020101",
		"asm-data 18 : DATA ctl<>+20(SB)/4, $0x07060504 -> DATA ctl<>+20(SB)/4, $0x07060505",
		"asm-data 19 : DATA ctl<>+24(SB)/4, $0x0b0a0908 -> DATA ctl<>+24(SB)/4, $0x0b0a0909",
		"asm-data 20 : DATA ctl<>+28(SB)/4, $0x0f0e0d0c -> DATA ctl<>+28(SB)/4, $0x0f0e0d0d",
		// a 48-byte table: the first, middle and last entry
		"asm-data 22 : DATA big<>+0(SB)/8, $10 -> DATA big<>+0(SB)/8, $11",
		"asm-data 25 : DATA big<>+24(SB)/8, $13 -> DATA big<>+24(SB)/8, $14",
		"asm-data 27 : DATA big<>+40(SB)/8, $15 -> DATA big<>+40(SB)/8, $16",
		// mask16 is read (not as a part of mask); unread and mask1 are not
		"asm-data 29 : DATA mask16<>+0(SB)/8, $1 -> DATA mask16<>+0(SB)/8, $2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("data mutants\n got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestMutantsLeaveAlone(t *testing.T) {
	src := "TEXT ·f(SB),0,$0\n\tPCALIGN $16\n\tNOP\n\tPREFETCHT0 64(SI)\n\tPREFETCHNTA (SI)\n\tVZEROUPPER\n\tCALL ·g(SB)\n\tJMP ·g(SB)\n" +
		"TEXT ·g(SB),0,$0\n\tJMP done\ndone:\n\tRET\n"
	got := mutantLines(t, src, Options{})
	// only the JMP that is not its routine's last can go (and VZEROUPPER,
	// by its own operator); nothing else changes a result or keeps the
	// routine whole
	want := "asm-drop-vzeroupper 6 ·f: VZEROUPPER -> \nasm-drop 7 ·f: CALL ·g(SB) -> \nasm-drop 10 ·g: JMP done -> "
	if strings.Join(got, "\n") != want {
		t.Errorf("mutants\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

func TestSymbolIndex(t *testing.T) {
	for _, tt := range []struct {
		text, sym string
		want      int
	}{
		{"mask<>(SB)", "mask<>", 0},
		{"mask16<>(SB)", "mask<>", -1},
		{"mask16(SB)", "mask", -1},
		{"·mask(SB)", "mask", -1},
		{"·mask(SB)", "·mask", 0},
		{"mask<>(SB)", "mask", -1},
		{"$mask<>+8(SB)", "mask<>", 1},
		{"xmask<>(SB)", "mask<>", -1},
		{"(mask<>+8)(SB)", "mask<>", 1},
	} {
		if got := symbolIndex(tt.text, tt.sym); got != tt.want {
			t.Errorf("symbolIndex(%q, %q) = %d, want %d", tt.text, tt.sym, got, tt.want)
		}
	}
}

// TestOpcodeNames: every mnemonic the operators write is one Go's amd64
// assembler knows (its table of names, cmd/internal/obj/x86/anames.go,
// and the aliases of cmd/asm/internal/arch/arch.go), read from the Go
// installation that runs the test.
func TestOpcodeNames(t *testing.T) {
	_, root := goTool(t)
	anames, err1 := os.ReadFile(filepath.Join(root, "src", "cmd", "internal", "obj", "x86", "anames.go"))
	arch, err2 := os.ReadFile(filepath.Join(root, "src", "cmd", "asm", "internal", "arch", "arch.go"))
	generic, err3 := os.ReadFile(filepath.Join(root, "src", "cmd", "internal", "obj", "util.go"))
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skipf("no Go sources here: %v %v %v", err1, err2, err3)
	}
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([A-Z0-9]+)"`).FindAllSubmatch(anames, -1) {
		known[string(m[1])] = true
	}
	// the instructions of every architecture: RET, NOP, PCALIGN, ...
	if i := bytes.Index(generic, []byte("var Anames = []string{")); i >= 0 {
		block := generic[i : i+bytes.IndexByte(generic[i:], '}')]
		for _, m := range regexp.MustCompile(`"([A-Z0-9]+)"`).FindAllSubmatch(block, -1) {
			known[string(m[1])] = true
		}
	}
	for _, m := range regexp.MustCompile(`instructions\["([A-Z0-9]+)"\] = x86\.`).FindAllSubmatch(arch, -1) {
		known[string(m[1])] = true
	}
	if !known["VPADDD"] || !known["PADDD"] || !known["JNZ"] {
		t.Fatalf("could not read the assembler's names (%d found)", len(known))
	}
	check := func(table string, names ...string) {
		for _, n := range names {
			if !known[n] {
				t.Errorf("%s: %s is not an amd64 instruction of Go's assembler", table, n)
			}
		}
	}
	for a, b := range arithTwins {
		check("arithTwins", a, b)
	}
	for a, b := range branchInv {
		check("branchInv", a, b)
	}
	for a, b := range branchBoundary {
		check("branchBoundary", a, b)
	}
	for a := range shuffles {
		check("shuffles", a)
	}
	for a := range shiftWidth {
		check("shiftWidth", a)
	}
	for a := range undeletable {
		check("undeletable", a)
	}
}
