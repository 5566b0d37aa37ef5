package cxx

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// tok is a token's kind and text, for tables.
type tok struct {
	kind Kind
	text string
}

func (t tok) String() string { return fmt.Sprintf("%s %q", t.kind, t.text) }

func lexed(t *testing.T, src string) []tok {
	t.Helper()
	toks, err := Lex([]byte(src))
	if err != nil {
		t.Fatalf("Lex(%q): %v", src, err)
	}
	var out []tok
	for _, k := range toks {
		if src[k.Start:k.End] != k.Text {
			t.Errorf("Lex(%q): token %q has range [%d, %d) holding %q", src, k.Text, k.Start, k.End, src[k.Start:k.End])
		}
		out = append(out, tok{k.Kind, k.Text})
	}
	return out
}

func TestLex(t *testing.T) {
	id := func(s string) tok { return tok{Ident, s} }
	num := func(s string) tok { return tok{Number, s} }
	str := func(s string) tok { return tok{String, s} }
	chr := func(s string) tok { return tok{Char, s} }
	pun := func(s string) tok { return tok{Punct, s} }
	com := func(s string) tok { return tok{Comment, s} }
	dir := func(s string) tok { return tok{Directive, s} }
	tests := []struct {
		name string
		src  string
		want []tok
	}{
		{"raw string holding a quote and a paren", `R"d(a)" b)d" x`, []tok{str(`R"d(a)" b)d"`), id("x")}},
		{"raw string over lines", "R\"(a\n// not a comment\n)\";", []tok{str("R\"(a\n// not a comment\n)\""), pun(";")}},
		{"encoding prefixes", `u8"s" L'c' U"x" u'y' LR"(r)" u8R"z(q)z"`,
			[]tok{str(`u8"s"`), chr(`L'c'`), str(`U"x"`), chr(`u'y'`), str(`LR"(r)"`), str(`u8R"z(q)z"`)}},
		{"a prefix-like name before a space is a name", `u8 "s"`, []tok{id("u8"), str(`"s"`)}},
		{"escapes in literals", `"a\"b" '\'' "\\"`, []tok{str(`"a\"b"`), chr(`'\''`), str(`"\\"`)}},
		{"line continuation joins lines", "a \\\n b \\\r\n c", []tok{id("a"), id("b"), id("c")}},
		{"comments", "x//c\ny/* a\nb */z", []tok{id("x"), com("//c"), id("y"), com("/* a\nb */"), id("z")}},
		{"a comment spanning lines inside a directive", "#define X 1 /* a\n b */ y\nz",
			[]tok{dir("#define X 1 /* a\n b */ y"), id("z")}},
		{"a line comment ends a directive", "#define X 1 // note \\\ny", []tok{dir("#define X 1 // note \\"), id("y")}},
		{"a comment opener in a string does not open a comment", "#define X \"/*\"\ny /* */",
			[]tok{dir(`#define X "/*"`), id("y"), com("/* */")}},
		{"an apostrophe in #error", "#error don't\nx", []tok{dir("#error don't"), id("x")}},
		{"continued directive", "#define A \\\n  B\nC", []tok{dir("#define A \\\n  B"), id("C")}},
		{"continued directive CRLF", "#define A \\\r\n  B\r\nC", []tok{dir("#define A \\\r\n  B\r"), id("C")}},
		{"directive after a comment at the line's start", "/* c */ #if X\n#endif",
			[]tok{com("/* c */"), dir("#if X"), dir("#endif")}},
		{"directive after indentation", "  #  if X\n", []tok{dir("#  if X")}},
		{"# inside a line is punctuation", "x; # y", []tok{id("x"), pun(";"), pun("#"), id("y")}},
		{"# after a comment inside a line", "x /* c */ #y", []tok{id("x"), com("/* c */"), pun("#"), id("y")}},
		{"exponent sign", "1e-3", []tok{num("1e-3")}},
		{"hex e is a digit", "0x1e+2", []tok{num("0x1e"), pun("+"), num("2")}},
		{"hex E is a digit", "0X1E-2", []tok{num("0X1E"), pun("-"), num("2")}},
		{"hex float exponent", "0x1p+4 0x1.8P-3f", []tok{num("0x1p+4"), num("0x1.8P-3f")}},
		{"float with suffix", "5.9604644775390625e-08f", []tok{num("5.9604644775390625e-08f")}},
		{"unsigned hex", "0xffu", []tok{num("0xffu")}},
		{"digit separator", "1'000 + 0x1'e+2", []tok{num("1'000"), pun("+"), num("0x1'e"), pun("+"), num("2")}},
		{"float", "12582912.0f", []tok{num("12582912.0f")}},
		{"leading dot, trailing dot", ".5f + 1.e+5", []tok{num(".5f"), pun("+"), num("1.e+5")}},
		{"member access is not a number", "a.b .5", []tok{id("a"), pun("."), id("b"), num(".5")}},
		{"a decimal number then a sign", "1+2 x-1", []tok{num("1"), pun("+"), num("2"), id("x"), pun("-"), num("1")}},
		{"longest punctuators", "a<<=b>>=c->*d...e::f", []tok{id("a"), pun("<<="), id("b"), pun(">>="), id("c"), pun("->*"), id("d"), pun("..."), id("e"), pun("::"), id("f")}},
		{"template closers", "A<B<C>> x", []tok{id("A"), pun("<"), id("B"), pun("<"), id("C"), pun(">>"), id("x")}},
		{"empty", "", nil},
		{"only whitespace", " \t\r\n\f\v", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lexed(t, tt.src)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Lex(%q)\n got %v\nwant %v", tt.src, got, tt.want)
			}
		})
	}
}

func TestLexErrors(t *testing.T) {
	tests := []struct {
		src    string
		offset int
		msg    string
	}{
		{"a /* b", 2, "unterminated /* comment"},
		{"x = \"abc", 4, "unterminated literal"},
		{"x = \"abc\ny\"", 4, "unterminated literal"},
		{"'a", 0, "unterminated literal"},
		{"c = u8'a", 6, "unterminated literal"},
		{"a @ b", 2, `unexpected byte '@'`},
		{"a $", 2, `unexpected byte '$'`},
		{"x \\ y", 2, `unexpected byte '\\'`},
		{"int \xc3\xa9;", 4, `unexpected byte 0xc3`},
		{"a\x00", 1, `unexpected byte 0x00`},
		{"R\"abc", 0, "malformed raw string delimiter"},
		{"x R\"a b(x)a b\"", 2, "malformed raw string delimiter"},
		{"R\"seventeen-chars-x(x)seventeen-chars-x\"", 0, "malformed raw string delimiter"},
		{"R\"d(never closed)\"", 0, "unterminated raw string"},
		{"x = R\"sixteen-chars-xx(y)sixteen-chars-xx", 4, "unterminated raw string"},
	}
	for _, tt := range tests {
		_, err := Lex([]byte(tt.src))
		var le *LexError
		if !errors.As(err, &le) {
			t.Errorf("Lex(%q) = %v, want a *LexError", tt.src, err)
			continue
		}
		if le.Offset != tt.offset || !strings.Contains(le.Msg, tt.msg) {
			t.Errorf("Lex(%q) = offset %d %q, want offset %d %q", tt.src, le.Offset, le.Msg, tt.offset, tt.msg)
		}
		if want := fmt.Sprintf("offset %d: ", tt.offset); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Lex(%q): error %q does not start with %q", tt.src, err, want)
		}
	}
}

// FuzzLex: Lex never panics, and its tokens lie in the input in order,
// each range holding its text, with only whitespace, line continuations
// between them.
func FuzzLex(f *testing.F) {
	for _, s := range []string{
		`R"d(a)" b)d"`, "#define X 1 /* a\n b */ y", "0x1e+2 1'000 .5f", "a<<=b->*c", "/* c */ #if X\n#endif",
		"#error don't\n", "u8R\"z(q)z\"", "x \\\n y", "'\\''", "#define X \"/*\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		toks, err := Lex(src)
		if err != nil {
			var le *LexError
			if !errors.As(err, &le) || le.Offset < 0 || le.Offset > len(src) {
				t.Fatalf("Lex error %v: not a *LexError inside the input", err)
			}
			return
		}
		pos := 0
		for _, k := range toks {
			if k.Start < pos || k.End <= k.Start || k.End > len(src) || string(src[k.Start:k.End]) != k.Text {
				t.Fatalf("token %v [%d, %d) out of order or not the input's text (previous end %d)", k.Text, k.Start, k.End, pos)
			}
			gap := string(src[pos:k.Start])
			gap = strings.NewReplacer("\\\r\n", "", "\\\n", "").Replace(gap)
			if strings.Trim(gap, " \t\r\n\f\v") != "" {
				t.Fatalf("bytes %q between tokens are not whitespace", gap)
			}
			pos = k.End
		}
		rest := strings.NewReplacer("\\\r\n", "", "\\\n", "").Replace(string(src[pos:]))
		if strings.Trim(rest, " \t\r\n\f\v") != "" {
			t.Fatalf("bytes %q after the last token are not whitespace", rest)
		}
	})
}
