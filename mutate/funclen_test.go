package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the mutate tree may be, from
// its func line to its closing brace: a longer one is split into named
// steps.
const maxFuncLines = 80

// TestFunctionLength checks every function and method declared in a .go
// file under mutate/ (tests included, testdata not: fixtures are inputs).
func TestFunctionLength(t *testing.T) {
	long, err := longFunctions(".", maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s: over %d lines", f, maxFuncLines)
	}
}

// longFunctions lists "file:line name (N lines)" for each function under
// root longer than limit lines.
func longFunctions(root string, limit int) ([]string, error) {
	fset := token.NewFileSet()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > limit {
				out = append(out, fmt.Sprintf("%s:%d %s (%d lines)", filepath.ToSlash(path), start.Line, fd.Name.Name, n))
			}
		}
		return nil
	})
	return out, err
}

// TestLongFunctionsCounts: the count runs from the func line to the
// closing brace, doc comment left out, methods and tests included, and
// testdata skipped.
func TestLongFunctionsCounts(t *testing.T) {
	dir := t.TempDir()
	body := func(name string, lines int) string {
		// "func name() {" + (lines-2) statements + "}"
		return "// " + name + " has a doc comment\n// of two lines.\nfunc " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	files := map[string]string{
		"a.go":          "package a\n\n" + body("fits", 80) + body("over", 81),
		"a_test.go":     "package a\n\ntype T struct{}\n\nfunc (T) " + strings.TrimPrefix(body("method", 90), "// method has a doc comment\n// of two lines.\nfunc "),
		"testdata/x.go": "package x\n\n" + body("fixture", 200),
		"sub/b.go":      "package sub\n\nfunc Decl()\n",
	}
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := longFunctions(dir, 80)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.ToSlash(dir) + "/a.go:87 over (81 lines)", filepath.ToSlash(dir) + "/a_test.go:5 method (90 lines)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
