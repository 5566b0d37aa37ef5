package cxx

import (
	"fmt"
	"strings"
	"testing"
)

// mutantsOf returns the mutants of the device code in src, one line each:
// "operator: original -> replacement", with " (const)" for a mutant that
// cannot be switched.
func mutantsOf(t *testing.T, src string, ops ...string) []string {
	t.Helper()
	srcs := parseOne(t, src, Emulation)
	ms, err := Mutants(srcs, ops)
	if err != nil {
		t.Fatalf("Mutants: %v", err)
	}
	var out []string
	for _, m := range ms {
		line := fmt.Sprintf("%s: %s -> %s", m.Operator, m.Original, m.Replacement)
		if m.Site.Why != "" {
			line += " (const)"
		}
		out = append(out, line)
		checkMutant(t, srcs, m)
	}
	return out
}

// checkMutant checks a mutant's parts agree: its edit lies in its site,
// the site's text is the site's original with the edit made, and Original
// is the edited bytes.
func checkMutant(t *testing.T, srcs []*Source, m Mutant) {
	t.Helper()
	var src []byte
	for _, s := range srcs {
		if s.Name == m.File {
			src = s.Src
		}
	}
	e, st := m.Edit, m.Site
	if st.Start > e.Start || e.End > st.End || e.Start > e.End {
		t.Errorf("%s %q: edit [%d, %d) outside its site [%d, %d)", m.Operator, m.Original, e.Start, e.End, st.Start, st.End)
		return
	}
	if string(src[e.Start:e.End]) != m.Original || e.Text != m.Replacement {
		t.Errorf("%s: original %q replacement %q, edit [%d, %d) %q of %q", m.Operator, m.Original, m.Replacement, e.Start, e.End, e.Text, src[e.Start:e.End])
	}
	want := string(src[st.Start:e.Start]) + e.Text + string(src[e.End:st.End])
	if st.Text != want {
		t.Errorf("%s: site text %q, want %q", m.Operator, st.Text, want)
	}
	if st.Kind != ExprSite && st.Kind != StmtSite {
		t.Errorf("%s: site kind %q", m.Operator, st.Kind)
	}
	if src[st.Probe] != '{' {
		t.Errorf("%s: probe at %d is %q, not a body's brace", m.Operator, st.Probe, src[st.Probe])
	}
}

func device(body string) string {
	return hostMarkers + "template <int N> GM_DEV int tf(int x);\nstruct R { const uint8_t* p; };\n" +
		"GM_DEV int f(int a, int b, int* y, const uint8_t* p, int k, float x) {\n" + body + "\n}\n"
}

// operatorCases are TestOperators' cases: a device function body, the
// operators applied, and the mutants they make.
var operatorCases = []struct {
	name string
	body string
	ops  []string
	want []string
}{
	{"arith", "return a + b * a % b - a / b;", []string{"arith"}, []string{
		"arith: + -> -", "arith: * -> /", "arith: % -> *", "arith: - -> +", "arith: / -> *"}},
	{"boundary", "if (a < b && a <= b && a > b && a >= b && a == b) return 1; return 0;", []string{"boundary"}, []string{
		"boundary: < -> <=", "boundary: <= -> <", "boundary: > -> >=", "boundary: >= -> >"}},
	{"negate", "return (a < b) + (a <= b) + (a > b) + (a >= b) + (a == b) + (a != b);", []string{"negate"}, []string{
		"negate: < -> >=", "negate: <= -> >", "negate: > -> <=", "negate: >= -> <", "negate: == -> !=", "negate: != -> =="}},
	{"logical", "return a && b || !a;", []string{"logical"}, []string{"logical: && -> ||", "logical: || -> &&"}},
	{"bitwise", "return a & b | a ^ b;", []string{"bitwise"}, []string{"bitwise: & -> |", "bitwise: | -> &", "bitwise: ^ -> &"}},
	{"shift", "return a << b >> 2;", []string{"shift"}, []string{"shift: << -> >>", "shift: >> -> <<"}},
	{"shift-amount: computed amounts only", "return (a >> (8 * k)) | (a << b) | (a << 3) | (a >> k + 1);", []string{"shift-amount"}, []string{
		"shift-amount: (8 * k) -> (8 * k) + 1", "shift-amount: b -> b + 1", "shift-amount: k + 1 -> (k + 1) + 1"}},
	{"unary", "return !a + -b + ~k + +a;", []string{"unary-not", "unary-minus", "unary-bitnot"}, []string{
		"unary-not: ! -> ", "unary-minus: - -> ", "unary-bitnot: ~ -> "}},
	{"incdec", "a++; --b; return a;", []string{"incdec"}, []string{"incdec: ++ -> --", "incdec: -- -> ++"}},
	{"assign", "a += b; a -= b; a *= b; a /= b; a %= b; a |= b; a &= b; a ^= b; a <<= b; a >>= b; a = b; p += 2; return a;", []string{"assign"}, []string{
		"assign: += -> -=", "assign: += -> =", "assign: -= -> +=", "assign: -= -> =", "assign: *= -> /=", "assign: *= -> =",
		"assign: /= -> *=", "assign: /= -> =", "assign: %= -> *=", "assign: %= -> =", "assign: |= -> &=", "assign: |= -> =",
		"assign: &= -> |=", "assign: &= -> =", "assign: ^= -> &=", "assign: ^= -> =", "assign: <<= -> >>=", "assign: <<= -> =",
		"assign: >>= -> <<=", "assign: >>= -> =",
		"assign: += -> -="}}, // p is a pointer: p = 2 would not compile
	{"const-int", "return 15 + 0 + 0xffu + 0x0F + 07 + 0b10 + 1'000 + 10ull;", []string{"const-int"}, []string{
		"const-int: 15 -> 16", "const-int: 15 -> 14", "const-int: 0 -> 1", "const-int: 0xffu -> 0x100u", "const-int: 0xffu -> 0xfeu",
		"const-int: 0x0F -> 0x10", "const-int: 0x0F -> 0x0E", "const-int: 07 -> 010", "const-int: 07 -> 06", "const-int: 0b10 -> 0b11",
		"const-int: 0b10 -> 0b01", "const-int: 1'000 -> 1001", "const-int: 1'000 -> 999", "const-int: 10ull -> 11ull", "const-int: 10ull -> 9ull"}},
	{"const-int keeps the literal's type", "return 2147483647 + 0x7fffffff + 0xffffffff + 4294967295u + 0xffffffffffffffffull + 2147483648;", []string{"const-int"}, []string{
		"const-int: 2147483647 -> 2147483646", "const-int: 0x7fffffff -> 0x7ffffffe", "const-int: 0xffffffff -> 0xfffffffe",
		"const-int: 4294967295u -> 4294967294u", "const-int: 0xffffffffffffffffull -> 0xfffffffffffffffeull",
		"const-int: 2147483648 -> 2147483649"}},
	{"const-float", "x = 0.5f + 12582912.0f + 1e30f + 2.5 + 5.9604644775390625e-08f; return 0;", []string{"const-float"}, []string{
		"const-float: 0.5f -> 1.5f", "const-float: 12582912.0f -> 1.2582913e+07f", "const-float: 2.5 -> 3.5",
		"const-float: 5.9604644775390625e-08f -> 1.0f"}}, // 1 + 2^-24 rounds to even in float
	{"index: computed indices only", "return y[k] + y[0] + y[k + 1] + y[(k)];", []string{"index"}, []string{
		"index: k -> k + 1", "index: k -> k - 1", "index: k + 1 -> (k + 1) + 1", "index: k + 1 -> (k + 1) - 1",
		"index: (k) -> (k) + 1", "index: (k) -> (k) - 1"}},
	{"remove-stmt and remove-call", "a = 1; a++; --a; tf<2>(a); (void)a; a; return a;", []string{"remove-stmt", "remove-call"}, []string{
		"remove-stmt: a = 1; -> {}", "remove-stmt: a++; -> {}", "remove-stmt: --a; -> {}", "remove-call: tf<2>(a); -> {}"}},
	{"zero-return", "if (a) return a + 1; if (b) return 0; if (k) return 0u; return false;", []string{"zero-return"}, []string{
		"zero-return: a + 1 -> 0"}},
	{"branch", "if (a) b = 1; else b = 2; if (k) {} if (true) b = 3; return b;", []string{"branch-if", "branch-true", "branch-false", "branch-else"}, []string{
		"branch-false: a -> false", "branch-true: a -> true", "branch-if: b = 1; -> {}", "branch-else: b = 2; -> {}",
		"branch-true: k -> true", "branch-if: b = 3; -> {}"}},
	{"neg-form", "float d = x; float* q = (float*)y; q[0] = -d; q[1] = -x; q[2] = -q[a]; q[3] = -1.5f; return -a;", []string{"neg-form"}, []string{
		"neg-form: -d -> (0 - d)", "neg-form: -x -> (0 - x)", "neg-form: -q[a] -> (0 - q[a])"}},
	{"recip-div", "float d = x / 3.0f; d = x / 4.0f + x / (float)a + 1.0f / x; return a / b + (int)(d / x);", []string{"recip-div"}, []string{
		"recip-div: x / 3.0f -> (x * (1.0f / 3.0f))", "recip-div: x / (float)a -> (x * (1.0f / (float)a))", "recip-div: d / x -> (d * (1.0f / x))"}},
	{"guard-swap", "if (a == 0) return 1;\n  if (a > b) { return 2; }\n  if (k == 1) return 3;\n  if (k == 2) return 4;\n  if (b) return 4;\n  return 0;", []string{"guard-swap"}, []string{
		"guard-swap: if (a == 0) return 1;\n  if (a > b) { return 2; } -> if (a > b) { return 2; }\n  if (a == 0) return 1;",
		"guard-swap: if (a > b) { return 2; }\n  if (k == 1) return 3; -> if (k == 1) return 3;\n  if (a > b) { return 2; }"}},
	{"loop-control", "for (;;) { if (a) continue; if (b) break; switch (k) { case 1: break; } while (a) { break; } } return 0;", []string{"loop-control"}, []string{
		"loop-control: continue -> break", "loop-control: break -> continue", "loop-control: break -> continue"}},
	{"a for's init is not removed", "int i; for (i = 0; i < a; i++) b++; return b;", []string{"remove-stmt"}, []string{"remove-stmt: b++; -> {}"}},
	{"constant contexts", "int z[k + 1];\nstatic const int s = 3 + 1;\nswitch (a) { case 2 * 3: break; }\nreturn tf<4 - 1>(a * 2) + sizeof(y[k + 1]);",
		[]string{"arith"}, []string{
			"arith: + -> - (const)", "arith: + -> - (const)", "arith: * -> / (const)", "arith: - -> + (const)", "arith: * -> /", "arith: + -> -"}},
	{"a case label does not move onto another's value", "switch (a) { case 1: break; case 2: break; case 4: switch (b) { case 5: break; } }\nreturn 0;", []string{"const-int"}, []string{
		"const-int: 1 -> 0 (const)", "const-int: 2 -> 3 (const)", "const-int: 4 -> 5 (const)", "const-int: 4 -> 3 (const)",
		"const-int: 5 -> 6 (const)", "const-int: 5 -> 4 (const)", "const-int: 0 -> 1"}},
	{"const literal in a template argument", "return tf<4>(a);", []string{"const-int"}, []string{"const-int: 4 -> 5 (const)", "const-int: 4 -> 3 (const)"}},
	{"dedup: one mutant per result", "if (a) b++; return 1;", []string{"const-int", "zero-return", "branch-if", "remove-stmt"}, []string{
		"branch-if: b++; -> {}", "const-int: 1 -> 2", "const-int: 1 -> 0"}},
	{"replacements do not join the punctuation beside them", "return a+-b + (a-+b) + (a**p) + (a- -b) + (a&-b);", []string{"arith", "unary-minus"}, []string{
		"arith: + -> - ", "unary-minus: - -> ", "arith: + -> -", "arith: - -> + ", "arith: + -> -", "arith: * -> / ", "arith: + -> -",
		"arith: - -> +", "unary-minus: - -> ", "arith: + -> -", "unary-minus: - -> "}},
	{"host code is not mutated", "return a + 1;", []string{"arith"}, []string{"arith: + -> -"}},
	{"asm and static_assert are not mutated", "asm volatile(\"add %0, 1;\" : \"+r\"(a)); static_assert(1 + 1 == 2, \"x\"); return a - 1;", []string{"arith", "const-int"}, []string{
		"arith: - -> +", "const-int: 1 -> 2", "const-int: 1 -> 0"}},
}

func TestOperators(t *testing.T) {
	for _, tt := range operatorCases {
		t.Run(tt.name, func(t *testing.T) {
			src := device(tt.body) + "int host(int a) { return a + 1 - 2; }\n"
			got := mutantsOf(t, src, tt.ops...)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%s\n got:\n\t%s\nwant:\n\t%s", tt.body, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// TestOperatorSites: the site a mutant switches is the smallest whole
// expression or statement holding it.
func TestOperatorSites(t *testing.T) {
	src := device("b = a + k * 2;\nif (a < b) y[k] = 1;\nfor (;;) { break; }\nreturn a >> k;")
	srcs := parseOne(t, src, Emulation)
	ms, err := Mutants(srcs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s %s [%s]", m.Operator, m.Site.Kind, src[m.Site.Start:m.Site.End]))
	}
	want := []string{
		"remove-stmt stmt [b = a + k * 2;]",
		"arith expr [a + k * 2]",
		"arith expr [k * 2]",
		"const-int expr [2]",
		"const-int expr [2]",
		"branch-true expr [a < b]",
		"boundary expr [a < b]",
		"negate expr [a < b]",
		"branch-if stmt [y[k] = 1;]",
		"index expr [k]",
		"index expr [k]",
		"const-int expr [1]",
		"const-int expr [1]",
		"loop-control stmt [break;]",
		"zero-return expr [a >> k]",
		"shift expr [a >> k]",
		"shift-amount expr [k]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sites\n got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestOperatorsUnknown(t *testing.T) {
	srcs := parseOne(t, device("return a;"), Emulation)
	if _, err := Mutants(srcs, []string{"arith", "no-such-op"}); err == nil || !strings.Contains(err.Error(), `"no-such-op"`) {
		t.Errorf("unknown operator: %v", err)
	}
	// every operator in the table has a name, a doc and an example
	seen := map[string]bool{}
	for _, op := range Operators {
		if op.Name == "" || op.Doc == "" || op.Example == "" || seen[op.Name] {
			t.Errorf("operator %+v: incomplete or repeated", op)
		}
		seen[op.Name] = true
	}
}
