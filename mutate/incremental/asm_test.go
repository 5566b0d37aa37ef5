package incremental

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
)

// TestAsmDecls: an assembly mutant stands for the Go declaration of the
// routine its edit lies in (the last TEXT before it); where there is
// none (an edit before every TEXT, a routine without a Go declaration, a
// file that does not read), for every bodyless function of its package,
// never for a function with a body, test code or another package's.
func TestAsmDecls(t *testing.T) {
	src := "#include \"textflag.h\"\n\n" +
		"TEXT ·first(SB), NOSPLIT, $0\n\tADDQ $1, AX\n\tRET\n\n" +
		"TEXT ·orphan(SB), NOSPLIT, $0\n\tADDQ $3, AX\n\tRET\n\n" +
		"TEXT ·second(SB), NOSPLIT, $0\n\tADDQ $2, AX\n\tRET\n"
	g := handGraph(6)
	g.root = t.TempDir()
	g.texts = map[string]*textFile{}
	if err := os.WriteFile(filepath.Join(g.root, "a_amd64.s"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, n := range []node{
		{key: "m/p.first", pkg: "m/p", bodyless: true},
		{key: "m/p.second", pkg: "m/p", bodyless: true},
		{key: "m/p.third", pkg: "m/p", bodyless: true},
		{key: "m/p.orphan", pkg: "m/p"}, // has a body: a Go fallback, not the routine
		{key: "m/q.second", pkg: "m/q", bodyless: true},
		{key: "m/p.testonly", pkg: "m/p", bodyless: true, testCode: true},
	} {
		g.nodes[i] = n
		g.byKey[n.key] = i
	}
	at := func(file, marker string) mutant.Mutant {
		off := strings.Index(src, marker)
		if off < 0 {
			t.Fatalf("no %q", marker)
		}
		return mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: file, Edit: &mutant.Edit{Start: off, End: off + len(marker), Text: "X"}}
	}
	keys := func(ns []int) string {
		var out []string
		for _, n := range ns {
			out = append(out, g.nodes[n].key)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	every := "m/p.first m/p.second m/p.third"
	for _, c := range []struct {
		name string
		m    mutant.Mutant
		want string
	}{
		{"in the first routine", at("a_amd64.s", "$1"), "m/p.first"},
		{"in the second", at("a_amd64.s", "$2"), "m/p.second"},
		{"on the second's TEXT line", at("a_amd64.s", "NOSPLIT, $0\n\tADDQ $2"), "m/p.second"},
		{"before every TEXT", at("a_amd64.s", "#include"), every},
		{"a routine without a Go declaration", at("a_amd64.s", "$3"), every},
		{"a file that does not read", at("gone.s", "$2"), every},
		{"no edit", mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: "a_amd64.s"}, every},
		{"an edit at the file's end", mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: "a_amd64.s", Edit: &mutant.Edit{Start: len(src), End: len(src)}}, "m/p.second"},
		{"an edit past the file's end", mutant.Mutant{Kind: mutant.Go, Package: "m/p", File: "a_amd64.s", Edit: &mutant.Edit{Start: len(src) + 1, End: len(src) + 1}}, every},
		{"another package", func() mutant.Mutant { m := at("a_amd64.s", "$2"); m.Package = "m/q"; return m }(), "m/q.second"},
	} {
		if got := keys(g.asmDecls(c.m)); got != c.want {
			t.Errorf("%s: declarations %q, want %q", c.name, got, c.want)
		}
	}
}
