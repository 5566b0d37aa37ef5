package cxx

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// parseOne preprocesses and parses one file under env.
func parseOne(t testing.TB, src string, env Env) []*Source {
	t.Helper()
	u, err := Preprocess("k.hip", map[string][]byte{"k.hip": []byte(src)}, env)
	if err != nil {
		t.Fatalf("Preprocess: %v", err)
	}
	srcs, err := Parse(u)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return srcs
}

func findFunc(srcs []*Source, name string) (*Source, *Func) {
	for _, s := range srcs {
		for _, f := range s.Funcs {
			if f.Name == name {
				return s, f
			}
		}
	}
	return nil, nil
}

// The emulation's view of the device markers: empty macros, as compat.h
// defines them for the host build.
const hostMarkers = `
#if defined(GM_HOST_EMULATION)
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#endif
#define GM_DEV __device__ __forceinline__
#define GM_HD __host__ __device__
`

// deviceFunctionsSrc declares functions in every place and shape Parse
// finds them; deviceFunctionsWant says which are device code.
const deviceFunctionsSrc = hostMarkers + `
typedef int (*cb_t)(int n);
struct S {
  int v;
  GM_DEV int get() const { return v; }
  static inline int host_member(int x) { return x; }
  struct In {
    GM_DEV int deep(int a) { return a + 1; }
  };
public:
  __device__ static int marker_member(int a) { return a; }
};
template <int N> GM_DEV int tpl(int x) { return x * N; }
template <class T, int N = 4> __device__ T tpl_default(T x) { return x; }
__global__ void kern(int* p) { p[0] = 1; }
GM_HD int both(int a) { return a - 1; }
static inline int host_helper(int a) { return a + 2; }
int plain_host(int a) { return a; }
extern "C" int abi(int a) { return a; }
extern "C" {
int abi2(int a) { return a; }
GM_DEV int in_linkage(int a) { return a; }
}
namespace ns { GM_DEV int in_ns(int a) { return a; } }
GM_DEV int with_default(int a, int b = 2) { return a + b; }
struct alignas(16) V4 { float x; GM_DEV float sum() const { return x; } };
struct Op {
  GM_DEV int operator()(int a) const { return a + 1; }
  GM_DEV Op& operator+=(int a) { return *this; }
};
GM_DEV auto trailing(int a) -> int { return a; }
// a declarator a macro writes (its name is the source's text); the
// functions after it are still found
#define GM_KERNEL(name) __global__ void name
GM_KERNEL(from_func_macro)(int* p) { p[0] = 2; }
struct Ctor {
  int x;
  GM_DEV Ctor(int a) : x(a) {}
};
GM_DEV int Ctor2_out_of_class(int a);
struct Q { GM_DEV int f(int a); };
GM_DEV int Q::f(int a) { return a; }
enum class E { A = 1, B = 2 };
static const int table[3] = {1, 2, 3};
int host_with_lambda() { auto l = [](int a) { return a; }; return l(1); }
// device markers through macros of macros, object-like and function-like
#define GM_DEVI GM_DEV
#define GM_DEVII GM_DEVI
#define GM_WRAP(t) GM_DEVII t
GM_DEVII int deep_macro(int a) { return a + 1; }
GM_WRAP(int) wrapped(int a) { return a + 2; }
#define GM_HOSTONLY static inline
#define GM_HOSTONLY2 GM_HOSTONLY
GM_HOSTONLY2 int host_macro(int a) { return a; }
// template heads with nested <> (in a default argument, in parentheses,
// closed by >>) and a template template parameter
namespace std { template <class T, int N> struct array { T v[N]; }; template <class A, class B> struct pair { A a; B b; }; }
template <typename T, int N = sizeof(std::array<T, 4>)> GM_DEV T nest_sizeof(T x) { return x * N; }
template <typename T, typename U = std::pair<T, std::array<T, 4>>> GM_DEV T nest_shift(T x) { return x + 1; }
template <typename T, int N = (3 > 2)> GM_DEV T nest_paren(T x) { return x - N; }
template <typename T, template <typename, int> class C = std::array> GM_DEV T nest_tt(T x) { return x; }
template <typename T, int N = sizeof(std::array<T, 4>)> int host_nest(T x) { return x; }
GM_DEV int after_nest(int a) { return a < 3 ? a : 3; }
`

var deviceFunctionsWant = map[string]bool{
	"S::get": true, "S::host_member": false, "S::In::deep": true, "S::marker_member": true,
	"tpl": true, "tpl_default": true, "kern": true, "both": true, "host_helper": false, "plain_host": false,
	"abi": false, "abi2": false, "in_linkage": true, "in_ns": true, "with_default": true, "V4::sum": true,
	"Op::operator()": true, "Op::operator+=": true, "trailing": true, "Ctor::Ctor": true, "Q::f": true,
	"GM_KERNEL(from_func_macro)": true,
	"host_with_lambda":           false,
	"deep_macro":                 true, "wrapped": true, "host_macro": false,
	"nest_sizeof": true, "nest_shift": true, "nest_paren": true, "nest_tt": true, "host_nest": false, "after_nest": true,
}

func TestDeviceFunctions(t *testing.T) {
	for _, env := range []Env{Emulation, NVCC, HIPCC} {
		checkDeviceFunctions(t, env, parseOne(t, deviceFunctionsSrc, env)[0].Funcs, deviceFunctionsWant)
	}
	// the byte offsets of a function's parts
	srcs := parseOne(t, deviceFunctionsSrc, Emulation)
	_, f := findFunc(srcs, "with_default")
	if f == nil {
		t.Fatal("with_default not found")
	}
	checkFuncParts(t, deviceFunctionsSrc, "GM_DEV int with_default(int a, int b = 2) { return a + b; }", "GM_DEV int", f)
}

// checkDeviceFunctions checks that funcs, parsed under env, are exactly
// the functions of want, each device code or not as want says, and that
// every device function's body parsed.
func checkDeviceFunctions(t *testing.T, env Env, funcs []*Func, want map[string]bool) {
	t.Helper()
	got := map[string]bool{}
	for _, f := range funcs {
		got[f.Name] = f.Device
		if f.Device && f.BodyErr != nil {
			t.Errorf("%s: %s: body error %v", env.Name, f.Name, f.BodyErr)
		}
	}
	for name, dev := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: function %s not found (found %v)", env.Name, name, keys(got))
		} else if g != dev {
			t.Errorf("%s: %s: device %v, want %v", env.Name, name, g, dev)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: found functions %v, want %v", env.Name, keys(got), keys(want))
	}
}

// checkFuncParts checks f's byte offsets (its parameter list's '(', its
// body's braces) against where head, f's whole definition on one line,
// lies in src, and its specifiers' text.
func checkFuncParts(t *testing.T, src, head, specs string, f *Func) {
	t.Helper()
	at := strings.Index(src, head)
	if f.ParamsStart != at+strings.Index(head, "(") || f.Open != at+strings.Index(head, "{") || f.Close != at+len(head)-1 {
		t.Errorf("%s: params %d, body [%d, %d], want %d, [%d, %d]", f.Name, f.ParamsStart, f.Open, f.Close,
			at+strings.Index(head, "("), at+strings.Index(head, "{"), at+len(head)-1)
	}
	if got := tokenTexts(f.Specs); got != specs {
		t.Errorf("%s: specs %q, want %q", f.Name, got, specs)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func tokenTexts(toks []Token) string {
	var parts []string
	for _, t := range toks {
		parts = append(parts, t.Text)
	}
	return strings.Join(parts, " ")
}

// kernelFiles reads the row's kernel sources.
func kernelFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	headers, err := filepath.Glob(filepath.Join("..", "..", "hipkern", "*.h"))
	if err != nil || len(headers) == 0 {
		t.Fatalf("the kernel's headers: %v (%d found)", err, len(headers))
	}
	for _, p := range append(headers, filepath.Join("..", "..", "hipkern", "gather.hip")) {
		n := filepath.Base(p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	return files
}

// TestKernelParses: every device function of the real kernel parses in
// every build environment, the same functions are device code in each, and
// the host code (launchers, the ABI, compat.h's runtime stand-ins) is not.
func TestKernelParses(t *testing.T) {
	files := kernelFiles(t)
	var first []string
	for _, env := range []Env{Emulation, NVCC, HIPCC} {
		u, err := Preprocess("gather.hip", files, env)
		if err != nil {
			t.Fatalf("%s: %v", env.Name, err)
		}
		srcs, err := Parse(u)
		if err != nil {
			t.Fatalf("%s: %v", env.Name, err)
		}
		var device []string
		all := map[string]bool{}
		for _, s := range srcs {
			for _, f := range s.Funcs {
				all[s.Name+" "+f.Name] = f.Device
				if !f.Device {
					continue
				}
				device = append(device, s.Name+" "+f.Name)
				if f.BodyErr != nil {
					t.Errorf("%s: %s %s: %v", env.Name, s.Name, f.Name, f.BodyErr)
				}
			}
		}
		for _, name := range []string{"gather.hip gm_store", "gather.hip gm_quant_kernel", "gather.hip gm_quant_chunk::run",
			"decoders.h CodecQ4_0::chunk", "decoders.h CodecIQ4_XS::chunk", "decoders.h GmFloat::chunk", "decoders.h gm_words_reader::shr",
			"decoders.h gm_f16_to_f32"} {
			if !all[name] {
				t.Errorf("%s: %s is not found as device code", env.Name, name)
			}
		}
		hosts := []string{"gather.hip gm_launch", "gather.hip gm_gather"}
		if env.Name == Emulation.Name {
			// compat.h's stand-ins for the runtime exist in the emulation only
			hosts = append(hosts, "compat.h hipMalloc", "compat.h atomicMin")
		}
		for _, name := range hosts {
			if dev, ok := all[name]; !ok || dev {
				t.Errorf("%s: %s: found %v, device %v; want a host function", env.Name, name, ok, dev)
			}
		}
		ms, err := Mutants(srcs, nil)
		if err != nil {
			t.Fatalf("%s: Mutants: %v", env.Name, err)
		}
		if len(ms) < 1000 {
			t.Errorf("%s: %d mutants of the kernel, want the device code's (over 1000)", env.Name, len(ms))
		}
		if first == nil {
			first = device
		} else if strings.Join(device, "\n") != strings.Join(first, "\n") {
			t.Errorf("%s: device functions differ from the emulation's:\n%v\n%v", env.Name, device, first)
		}
	}
}

// shape writes an expression as an S-expression of its parse.
func shape(s *Source, e *Expr) string {
	if e == nil {
		return "_"
	}
	text := func(first, last int) string { return string(s.Src[s.Toks[first].Start:s.Toks[last].End]) }
	list := func(head string, parts ...string) string {
		return "(" + strings.Join(append([]string{head}, parts...), " ") + ")"
	}
	args := func() []string {
		var out []string
		for _, a := range e.Args {
			out = append(out, shape(s, a))
		}
		return out
	}
	switch e.Kind {
	case NameExpr, LitExpr:
		return text(e.First, e.Last)
	case ParenExpr:
		return list("paren", shape(s, e.X))
	case UnaryExpr:
		return list(e.Op+"_", shape(s, e.X))
	case PostfixExpr:
		return list("_"+e.Op, shape(s, e.X))
	case BinaryExpr, AssignExpr, CommaExpr:
		return list(e.Op, shape(s, e.X), shape(s, e.Y))
	case CondExpr:
		return list("?", shape(s, e.X), shape(s, e.Y), shape(s, e.Z))
	case CallExpr:
		return list("call", append([]string{shape(s, e.X)}, args()...)...)
	case IndexExpr:
		return list("index", shape(s, e.X), shape(s, e.Y))
	case MemberExpr:
		return list(e.Op, shape(s, e.X), s.Toks[e.Last].Text)
	case CastExpr:
		return list("cast", text(e.First+1, e.X.First-2), shape(s, e.X))
	case TemplateExpr:
		return list("tpl", append([]string{shape(s, e.X)}, args()...)...)
	case BracedExpr:
		if e.X == nil {
			return list("braced", args()...)
		}
		return list("braced", append([]string{shape(s, e.X)}, args()...)...)
	}
	return "?kind"
}

func stmtShape(s *Source, st *Stmt) string {
	if st == nil {
		return "_"
	}
	list := func(parts ...string) string { return "(" + strings.Join(parts, " ") + ")" }
	switch st.Kind {
	case BlockStmt:
		var parts []string
		for _, c := range st.List {
			parts = append(parts, stmtShape(s, c))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case IfStmt:
		head := "if"
		if st.Constexpr {
			head = "if constexpr"
		}
		if st.Else != nil {
			return list(head, shape(s, st.Cond), stmtShape(s, st.Body), stmtShape(s, st.Else))
		}
		return list(head, shape(s, st.Cond), stmtShape(s, st.Body))
	case ForStmt:
		if st.Range != nil {
			return list("for", stmtShape(s, st.Init), ":", shape(s, st.Range), stmtShape(s, st.Body))
		}
		return list("for", stmtShape(s, st.Init), shape(s, st.Cond), shape(s, st.Post), stmtShape(s, st.Body))
	case WhileStmt:
		return list("while", shape(s, st.Cond), stmtShape(s, st.Body))
	case DoStmt:
		return list("do", stmtShape(s, st.Body), shape(s, st.Cond))
	case SwitchStmt:
		return list("switch", shape(s, st.Cond), stmtShape(s, st.Body))
	case CaseStmt:
		if st.X == nil {
			return "(default)"
		}
		return list("case", shape(s, st.X))
	case ReturnStmt:
		if st.X == nil {
			return "(return)"
		}
		return list("return", shape(s, st.X))
	case BreakStmt:
		return "break"
	case ContinueStmt:
		return "continue"
	case ExprStmt:
		return list("expr", shape(s, st.X))
	case DeclStmt:
		parts := []string{"decl"}
		for _, d := range st.Decls {
			p := s.Toks[d.Name].Text
			for _, b := range d.Bounds {
				p += "[" + shape(s, b) + "]"
			}
			if d.Init != nil {
				p += "=" + shape(s, d.Init)
			}
			parts = append(parts, p)
		}
		return list(parts...)
	case EmptyStmt:
		return ";"
	case AsmStmt:
		return "(asm)"
	case StaticAssertStmt:
		return "(static_assert)"
	}
	return "?stmt"
}

// snippetPrelude declares the names the snippets use.
const snippetPrelude = hostMarkers + `
struct R { const uint8_t* p; };
template <int N, class Q> struct Codec { template <int M> GM_DEV static void chunk(Q r, int e, float* y); };
template <int N> GM_DEV float tf(float x);
typedef int (*cb_t)(int n);
template <class C, int N>
GM_DEV void f(const uint8_t* src, int e0, float* y) {
`

// parseShapeTests are statements of a device function body and their
// parse trees, written as stmtShape writes them.
var parseShapeTests = []struct{ src, want string }{
	{"y[0] = (float)a * b;", "(expr (= (index y 0) (* (cast float a) b)))"},
	{"x = (a) - b;", "(expr (= x (- (paren a) b)))"},
	{"x = (n) - 1;", "(expr (= x (- (paren n) 1)))"}, // n is a parameter name in a typedef, not a type
	{"x = (cb_t)p;", "(expr (= x (cast cb_t p)))"},
	{"x = (uint32_t)-b;", "(expr (= x (cast uint32_t (-_ b))))"},
	{"x = (const uint8_t*)p + 1;", "(expr (= x (+ (cast const uint8_t* p) 1)))"},
	{"x = (uint64_t)hi << 32 | lo;", "(expr (= x (| (<< (cast uint64_t hi) 32) lo)))"},
	{"C::template chunk<N>(R{src}, e0, y);", "(expr (call (tpl C::template chunk N) (braced R src) e0 y))"},
	{"Codec<4, R>::template chunk<N + 1>(r, 0, y);", "(expr (call (tpl Codec<4, R>::template chunk (+ N 1)) r 0 y))"},
	{"const uint32_t w0 = gm_load32(a), w1 = gm_load32(a + 4);", "(decl w0=(call gm_load32 a) w1=(call gm_load32 (+ a 4)))"},
	{"float buf[N * 2], *q = buf, z;", "(decl buf[(* N 2)] q=buf z)"},
	{"uint32_t s;", "(decl s)"},
	{"R r{src}; R t = R{src}; R w(src);", "(decl r=(braced src)) (decl t=(braced R src)) (decl w=(braced src))"},
	{"for (int i = 0, j = 1; i < n; ++i, --j) x += i;", "(for (decl i=0 j=1) (< i n) (, (++_ i) (--_ j)) (expr (+= x i)))"},
	{"for (;;) break;", "(for _ _ _ break)"},
	{"for (i = 0; i < n; i++) {}", "(for (expr (= i 0)) (< i n) (_++ i) {})"},
	{"for (float v : buf) s += v;", "(for (decl v) : buf (expr (+= s v)))"},
	{"for (const float& v : buf) {}", "(for (decl v) : buf {})"},
	{"x = a < b ? a : b;", "(expr (= x (? (< a b) a b)))"},
	{"x = a ? b : c ? d : e;", "(expr (= x (? a b (? c d e))))"},
	{"x = tf<3>(y) >> 16;", "(expr (= x (>> (call (tpl tf 3) y) 16)))"},
	{"x = tf<tf<3>>(y) >> 16;", "(expr (= x (>> (call (tpl tf (tpl tf 3)) y) 16)))"},
	{"x = tf<(3 >> 1)>(y);", "(expr (= x (call (tpl tf (paren (>> 3 1))) y)))"},
	{"Codec<4, Codec<1, R>> c{src};", "(decl c=(braced src))"},
	{"x = reinterpret_cast<Codec<1, R>*>(p)->k;", "(expr (= x (-> (call (tpl reinterpret_cast Codec<1, R>*) p) k)))"},
	{"x = a < b && c > d;", "(expr (= x (&& (< a b) (> c d))))"},
	{"x = a * (b + c) / d % e;", "(expr (= x (% (/ (* a (paren (+ b c))) d) e)))"},
	{"x = a << 1 < b == c & d ^ e | f && g || h;", "(expr (= x (|| (&& (| (^ (& (== (< (<< a 1) b) c) d) e) f) g) h)))"},
	{"x = y = 3;", "(expr (= x (= y 3)))"},
	{"x |= y <<= 2;", "(expr (|= x (<<= y 2)))"},
	{"a = -b + !c - ~d;", "(expr (= a (- (+ (-_ b) (!_ c)) (~_ d))))"},
	{"x = *p++ & *&q;", "(expr (= x (& (*_ (_++ p)) (*_ (&_ q)))))"},
	{"p->q.r[i]++;", "(expr (_++ (index (. (-> p q) r) i)))"},
	{"x = a.template get<2>() + s.v;", "(expr (= x (+ (call (tpl (. a get) 2)) (. s v))))"},
	{"x = reinterpret_cast<const uint32_t*>(p)[i];", "(expr (= x (index (call (tpl reinterpret_cast const uint32_t*) p) i)))"},
	{"x = static_cast<float>(i) * 2.0f;", "(expr (= x (* (call (tpl static_cast float) i) 2.0f)))"},
	{"n = sizeof(a[i]) + sizeof(float) + sizeof x;", "(expr (= n (+ (+ sizeof(a[i]) sizeof(float)) sizeof x)))"},
	{"x = \"a\" \"b\";", `(expr (= x "a" "b"))`},
	{"x = ::g(1, 'c');", "(expr (= x (call g 1 'c')))"},
	{"return {a, b};", "(return (braced a b))"},
	{"return;", "(return)"},
	{"do { i--; } while (i > 0);", "(do {(expr (_-- i))} (> i 0))"},
	{"while (i < n) i++;", "(while (< i n) (expr (_++ i)))"},
	{"switch (k) { case 1: x = 1; break; case N + 1: default: break; }", "(switch k {(case 1) (expr (= x 1)) break (case (+ N 1)) (default) break})"},
	{"if (a) if (b) x = 1; else x = 2;", "(if a (if b (expr (= x 1)) (expr (= x 2))))"},
	{"if (a) { x = 1; } else if (b) x = 2; else {}", "(if a {(expr (= x 1))} (if b (expr (= x 2)) {}))"},
	{"if constexpr (N > 1) x = 1; else x = 2;", "(if constexpr (> N 1) (expr (= x 1)) (expr (= x 2)))"},
	{"asm volatile(\"mov %0, %1;\" : \"=r\"(a) : \"r\"(b));", "(asm)"},
	{"static_assert(N > 0, \"N\");", "(static_assert)"},
	{"(void)x;", "(expr (cast void x))"},
	{";", ";"},
	{"__syncthreads();", "(expr (call __syncthreads))"},
	{"gm_words_reader w{src};", "(decl w=(braced src))"},
	{"x = y[k] ? (float)(a) : -1.0f;", "(expr (= x (? (index y k) (cast float (paren a)) (-_ 1.0f))))"},
}

func TestParseShapes(t *testing.T) {
	for _, tt := range parseShapeTests {
		checkParseShape(t, tt.src, tt.want)
	}
}

// checkParseShape parses stmts as the body of snippetPrelude's f and
// checks the statements' shapes against want and that each statement's
// token range is its text.
func checkParseShape(t *testing.T, stmts, want string) {
	t.Helper()
	srcs := parseOne(t, snippetPrelude+stmts+"\n}\n", Emulation)
	s, f := findFunc(srcs, "f")
	if f == nil {
		t.Errorf("%s: f not found", stmts)
		return
	}
	if f.BodyErr != nil {
		t.Errorf("%s: %v", stmts, f.BodyErr)
		return
	}
	var parts []string
	for _, st := range f.Body.List {
		parts = append(parts, stmtShape(s, st))
		text := string(s.Src[s.Toks[st.First].Start:s.Toks[st.Last].End])
		if !strings.Contains(stmts, text) || (len(f.Body.List) == 1 && text != stmts) {
			t.Errorf("%s: statement's range holds %q", stmts, text)
		}
	}
	if got := strings.Join(parts, " "); got != want {
		t.Errorf("%s\n got %s\nwant %s", stmts, got, want)
	}
}

// TestParseConst: the expressions a run-time switch cannot stand in are
// marked constant, and nothing else.
func TestParseConst(t *testing.T) {
	src := snippetPrelude + `
  float b[N + 1];
  static const int z = N * 2;
  const int w = e0 * 2;
  Codec<N - 1, R>::template chunk<N + 2>(R{src}, e0 + 3, y);
  switch (e0) { case N * 3: break; }
  if constexpr (N > 4) y[0] = 1; else y[0] = 2;
  if (e0 > 5) y[0] = 3;
}
`
	srcs := parseOne(t, src, Emulation)
	s, f := findFunc(srcs, "f")
	if f == nil || f.BodyErr != nil {
		t.Fatalf("f not found or not parsed: %v", f)
	}
	got := map[string]bool{}
	var walkE func(e *Expr)
	walkE = func(e *Expr) {
		if e == nil {
			return
		}
		if e.Kind == BinaryExpr {
			got[shape(s, e)] = e.Const
		}
		for _, c := range []*Expr{e.X, e.Y, e.Z} {
			walkE(c)
		}
		for _, a := range e.Args {
			walkE(a)
		}
	}
	var walkS func(st *Stmt)
	walkS = func(st *Stmt) {
		if st == nil {
			return
		}
		walkE(st.X)
		walkE(st.Cond)
		for _, d := range st.Decls {
			for _, b := range d.Bounds {
				walkE(b)
			}
			walkE(d.Init)
		}
		for _, c := range st.List {
			walkS(c)
		}
		walkS(st.Body)
		walkS(st.Else)
	}
	walkS(f.Body)
	want := map[string]bool{"(+ N 1)": true, "(* N 2)": true, "(* e0 2)": false, "(- N 1)": true, "(+ N 2)": true,
		"(+ e0 3)": false, "(* N 3)": true, "(> N 4)": true, "(> e0 5)": false}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: found %v, const %v; want const %v", k, ok, g, v)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, body := range []string{
		"x = ;",
		"if x) {}",
		"for (i = 0; i < n) {}",
		"x = (a;",
		"return",
		"y[0;",
		"switch (k) x = 1;",
		"x = [](int a) { return a; }(1);",
		"do x++; while (x)",
		"x = a.;",
		"x = a ? b;",
		"static_assert;",
		"case 1 x = 1;",
		"x = Codec<1, R>::;",
	} {
		src := snippetPrelude + body + "\n}\n"
		u, err := Preprocess("k.hip", map[string][]byte{"k.hip": []byte(src)}, Emulation)
		if err != nil {
			t.Fatal(err)
		}
		srcs, err := Parse(u)
		if err != nil {
			// an unbalanced body fails the whole file: also an error
			if !strings.Contains(err.Error(), "offset") {
				t.Errorf("%s: Parse error %q does not say where", body, err)
			}
			continue
		}
		_, f := findFunc(srcs, "f")
		if f == nil || f.BodyErr == nil {
			t.Errorf("%s: parsed without an error", body)
			continue
		}
		if !strings.Contains(f.BodyErr.Error(), "offset ") {
			t.Errorf("%s: error %q does not say where", body, f.BodyErr)
		}
		if _, err := Mutants(srcs, nil); err == nil || !strings.Contains(err.Error(), "device function f") {
			t.Errorf("%s: Mutants error %v, want one naming device function f", body, err)
		}
	}
}

func TestParseFileErrors(t *testing.T) {
	for _, src := range []string{
		"void f() { if (x) { }",
		"}",
		"void f(int a { }",
		"int a[3 = {1};",
	} {
		u, err := Preprocess("k.hip", map[string][]byte{"k.hip": []byte(src)}, Emulation)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(u); err == nil || !strings.Contains(err.Error(), "k.hip") {
			t.Errorf("%q: Parse error %v, want one naming k.hip", src, err)
		}
	}
}
