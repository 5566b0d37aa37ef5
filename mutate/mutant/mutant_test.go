package mutant

import (
	"strings"
	"testing"

	"gathermut/mutate/catalog"
)

func TestDiff(t *testing.T) {
	a := []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n")
	for _, c := range []struct {
		name string
		b    string
		want string
	}{
		{"same", string(a), ""},
		{"middle", "1\n2\n3\n4\nX\n6\n7\n8\n9\n", "--- a/f.go\n+++ b/f.go\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"delete first", "2\n3\n4\n5\n6\n7\n8\n9\n", "--- a/f.go\n+++ b/f.go\n@@ -1,4 +1,3 @@\n-1\n 2\n 3\n 4\n"},
		{"insert last", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "--- a/f.go\n+++ b/f.go\n@@ -7,3 +7,4 @@\n 7\n 8\n 9\n+10\n"},
	} {
		if got := Diff("f.go", a, []byte(c.b)); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

func TestMakeID(t *testing.T) {
	id := MakeID("arith", "gguf/types.go", Position{Line: 12, Column: 9}, "a - b")
	if id != "arith:gguf/types.go:12:9:"+ReplacementHash("a - b") || len(ReplacementHash("x")) != 8 {
		t.Errorf("id %s", id)
	}
	if ReplacementHash("a - b") == ReplacementHash("a + b") {
		t.Errorf("hash does not depend on the replacement")
	}
}

func TestEditID(t *testing.T) {
	pos := Position{Line: 330, Column: 2}
	base := EditID("asm-wide-tail", "gather/decode_amd64.s", pos, "VMOVDQU 2(AX), Y1", Edit{Start: 10, End: 12, Text: "Y1"})
	for _, c := range []struct {
		name  string
		shown string
		e     Edit
		same  bool
	}{
		{"the same edit", "VMOVDQU 2(AX), Y1", Edit{Start: 10, End: 12, Text: "Y1"}, true},
		{"the same edit elsewhere in a shifted file", "VMOVDQU 2(AX), Y1", Edit{Start: 50, End: 52, Text: "Y1"}, true},
		{"another text at the position, the same shown text", "VMOVDQU 2(AX), Y1", Edit{Start: 10, End: 12, Text: "Y2"}, false},
		{"a longer range at the position, the same text", "VMOVDQU 2(AX), Y1", Edit{Start: 10, End: 13, Text: "Y1"}, false},
		{"another shown text", "VMOVDQU 2(AX), Y3", Edit{Start: 10, End: 12, Text: "Y1"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := EditID("asm-wide-tail", "gather/decode_amd64.s", pos, c.shown, c.e)
			if (id == base) != c.same {
				t.Errorf("id %s, base %s: same %v, want %v", id, base, id == base, c.same)
			}
			if !strings.HasPrefix(id, "asm-wide-tail:gather/decode_amd64.s:330:2:") {
				t.Errorf("id %s does not name its operator, file and position", id)
			}
		})
	}
}

func TestCatalogFailure(t *testing.T) {
	cat := Mutant{Catalog: &catalog.Entry{ID: "x"}}
	for _, c := range []struct {
		r    Result
		m    Mutant
		want bool
	}{
		{Result{Status: Killed, ExpectedKiller: true}, cat, false},
		{Result{Status: Killed}, cat, true},
		{Result{Status: Survived}, cat, true},
		{Result{Status: TimedOut}, cat, true},
		{Result{Status: Unviable}, cat, true},
		{Result{Status: Error}, cat, true},
		{Result{Status: NotRun}, cat, false},
		{Result{Status: Survived}, Mutant{}, false},
	} {
		if got := c.r.CatalogFailure(c.m); got != c.want {
			t.Errorf("%+v catalog=%v: %v, want %v", c.r, c.m.Catalog != nil, got, c.want)
		}
	}
}
