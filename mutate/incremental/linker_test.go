package incremental

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkerNode: a position maps to the declaration holding it: by its
// offset in a module file the graph parsed, or, in a file outside the
// module (cgo's generated code), by the line and column a //line
// directive points to in a module file; nothing for a position outside
// every parsed module file.
func TestLinkerNode(t *testing.T) {
	root := t.TempDir()
	src := "package p; func z() {}\n\nfunc a() {}; func b() {}\nfunc c() {\n}\nfunc d() {}"
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g := handGraph(5)
	g.root = root
	for i, d := range []struct{ start, end string }{{"func a", "}; func b"}, {"func b", "}\nfunc c"}, {"func c", "}\nfunc d"}, {"func z", "}\n\nfunc a"}, {"func d", "}\x00"}} {
		g.nodes[i].file = "a.go"
		g.nodes[i].start = index(t, src, d.start)
		g.nodes[i].end = index(t, src+"\x00", d.end) + 1 // after the closing brace
		g.files["a.go"] = append(g.files["a.go"], i)
	}
	fset := token.NewFileSet()
	lk := &linker{g: g, fset: fset, lines: map[string][]int{}}
	direct, err := parser.ParseFile(fset, filepath.Join(root, "a.go"), src, 0)
	if err != nil {
		t.Fatal(err)
	}
	aGo := filepath.Join(root, "a.go")
	gen := "package p\n\n" +
		"//line " + aGo + ":3:1\nvar x1 = 1\n" + // a's first byte
		"//line " + aGo + ":3:14\nvar x2 = 1\n" + // b's first byte
		"//line " + aGo + ":3:13\nvar x3 = 1\n" + // the blank between
		"//line " + aGo + ":4:1\nvar x4 = 1\n" + // c's first byte
		"//line " + aGo + ":5:1\nvar x5 = 1\n" + // c's closing brace
		"//line " + aGo + ":2:1\nvar x6 = 1\n" + // a blank line
		"//line " + aGo + ":9:1\nvar x7 = 1\n" + // past the file's lines
		"//line " + filepath.Join(root, "other.go") + ":1:1\nvar x8 = 1\n" + // a file the graph did not parse
		"//line /elsewhere/o.go:3:1\nvar x9 = 1\n" + // outside the module
		"//line " + aGo + ":4\nvar x10 = 1\n" + // no column: the line's start
		"//line " + aGo + ":1:12\nvar x11 = 1\n" + // the first line
		"//line " + aGo + ":6:1\nvar x12 = 1\n" // the last line, without a newline
	genFile, err := parser.ParseFile(fset, filepath.Join(t.TempDir(), "gen.go"), gen, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 1, -1, 2, 2, -1, -1, -1, -1, 2, 3, 4}
	for i, d := range genFile.Decls {
		if got := lk.node(d.Pos()); got != want[i] {
			t.Errorf("the declaration after //line #%d maps to %d, want %d", i+1, got, want[i])
		}
	}
	for name, want := range map[string]int{"func a": 0, "func b": 1, "func c": 2, "package": -1} {
		pos := direct.FileStart + token.Pos(index(t, src, name))
		if got := lk.node(pos); got != want {
			t.Errorf("%q in a.go maps to %d, want %d", name, got, want)
		}
	}
	if lk.node(token.NoPos) != -1 {
		t.Error("no position maps to a declaration")
	}
	for name, want := range map[string]bool{"": false, aGo: true, "a.go": true, filepath.Dir(root): false, "/elsewhere/a.go": false} {
		if _, ok := lk.rel(name); ok != want {
			t.Errorf("rel(%q): in the module %v, want %v", name, ok, want)
		}
	}
	if rel, _ := lk.rel("a.go"); rel != "a.go" {
		t.Errorf("rel(a.go) = %q", rel)
	}
}

func index(t *testing.T, s, sub string) int {
	t.Helper()
	i := strings.Index(s, sub)
	if i < 0 {
		t.Fatalf("no %q", sub)
	}
	return i
}
