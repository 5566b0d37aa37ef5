package cxx

import (
	"fmt"
	"strings"
)

// Kind is a token's lexical class.
type Kind int

const (
	Ident     Kind = iota + 1 // identifiers and keywords
	Number                    // integer and floating literals, with suffixes
	String                    // string literals (raw strings too), with prefixes
	Char                      // character literals
	Punct                     // operators and punctuation
	Comment                   // // and /* */ comments
	Directive                 // a whole preprocessor line, continuations included
)

func (k Kind) String() string {
	switch k {
	case Ident:
		return "ident"
	case Number:
		return "number"
	case String:
		return "string"
	case Char:
		return "char"
	case Punct:
		return "punct"
	case Comment:
		return "comment"
	case Directive:
		return "directive"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Token is one lexeme of a source file: its class, its text and its byte
// range [Start, End) in the file.
type Token struct {
	Kind       Kind
	Text       string
	Start, End int
}

// LexError is a lexing failure at a byte offset of the file.
type LexError struct {
	Offset int
	Msg    string
}

func (e *LexError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// puncts are the multi-character punctuators, longest first within each
// leading character, so the lexer takes the longest match.
var puncts = []string{
	"<<=", ">>=", "...", "->*",
	"::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##",
}

// Lex splits src into tokens. Whitespace is dropped; comments and
// preprocessor lines are tokens of their own (a directive runs to the end
// of its line, backslash-newline continuing it, and may hold comments), so
// a caller sees them and never mutates inside them. It fails on what a C++
// compiler would reject at this level: an unterminated comment, string or
// character literal, or a byte that starts no token.
func Lex(src []byte) ([]Token, error) {
	s := string(src)
	var toks []Token
	lineStart := true // only whitespace since the last newline
	for i := 0; i < len(s); {
		if width, newline := whitespaceAt(s, i); width > 0 {
			lineStart = lineStart || newline
			i += width
			continue
		}
		kind, end, err := lexToken(s, i, lineStart)
		if err != nil {
			return nil, err
		}
		toks = append(toks, Token{Kind: kind, Text: s[i:end], Start: i, End: end})
		// a comment is whitespace to the preprocessor: a # after one
		// that opens a line still starts a directive
		lineStart = kind == Directive || (kind == Comment && lineStart)
		i = end
	}
	return toks, nil
}

// whitespaceAt returns the width of the whitespace at s[i] (0 when there is
// none) and whether it is a newline. A backslash-newline outside a
// directive is whitespace that joins two lines, not a newline.
func whitespaceAt(s string, i int) (width int, newline bool) {
	c := s[i]
	switch {
	case c == '\n':
		return 1, true
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		return 1, false
	case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
		return 2, false
	case c == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
		return 3, false
	}
	return 0, false
}

// lexToken reads the token starting at s[i], which is not whitespace:
// its kind and its end. lineStart says whether only whitespace (comments
// included) precedes it on its line, where a # opens a directive.
func lexToken(s string, i int, lineStart bool) (Kind, int, error) {
	c := s[i]
	switch {
	case c == '#' && lineStart:
		return Directive, lexDirective(s, i), nil
	case c == '/' && i+1 < len(s) && s[i+1] == '/':
		return Comment, lineEnd(s, i), nil
	case c == '/' && i+1 < len(s) && s[i+1] == '*':
		end := strings.Index(s[i+2:], "*/")
		if end < 0 {
			return 0, 0, &LexError{i, "unterminated /* comment"}
		}
		return Comment, i + 2 + end + 2, nil
	case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
		return Number, lexNumber(s, i), nil
	case isIdentStart(c):
		return lexWord(s, i)
	case c == '"':
		end, err := lexQuoted(s, i, '"')
		return String, end, err
	case c == '\'':
		end, err := lexQuoted(s, i, '\'')
		return Char, end, err
	}
	end := lexPunct(s, i)
	if end == i {
		return 0, 0, &LexError{i, "unexpected byte " + quoteByte(c)}
	}
	return Punct, end, nil
}

// lexWord reads the identifier at s[i], or the string or character
// literal it prefixes (u8"", L'x', R"d(...)d").
func lexWord(s string, i int) (Kind, int, error) {
	j := i
	for j < len(s) && isIdentPart(s[j]) {
		j++
	}
	if j == len(s) || (s[j] != '"' && s[j] != '\'') || !isLiteralPrefix(s[i:j]) {
		return Ident, j, nil
	}
	if s[j] == '\'' {
		end, err := lexQuoted(s, j, '\'')
		return Char, end, err
	}
	if strings.HasSuffix(s[i:j], "R") {
		end, err := lexRawString(s, i, j)
		return String, end, err
	}
	end, err := lexQuoted(s, j, '"')
	return String, end, err
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// lexDirective returns the end of the preprocessor line at i: the newline
// not preceded by a backslash, skipping block comments (which may span
// lines) and literals (a comment opener inside a string does not open a
// comment). A quote without its closer on the line (an apostrophe in an
// #error message) ends at the line's end: compilers accept it there.
func lexDirective(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == '\n':
			return i
		case s[i] == '"' || s[i] == '\'':
			j, err := lexQuoted(s, i, s[i])
			if err != nil {
				i++ // an unterminated quote: the rest of the line is text
				continue
			}
			i = j
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		case s[i] == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
			i += 3
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			if end := strings.Index(s[i+2:], "*/"); end >= 0 {
				i += 2 + end + 2
			} else {
				return len(s)
			}
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '/':
			return lineEnd(s, i)
		default:
			i++
		}
	}
	return i
}

// lexNumber takes a pp-number: digits, letters, dots, digit separators and
// exponent signs (1e-3, 0x1p+4).
func lexNumber(s string, i int) int {
	start := i
	for i < len(s) {
		c := s[i]
		switch {
		case isIdentPart(c) || c == '.':
			i++
		case c == '\'' && i+1 < len(s) && isIdentPart(s[i+1]):
			i++
		case (c == '+' || c == '-') && strings.ContainsRune("eEpP", rune(s[i-1])) && !isHexDigitE(s[start:i]):
			i++
		default:
			return i
		}
	}
	return i
}

// isHexDigitE reports whether num, a pp-number so far, is hexadecimal and
// ends in an 'e' or 'E', which is then a digit, not an exponent: 0x1e+2 is
// 0x1e plus 2. (The standard's pp-number grammar would take 0x1e+2 whole
// and the compiler would then reject it; no source that compiles holds
// one, and reading it as the sum keeps a mutant's text valid.)
func isHexDigitE(num string) bool {
	num = strings.ToLower(num)
	return strings.HasPrefix(num, "0x") && strings.HasSuffix(num, "e")
}

func lexQuoted(s string, i int, quote byte) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return 0, &LexError{i, "unterminated literal"}
		case quote:
			return j + 1, nil
		}
	}
	return 0, &LexError{i, "unterminated literal"}
}

// lexRawString takes R"delim( ... )delim" starting at prefix start i, the
// quote at q.
func lexRawString(s string, i, q int) (int, error) {
	open := strings.IndexByte(s[q:], '(')
	if open < 0 || open > 17 {
		return 0, &LexError{i, "malformed raw string delimiter"}
	}
	delim := s[q+1 : q+open]
	if strings.ContainsAny(delim, " ()\\\t\v\f\r\n\"") {
		return 0, &LexError{i, "malformed raw string delimiter"}
	}
	closing := ")" + delim + "\""
	end := strings.Index(s[q+open:], closing)
	if end < 0 {
		return 0, &LexError{i, "unterminated raw string"}
	}
	return q + open + end + len(closing), nil
}

func lexPunct(s string, i int) int {
	for _, p := range puncts {
		if strings.HasPrefix(s[i:], p) {
			return i + len(p)
		}
	}
	if strings.IndexByte("{}[]()<>;:,.?~!+-*/%^&|=#", s[i]) >= 0 {
		return i + 1
	}
	return i
}

func isLiteralPrefix(p string) bool {
	switch p {
	case "L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R":
		return true
	}
	return false
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// quoteByte writes a byte for an error message: quoted when it is
// printable ASCII, in hexadecimal otherwise.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("0x%02x", c)
}
