package goasm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// stmtLines writes each statement of f as "line: [labels] OP operand|operand
// (routine)".
func stmtLines(f *File) []string {
	var out []string
	for _, ins := range f.Instrs {
		var ops []string
		for _, o := range ins.Operands {
			ops = append(ops, o.Text)
		}
		line := fmt.Sprintf("%d:", ins.Line)
		if len(ins.Labels) > 0 {
			line += " [" + strings.Join(ins.Labels, " ") + "]"
		}
		line += " " + ins.Op
		if len(ops) > 0 {
			line += " " + strings.Join(ops, "|")
		}
		line += " (" + ins.Routine + ")"
		out = append(out, line)
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"labels alone and before instructions", "TEXT ·f(SB), NOSPLIT, $0-8\nloop:\n\tADDQ $1, AX\ndone: RET\n", []string{
			"1: TEXT ·f(SB)|NOSPLIT|$0-8 (·f)", "3: [loop] ADDQ $1|AX (·f)", "4: [done] RET (·f)"}},
		{"two labels on one instruction", "TEXT ·f(SB),0,$0\na:\nb: c: NOP\n\tRET", []string{
			"1: TEXT ·f(SB)|0|$0 (·f)", "3: [a b c] NOP (·f)", "4: RET (·f)"}},
		{"statements split at semicolons", "TEXT ·f(SB),0,$0\n\tINCQ SI; DECQ CX ;JNZ x\nx: RET", []string{
			"1: TEXT ·f(SB)|0|$0 (·f)", "2: INCQ SI (·f)", "2: DECQ CX (·f)", "2: JNZ x (·f)", "3: [x] RET (·f)"}},
		{"comments: line, block, across lines, inside a statement", "TEXT ·f(SB),0,$0 // the routine\n\tMOVQ /* a */ AX, BX /* b\nc */ ADDQ $1, AX\n/* d\ne */\n\tRET // end", []string{
			"1: TEXT ·f(SB)|0|$0 (·f)", "2: MOVQ AX|BX (·f)", "3: ADDQ $1|AX (·f)", "6: RET (·f)"}},
		{"preprocessor lines, continued, with a comment", "#include \"textflag.h\"\n#define X(a) \\\n\tMOVQ a, AX; \\\n\tRET\n#ifdef GOAMD64_v3 /* x\ny */\nTEXT ·f(SB),0,$0\n\tRET\n#endif", []string{
			"7: TEXT ·f(SB)|0|$0 (·f)", "8: RET (·f)"}},
		{"nested parentheses and brackets", "TEXT ·f(SB),0,$0\n\tMOVQ 8(AX)(BX*8), CX\n\tMOVQ $(1<<3), DX\n\tVPGATHERDD Y1, (AX)(Y2*4), Y3\n\tRET", []string{
			"1: TEXT ·f(SB)|0|$0 (·f)", "2: MOVQ 8(AX)(BX*8)|CX (·f)", "3: MOVQ $(1<<3)|DX (·f)", "4: VPGATHERDD Y1|(AX)(Y2*4)|Y3 (·f)", "5: RET (·f)"}},
		{"the middle dot and paths in symbols", "TEXT runtime∕x·f(SB),0,$0\n\tCALL ·g(SB)\n\tJMP ·h<ABIInternal>(SB)", []string{
			"1: TEXT runtime∕x·f(SB)|0|$0 (runtime∕x·f)", "2: CALL ·g(SB) (runtime∕x·f)", "3: JMP ·h<ABIInternal>(SB) (runtime∕x·f)"}},
		{"quoted data holds no separators or comments", "DATA msg<>+0(SB)/8, $\"a,b;c//\"\nDATA ch<>+0(SB)/1, $';'\nGLOBL msg<>(SB), RODATA, $8", []string{
			"1: DATA msg<>+0(SB)/8|$\"a,b;c//\" ()", "2: DATA ch<>+0(SB)/1|$';' ()", "3: GLOBL msg<>(SB)|RODATA|$8 ()"}},
		{"data belongs to no routine", "TEXT ·f(SB),0,$0\n\tRET\nDATA t<>+0(SB)/8, $1\nGLOBL t<>(SB), RODATA, $8\nTEXT ·g(SB),0,$0\n\tRET", []string{
			"1: TEXT ·f(SB)|0|$0 (·f)", "2: RET (·f)", "3: DATA t<>+0(SB)/8|$1 ()", "4: GLOBL t<>(SB)|RODATA|$8 ()", "5: TEXT ·g(SB)|0|$0 (·g)", "6: RET (·g)"}},
		{"CRLF line ends", "TEXT ·f(SB),0,$0\r\n\tADDQ $1, AX\r\n\tRET\r\n", []string{
			"1: TEXT ·f(SB)|0|$0 (·f)", "2: ADDQ $1|AX (·f)", "3: RET (·f)"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		f, err := Parse([]byte(tt.src))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := stmtLines(f); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s\n got:\n\t%s\nwant:\n\t%s", tt.name, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
		}
		for _, ins := range f.Instrs {
			for _, o := range ins.Operands {
				if o.Start < ins.Start || o.End > ins.End || o.Start >= o.End {
					t.Errorf("%s: operand %q [%d, %d) outside its statement [%d, %d)", tt.name, o.Text, o.Start, o.End, ins.Start, ins.End)
				}
			}
			if string(f.Src[ins.OpStart:ins.OpEnd]) != ins.Op {
				t.Errorf("%s: opcode range holds %q, not %q", tt.name, f.Src[ins.OpStart:ins.OpEnd], ins.Op)
			}
		}
	}
}

func TestParseRoutines(t *testing.T) {
	src := "#include \"textflag.h\"\n\n" +
		"// func f() int\n" +
		"TEXT ·f(SB), NOSPLIT, $0-8\n" + // line 4
		"\tMOVQ $0, AX\n" +
		"loop:\n" +
		"\tINCQ AX\n" +
		"\tCMPQ AX, $4\n" +
		"\tJB loop\n" +
		"\tMOVQ AX, ret+0(FP)\n" +
		"\tRET\n" + // line 11
		"\n" +
		"DATA t<>+0(SB)/8, $1\n" +
		"GLOBL t<>(SB), RODATA, $8\n" +
		"\n" +
		"TEXT ·g(SB), NOSPLIT, $0-8\n" + // line 16
		"loop:\n" +
		"\tJMP loop\n"
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Routines) != 2 {
		t.Fatalf("%d routines", len(f.Routines))
	}
	r := f.Routines[0]
	body := src[r.Start:r.End]
	if r.Name != "·f" || !strings.HasPrefix(body, "\tMOVQ $0, AX\n") || !strings.HasSuffix(body, "\tRET\n") || r.BodyLineFrom != 5 {
		t.Errorf("routine f: %+v, body %q", r, body)
	}
	if f.Instrs[r.Text].Op != "TEXT" || f.Instrs[r.First].Op != "MOVQ" || f.Instrs[r.Last].Op != "RET" {
		t.Errorf("routine f: statements %d %d %d", r.Text, r.First, r.Last)
	}
	g := f.Routines[1]
	if g.Name != "·g" || src[g.Start:g.End] != "loop:\n\tJMP loop\n" || f.Instrs[g.Last].Op != "JMP" {
		t.Errorf("routine g: %+v, body %q", g, src[g.Start:g.End])
	}
	// labels are the routine's own: both loops resolve within their routine
	var refs []string
	for i, ins := range f.Instrs {
		for _, k := range ins.LabelRefs {
			refs = append(refs, fmt.Sprintf("%d:%s %s in %s", ins.Line, ins.Op, ins.Operands[k].Text, f.RoutineOf(i).Name))
		}
	}
	if got := strings.Join(refs, "; "); got != "9:JB loop in ·f; 18:JMP loop in ·g" {
		t.Errorf("label references: %s", got)
	}
	if len(f.Labels) != 2 || f.Labels[0].Routine != "·f" || f.Labels[1].Routine != "·g" || src[f.Labels[0].Start:f.Labels[0].End] != "loop:" {
		t.Errorf("labels %+v", f.Labels)
	}
	if f.RoutineOf(r.Text) != nil || f.RoutineOf(r.Last+1) != nil {
		t.Errorf("RoutineOf: a TEXT or DATA statement is in a routine")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		line int
		msg  string
	}{
		{"TEXT ·f(SB),0,$0\n\tRET\n/* never\nclosed", 3, "unterminated /* comment"},
		{"TEXT ·f(SB),0,$0\n\tMOVQ (AX, BX\n", 2, "unbalanced parentheses"},
		{"TEXT ·f(SB),0,$0\n\tMOVQ AX), BX\n", 2, "unbalanced )"},
		{"TEXT ·f(SB),0,$0\n\t$1, AX\n", 2, "statement starts with"},
		{"TEXT ·f(SB),0,$0\n/* a\nb */ ; , AX\n", 3, "statement starts with"},
		{"\tNOP\nTEXT\n", 2, "TEXT without a symbol"},
		{"TEXT ·f(SB),0,$0\n\tMOVQ ]AX, BX\n", 2, "unbalanced ]"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.src))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("Parse(%q) = %v, want line %d: %s", tt.src, err, tt.line, tt.msg)
			continue
		}
		if want := fmt.Sprintf("line %d: ", tt.line); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q does not start with %q", err, want)
		}
	}
}

// TestRoutineBodyStart: a routine's body (what a schema copies) starts
// after its TEXT statement: on the next line, after a ';' on the TEXT
// line, or after a comment that carries the TEXT line over.
func TestRoutineBodyStart(t *testing.T) {
	for _, tt := range []struct{ src, body string }{
		{"TEXT ·f(SB),0,$0\n\tINCQ AX\n\tRET\n", "\tINCQ AX\n\tRET\n"},
		{"TEXT ·f(SB),0,$0; INCQ AX\n\tRET\n", " INCQ AX\n\tRET\n"},
		{"TEXT ·f(SB),0,$0 /* a\nb */ INCQ AX\n\tRET\n", " INCQ AX\n\tRET\n"},
		{"TEXT ·f(SB),0,$0 // c\n\tINCQ AX; RET", "\tINCQ AX; RET"},
	} {
		f, err := Parse([]byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		r := f.Routines[0]
		if got := tt.src[r.Start:r.End]; got != tt.body || f.Instrs[r.First].Op != "INCQ" {
			t.Errorf("%q: body %q, want %q", tt.src, got, tt.body)
		}
		ms, err := Mutants(f, Options{Operators: []string{"asm-drop"}})
		if err != nil || len(ms) != 1 {
			t.Fatalf("%q: %d mutants, %v", tt.src, len(ms), err)
		}
		sch, err := Render(f, []SchemaMutant{{1, ms[0]}}, Names{"a", "h"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Parse(sch.Src)
		if err != nil {
			t.Fatalf("%q: the schema does not parse: %v\n%s", tt.src, err, sch.Src)
		}
		// the original body, then the variant without INCQ
		var ops []string
		for _, ins := range g.Instrs {
			ops = append(ops, ins.Op)
		}
		if got := strings.Join(ops, " "); got != "TEXT MOVQ TESTQ JZ MOVB MOVQ CMPQ JEQ INCQ RET RET" {
			t.Errorf("%q: schema statements %s", tt.src, got)
		}
	}
}
