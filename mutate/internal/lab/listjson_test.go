package lab

import (
	"bytes"
	"encoding/json"
	"testing"

	"gathermut/mutate/mutant"
)

// TestListJSON: list --json prints one JSON object per mutant and line,
// with the state decided before any test where there is one.
func TestListJSON(t *testing.T) {
	base := mutant.Mutant{ID: "arith:p/p.go:3:9:aaaa", Operator: "arith", Kind: mutant.Go, Package: "m/p", File: "p/p.go",
		Pos: mutant.Position{Line: 3, Column: 9}, Func: "F", Original: "a + b", Replacement: "a - b"}
	unviable := base
	unviable.State, unviable.Note = mutant.Unbuildable, "does not compile"
	for _, c := range []struct {
		name        string
		m           mutant.Mutant
		state, note string
	}{
		{"runnable", base, "", ""},
		{"unviable", unviable, "unviable", "does not compile"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			writeListJSON(&b, c.m)
			if bytes.Count(b.Bytes(), []byte("\n")) != 1 {
				t.Fatalf("not one line: %q", b.String())
			}
			var got listJSON
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			want := listJSON{ID: c.m.ID, Operator: "arith", Kind: "go", Package: "m/p", File: "p/p.go", Line: 3, Column: 9, Func: "F",
				Original: "a + b", Replacement: "a - b", State: c.state, Note: c.note}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}
