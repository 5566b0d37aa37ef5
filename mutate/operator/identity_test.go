package operator

import (
	"runtime"
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// TestEditIdentity: an assembly or kernel mutant's id is made from its
// edit (mutant.EditID), not only from the text its report shows, and no
// two mutants share one.
func TestEditIdentity(t *testing.T) {
	for _, c := range []struct {
		name     string
		generate func(t *testing.T) []mutant.Mutant
	}{
		{"assembly", asmIdentityMutants},
		{"kernel", kernelIdentityMutants},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms := c.generate(t)
			if len(ms) < 5 {
				t.Fatalf("only %d mutants", len(ms))
			}
			seen := map[string]bool{}
			for _, m := range ms {
				// Replacement is what the report shows: the statement after
				// the change, or the kernel site's text
				if want := mutant.EditID(m.Operator, m.File, m.Pos, m.Replacement, *m.Edit); m.ID != want {
					t.Errorf("%s (%s %q): id is not its edit's, want %s", m.ID, m.Operator, m.Replacement, want)
				}
				if seen[m.ID] {
					t.Errorf("two mutants with id %s", m.ID)
				}
				seen[m.ID] = true
			}
		})
	}
}

func asmIdentityMutants(t *testing.T) []mutant.Mutant {
	if runtime.GOARCH != "amd64" {
		t.Skip("amd64 assembly")
	}
	dir := writeModule(t, map[string]string{
		"p/p.go":       "package p\n\nfunc f(p *byte) uint64\n",
		"p/p_amd64.s":  "#include \"textflag.h\"\n\nTEXT ·f(SB), NOSPLIT, $0-16\n\tMOVQ p+0(FP), SI\n\tVMOVDQU 2(SI), X1\n\tVMOVUPS X1, (SI)\n\tADDQ $1, AX\n\tVZEROUPPER\n\tRET\n",
		"p/p_other.go": "//go:build !amd64\n\npackage p\n\nfunc f(p *byte) uint64 { return 0 }\n",
	})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := GenerateAsm(prog, AsmConfig{PerClass: -1})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func kernelIdentityMutants(t *testing.T) []mutant.Mutant {
	dir := writeModule(t, map[string]string{
		"k/k.hip": "#define GM_DEV __device__\nGM_DEV float f(float d, int a, int b) {\n  if (a == 0) return -d;\n  if (a > b) return d / 3.0f;\n  return a + b < 4 ? d : -d;\n}\n",
	})
	ms, err := GenerateKernel(dir, &catalog.Kernel{Entry: "k/k.hip", Sources: []string{"k/*.hip"}, Package: "m/k"}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
