package incremental

import (
	"crypto/sha256"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNormalizeTextCases: what a comment or a reformatting changes is not
// in an assembly or C file's normalized text, and everything else is:
// strings and character literals keep what looks like a comment, a block
// comment keeps its lines apart, an unterminated one or a last-line
// comment ends the text.
func TestNormalizeTextCases(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"empty", "", ""},
		{"blank lines and runs of blanks", "\n\n  MOVQ \t AX,   BX  \n\n\tRET\n", "MOVQ AX, BX\nRET\n"},
		{"a line comment", "MOVQ AX, BX // copy\nRET\n", "MOVQ AX, BX\nRET\n"},
		{"a line comment on the last line, no newline", "RET // done", "RET\n"},
		{"a comment alone on a line", "// header\nRET\n", "RET\n"},
		{"a block comment keeps the lines apart", "A /* one\ntwo */ B\nC\n", "A\nB\nC\n"},
		{"a block comment inside a line", "A/*x*/B\n", "A B\n"},
		{"an unterminated block comment ends the text", "A\nB /* never closed\nC\n", "A\nB\n"},
		{"a string holding //", `DATA x, $"a//b" // c` + "\n", `DATA x, $"a//b"` + "\n"},
		{"a string holding /*", `s = "/* no */"; t` + "\n", `s = "/* no */"; t` + "\n"},
		{"an escaped quote in a string", `s = "a\"//b"` + "\n", `s = "a\"//b"` + "\n"},
		{"a character literal", `c = '/' // slash` + "\n", `c = '/'` + "\n"},
		{"a quote in a character literal", `c = '"' // q` + "\n" + "d\n", `c = '"'` + "\n" + "d\n"},
		{"an escaped quote in a character literal", `c = '\'' // q` + "\n", `c = '\''` + "\n"},
		{"a string that ends at the line's end", "s = \"open // kept\nB // gone\n", "s = \"open // kept\nB\n"},
		{"a string open at the end of the text", `s = "open`, `s = "open` + "\n"},
		{"a backslash at the end of the text", `s = "open\`, `s = "open\` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := string(normalizeText([]byte(c.src))); got != c.want {
				t.Errorf("normalizeText(%q) = %q, want %q", c.src, got, c.want)
			}
		})
	}
}

// TestStripCommentsKeepsLines: a stripped comment leaves one blank in
// its place and every newline it held, so the lines of the text stay the
// lines of the file (assembly identities count lines).
func TestStripCommentsKeepsLines(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"a // x\nb", "a  \nb"},
		{"a /* x\ny\nz */ b\nc", "a  \n\n b\nc"},
		{"a/**/b", "a b"},
		{"a /* x", "a  "},
		{"a // x", "a "},
	} {
		if got := stripComments(c.src); got != c.want {
			t.Errorf("stripComments(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

// TestGoTokens: a declaration's tokens leave out comments and semicolons
// (written or inserted), and keep every other token with its literal.
func TestGoTokens(t *testing.T) {
	toks := goTokens([]byte("func f() int { x := 1; /* c */ return x // d\n}\n"))
	var got []string
	for _, tk := range toks {
		got = append(got, tk.tok.String()+" "+tk.lit)
	}
	want := []string{"func func", "IDENT f", "( ", ") ", "IDENT int", "{ ", "IDENT x", ":= ", "INT 1", "return return", "IDENT x", "} "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tokens\n%q\nwant\n%q", got, want)
	}
	hash := func(src string) [32]byte {
		h := sha256.New()
		writeTokens(h, goTokens([]byte(src)))
		var out [32]byte
		copy(out[:], h.Sum(nil))
		return out
	}
	same := []string{"func f() { return 1 }", "func f() {\n\treturn 1 // one\n}\n", "func f() { return 1; }", "func   f( ) {return 1}"}
	for _, s := range same[1:] {
		if hash(s) != hash(same[0]) {
			t.Errorf("%q hashes apart from %q", s, same[0])
		}
	}
	for _, s := range []string{"func f() { return 2 }", `func f() { return "1" }`, "func g() { return 1 }", "func f() { return 1.0 }", "func f() { return a1 }"} {
		if hash(s) == hash(same[0]) {
			t.Errorf("%q hashes as %q", s, same[0])
		}
	}
	// a token's kind and literal are hashed apart: "a" "b" is not "ab"
	if hash("x(a, b)") == hash("x(ab, )") {
		t.Error("the literals of two tokens run together")
	}
	if token.SEMICOLON.String() != ";" {
		t.Fatal("go/token changed")
	}
}

// TestTextIdentity: an edit in an assembly file is named by its line's
// normalized text, how many equal lines come before it and the text
// before it on the line; a range outside the file is named raw.
func TestTextIdentity(t *testing.T) {
	src := "TEXT ·f(SB), $0\n\tADDQ $1, AX // one\n\tRET\nTEXT ·g(SB), $0\n\tADDQ $1, AX\n\tRET\n"
	g := &Graph{root: t.TempDir(), texts: map[string]*textFile{}}
	if err := os.WriteFile(filepath.Join(g.root, "a.s"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tf := g.text("a.s")
	if tf == nil {
		t.Fatal("a.s does not read")
	}
	if g.text("missing.s") != nil || g.texts["missing.s"] != nil {
		t.Error("a file that does not exist reads")
	}
	first := strings.Index(src, "$1")
	second := strings.LastIndex(src, "$1")
	add := strings.Index(src, "ADDQ")
	for _, c := range []struct {
		name       string
		start, end int
		want       string
	}{
		{"the first ADDQ's operand", first, first + 2, "\"ADDQ $1, AX\"\x000\x00\"ADDQ\"\x00\"$1\""},
		{"the second, an equal line", second, second + 2, "\"ADDQ $1, AX\"\x001\x00\"ADDQ\"\x00\"$1\""},
		{"at the line's start", add, add + 4, "\"ADDQ $1, AX\"\x000\x00\"\"\x00\"ADDQ\""},
		{"the file's first byte", 0, 4, "\"TEXT ·f(SB), $0\"\x000\x00\"\"\x00\"TEXT\""},
		{"the file's end", len(src), len(src), "\"\"\x000\x00\"\"\x00\"\""},
		{"before the file", -1, 2, "raw -1 2"},
		{"past its end", 2, len(src) + 1, "raw 2 " + strconv.Itoa(len(src)+1)},
		{"backwards", 5, 4, "raw 5 4"},
	} {
		if got := tf.identity(c.start, c.end); got != c.want {
			t.Errorf("%s: identity %q, want %q", c.name, got, c.want)
		}
	}
	if (&textFile{}).identity(0, 0) != "raw 0 0" {
		t.Error("an empty text file names a range by its lines")
	}
}

// TestIsText: the files hashed without comments and formatting are the
// assembly and C/C++/HIP/CUDA sources, by extension.
func TestIsText(t *testing.T) {
	for name, want := range map[string]bool{
		"a.s": true, "a.S": true, "a.c": true, "a.h": true, "a.cc": true, "a.cpp": true, "a.cxx": true, "a.hh": true,
		"a.hpp": true, "dir/k.hip": true, "k.cu": true, "k.cuh": true,
		"a.go": false, "a.syso": false, "words.txt": false, "s": false, "a.s.go": false, "Makefile": false,
	} {
		if got := isText(name); got != want {
			t.Errorf("isText(%q) = %v, want %v", name, got, want)
		}
	}
}
