package mutant

import (
	"strings"
	"testing"
)

func TestEditApplyAndMinimize(t *testing.T) {
	orig := []byte("return a + b\n")
	e := Edit{Start: 7, End: 12, Text: "a - b"}.Minimize(orig)
	if e != (Edit{Start: 9, End: 10, Text: "-"}) {
		t.Errorf("minimized %+v", e)
	}
	got, err := e.Apply(orig)
	if err != nil || string(got) != "return a - b\n" {
		t.Errorf("apply: %q %v", got, err)
	}
	if _, err := (Edit{Start: 5, End: 99}).Apply(orig); err == nil {
		t.Errorf("an edit past the end applied")
	}
	if _, err := (Mutant{ID: "x"}).Apply(orig); err == nil {
		t.Errorf("a mutant without an edit applied")
	}
}

// EditDiff computes around the edit what Diff computes over the whole
// file.
func TestEditDiffMatchesDiff(t *testing.T) {
	src := "package p\n\nfunc F(a, b int) int {\n\tx := a + b\n\tif x > 3 {\n\t\tx++\n\t}\n\treturn x\n}\n\nfunc G() {}\n"
	at := func(s string) int { return strings.Index(src, s) }
	for _, e := range []Edit{
		{Start: at("+ b"), End: at("+ b") + 1, Text: "-"},
		{Start: at("\t\tx++\n"), End: at("\t\tx++\n") + len("\t\tx++\n")},
		{Start: at("x > 3"), End: at("x > 3") + 5, Text: "true"},
		{Start: at("{\n\t\tx++"), End: at("\t}\n\treturn") + 2, Text: "{\n\t}"},
		{Start: at("func G"), End: len(src), Text: "func G() { panic(1) }\n"},
		{Start: 0, End: 9, Text: "package q"},
		{Start: at("\treturn x"), End: at("\treturn x"), Text: "\tx = 0\n"},
	} {
		mutated, err := e.Apply([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := EditDiff("p.go", []byte(src), e), Diff("p.go", []byte(src), mutated); got != want {
			t.Errorf("edit %+v:\n%s\nwant:\n%s", e, got, want)
		}
	}
	if d := EditDiff("p.go", []byte(src), Edit{Start: 3, End: 3}); d != "" {
		t.Errorf("empty edit: %q", d)
	}
}
