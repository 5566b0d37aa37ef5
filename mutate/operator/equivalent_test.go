package operator

import (
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/mutant"
)

// TestMatchEquivalentLine: an equivalent with a Line matches only the
// mutants whose line holds it, so two mutants of one function with the
// same original and replacement are told apart; without a Line, both.
func TestMatchEquivalentLine(t *testing.T) {
	src := []byte("  const int r = e0 & 15;\n  const uint32_t nib = (q >> s) & 15;\n")
	mask, nibble := 21, 59 // offsets of the two 15s
	if src[mask] != '1' || src[nibble] != '1' {
		t.Fatalf("offsets %d %d do not point at the 15s", mask, nibble)
	}
	m := mutant.Mutant{Package: "p", Func: "C::chunk", Operator: "const-int", Original: "15", Replacement: "14"}
	for _, c := range []struct {
		name    string
		eq      catalog.Equivalent
		off     int
		matches bool
	}{
		{"line names the mask, at the mask", catalog.Equivalent{Package: "p", Func: "C::chunk", Original: "15", Line: "e0 & 15", Reason: "r"}, mask, true},
		{"line names the mask, at the nibble", catalog.Equivalent{Package: "p", Func: "C::chunk", Original: "15", Line: "e0 & 15", Reason: "r"}, nibble, false},
		{"no line, at the nibble", catalog.Equivalent{Package: "p", Func: "C::chunk", Original: "15", Reason: "r"}, nibble, true},
		{"another function", catalog.Equivalent{Package: "p", Func: "D::chunk", Reason: "r"}, mask, false},
		{"offset outside the source", catalog.Equivalent{Package: "p", Line: "e0", Reason: "r"}, len(src) + 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := matchEquivalent([]catalog.Equivalent{c.eq}, m, src, c.off); ok != c.matches {
				t.Errorf("matches %v, want %v", ok, c.matches)
			}
		})
	}
	for off, want := range map[int]string{0: "  const int r = e0 & 15;", nibble: "  const uint32_t nib = (q >> s) & 15;", len(src): ""} {
		if got := lineAt(src, off); got != want {
			t.Errorf("lineAt(%d) = %q, want %q", off, got, want)
		}
	}
}
