package goasm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Operator is one assembly mutation operator.
type Operator struct {
	Name, Doc, Example string
}

// Operators are the assembly operators, in the order they run. Their names
// start with "asm-" so reports and equivalents tell them from the Go
// operators.
var Operators = []Operator{
	{"asm-arith", "replace an arithmetic, logic, shift, extension or min/max instruction by its twin (ADD and SUB, MUL to ADD, AND and OR, XOR to AND, SHL and SHR, sign extension to zero extension, MIN and MAX)", "VMULPS Y0, Y2, Y2 -> VADDPS Y0, Y2, Y2"},
	{"asm-shuffle", "flip the low bit of a shuffle, permute, blend, insert or extract immediate", "VPERMQ $0xd8, Y1, Y1 -> VPERMQ $0xd9, Y1, Y1"},
	{"asm-shift-count", "move an immediate shift count by one", "VPSRLW $0x04, X1, X1 -> VPSRLW $0x05, X1, X1"},
	{"asm-const", "move another immediate by one (strides, masks, bounds, constants): n -> n+1, n -> n-1", "ADDQ $0x12, AX -> ADDQ $0x13, AX"},
	{"asm-data", "add one to a value of a constant table (masks, shuffle control vectors, lookup tables)", "DATA c0F<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f -> ..., $0x0f0f0f0f0f0f0f10"},
	{"asm-disp", "move a load or store one byte: d(R) -> d+1(R) (arguments (FP) and symbols (SB) excluded)", "VMOVUPS Y2, 32(CX) -> VMOVUPS Y2, 33(CX)"},
	{"asm-branch", "invert a conditional jump or SETcc", "JNZ block -> JZ block"},
	{"asm-boundary", "move the boundary of a conditional jump or SETcc (below and below-or-equal, ...)", "JB no -> JBE no"},
	{"asm-drop", "delete an instruction (not RET, not a directive, not VZEROUPPER: asm-drop-vzeroupper's)", "DECQ DX -> (deleted)"},
	{"asm-aligned-move", "make an unaligned vector move with a memory operand its aligned form (faults on an address that is not 16/32-byte aligned)", "VMOVUPS Y2, 32(CX) -> VMOVAPS Y2, 32(CX)"},
	{"asm-wide-tail", "widen a vector load from memory to the next size (4 to 8, 8 to 16, 16 to 32 bytes): it reads past the end of the last block", "VMOVDQU 2(AX), X1 -> VMOVDQU 2(AX), Y1"},
	{"asm-drop-vzeroupper", "delete a VZEROUPPER (the upper YMM state stays dirty for the SSE code after the routine)", "VZEROUPPER -> (deleted)"},
}

var (
	arithTwins = map[string]string{}
	branchInv  = map[string]string{
		"JZ": "JNZ", "JNZ": "JZ", "JEQ": "JNE", "JNE": "JEQ", "JB": "JAE", "JAE": "JB", "JCS": "JCC", "JCC": "JCS",
		"JBE": "JA", "JA": "JBE", "JLS": "JHI", "JHI": "JLS", "JL": "JGE", "JGE": "JL", "JLT": "JGE", "JLE": "JG",
		"JG": "JLE", "JGT": "JLE", "JMI": "JPL", "JPL": "JMI", "JOS": "JOC", "JOC": "JOS",
		"SETCS": "SETCC", "SETCC": "SETCS", "SETEQ": "SETNE", "SETNE": "SETEQ", "SETLT": "SETGE", "SETGE": "SETLT",
		"SETGT": "SETLE", "SETLE": "SETGT", "SETHI": "SETLS", "SETLS": "SETHI",
	}
	branchBoundary = map[string]string{
		"JB": "JBE", "JBE": "JB", "JCS": "JLS", "JLS": "JCS", "JA": "JAE", "JAE": "JA", "JHI": "JCC", "JCC": "JHI",
		"JL": "JLE", "JLT": "JLE", "JLE": "JLT", "JG": "JGE", "JGT": "JGE", "JGE": "JGT",
		"SETCS": "SETLS", "SETLS": "SETCS", "SETHI": "SETCC", "SETCC": "SETHI", "SETLT": "SETLE", "SETLE": "SETLT", "SETGT": "SETGE", "SETGE": "SETGT",
	}
	// shuffles take an immediate selector as their first operand
	shuffles = map[string]bool{
		"VPSHUFD": true, "VPSHUFHW": true, "VPSHUFLW": true, "VPERMQ": true, "VPERMPD": true, "VPERM2I128": true,
		"VPERM2F128": true, "VPBLENDD": true, "VPBLENDW": true, "VBLENDPS": true, "VBLENDPD": true, "VINSERTI128": true,
		"VINSERTF128": true, "VEXTRACTI128": true, "VEXTRACTF128": true, "VPALIGNR": true, "VSHUFPS": true,
		"VSHUFPD": true, "VPINSRB": true, "VPINSRW": true, "VPINSRD": true, "VPINSRQ": true, "VPEXTRB": true,
		"VPEXTRW": true, "VPEXTRD": true, "VPEXTRQ": true, "VINSERTPS": true, "VEXTRACTPS": true, "VPERMILPS": true,
		"PSHUFD": true, "PSHUFB": false, "SHUFPS": true, "PINSRD": true, "PEXTRD": true, "PALIGNR": true, "PBLENDW": true,
	}
	// shift widths: the count's bound per element
	shiftWidth = map[string]int{}
	// never deleted: deleting them changes nothing a result can show
	// (VZEROUPPER only avoids a transition penalty) or leaves the
	// routine without its end
	undeletable = map[string]bool{"RET": true, "VZEROUPPER": true, "NOP": true, "PCALIGN": true}
	// inert statements get no mutants at all: assembler directives that
	// look like instructions (a PCALIGN $33 does not assemble; NOP and
	// NO_LOCAL_POINTERS change no result). PREFETCH* (by prefix) only warms
	// a cache: moving or dropping one changes no result either.
	inert = map[string]bool{"PCALIGN": true, "NOP": true, "NO_LOCAL_POINTERS": true}
	// alignedMoves maps each unaligned vector move to its aligned form
	// (Go's names: MOVOU is MOVDQU, MOVOA MOVDQA)
	alignedMoves = map[string]string{
		"VMOVUPS": "VMOVAPS", "VMOVUPD": "VMOVAPD", "VMOVDQU": "VMOVDQA", "MOVUPS": "MOVAPS", "MOVUPD": "MOVAPD",
		"MOVOU": "MOVOA", "VMOVDQU32": "VMOVDQA32", "VMOVDQU64": "VMOVDQA64",
	}
	// wideLoads maps a load to the next wider one of the same
	// destination register (4 to 8, 8 to 16 bytes)
	wideLoads = map[string]string{"VMOVD": "VMOVQ", "VMOVQ": "VMOVDQU"}
	// widensRegister are the loads that read as many bytes as their
	// destination holds: an X destination becomes Y (16 to 32 bytes)
	widensRegister = map[string]bool{"VMOVDQU": true, "VMOVDQA": true, "VMOVUPS": true, "VMOVAPS": true, "VMOVUPD": true, "VMOVAPD": true}
)

func init() {
	pair := func(a, b string) { arithTwins[a], arithTwins[b] = b, a }
	one := func(a, b string) { arithTwins[a] = b }
	for _, w := range []string{"B", "W", "L", "Q"} {
		pair("ADD"+w, "SUB"+w)
		one("AND"+w, "OR"+w)
		one("OR"+w, "AND"+w)
		one("XOR"+w, "AND"+w)
		pair("SHL"+w, "SHR"+w)
		one("SAR"+w, "SHR"+w)
		one("IMUL"+w, "ADD"+w)
		shiftWidth["SHL"+w] = map[string]int{"B": 8, "W": 16, "L": 32, "Q": 64}[w]
		shiftWidth["SHR"+w] = shiftWidth["SHL"+w]
		shiftWidth["SAR"+w] = shiftWidth["SHL"+w]
	}
	for _, t := range []string{"PS", "PD", "SS", "SD"} {
		pair("VADD"+t, "VSUB"+t)
		one("VMUL"+t, "VADD"+t)
		one("VDIV"+t, "VMUL"+t)
		pair("VMIN"+t, "VMAX"+t)
	}
	for _, t := range []string{"B", "W", "D", "Q"} {
		pair("VPADD"+t, "VPSUB"+t)
	}
	// SSE's 32-bit lanes are L in Go's names (PADDD is an alias of
	// PADDL; there is no PSUBD)
	for _, t := range []string{"B", "W", "L", "Q"} {
		pair("PADD"+t, "PSUB"+t)
	}
	one("PADDD", "PSUBL")
	for _, t := range []string{"W", "D", "Q"} {
		pair("VPSLL"+t, "VPSRL"+t)
		shiftWidth["VPSLL"+t] = map[string]int{"W": 16, "D": 32, "Q": 64}[t]
		shiftWidth["VPSRL"+t] = shiftWidth["VPSLL"+t]
	}
	one("VPSRAW", "VPSRLW")
	one("VPSRAD", "VPSRLD")
	shiftWidth["VPSRAW"], shiftWidth["VPSRAD"] = 16, 32
	one("VPMULLW", "VPADDW")
	one("VPMULLD", "VPADDD")
	one("VPMULHUW", "VPMULLW")
	one("VPMULHW", "VPMULLW")
	one("VPMADDUBSW", "VPMADDWD")
	one("VPAND", "VPOR")
	one("VPOR", "VPAND")
	one("VPXOR", "VPAND")
	one("VPANDN", "VPAND")
	one("VANDPS", "VORPS")
	one("VORPS", "VANDPS")
	one("VXORPS", "VANDPS")
	one("VANDNPS", "VANDPS")
	// Sign extension made zero extension, not the reverse: a zero
	// extension of a value below 128 (a masked nibble, a 2-bit code: most
	// of what generated decoders widen) equals its sign extension, so the
	// reverse would be mostly equivalent mutants; a sign extension is
	// there because the data is signed, and zero-extending it is a bug.
	for _, ext := range [][2]string{{"MOVBQSX", "MOVBQZX"}, {"MOVBLSX", "MOVBLZX"}, {"MOVWQSX", "MOVWQZX"}, {"MOVWLSX", "MOVWLZX"},
		{"MOVLQSX", "MOVLQZX"}, {"VPMOVSXBD", "VPMOVZXBD"}, {"VPMOVSXBW", "VPMOVZXBW"}, {"VPMOVSXWD", "VPMOVZXWD"},
		{"VPMOVSXBQ", "VPMOVZXBQ"}, {"VPMOVSXDQ", "VPMOVZXDQ"}} {
		one(ext[0], ext[1])
	}
	for _, mm := range [][2]string{{"VPMINUB", "VPMAXUB"}, {"VPMINSB", "VPMAXSB"}, {"VPMINUD", "VPMAXUD"}, {"VPMINSD", "VPMAXSD"},
		{"VPCMPEQB", "VPCMPGTB"}, {"VPCMPEQD", "VPCMPGTD"}} {
		pair(mm[0], mm[1])
	}
}

// Mutant is one operator mutant of an assembly routine: the edit, and the
// routine it lies in (Go schemata switch whole routines).
type Mutant struct {
	Operator              string
	Routine               string
	Instr                 int // index of the statement in File.Instrs
	Start, End            int
	Text                  string
	Line                  int
	Original, Replacement string // the statement before and after
}

// Options tune which mutants are made.
type Options struct {
	// Operators by name; empty: all.
	Operators []string
	// Repeats keeps every occurrence of an instruction text in a routine;
	// by default only the first is mutated: generated code unrolls its
	// loops, and each copy of an unrolled instruction breaks the same way
	// under the same tests.
	Repeats bool
	// PerClass, when positive, keeps at most that many mutants of each
	// operator in each routine, spread evenly over the routine (the
	// first, then every n/PerClass-th): every routine still gets every
	// class that applies, at a cost that does not grow with unrolling.
	PerClass int
}

// Mutants applies the operators to every routine of f and to its DATA
// tables, in file order.
func Mutants(f *File, opts Options) ([]Mutant, error) {
	want := map[string]bool{}
	for _, n := range opts.Operators {
		found := false
		for _, op := range Operators {
			found = found || op.Name == n
		}
		if !found {
			return nil, fmt.Errorf("goasm: unknown operator %q", n)
		}
		want[n] = true
	}
	on := func(op string) bool { return len(want) == 0 || want[op] }
	tables := f.dataTables()
	alignedSeen := map[string]bool{}
	var out []Mutant
	seen := map[string]bool{}
	s := f.str()
	for i := range f.Instrs {
		ins := &f.Instrs[i]
		add := func(op string, start, end int, text string) {
			if !on(op) || s[start:end] == text {
				return
			}
			key := ins.Routine + "\x00" + ins.NormalizedString + "\x00" + op + "\x00" + strconv.Itoa(start-ins.Start) + "\x00" + text
			if !opts.Repeats && ins.Op != "DATA" {
				if seen[key] {
					return
				}
				seen[key] = true
			}
			orig := s[ins.Start:ins.End]
			repl := orig[:start-ins.Start] + text + orig[end-ins.Start:]
			out = append(out, Mutant{Operator: op, Routine: ins.Routine, Instr: i, Start: start, End: end, Text: text,
				Line: ins.Line, Original: orig, Replacement: strings.TrimSpace(repl)})
		}
		if ins.Op == "DATA" {
			if tables.mutates(i) {
				dataMutant(ins, add)
			}
			continue
		}
		if ins.Directive || ins.Routine == "" || inert[ins.Op] || strings.HasPrefix(ins.Op, "PREFETCH") {
			continue
		}
		if r, ok := arithTwins[ins.Op]; ok {
			add("asm-arith", ins.OpStart, ins.OpEnd, r)
		}
		if r, ok := branchInv[ins.Op]; ok {
			add("asm-branch", ins.OpStart, ins.OpEnd, r)
		}
		if r, ok := branchBoundary[ins.Op]; ok {
			add("asm-boundary", ins.OpStart, ins.OpEnd, r)
		}
		immediates(ins, add)
		for _, o := range ins.Operands {
			if d, ok := displacement(o); ok {
				add("asm-disp", o.Start, o.Start+d.end, strconv.FormatInt(d.value+1, 10))
			}
		}
		if !undeletable[ins.Op] && !(ins.Op == "JMP" && f.lastOfRoutine(i)) {
			add("asm-drop", ins.Start, ins.End, "")
		}
		if ins.Op == "VZEROUPPER" {
			add("asm-drop-vzeroupper", ins.Start, ins.End, "")
		}
		memoryMoves(ins, alignedSeen, add)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	if opts.PerClass > 0 {
		out = sample(out, opts.PerClass)
	}
	return out, nil
}

// lastOfRoutine reports whether statement i is its routine's last
// instruction: dropping a JMP there would run off the routine's end (into
// whatever the linker put next, or in a schema into the next variant).
func (f *File) lastOfRoutine(i int) bool {
	r := f.RoutineOf(i)
	return r != nil && r.Last == i
}

// sample keeps at most k mutants per routine and operator, evenly spread
// (the i-th kept is the (i*n/k)-th of n), in file order. The DATA
// mutants are not sampled: they belong to no routine, and their own rule
// (dataTables.mutates) already bounds them per symbol.
func sample(ms []Mutant, k int) []Mutant {
	groups := map[string][]int{}
	keep := make([]bool, len(ms))
	for i, m := range ms {
		if m.Operator == "asm-data" {
			keep[i] = true // data has its own rule (dataTables.mutates)
			continue
		}
		key := m.Routine + "\x00" + m.Operator
		groups[key] = append(groups[key], i)
	}
	for _, idx := range groups {
		if len(idx) <= k {
			for _, i := range idx {
				keep[i] = true
			}
			continue
		}
		for j := 0; j < k; j++ {
			keep[idx[j*len(idx)/k]] = true
		}
	}
	var out []Mutant
	for i, m := range ms {
		if keep[i] {
			out = append(out, m)
		}
	}
	return out
}

// dataTable is the DATA lines of one symbol, its size (the end of its
// last DATA entry) and whether a routine reads it.
type dataTable struct {
	lines []int
	size  int64
	read  bool
}

// dataTables are the file's symbols' DATA lines, and for each DATA line
// whether it gets a mutant.
type dataTables struct {
	bySym   map[string]*dataTable
	mutated map[int]bool
}

// dataTables groups the DATA lines by symbol and notes which symbols a
// routine reads.
func (f *File) dataTables() dataTables {
	t := dataTables{bySym: map[string]*dataTable{}, mutated: map[int]bool{}}
	for i, ins := range f.Instrs {
		if ins.Op != "DATA" || len(ins.Operands) == 0 {
			continue
		}
		sym := dataSymbol(ins.Operands[0].Text)
		if t.bySym[sym] == nil {
			t.bySym[sym] = &dataTable{read: len(f.readers(sym)) > 0}
		}
		d := t.bySym[sym]
		d.lines = append(d.lines, i)
		if off, width, ok := dataExtent(ins.Operands[0].Text); ok && off+width > d.size {
			d.size = off + width
		}
	}
	for _, d := range t.bySym {
		n := len(d.lines)
		for k, l := range d.lines {
			t.mutated[l] = d.read && (d.size <= 32 || k == 0 || k == n/2 || k == n-1)
		}
	}
	return t
}

// dataExtent reads the offset and width of a DATA target sym+off(SB)/w
// (off 0 when not written).
func dataExtent(target string) (off, width int64, ok bool) {
	slash := strings.LastIndexByte(target, '/')
	paren := strings.IndexByte(target, '(')
	if slash < 0 || paren < 0 || slash < paren {
		return 0, 0, false
	}
	width, err := strconv.ParseInt(strings.TrimSpace(target[slash+1:]), 0, 64)
	if err != nil {
		return 0, 0, false
	}
	if plus := strings.LastIndexByte(target[:paren], '+'); plus >= 0 {
		if off, err = strconv.ParseInt(target[plus+1:paren], 0, 64); err != nil {
			return 0, 0, false
		}
	}
	return off, width, true
}

// mutates says whether DATA line i gets a mutant: every line of a read
// symbol of at most 32 bytes (a mask or control vector); the first,
// middle and last line of a larger table (a lookup table is right or wrong
// as a whole, as const-table says for Go); none of a symbol no routine
// reads.
func (t dataTables) mutates(i int) bool { return t.mutated[i] }

// immediates makes the shuffle, shift-count and constant mutants of an
// instruction's $ operands.
func immediates(ins *Instr, add func(op string, start, end int, text string)) {
	for k, o := range ins.Operands {
		v, ok := parseImm(o.Text)
		if !ok {
			continue
		}
		switch {
		case shuffles[ins.Op] && k == 0:
			add("asm-shuffle", o.Start, o.End, formatImm(o.Text, v^1))
		case shiftWidth[ins.Op] > 0 && k == 0:
			for _, d := range []int64{1, -1} {
				if n := v + d; n >= 0 && n < int64(shiftWidth[ins.Op]) {
					add("asm-shift-count", o.Start, o.End, formatImm(o.Text, n))
				}
			}
		case strings.HasPrefix(ins.Op, "J") || ins.Op == "CALL":
		default:
			for _, d := range []int64{1, -1} {
				if n := v + d; n >= 0 || v < 0 {
					add("asm-const", o.Start, o.End, formatImm(o.Text, n))
				}
			}
		}
	}
}

// isMemory reports whether an operand addresses memory: d(R), (R)(I*s),
// sym(SB), not an immediate.
func isMemory(o Operand) bool {
	return strings.Contains(o.Text, "(") && !strings.HasPrefix(o.Text, "$")
}

// isSymbol reports whether a memory operand addresses a symbol of the
// binary (sym<>+off(SB)): the linker aligns a symbol to its size up to 32
// bytes, so an aligned move of one does not fault, and a wider load of
// one reads the read-only data after it, which no input changes: both
// would be the same program.
func isSymbol(o Operand) bool { return strings.Contains(o.Text, "(SB)") }

// alignmentClass is what decides whether an aligned move of a memory
// operand faults: its routine, mnemonic, base (and index) registers and
// its displacement modulo 32 (the widest vector): two moves of one class
// fault on the same inputs.
func alignmentClass(ins *Instr, mem Operand) string {
	d, base := int64(0), mem.Text
	if p := strings.IndexByte(mem.Text, '('); p > 0 {
		if v, err := strconv.ParseInt(mem.Text[:p], 0, 64); err == nil {
			d, base = v, mem.Text[p:]
		}
	}
	return ins.Routine + "\x00" + ins.Op + "\x00" + base + "\x00" + strconv.FormatInt(((d%32)+32)%32, 10)
}

// memoryMoves makes the asm-aligned-move and asm-wide-tail mutants of a
// move with a memory operand; an aligned move is made once per alignment
// class (seen).
func memoryMoves(ins *Instr, seen map[string]bool, add func(op string, start, end int, text string)) {
	if len(ins.Operands) != 2 {
		return
	}
	src, dst := ins.Operands[0], ins.Operands[1]
	mem := src
	if isMemory(dst) {
		mem = dst
	}
	if r, ok := alignedMoves[ins.Op]; ok && isMemory(mem) && !isSymbol(mem) && !seen[alignmentClass(ins, mem)] {
		seen[alignmentClass(ins, mem)] = true
		add("asm-aligned-move", ins.OpStart, ins.OpEnd, r)
	}
	if !isMemory(src) || isMemory(dst) || isSymbol(src) {
		return // not a load, or one of the binary's own data
	}
	if r, ok := wideLoads[ins.Op]; ok && strings.HasPrefix(dst.Text, "X") {
		add("asm-wide-tail", ins.OpStart, ins.OpEnd, r)
	}
	if widensRegister[ins.Op] && strings.HasPrefix(dst.Text, "X") {
		add("asm-wide-tail", dst.Start, dst.End, "Y"+dst.Text[1:])
	}
}

// parseImm reads a $ integer operand ($0x12, $18, $-1); not $sym(SB) or
// $(expr).
func parseImm(text string) (int64, bool) {
	if !strings.HasPrefix(text, "$") {
		return 0, false
	}
	t := text[1:]
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	var v uint64
	var err error
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		v, err = strconv.ParseUint(t[2:], 16, 64)
	} else {
		v, err = strconv.ParseUint(t, 10, 64)
	}
	if err != nil || v > 1<<62 {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// formatImm writes v the way text was written (hex with its width, or
// decimal).
func formatImm(text string, v int64) string {
	t := text[1:]
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		if v < 0 {
			return fmt.Sprintf("$-0x%x", -v)
		}
		width := len(t) - 2
		return fmt.Sprintf("$0x%0*x", width, v)
	}
	return "$" + strconv.FormatInt(v, 10)
}

type disp struct {
	value int64
	end   int // length of the displacement text within the operand
}

// displacement returns the displacement of a register-based memory operand
// (d(R), (R), d(R)(I*s)); arguments (FP), symbols (SB) and pseudo
// registers are not mutated. An operand without a written displacement has
// 0, and the mutant inserts 1.
func displacement(o Operand) (disp, bool) {
	t := o.Text
	p := strings.IndexByte(t, '(')
	if p < 0 || strings.HasPrefix(t, "$") {
		return disp{}, false
	}
	base := t[p:]
	if strings.HasPrefix(base, "(SB)") || strings.HasPrefix(base, "(FP)") || strings.Contains(t[:p], "+") || strings.Contains(t[:p], "<>") {
		return disp{}, false
	}
	if p == 0 {
		return disp{value: 0, end: 0}, true
	}
	v, err := strconv.ParseInt(t[:p], 0, 64)
	if err != nil {
		return disp{}, false
	}
	return disp{value: v, end: p}, true
}

// dataMutant adds one to the value of a DATA directive: DATA sym+off(SB)/width, $value.
func dataMutant(ins *Instr, add func(op string, start, end int, text string)) {
	if len(ins.Operands) != 2 {
		return
	}
	v := ins.Operands[1]
	if !strings.HasPrefix(v.Text, "$0x") && !strings.HasPrefix(v.Text, "$") {
		return
	}
	t := v.Text[1:]
	var n uint64
	var err error
	hex := strings.HasPrefix(t, "0x")
	if hex {
		n, err = strconv.ParseUint(t[2:], 16, 64)
	} else {
		n, err = strconv.ParseUint(t, 10, 64)
	}
	if err != nil {
		return
	}
	width := 8
	if i := strings.LastIndexByte(ins.Operands[0].Text, '/'); i >= 0 {
		if w, err := strconv.Atoi(ins.Operands[0].Text[i+1:]); err == nil {
			width = w
		}
	}
	mask := uint64(1)<<(8*uint(width)) - 1
	if width >= 8 {
		mask = ^uint64(0)
	}
	m := (n + 1) & mask
	text := "$" + strconv.FormatUint(m, 10)
	if hex {
		text = fmt.Sprintf("$0x%0*x", len(t)-2, m)
	}
	add("asm-data", v.Start, v.End, text)
}
