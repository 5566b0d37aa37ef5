package cxx

import (
	"errors"
	"strings"
	"testing"
)

// activeIdents returns the identifiers of file name the unit's compiler
// sees, in order, joined by spaces.
func activeIdents(u *Unit, name string) string {
	ft := u.Files[name]
	if ft == nil {
		return "<not reached>"
	}
	var out []string
	for i, t := range ft.Tokens {
		if ft.Active[i] && t.Kind == Ident {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, " ")
}

// gpuSplit picks one line per compiler: the CUDA device pass, the HIP
// device pass, the host.
const gpuSplit = `
#if defined(__CUDA_ARCH__)
cuda
#elif defined(__HIP_DEVICE_COMPILE__)
hip
#else
host
#endif
`

// preprocessActivityTests are files and, per build environment, the
// identifiers that environment's compiler sees.
var preprocessActivityTests = []struct {
	name string
	src  string
	want map[string]string // Env name -> active identifiers
}{
	{"ifdef/else", "#ifdef GM_HOST_EMULATION\nemu\n#else\ngpu\n#endif\nafter\n",
		map[string]string{"emulation": "emu after", "nvcc": "gpu after", "hipcc": "gpu after"}},
	{"ifndef", "#ifndef GM_HOST_EMULATION\ngpu\n#endif\n", map[string]string{"emulation": "", "nvcc": "gpu", "hipcc": "gpu"}},
	{"if/elif/else", gpuSplit, map[string]string{"emulation": "host", "nvcc": "cuda", "hipcc": "hip"}},
	{"#if on a predefined value", "#if __cplusplus >= 201703L\ncxx17\n#else\nolder\n#endif\n",
		map[string]string{"emulation": "older", "nvcc": "cxx17", "hipcc": "cxx17"}},
	{"nesting", `
#if 1
a
# if 0
b
# elif 0
bb
# else
c
#  if defined(GM_HOST_EMULATION)
emu
#  endif
# endif
d
#else
e
# if 1
f
# endif
#endif
g
`, map[string]string{"emulation": "a c emu d g", "nvcc": "a c d g"}},
	{"a taken branch ends the chain", "#if 1\na\n#elif 1\nb\n#else\nc\n#endif\n", map[string]string{"emulation": "a"}},
	{"defines and undefs", `
#define N 3
#if N == 3
three
#endif
#undef N
#if N == 3
still
#elif !defined(N)
gone
#endif
#define F(x) ((x) + 1)
#ifdef F
fdef
#endif
`, map[string]string{"emulation": "three gone fdef"}},
	{"macros defined in an untaken branch do not count", "#if 0\n#define X 1\n#endif\n#ifdef X\nx\n#else\nnox\n#endif\n",
		map[string]string{"emulation": "nox"}},
	{"#error in an untaken branch", "#ifndef GM_HOST_EMULATION\n#error needs the emulation\n#endif\nok\n",
		map[string]string{"emulation": "ok"}},
	{"the conditions of an untaken branch are not evaluated", "#if 0\n#if 1/0\n#endif\n#elif 1\nb\n#elif 1/0\n#endif\n",
		map[string]string{"emulation": "b"}},
	{"comments in directives", "#if 1 /* x\n */ + 0\none\n#endif // c\n#ifdef GM_HOST_EMULATION // a name\nemu\n#endif\n",
		map[string]string{"emulation": "one emu"}},
	{"comments and directives are not active code", "// x\n/* y */ z\n#define W 1\n", map[string]string{"emulation": "z"}},
}

func TestPreprocessActivity(t *testing.T) {
	envs := map[string]Env{"emulation": Emulation, "nvcc": NVCC, "hipcc": HIPCC}
	for _, tt := range preprocessActivityTests {
		for envName, want := range tt.want {
			u, err := Preprocess("k.hip", map[string][]byte{"k.hip": []byte(tt.src)}, envs[envName])
			if err != nil {
				t.Errorf("%s (%s): %v", tt.name, envName, err)
				continue
			}
			if got := activeIdents(u, "k.hip"); got != want {
				t.Errorf("%s (%s): active %q, want %q", tt.name, envName, got, want)
			}
		}
	}
}

func TestPreprocessIncludes(t *testing.T) {
	files := map[string][]byte{
		"main.hip": []byte(`#include <stdio.h>
#include "missing.h"
#include "a.h"
#include "b.h"
#include "a.h"
#ifdef A_SEEN
main_sees_a
#endif
#ifndef EMPTY_IS_FOLLOWED
#include "empty.h"
#endif
`),
		"a.h": []byte("#ifndef A_H\n#define A_H\n#define A_SEEN 1\na_body\n#include \"c.h\"\n#endif\n"),
		"b.h": []byte("#ifndef B_H\n#define B_H\n#include \"a.h\"\nb_body\n#endif\n"),
		"c.h": []byte("c_body\n"),
		// a file among the sources that no include reaches
		"d.h":     []byte("d_body\n"),
		"empty.h": []byte(""),
	}
	u, err := Preprocess("main.hip", files, Emulation)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(u.Order, " "), "main.hip a.h c.h b.h empty.h"; got != want {
		t.Errorf("Order %q, want %q", got, want)
	}
	for name, want := range map[string]string{"main.hip": "main_sees_a", "a.h": "a_body", "b.h": "b_body", "c.h": "c_body", "d.h": "<not reached>"} {
		if got := activeIdents(u, name); got != want {
			t.Errorf("%s: active %q, want %q", name, got, want)
		}
	}
	if _, ok := u.Macros["A_SEEN"]; !ok {
		t.Errorf("macro A_SEEN from the included a.h is missing: %v", u.MacroNames())
	}
	// a file included where it is guarded out stays inactive: its
	// tokens count as seen only where some inclusion takes them
	files["main.hip"] = []byte("#define A_H\n#include \"a.h\"\n")
	u, err = Preprocess("main.hip", files, Emulation)
	if err != nil {
		t.Fatal(err)
	}
	if got := activeIdents(u, "a.h"); got != "" {
		t.Errorf("a.h included with its guard set: active %q, want nothing", got)
	}
}

func TestPreprocessConditions(t *testing.T) {
	defs := "#define A B\n#define B 3\n#define S S\n#define EMPTY\n#define T (1 + 1)\n"
	tests := []struct {
		expr string
		want bool
	}{
		{"1 + 2 * 3 == 7", true},
		{"(1 + 2) * 3 == 9", true},
		{"10 / 3 == 3 && 10 % 3 == 1", true},
		{"-1 < 0", true},
		{"~0 == -1", true},
		{"1 << 4 == 16 && 256 >> 4 == 16", true},
		{"(6 & 3) == 2 && (6 | 1) == 7 && (6 ^ 3) == 5", true},
		{"!0 && !!7", true},
		{"0 || 0", false},
		{"0 && 1 / 0", false},
		{"1 || 1 / 0", true},
		{"1 ? 2 : 1 / 0", true},
		{"0 ? 1 / 0 : 0", false},
		{"0 ? 1 : 2 ? 3 : 4", true},
		{"3 > 2 > 0", true},
		{"true", true},
		{"false", false},
		{"true + true == 2", true},
		{"UNDEFINED_NAME", false},
		{"UNDEFINED_NAME == 0", true},
		{"'a' == 97", true},
		{"0x10 == 16 && 010 == 8 && 0b101 == 5 && 1'000 == 1000", true},
		{"201402L == 201402", true},
		{"defined A && defined(B) && !defined C && !defined(C)", true},
		{"A == 3", true},
		{"T * T == 4", true},
		{"S == 0", true},
		{"defined EMPTY", true},
		{"+1 - -1 == 2", true},
	}
	for _, tt := range tests {
		src := defs + "#if " + tt.expr + "\nyes\n#else\nno\n#endif\n"
		u, err := Preprocess("k.hip", map[string][]byte{"k.hip": []byte(src)}, Emulation)
		if err != nil {
			t.Errorf("#if %s: %v", tt.expr, err)
			continue
		}
		want := "no"
		if tt.want {
			want = "yes"
		}
		if got := activeIdents(u, "k.hip"); got != want {
			t.Errorf("#if %s: took %q, want %q", tt.expr, got, want)
		}
	}
}

func TestPreprocessErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		file  string // the file the error names
		at    string // the text at the error's offset ("" for the end)
		msg   string
	}{
		{"division by zero", map[string]string{"k.hip": "x\n#if 1 / 0\n#endif\n"}, "k.hip", "#if 1 / 0", "division by zero"},
		{"missing )", map[string]string{"k.hip": "#if (1\n#endif\n"}, "k.hip", "#if (1", "missing )"},
		{"no operand", map[string]string{"k.hip": "#if 1 +\n#endif\n"}, "k.hip", "#if 1 +", "unexpected end"},
		{"empty #if", map[string]string{"k.hip": "#define E\n#if E\n#endif\n"}, "k.hip", "#if E", "unexpected end"},
		{"trailing tokens", map[string]string{"k.hip": "#if 1 2\n#endif\n"}, "k.hip", "#if 1 2", `unexpected "2"`},
		{"function-like macro", map[string]string{"k.hip": "#define F(x) x\n#if F(1)\n#endif\n"}, "k.hip", "#if F(1)", "function-like macro F"},
		{"a float", map[string]string{"k.hip": "#if 1.5\n#endif\n"}, "k.hip", "#if 1.5", "integer literal"},
		{"defined without a name", map[string]string{"k.hip": "#if defined()\n#endif\n"}, "k.hip", "#if defined()", "defined without a macro name"},
		{"#ifdef without a name", map[string]string{"k.hip": "#ifdef\n#endif\n"}, "k.hip", "#ifdef", "#ifdef wants one macro name"},
		{"#ifndef with two names", map[string]string{"k.hip": "#ifndef A B\n#endif\n"}, "k.hip", "#ifndef A B", "#ifndef wants one macro name"},
		{"#else without #if", map[string]string{"k.hip": "x\n#else\n"}, "k.hip", "#else", "#else without #if"},
		{"#elif without #if", map[string]string{"k.hip": "#elif 1\n"}, "k.hip", "#elif 1", "#elif without #if"},
		{"#endif without #if", map[string]string{"k.hip": "#if 1\n#endif\n#endif // extra\n"}, "k.hip", "#endif // extra", "#endif without #if"},
		{"#elif after #else", map[string]string{"k.hip": "#if 0\n#else\n#elif 1\n#endif\n"}, "k.hip", "#elif 1", "#elif without #if"},
		{"two #else", map[string]string{"k.hip": "#if 0\n#else\n#else\n#endif\n"}, "k.hip", "#else\n#endif", "#else without #if"},
		{"unterminated #if", map[string]string{"k.hip": "#if 1\nx\n"}, "k.hip", "", "unterminated #if"},
		{"unterminated #if in an included file", map[string]string{"k.hip": "#include \"h.h\"\n#endif\n", "h.h": "#ifdef X\n"}, "h.h", "", "unterminated #if"},
		{"#error in a taken branch", map[string]string{"k.hip": "#ifdef GM_HOST_EMULATION\n#error no emulation here\n#endif\n"}, "k.hip", "#error", "#error no emulation here"},
		{"#error in an included file", map[string]string{"k.hip": "#include \"h.h\"\n", "h.h": "a\n#error stop\n"}, "h.h", "#error", "#error stop"},
		{"#define without a name", map[string]string{"k.hip": "#define\n"}, "k.hip", "#define", "#define without a macro name"},
		{"#define with a number", map[string]string{"k.hip": "#define 1 2\n"}, "k.hip", "#define", "#define without a macro name"},
		{"#define with an open parameter list", map[string]string{"k.hip": "#define F(a, b\n"}, "k.hip", "#define", "unterminated parameter list"},
		{"#undef without a name", map[string]string{"k.hip": "#undef\n"}, "k.hip", "#undef", "#undef wants one macro name"},
		{"#include without a file", map[string]string{"k.hip": "#include\n"}, "k.hip", "#include", "#include without a file name"},
		{"an include cycle", map[string]string{"k.hip": "x\n#include \"k.hip\"\n"}, "k.hip", "#include", "nested too deeply"},
	}
	for _, tt := range tests {
		files := map[string][]byte{}
		for n, s := range tt.files {
			files[n] = []byte(s)
		}
		_, err := Preprocess("k.hip", files, Emulation)
		var pe *PPError
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want a *PPError", tt.name, err)
			continue
		}
		src := tt.files[tt.file]
		wantOff := len(src)
		if tt.at != "" {
			wantOff = strings.Index(src, tt.at)
		}
		if pe.File != tt.file || pe.Offset != wantOff || !strings.Contains(pe.Msg, tt.msg) {
			t.Errorf("%s: error %v (file %s offset %d), want %s offset %d %q", tt.name, err, pe.File, pe.Offset, tt.file, wantOff, tt.msg)
		}
		if !strings.HasPrefix(err.Error(), tt.file+": offset ") {
			t.Errorf("%s: error %q does not name the file and offset", tt.name, err)
		}
	}
}

func TestPreprocessOtherErrors(t *testing.T) {
	if _, err := Preprocess("k.hip", map[string][]byte{"other.hip": nil}, Emulation); err == nil || !strings.Contains(err.Error(), "entry file k.hip is not among the sources") {
		t.Errorf("missing entry: %v", err)
	}
	_, err := Preprocess("k.hip", map[string][]byte{"k.hip": []byte("#include \"h.h\"\n"), "h.h": []byte("x /* never closed\n")}, Emulation)
	var le *LexError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "h.h") || le.Offset != 2 {
		t.Errorf("lex error in an included file: %v, want a *LexError at offset 2 naming h.h", err)
	}
}
