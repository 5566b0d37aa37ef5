package goasm

import (
	"fmt"
	"sort"
	"strings"
)

// Operand is one operand of an instruction or directive, with its byte
// range in the file.
type Operand struct {
	Text       string
	Start, End int
}

// Instr is one statement of an assembly file: an instruction, or a
// directive (TEXT, DATA, GLOBL, PCDATA, FUNCDATA, BYTE, WORD, LONG, QUAD).
// OpStart/OpEnd are the byte range of the opcode; Start/End that of the
// whole statement (label excluded, comment excluded).
type Instr struct {
	Op               string
	OpStart, OpEnd   int
	Operands         []Operand
	Start, End       int
	Line             int
	Labels           []string // labels defined right before it
	Routine          string   // the TEXT symbol it belongs to, "" outside one
	Directive        bool
	LabelRefs        []int // indices of Operands that name a label of the routine
	NormalizedString string
}

// Label is a label definition: its name and byte range (name and colon).
type Label struct {
	Name       string
	Start, End int
	Routine    string
}

// Routine is a TEXT symbol and its statements, from the TEXT directive to
// the statement before the next TEXT (or the end of the file).
type Routine struct {
	Name         string // the symbol as written: ·decodeQ4_0AVX2
	Text         int    // index of the TEXT directive in File.Instrs
	First, Last  int    // indices of its first and last statement after TEXT
	Start, End   int    // byte range of the body: after the TEXT line, to the end of the routine
	BodyLineFrom int
}

// File is a parsed Go assembly file.
type File struct {
	Src      []byte
	Instrs   []Instr
	Labels   []Label
	Routines []Routine
	text     string // Src as a string, made once
}

// str returns the file's text.
func (f *File) str() string {
	if f.text == "" && len(f.Src) > 0 {
		f.text = string(f.Src)
	}
	return f.text
}

// directives are the pseudo-instructions that are not machine instructions.
var directives = map[string]bool{"TEXT": true, "DATA": true, "GLOBL": true, "PCDATA": true, "FUNCDATA": true,
	"BYTE": true, "WORD": true, "LONG": true, "QUAD": true, "NOP": false}

// ParseError is a malformed line of an assembly file.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse reads a Go assembler source file (the syntax of cmd/asm):
// comments (// and /* */) and preprocessor lines (#include, #define with
// continuations, #ifdef ...) are skipped; statements are separated by
// newlines and semicolons; a statement is an optional label ("name:"),
// an opcode and comma-separated operands (parentheses and brackets
// nest; quoted strings and characters, as in DATA $"abc", hold no
// separators or comments). A comment is whitespace: it may sit inside a
// statement, and a /* */ comment may span lines. It fails on an
// unterminated comment, unbalanced parentheses or a statement that does
// not start with a name, naming the line.
func Parse(src []byte) (*File, error) {
	f := &File{Src: src, text: string(src)}
	clean, comments, err := blank(f.text)
	if err != nil {
		return nil, err
	}
	lines := lineStarts(f.text)
	lineAt := func(off int) int { return sort.SearchInts(lines, off+1) }
	var pending []string
	routine := ""
	for i := 0; i < len(clean); {
		end := strings.IndexByte(clean[i:], '\n')
		if end < 0 {
			end = len(clean)
		} else {
			end += i
		}
		stmts, err := splitStatements(clean, i, end)
		if err != nil {
			return nil, &ParseError{lineAt(i), err.Error()}
		}
		for _, st := range stmts {
			line := lineAt(st.start + len(clean[st.start:st.end]) - len(strings.TrimLeft(clean[st.start:st.end], " \t\r")))
			ins, labels, err := parseStatement(clean, st)
			if err != nil {
				return nil, &ParseError{line, err.Error()}
			}
			for _, l := range labels {
				l.Routine = routine
				f.Labels = append(f.Labels, l)
				pending = append(pending, l.Name)
			}
			if ins == nil {
				continue
			}
			ins.Line = line
			if ins.Op == "TEXT" {
				if len(ins.Operands) == 0 {
					return nil, &ParseError{line, "TEXT without a symbol"}
				}
				if len(f.Routines) > 0 {
					f.closeRoutine()
				}
				routine = strings.TrimSuffix(ins.Operands[0].Text, "(SB)")
				start := bodyStart(clean, comments, ins.End)
				f.Routines = append(f.Routines, Routine{Name: routine, Text: len(f.Instrs), First: len(f.Instrs) + 1, Start: start,
					BodyLineFrom: lineAt(start)})
			}
			ins.Labels, pending = pending, nil
			ins.Routine = routine
			if ins.Op == "DATA" || ins.Op == "GLOBL" {
				ins.Routine = "" // data, not part of a routine's body
			}
			f.Instrs = append(f.Instrs, *ins)
		}
		i = end + 1
	}
	if len(f.Routines) > 0 {
		f.closeRoutine()
	}
	f.resolveLabels()
	return f, nil
}

// lineStarts returns the offsets at which src's lines start.
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// blank returns src with its comments and preprocessor lines replaced by
// spaces (newlines kept, so every offset and line stays where it was). A
// preprocessor line is one whose first non-blank byte is #, continued by a
// backslash at its end; comments inside it are comments (a /* */ one may
// carry it over lines). Quoted strings and characters are kept: a // in
// one is not a comment.
func blank(src string) (string, [][2]int, error) {
	var comments [][2]int // the /* */ comments' ranges
	b := []byte(src)
	lineStart := true
	inDirective := false
	space := func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\n':
			if inDirective && !(i > 0 && src[i-1] == '\\') && !(i > 1 && src[i-1] == '\r' && src[i-2] == '\\') {
				inDirective = false
			}
			lineStart = !inDirective
			i++
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(b) - i
			}
			space(i, i+j)
			i += j
			continue
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return "", nil, &ParseError{strings.Count(src[:i], "\n") + 1, "unterminated /* comment"}
			}
			space(i, i+2+j+2)
			comments = append(comments, [2]int{i, i + 2 + j + 2})
			i += 2 + j + 2
			continue
		case c == ' ' || c == '\t' || c == '\r':
			if inDirective {
				b[i] = ' '
			}
			i++
			continue
		case c == '#' && lineStart:
			inDirective = true
		case (c == '"' || c == '\'') && !inDirective:
			// a quoted string or character, to its closing quote on the line
			j := i + 1
			for j < len(b) && b[j] != c && b[j] != '\n' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(b) && b[j] == c {
				j++
			}
			lineStart = false
			i = min(j, len(b))
			continue
		}
		if inDirective {
			b[i] = ' '
		}
		lineStart = false
		i++
	}
	return string(b), comments, nil
}

// bodyStart returns where a routine's body starts after its TEXT
// statement, which ends at end: after a ';' that ends it on its line,
// else at the next line; but where that line break lies in a /* */
// comment, right after the comment, so that the body (which a schema
// copies) neither starts inside a comment nor leaves out a statement after
// it on its closing line.
func bodyStart(clean string, comments [][2]int, end int) int {
	j := end
	for j < len(clean) && (clean[j] == ' ' || clean[j] == '\t' || clean[j] == '\r') {
		j++
	}
	if j < len(clean) && clean[j] == ';' {
		return j + 1
	}
	start := lineEndAfter(clean, end)
	for _, c := range comments {
		if c[0] < start && start <= c[1] {
			return c[1]
		}
	}
	return start
}

// closeRoutine ends the last routine at its last instruction before the
// next TEXT (or the file's end): data directives after it stay outside
// it; its end is the end of that instruction's line.
func (f *File) closeRoutine() {
	r := &f.Routines[len(f.Routines)-1]
	r.Last = len(f.Instrs) - 1
	for r.Last >= r.First && f.Instrs[r.Last].Directive && f.Instrs[r.Last].Op != "TEXT" {
		r.Last--
	}
	if r.Last >= r.First {
		r.End = lineEndAfter(f.str(), f.Instrs[r.Last].End)
	} else {
		r.End = r.Start
	}
}

func lineEndAfter(s string, off int) int {
	if j := strings.IndexByte(s[off:], '\n'); j >= 0 {
		return off + j + 1
	}
	return len(s)
}

type rawStmt struct {
	start, end int
}

// splitStatements cuts the comment-free text from i up to the line's end
// into statements at ';' outside parentheses and quotes.
func splitStatements(s string, i, end int) ([]rawStmt, error) {
	var out []rawStmt
	start := i
	depth := 0
	flush := func(to int) {
		if strings.TrimSpace(s[start:to]) != "" {
			out = append(out, rawStmt{start: start, end: to})
		}
	}
	for j := i; j < end; j++ {
		switch c := s[j]; {
		case c == '"' || c == '\'':
			j = skipQuoted(s, j, end) - 1
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced %c", c)
			}
		case c == ';' && depth == 0:
			flush(j)
			start = j + 1
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced parentheses")
	}
	flush(end)
	return out, nil
}

// skipQuoted returns the offset after the quoted string or character
// opening at i (its end, or end when it is not closed before).
func skipQuoted(s string, i, end int) int {
	q := s[i]
	for j := i + 1; j < end; j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return end
}

// parseStatement reads labels, the opcode and the operands of one
// statement.
func parseStatement(s string, st rawStmt) (*Instr, []Label, error) {
	var labels []Label
	i := st.start
	for {
		for i < st.end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		if i >= st.end {
			return nil, labels, nil
		}
		j := i
		for j < st.end && isNameByte(s, j) {
			j += nameByteLen(s, j)
		}
		if j == i {
			return nil, nil, fmt.Errorf("statement starts with %q", s[i:st.end])
		}
		k := j
		for k < st.end && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k < st.end && s[k] == ':' {
			labels = append(labels, Label{Name: s[i:j], Start: i, End: k + 1})
			i = k + 1
			continue
		}
		ins := &Instr{Op: s[i:j], OpStart: i, OpEnd: j, Start: i, End: trimRight(s, st.start, st.end)}
		ins.Directive = directives[ins.Op]
		ops, err := splitOperands(s, j, ins.End)
		if err != nil {
			return nil, nil, err
		}
		ins.Operands = ops
		return ins, labels, nil
	}
}

func trimRight(s string, start, end int) int {
	for end > start && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\r') {
		end--
	}
	return end
}

// isNameByte reports whether s[i] continues a name: letters, digits, _,
// '.', and the middle dot · (two bytes in UTF-8) of package-qualified
// symbols.
func isNameByte(s string, i int) bool {
	c := s[i]
	return c == '_' || c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		strings.HasPrefix(s[i:], "·") || c == '/'
}

func nameByteLen(s string, i int) int {
	if strings.HasPrefix(s[i:], "·") {
		return len("·")
	}
	return 1
}

func splitOperands(s string, from, to int) ([]Operand, error) {
	var ops []Operand
	start := from
	depth := 0
	add := func(end int) {
		a, b := start, end
		for a < b && (s[a] == ' ' || s[a] == '\t') {
			a++
		}
		for b > a && (s[b-1] == ' ' || s[b-1] == '\t') {
			b--
		}
		if a < b {
			ops = append(ops, Operand{Text: s[a:b], Start: a, End: b})
		}
	}
	for i := from; i < to; i++ {
		switch s[i] {
		case '"', '\'':
			i = skipQuoted(s, i, to) - 1
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				add(i)
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced parentheses in operands")
	}
	add(to)
	return ops, nil
}

// resolveLabels marks the operands that name a label of their routine
// (jump targets), so copies of a routine can rename them.
func (f *File) resolveLabels() {
	byRoutine := map[string]map[string]bool{}
	for _, l := range f.Labels {
		if byRoutine[l.Routine] == nil {
			byRoutine[l.Routine] = map[string]bool{}
		}
		byRoutine[l.Routine][l.Name] = true
	}
	for i := range f.Instrs {
		ins := &f.Instrs[i]
		for k, op := range ins.Operands {
			if byRoutine[ins.Routine][op.Text] {
				ins.LabelRefs = append(ins.LabelRefs, k)
			}
		}
		var parts []string
		for _, op := range ins.Operands {
			parts = append(parts, op.Text)
		}
		ins.NormalizedString = ins.Op + " " + strings.Join(parts, ", ")
	}
}

// RoutineOf returns the routine holding statement i, or nil.
func (f *File) RoutineOf(i int) *Routine {
	for k := range f.Routines {
		r := &f.Routines[k]
		if r.Text < i && i <= r.Last {
			return r
		}
	}
	return nil
}
