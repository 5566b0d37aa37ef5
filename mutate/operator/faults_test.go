package operator

import (
	"testing"

	"gathermut/mutate/mutant"
)

// TestFuseProductTarget: fuse-product's mutants are judged where the
// build target fuses a*b + c and Ignored as the same program elsewhere.
func TestFuseProductTarget(t *testing.T) {
	prog := caseProgram(t)
	for _, c := range []struct {
		name, goarch, goamd64 string
		fuses                 bool
	}{
		{"amd64 v1", "amd64", "v1", false},
		{"amd64 v2", "amd64", "v2", false},
		{"amd64 v3", "amd64", "v3", true},
		{"amd64 v4", "amd64", "v4", true},
		{"arm64", "arm64", "", true},
		{"riscv64", "riscv64", "", true},
		{"386", "386", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOARCH", c.goarch)
			t.Setenv("GOAMD64", c.goamd64)
			if fuses() != c.fuses {
				t.Fatalf("fuses() = %v, want %v", fuses(), c.fuses)
			}
			ms, err := Generate(prog, Config{Packages: []string{"m/fuseproduct"}, Operators: ops(t, "fuse-product")})
			if err != nil {
				t.Fatal(err)
			}
			want := mutant.Equivalent
			if c.fuses {
				want = mutant.Runnable
			}
			for _, m := range ms {
				if m.State != want {
					t.Errorf("%s: state %v (%s), want %v", m.ID, m.State, m.Note, want)
				}
			}
		})
	}
}
