package load

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needCgo(t *testing.T) {
	t.Helper()
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("cgo is off")
	}
}

// TestLoadCgo: a cgo package is checked with the types cmd/cgo found
// (C.int is int32: CgoTypes set), and one that uses a C constant (which
// cgo inlines) with a faked "C" (CgoTypes nil); both keep their own files
// and positions, and a package's assembly is among its files.
func TestLoadCgo(t *testing.T) {
	needCgo(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"go.mod": "module m\n\ngo 1.26\n",
		"c/c.go": `package c

// #include <stdlib.h>
// int counter = 3;
// static int twice(int x) { return 2 * x; }
import "C"

import "unsafe"

// Twice calls C.
func Twice(x int) int { return int(C.twice(C.int(x))) }

// Counter reads a C variable.
func Counter() int { return int(C.counter) }

// Free frees.
func Free(p unsafe.Pointer) { C.free(p) }
`,
		"k/k.go": `package k

// #define LIMIT 7
import "C"

// Limit is a C constant, which cgo inlines.
func Limit() int { return int(C.LIMIT) }
`,
		"s/s.go":        "package s\n\n// Add is in assembly.\nfunc Add(a, b int) int\n",
		"s/add_amd64.s": "#include \"textflag.h\"\n\nTEXT ·Add(SB), NOSPLIT, $0-24\n\tMOVQ a+0(FP), AX\n\tADDQ b+8(FP), AX\n\tMOVQ AX, ret+16(FP)\n\tRET\n",
		"s/add_arm64.s": "#include \"textflag.h\"\n\nTEXT ·Add(SB), NOSPLIT, $0-24\n\tRET\n",
	})
	prog, err := Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := prog.Package("m/c")
	if !ok || !c.Cgo || c.CgoTypes == nil || c.Types == nil || len(c.Files) != 1 || c.Files[0].Rel != "c/c.go" {
		t.Fatalf("package c: %+v", c)
	}
	var twiceArg types.Type
	ast.Inspect(c.Files[0].Syntax, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "twice" {
				twiceArg = c.Info.TypeOf(call.Args[0])
			}
		}
		return true
	})
	if twiceArg == nil || twiceArg.Underlying().String() != "int32" {
		t.Errorf("C.int(x) is %v, want a type whose underlying type is int32", twiceArg)
	}
	if sel, ok := c.Files[0].Syntax.Decls[len(c.Files[0].Syntax.Decls)-1].(*ast.FuncDecl); !ok || !strings.Contains(prog.Fset.Position(sel.Pos()).Filename, "c.go") {
		t.Errorf("the file's syntax is not c.go's")
	}
	k, _ := prog.Package("m/k")
	if k == nil || !k.Cgo || k.CgoTypes != nil || k.Types == nil {
		t.Errorf("package k (a C constant): %+v", k)
	}
	s, _ := prog.Package("m/s")
	if s == nil || len(s.Asm) != 1 || s.Asm[0].Rel != "s/add_amd64.s" || !strings.Contains(string(s.Asm[0].Src), "ADDQ") {
		t.Errorf("package s's assembly: %+v", s)
	}
	if pkg, f, ok := prog.File("c/c.go"); !ok || pkg != c || f != c.Files[0] {
		t.Errorf("File(c/c.go) = %v, %v, %v", pkg, f, ok)
	}
	if _, _, ok := prog.File("c/none.go"); ok {
		t.Errorf("File of a file that is not there")
	}
	if prog.Name("m/c") != "c" {
		t.Errorf("Name(m/c) = %q", prog.Name("m/c"))
	}
}

func TestLoadGraphAndCheck(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"go.mod":      "module m\n\ngo 1.26\n",
		"a/a.go":      "package a\n\nfunc A() int { return 1 }\n",
		"b/b.go":      "package b\n\nimport \"m/a\"\n\nfunc B() int { return a.A() }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
	})
	prog, err := LoadGraph(filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if prog.Module != "m" || prog.Root != dir || len(prog.Targets) != 0 || strings.Join(prog.Observers("m/a"), ",") != "m/b" || prog.Name("m/a") != "a" {
		t.Errorf("graph: %s %s %d targets, observers %v", prog.Module, prog.Root, len(prog.Targets), prog.Observers("m/a"))
	}
	if _, err := LoadGraph(t.TempDir()); err == nil {
		t.Errorf("a directory outside any module loaded")
	}

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", "package x\n\nimport (\n\t\"unsafe\"\n\t\"m/a\"\n)\n\nvar _ = unsafe.Sizeof(0)\nvar V = a.A\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	aprog, err := Load(dir, "./a")
	if err != nil {
		t.Fatal(err)
	}
	apkg, _ := aprog.Package("m/a")
	info := NewInfo()
	if p, err := Check("m/x", fset, []*ast.File{f}, map[string]*types.Package{"m/a": apkg.Types}, false, info); err != nil || p.Path() != "m/x" || len(info.Uses) == 0 {
		t.Errorf("Check: %v", err)
	}
	if _, err := Check("m/x", fset, []*ast.File{f}, nil, false, NewInfo()); err == nil || !strings.Contains(err.Error(), `package "m/a" is not imported by the original package`) {
		t.Errorf("Check without the import: %v", err)
	}
	imp := Importer(map[string]*types.Package{"m/a": apkg.Types})
	if p, err := imp.Import("m/a"); err != nil || p != apkg.Types {
		t.Errorf("Importer: %v %v", p, err)
	}
	if p, err := imp.Import("unsafe"); err != nil || p != types.Unsafe {
		t.Errorf("Importer(unsafe): %v %v", p, err)
	}
	if _, err := imp.Import("fmt"); err == nil {
		t.Errorf("Importer resolved a package it was not given")
	}
	if !IsUnusedC(types.Error{Msg: `"C" imported and not used`}) || IsUnusedC(types.Error{Msg: `"fmt" imported and not used`}) || IsUnusedC(types.Error{Msg: `"C" imported as x`}) {
		t.Errorf("IsUnusedC")
	}
}
