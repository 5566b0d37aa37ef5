package goasm

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse never panics; what it returns lies inside the input;
// Mutants and Render never panic on it, and a rendered schema parses.
func FuzzParse(f *testing.F) {
	for _, p := range []string{filepath.Join("testdata", "schemafix", "fix_amd64.s")} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		opsRoutine,
		"TEXT ·f(SB),0,$0\nloop:\n\tINCQ SI; DECQ CX\n\tJNZ loop /* a\nb */\n\tRET\n",
		"#define X \\\n\tRET\nTEXT ·f(SB),0,$0\n\tMOVQ 8(AX)(BX*8), CX\n\tRET\nDATA t<>+0(SB)/8, $1\nGLOBL t<>(SB), RODATA, $8\n",
		"DATA m<>+0(SB)/8, $\"a;b//c\"\nTEXT ·g(SB),0,$0\n\tVMOVDQU m<>(SB), Y0\n\tJMP ·f(SB)\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse(src)
		if err != nil {
			return
		}
		for _, ins := range file.Instrs {
			if ins.Start < 0 || ins.End > len(src) || ins.Start > ins.End || ins.OpStart < ins.Start || ins.OpEnd > ins.End {
				t.Fatalf("statement %q at [%d, %d) outside the input of %d bytes", ins.Op, ins.Start, ins.End, len(src))
			}
			for _, o := range ins.Operands {
				if o.Start < ins.Start || o.End > ins.End {
					t.Fatalf("operand %q outside its statement", o.Text)
				}
			}
		}
		for _, r := range file.Routines {
			if r.Start > r.End || r.End > len(src) {
				t.Fatalf("routine %s at [%d, %d)", r.Name, r.Start, r.End)
			}
		}
		ms, err := Mutants(file, Options{PerClass: 2})
		if err != nil {
			t.Fatalf("Mutants: %v", err)
		}
		var sm []SchemaMutant
		for i, m := range ms {
			if m.Start < 0 || m.End > len(src) || m.Start > m.End {
				t.Fatalf("mutant %s at [%d, %d)", m.Operator, m.Start, m.End)
			}
			sm = append(sm, SchemaMutant{Num: i + 1, Mutant: m})
		}
		sch, err := Render(file, sm, Names{"gmActive", "gmHits"}, 0)
		if err != nil {
			return
		}
		if _, err := Parse(sch.Src); err != nil {
			t.Fatalf("the rendered schema does not parse: %v", err)
		}
	})
}
