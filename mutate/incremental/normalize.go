package incremental

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"go/scanner"
	"go/token"
	"hash"
	"strings"
)

// goToken is one token of Go source text: its kind and its literal (for
// identifiers and literals).
type goToken struct {
	tok token.Token
	lit string
}

// goTokens scans Go source text (one declaration) into its tokens, without
// comments. Semicolons, written or inserted at a line end, are left out:
// they carry no meaning the other tokens do not (which lines break where
// is formatting), and a formatter adds and removes them.
func goTokens(src []byte) []goToken {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, func(token.Position, string) {}, 0)
	var out []goToken
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON {
			continue
		}
		out = append(out, goToken{tok: tok, lit: lit})
	}
	return out
}

// writeTokens hashes tokens by kind and literal: the same code whatever
// its comments and formatting hashes the same.
func writeTokens(h hash.Hash, toks []goToken) {
	for _, t := range toks {
		fmt.Fprintf(h, "%d\x00%s\x00", t.tok, t.lit)
	}
}

// normalizeText is the text of an assembly or C/C++ file without its
// comments, each line trimmed with its runs of blanks made one space,
// blank lines dropped: what a comment or a reformatting changes is not in
// it. Strings and character literals are kept as they are.
func normalizeText(src []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.Split(stripComments(string(src)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			out.WriteString(strings.Join(f, " "))
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// stripComments replaces the // and /* */ comments of C-like text by a
// space (a block comment keeps its newlines, so lines stay lines).
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"' || s[i] == '\'':
			q := s[i]
			j := i + 1
			for j < len(s) && s[j] != q && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 { //gathermut:equivalent(boundary) j is never 0: s[i:] starts with "//"
				return b.String()
			}
			b.WriteByte(' ')
			i += j
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteByte(' ')
			b.WriteString(strings.Repeat("\n", strings.Count(s[i:end], "\n")))
			i = end
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// sumText hashes normalized text.
func sumText(src []byte) [32]byte { return sha256.Sum256(normalizeText(src)) }
