package operator

import (
	"os/exec"
	"strings"
	"testing"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

const checkSrc = `package p

import (
	"errors"
	"fmt"
	"strings"
)

type T struct {
	n int
	s string
}

func (t *T) Describe() string { return fmt.Sprint(t.n) + t.s }

func (T) Value(x int) int {
	if x > 0 {
		return x * 2
	}
	return -x
}

func Only(x int) error {
	if x < 0 {
		return errors.New("neg")
	}
	return nil
}

func Upper(s string) string {
	u := strings.ToUpper(s)
	return u
}

func Loop(xs []int) (n int) {
	for i, x := range xs {
		if x > 0 {
			n = i
		}
	}
	return
}

func Must(x int) int {
	if x > 0 {
		return 1
	} else {
		return 2
	}
}

func Sw(x int) int {
	switch x {
	case 1:
		return 10
	case 2:
		return 20
	}
	return 0
}

func Both(a, b int) bool { return a == 1 || a == 2 || b != 3 && b != 4 }

func Generic[E any](xs []E) int {
	n := 0
	for range xs {
		n++
	}
	return n
}

type G[E any] struct{ xs []E }

func (g *G[E]) Len() int { return len(g.xs) + 0 }

var table = []int{1, 2, 3}

const K = 4

var arr [K]int

func Idx() int { return arr[3] }

func init() { table[0] = 5 }

func Print() { fmt.Println(K) }
`

// TestFunctionCopyCheckAgrees: checking a renamed copy of the mutated
// function against the package gives the same viability as checking the
// whole mutated package, for every mutant of a package full of the cases
// that differ between the two (imports used only by the mutated function,
// methods, missing returns, unused variables, generics, vet's bools).
func TestFunctionCopyCheckAgrees(t *testing.T) {
	dir := writeModule(t, map[string]string{"p/p.go": checkSrc})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	pkg := prog.Targets[0]
	fm := newFileMutator(prog, pkg, pkg.Files[0])
	cands, err := fm.generic(Operators)
	if err != nil {
		t.Fatal(err)
	}
	chk := newPkgChecker(prog, pkg)
	if !chk.ok {
		t.Fatal("the package does not check alone")
	}
	copies, unviable := 0, 0
	for _, c := range cands {
		whole := chk.checkPackage(c)
		if c.decl == nil {
			continue
		}
		copies++
		viaCopy := chk.checkFunc(c)
		if (whole == "") != (viaCopy == "") {
			t.Errorf("%s (%s -> %s): whole package %q, function copy %q", c.m.ID, c.m.Original, c.m.Replacement, whole, viaCopy)
		}
		if whole != "" {
			unviable++
		}
	}
	if copies < 40 || unviable < 5 {
		t.Errorf("only %d function mutants, %d unviable: the cases do not exercise the check", copies, unviable)
	}
}

const cgoSrc = `package c

// #include <stdlib.h>
// static int twice(int x) { return 2 * x; }
import "C"

func Kind(x C.int) int {
	switch x {
	case 1:
		return 10
	case 2:
		return 20
	}
	return 0
}

func Twice(x int) int {
	var r C.int
	r = C.twice(C.int(x))
	return int(r)
}
`

// TestCgoTypesKnown: in a cgo package, C names get the types cmd/cgo
// found, so a mutant that only the compiler used to reject (a duplicate
// case of C.int constants, a C-typed variable left unused) is unviable
// without a build.
func TestCgoTypesKnown(t *testing.T) {
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("cgo is not enabled (no C compiler)")
	}
	dir := writeModule(t, map[string]string{"c/c.go": cgoSrc})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if pkg := prog.Targets[0]; !pkg.Cgo || pkg.CgoTypes == nil {
		t.Fatalf("cgo %v, C types known %v", pkg.Cgo, pkg.CgoTypes != nil)
	}
	ms, err := Generate(prog, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"const-int 1 -> 2":                      "duplicate case",
		"remove-stmt r = C.twice(C.int(x)) -> ": "",
	}
	found := 0
	for _, m := range ms {
		key := m.Operator + " " + m.Original + " -> " + m.Replacement
		msg, ok := want[key]
		if !ok {
			continue
		}
		found++
		if msg == "" && m.State == mutant.Unbuildable || msg != "" && (m.State != mutant.Unbuildable || !strings.Contains(m.Note, msg)) {
			t.Errorf("%s: %s %q, want unbuildable %q", key, m.State, m.Note, msg)
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the %d mutants", found, len(want))
	}
}
