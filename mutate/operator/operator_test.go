package operator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// Each case is one package of a temp module; the module is loaded once.
type opCase struct {
	name string // package name and directory
	op   string
	src  string // the package's declarations
	want []string
}

var opCases = []opCase{
	{"arithint", "arith", "func F(a, b int) int { return a + b }", []string{"a + b -> a - b"}},
	{"arithstr", "arith", "func F(a, b string) string { return a + b }", nil},
	{"arithrem", "arith", "func F(a, b int) int { return a % b }", []string{"a % b -> a * b"}},
	{"arithfloat", "arith", "func F(a, b float64) float64 { return a / b }", []string{"a / b -> a * b"}},
	{"arithzero", "arith", "func F(a int) int { return a * 0 }", nil},
	{"boundary", "boundary", "func F(a, b int) bool { return a < b || a >= b }", []string{"a < b -> a <= b", "a >= b -> a > b"}},
	{"negate", "negate", "func F(a, b int) bool { return a == b }", []string{"a == b -> a != b"}},
	{"logical", "logical", "func F(a, b, c bool) bool { return a || b && c }", []string{"a || b && c -> a && (b && c)", "b && c -> (b || c)"}},
	{"bitwise", "bitwise", "func F(x, a, b int) int { return x + a&b ^ a&^b }", []string{"a&^b -> a & b", "a&b -> (a | b)", "x + a&b ^ a&^b -> (x + a&b) & (a &^ b)"}},
	{"shift", "shift", "func F(a uint) uint { return a << 2 }", []string{"a << 2 -> a >> 2"}},
	{"unarynot", "unary-not", "func F(a bool) bool { return !a }", []string{"!a -> a"}},
	{"unaryminus", "unary-minus", "func F(a int) int { return -a }", []string{"-a -> a"}},
	{"incdec", "incdec", "func F(x int) int { x++; return x }", []string{"x++ -> x--"}},
	{"assignint", "assign", "func F(x, y int) int { x += y; return x }", []string{"x += y -> x -= y", "x += y -> x = y"}},
	{"assignstr", "assign", "func F(s, t string) string { s += t; return s }", []string{"s += t -> s = t"}},
	{"assignshift", "assign", "func F(x int, n uint) int { x <<= n; return x }", []string{"x <<= n -> x >>= n"}},
	{"constint", "const-int", "var A [4]int\n\nfunc F() int { return 7 + len(A) }\n\nfunc G() int { return 0 }", []string{"0 -> 1", "7 -> 6", "7 -> 8"}},
	{"constfloat", "const-float", "func F() float64 { return 1.0 + 0.25 + 1e300 }", []string{"0.25 -> 1.25", "1.0 -> 2.0"}},
	{"removestmt", "remove-stmt", "var g int\n\nfunc F(y int) int { g = y; return g }", []string{"g = y -> "}},
	{"removestmtunviable", "remove-stmt", "func F(xs []int) int { t := 0; for _, x := range xs { t += x }; return t }", []string{"t += x ->  [unviable: declared and not used: x]"}},
	{"removecall", "remove-call", "var n int\n\nfunc inc() { n++ }\n\nfunc F() int { inc(); return n }", []string{"inc() -> "}},
	{"zeroreturn", "zero-return", "type T struct{ A int }\n\nfunc F(n int, err error) (int, error) { return n, err }\n\nfunc G() T { return T{A: 1} }\n\nfunc H() (int, error) { return 0, nil }",
		[]string{"T{A: 1} -> T{}", "err -> nil", "n -> 0"}},
	{"branchif", "branch-if", "func F(a bool) int {\n\tif a {\n\t\treturn 1\n\t}\n\treturn 0\n}", []string{"{\n\t\treturn 1\n\t} -> {\n\n}"}},
	{"branchtrue", "branch-true", "func F(a bool) int {\n\tif a {\n\t\treturn 1\n\t}\n\treturn 0\n}", []string{"a -> true"}},
	{"branchfalse", "branch-false", "func F(a bool) int {\n\tif a {\n\t\treturn 1\n\t} else {\n\t\treturn 2\n\t}\n}\n\nfunc G(a bool) int {\n\tif a {\n\t\treturn 1\n\t}\n\treturn 0\n}", []string{"a -> false"}},
	{"branchelse", "branch-else", "func F(a bool) (n int) {\n\tif a {\n\t\tn = 1\n\t} else {\n\t\tn = 2\n\t}\n\treturn\n}", []string{"{\n\t\tn = 2\n\t} -> "}},
	{"branchcase", "branch-case", "func F(a int) (n int) {\n\tswitch a {\n\tcase 1:\n\t\tn = 3\n\t}\n\treturn\n}", []string{"n = 3 -> "}},
	{"negform", "neg-form", "type F32 float32\n\nfunc F(d float32, e F32, n int) (float32, F32, int, float64) { return -d, 2 * -e, -n, -1.5 }", []string{"-d -> 0 - d", "-e -> (0 - e)"}},
	{"recipdiv", "recip-div", "func F(x, n float64, i, j int) (float64, float64, float64, int, float64) { return x / n, x / 4, x / 3, i / j, 1 / n }", []string{"x / 3 -> x * (1 / 3)", "x / n -> x * (1 / n)"}},
	{"fuseproduct", "fuse-product", "func F(a, b, c float32, x, y float64) (float32, float32, float64) {\n\treturn float32(a*b) + c, c - float32(a*b), float64(x*y) * x\n}",
		[]string{"float32(a*b) -> a * b", "float32(a*b) -> a * b"}},
	{"unlockearly", "unlock-early", "import \"sync\"\n\ntype S struct {\n\tmu sync.Mutex\n\tn  int\n}\n\nfunc (s *S) Add(k int) int {\n\ts.mu.Lock()\n\ts.n += k\n\tv := s.n\n\ts.mu.Unlock()\n\treturn v\n}\n\nfunc (s *S) Inc() {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\ts.n++\n}",
		[]string{"s.mu.Lock()\n\tdefer s.mu.Unlock()\n\ts.n++ -> s.n++\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()", "s.n += k\n\tv := s.n\n\ts.mu.Unlock() -> v := s.n\n\ts.mu.Unlock()\n\ts.n += k"}},
	{"unlockdecl", "unlock-early", "import \"sync\"\n\nvar mu sync.Mutex\n\nvar n int\n\nfunc Next() int {\n\tmu.Lock()\n\tdefer mu.Unlock()\n\tv := n\n\tn = v + 1\n\treturn v\n}", nil},
	{"guardswap", "guard-swap", "import \"errors\"\n\nvar errBig = errors.New(\"big\")\n\nfunc F(n, max int) error {\n\tif n == 0 {\n\t\treturn nil\n\t}\n\tif n > max {\n\t\treturn errBig\n\t}\n\treturn nil\n}\n\nfunc G(t int) int {\n\tif t == 1 {\n\t\treturn 4\n\t}\n\tif t == 2 {\n\t\treturn 2\n\t}\n\treturn 0\n}\n\nfunc parse(s string) (int, error) { return len(s), nil }\n\nfunc H(s string) (int, error) {\n\tn, err := parse(s)\n\tif err != nil {\n\t\treturn 0, err\n\t}\n\tif n > 9 {\n\t\treturn 0, errBig\n\t}\n\treturn n, nil\n}",
		[]string{"if n == 0 {\n\t\treturn nil\n\t}\n\tif n > max {\n\t\treturn errBig\n\t} -> if n > max {\n\t\treturn errBig\n\t}\n\tif n == 0 {\n\t\treturn nil\n\t}"}},
	{"skipfeature", "skip-feature-check", "var cpuHasAVX2 = detect()\n\nfunc detect() bool { return false }\n\nvar decode func([]byte) int\n\nfunc slow([]byte) int { return 0 }\n\nfunc fast([]byte) int { return 1 }\n\nvar table [4]func([]byte) int\n\nfunc setAccel(on bool) {\n\tfor i := range table {\n\t\ttable[i] = slow\n\t\tif on {\n\t\t\ttable[i] = fast\n\t\t}\n\t}\n}\n\nfunc init() {\n\tsetAccel(cpuHasAVX2)\n\tif cpuHasAVX2 && len(table) > 0 {\n\t\tdecode = fast\n\t}\n\tif cpuHasAVX2 {\n\t\tprintln()\n\t}\n\tsetDebug(cpuHasAVX2)\n}\n\nfunc setDebug(on bool) {\n\tif on {\n\t\tprintln()\n\t}\n}",
		[]string{"cpuHasAVX2 -> true", "cpuHasAVX2 -> true"}},
	{"loopcontrol", "loop-control", "func F(xs []int) (n int) {\n\tfor _, x := range xs {\n\t\tif x < 0 {\n\t\t\tbreak\n\t\t}\n\t\tn++\n\t}\n\tswitch n {\n\tcase 1:\n\t\tbreak\n\t}\n\treturn\n}", []string{"break -> continue"}},
}

var (
	loadOnce sync.Once
	loaded   *load.Program
	loadErr  error
	caseRoot string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if caseRoot != "" {
		os.RemoveAll(caseRoot)
	}
	os.Exit(code)
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	files["go.mod"] = "module m\n\ngo 1.26\n"
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func caseProgram(t *testing.T) *load.Program {
	loadOnce.Do(func() {
		files := map[string]string{}
		for _, c := range opCases {
			files[c.name+"/"+c.name+".go"] = "package " + c.name + "\n\n" + c.src + "\n"
		}
		caseRoot, loadErr = os.MkdirTemp("", "operator-cases-")
		if loadErr != nil {
			return
		}
		writeFiles(t, caseRoot, files)
		loaded, loadErr = load.Load(caseRoot, "./...")
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

func describe(m mutant.Mutant) string {
	s := m.Original + " -> " + m.Replacement
	if m.State == mutant.Unbuildable {
		_, msg, _ := strings.Cut(m.Note, ": ")
		s += " [unviable: " + msg + "]"
	}
	return s
}

func TestGenericOperators(t *testing.T) {
	prog := caseProgram(t)
	for _, c := range opCases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := Generate(prog, Config{Packages: []string{"m/" + c.name}, Operators: ops(t, c.op)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, describe(m))
				if m.State != mutant.Unbuildable && !strings.Contains(c.name, "unviable") && m.Diff == "" {
					t.Errorf("%s: empty diff", m.ID)
				}
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%s mutants:\n%s\nwant:\n%s", c.op, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestMutatedSourceAndPositions(t *testing.T) {
	prog := caseProgram(t)
	ms, err := Generate(prog, Config{Packages: []string{"m/bitwise"}, Operators: ops(t, "bitwise")})
	if err != nil {
		t.Fatal(err)
	}
	var or mutant.Mutant
	for _, m := range ms {
		if m.Replacement == "(a | b)" {
			or = m
		}
	}
	want := "package bitwise\n\nfunc F(x, a, b int) int { return x + (a | b) ^ a&^b }\n"
	_, file, _ := prog.File("bitwise/bitwise.go")
	if src, err := or.Apply(file.Src); err != nil || string(src) != want {
		t.Fatalf("mutated source:\n%s\nwant:\n%s", src, want)
	}
	if or.File != "bitwise/bitwise.go" || or.Pos != (mutant.Position{Line: 3, Column: 38}) || or.End != (mutant.Position{Line: 3, Column: 41}) || or.Func != "F" || !or.InBody {
		t.Errorf("mutant %s at %s %v-%v in %q (in body %v)", or.ID, or.File, or.Pos, or.End, or.Func, or.InBody)
	}
	if or.ID != mutant.MakeID("bitwise", "bitwise/bitwise.go", or.Pos, "(a | b)") {
		t.Errorf("id %s", or.ID)
	}
	wantDiff := "--- a/bitwise/bitwise.go\n+++ b/bitwise/bitwise.go\n@@ -1,3 +1,3 @@\n package bitwise\n \n-func F(x, a, b int) int { return x + a&b ^ a&^b }\n+func F(x, a, b int) int { return x + (a | b) ^ a&^b }\n"
	if or.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", or.Diff, wantDiff)
	}
	// the original tree is untouched
	orig, _ := os.ReadFile(filepath.Join(caseRoot, "bitwise/bitwise.go"))
	if _, f, _ := prog.File("bitwise/bitwise.go"); string(f.Src) != string(orig) {
		t.Errorf("loaded source differs from disk")
	}
}

func TestIDsStableAcrossLoads(t *testing.T) {
	dir := writeModule(t, map[string]string{"p/p.go": "package p\n\nfunc F(a, b int) int {\n\tif a < b {\n\t\treturn a - b\n\t}\n\treturn a * 2\n}\n"})
	var runs [2][]string
	for i := range runs {
		prog, err := load.Load(dir, "./...")
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Generate(prog, Config{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			runs[i] = append(runs[i], m.ID)
		}
	}
	if len(runs[0]) < 8 || strings.Join(runs[0], ",") != strings.Join(runs[1], ",") {
		t.Errorf("ids:\n%v\n%v", runs[0], runs[1])
	}
	if !sort.StringsAreSorted(runs[0]) {
		t.Errorf("ids not sorted: %v", runs[0])
	}
}

func TestSuppressions(t *testing.T) {
	src := "package p\n\nfunc F(a, b int) bool {\n\t//gathermut:equivalent(boundary) a and b never meet\n\tx := a < b\n\ty := a > b //gathermut:equivalent trailing form\n\treturn x || y\n}\n"
	dir := writeModule(t, map[string]string{"p/p.go": src})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Generate(prog, Config{Operators: ops(t, "boundary", "negate")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range ms {
		if m.State == mutant.Equivalent {
			got[m.Operator+" "+m.Original] = m.Note
		}
	}
	want := map[string]string{
		"boundary a < b": "a and b never meet", "negate a < b": "",
		"boundary a > b": "trailing form", "negate a > b": "trailing form",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: equivalent %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []struct{ comment, err string }{
		{"//gathermut:equivalent", "p/p.go:4: //gathermut:equivalent needs a reason"},
		{"//gathermut:equivalent(boundary)   ", "needs a reason"},
		{"//gathermut:equivalent(nosuchop) why", `unknown operator "nosuchop"`},
		{"//gathermut:equivalent(boundary why", "missing ')'"},
	} {
		dir := writeModule(t, map[string]string{"p/p.go": "package p\n\nfunc F(a int) bool {\n\t" + bad.comment + "\n\treturn a < 1\n}\n"})
		prog, err := load.Load(dir, "./...")
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckSuppressions(prog); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%q: error %v, want %q", bad.comment, err, bad.err)
		}
		if _, err := Generate(prog, Config{}); err == nil {
			t.Errorf("%q: Generate accepted it", bad.comment)
		}
	}
}

func TestEquivalents(t *testing.T) {
	prog := caseProgram(t)
	eq := []catalog.Equivalent{{Package: "m/negate", Operator: "negate", Reason: "declared"}}
	ms, err := Generate(prog, Config{Packages: []string{"m/negate", "m/boundary"}, Operators: ops(t, "negate"), Equivalents: eq})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if (m.Package == "m/negate") != (m.State == mutant.Equivalent && m.Note == "declared") {
			t.Errorf("%s: %s %q", m.ID, m.State, m.Note)
		}
	}
	if _, err := Generate(prog, Config{Equivalents: []catalog.Equivalent{{Package: "m/negate"}}}); err == nil || !strings.Contains(err.Error(), "Reason is required") {
		t.Errorf("equivalent without reason: %v", err)
	}
	if _, err := SelectOperators([]string{"nope"}); err == nil {
		t.Errorf("unknown operator accepted")
	}
}

// ops resolves operator names as the mutate command does, once.
func ops(t *testing.T, names ...string) []*Operator {
	t.Helper()
	ops, err := SelectOperators(names)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

const catalogSrc = `package c

import "errors"

const Version = 3

type Limit struct{ Max, Step int }

var Limits = map[string]Limit{
	"small": {Max: 10, Step: 1},
	"large": {Max: 100, Step: 2},
}

var registry []string

func register(name string) { registry = append(registry, name) }

func init() {
	register("a")
	register("b")
}

func check(x int) error {
	if x < 0 {
		return errors.New("negative")
	}
	return nil
}

func pair() (int, error) { return 1, nil }

type T struct{ n int }

func (t *T) Apply(x int) (int, error) {
	if err := check(x); err != nil {
		return 0, err
	}
	n, err := pair()
	return x*t.n + n, err
}
`

func TestResolve(t *testing.T) {
	dir := writeModule(t, map[string]string{"c/c.go": catalogSrc, "c/k.hip": "int y = x * 2;\nint z = x * 2 + 1;\n"})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	entry := func(op catalog.Operator, fn, match, field, repl string) catalog.Entry {
		return catalog.Entry{ID: "e", Operator: op, Target: catalog.Target{Package: "m/c", Func: fn, Match: match, Field: field}, Replacement: repl, Killers: []string{"m/c.TestX"}}
	}
	for _, c := range []struct {
		name  string
		e     catalog.Entry
		diff  string // a line the diff must contain
		error string
	}{
		{"call statement", entry(catalog.DeleteCall, "init", `register("b")`, "", ""), `-	register("b")`, ""},
		{"call callee ambiguous", entry(catalog.DeleteCall, "init", "register", "", ""), "", "is ambiguous in init in package m/c: 2 matches"},
		{"call in :=", entry(catalog.DeleteCall, "(*T).Apply", "check", "", ""), "+	if err := error(nil); err != nil {", ""},
		{"multi-result call", entry(catalog.DeleteCall, "(*T).Apply", "pair()", "", ""), "+	n, err := int(0), error(nil)", ""},
		{"element", entry(catalog.DeleteElement, "Limits", `"large"`, "", ""), `-	"large": {Max: 100, Step: 2},`, ""},
		{"field value", entry(catalog.ReplaceValue, "Limits", `"small"`, "Step", "2"), `+	"small": {Max: 10, Step: 2},`, ""},
		{"field not set", entry(catalog.ReplaceValue, "Limits", `"small"`, "Min", "2"), "", "field Min is not set"},
		{"const value", entry(catalog.ReplaceValue, "Version", "", "", "4"), "+const Version = 4", ""},
		{"expr normalized", entry(catalog.ReplaceExpr, "(*T).Apply", "x*t.n", "", "x + t.n"), "+	return x + t.n + n, err", ""},
		{"expr missing", entry(catalog.ReplaceExpr, "(*T).Apply", "x/t.n", "", "x"), "", `replace-expr "x/t.n" not found in (*T).Apply`},
		{"empty diff", entry(catalog.ReplaceExpr, "(*T).Apply", "x * t.n", "", "x*t.n"), "", "empty diff"},
		{"no such func", entry(catalog.DeleteCall, "Nope", "f", "", ""), "", "no function, method, var or const Nope"},
		{"no such package", catalog.Entry{ID: "e", Operator: catalog.DeleteCall, Target: catalog.Target{Package: "m/zz", Func: "F", Match: "f"}}, "", `package "m/zz" is not loaded`},
		{"kernel", catalog.Entry{ID: "e", Operator: catalog.KernelText, Target: catalog.Target{File: "c/k.hip", Match: "x * 2;"}, Replacement: "x * 3;", Killers: []string{"m/c.TestX"}}, "+int y = x * 3;", ""},
		{"kernel ambiguous", catalog.Entry{ID: "e", Operator: catalog.KernelText, Target: catalog.Target{File: "c/k.hip", Match: "x * 2"}, Replacement: "x"}, "", "2 occurrences"},
		{"kernel empty diff", catalog.Entry{ID: "e", Operator: catalog.KernelText, Target: catalog.Target{File: "c/k.hip", Match: "x * 2;"}, Replacement: "x * 2;"}, "", "empty diff"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Resolve(prog, c.e)
			if c.error != "" {
				if err == nil || !strings.Contains(err.Error(), c.error) {
					t.Fatalf("error %v, want %q", err, c.error)
				}
				if c.error == "empty diff" && !errors.Is(err, ErrEmptyDiff) {
					t.Errorf("not ErrEmptyDiff: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(m.Diff, c.diff+"\n") {
				t.Errorf("diff:\n%s\nwant a line %q", m.Diff, c.diff)
			}
			if m.State == mutant.Unbuildable {
				t.Errorf("unviable: %s", m.Note)
			}
			if m.ID != "e" || m.Catalog == nil || len(m.Expected) != 1 || m.Operator != string(c.e.Operator) {
				t.Errorf("mutant %+v", m)
			}
		})
	}
}

func TestZeroValueSpelling(t *testing.T) {
	src := "package z\n\nimport (\n\t\"errors\"\n\tio2 \"io\"\n)\n\ntype S struct{ A int }\n\nfunc F() (int, string, bool, *S, S, [2]int, error, io2.Reader, []int) {\n\treturn 1, \"a\", true, &S{}, S{A: 1}, [2]int{1, 2}, errX, nil, []int{1}\n}\n\nvar errX = errors.New(\"x\")\n"
	dir := writeModule(t, map[string]string{"z/z.go": src})
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Generate(prog, Config{Operators: ops(t, "zero-return")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s -> %s", m.Original, m.Replacement))
		if m.State == mutant.Unbuildable {
			t.Errorf("%s: %s", m.ID, m.Note)
		}
	}
	sort.Strings(got)
	want := []string{`"a" -> ""`, `&S{} -> nil`, `1 -> 0`, `S{A: 1} -> S{}`, `[2]int{1, 2} -> [2]int{}`, `[]int{1} -> nil`, `errX -> nil`, `true -> false`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
