package goasm

import (
	"fmt"
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
// nest). It fails on an unterminated comment, unbalanced parentheses or a
// statement that does not start with a name.
func Parse(src []byte) (*File, error) {
	f := &File{Src: src}
	s := string(src)
	line := 1
	var pending []string
	routine := ""
	for i := 0; i < len(s); {
		// one physical line at a time; a block comment may span lines
		end := strings.IndexByte(s[i:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		text := s[i:end]
		trimmed := strings.TrimLeft(text, " \t")
		if strings.HasPrefix(trimmed, "#") {
			// a preprocessor line, continued by a trailing backslash
			for strings.HasSuffix(strings.TrimRight(s[i:end], " \t\r"), "\\") && end < len(s) {
				next := strings.IndexByte(s[end+1:], '\n')
				line++
				if next < 0 {
					end = len(s)
				} else {
					end = end + 1 + next
				}
			}
			i, line = end+1, line+1
			continue
		}
		// split the line into statements, skipping comments
		stmts, consumed, lines, err := splitStatements(s, i, end)
		if err != nil {
			return nil, &ParseError{line, err.Error()}
		}
		for _, st := range stmts {
			st.line = line
			ins, labels, err := parseStatement(s, st)
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
			if ins.Op == "TEXT" {
				if len(ins.Operands) == 0 {
					return nil, &ParseError{line, "TEXT without a symbol"}
				}
				routine = strings.TrimSuffix(ins.Operands[0].Text, "(SB)")
				if len(f.Routines) > 0 {
					f.closeRoutine(ins.Start)
				}
				f.Routines = append(f.Routines, Routine{Name: routine, Text: len(f.Instrs), First: len(f.Instrs) + 1, Start: lineEndAfter(s, ins.End)})
			}
			ins.Labels, pending = pending, nil
			ins.Routine = routine
			f.Instrs = append(f.Instrs, *ins)
		}
		i, line = consumed, line+lines
	}
	if len(f.Routines) > 0 {
		f.closeRoutine(len(s))
	}
	f.resolveLabels()
	return f, nil
}

// closeRoutine ends the last routine before byte offset end, where the
// next TEXT begins (or the file ends). Its end is the end of its last
// statement's line, so data directives after a routine stay outside it
// only when they follow another TEXT; DATA between routines belongs to
// the one before, and schema copies leave directives out.
func (f *File) closeRoutine(end int) {
	r := &f.Routines[len(f.Routines)-1]
	r.Last = len(f.Instrs) - 1
	for r.Last >= r.First && f.Instrs[r.Last].Directive && f.Instrs[r.Last].Op != "TEXT" {
		r.Last--
	}
	if r.Last >= r.First {
		r.End = lineEndAfter(string(f.Src), f.Instrs[r.Last].End)
	} else {
		r.End = r.Start
	}
	_ = end
}

func lineEndAfter(s string, off int) int {
	if j := strings.IndexByte(s[off:], '\n'); j >= 0 {
		return off + j + 1
	}
	return len(s)
}

type rawStmt struct {
	start, end int
	line       int
}

// splitStatements cuts the text from i up to the line's end into
// statements at ';', dropping comments (a /* comment may run over lines:
// then the returned consumed offset and line count cover them).
func splitStatements(s string, i, end int) ([]rawStmt, int, int, error) {
	var out []rawStmt
	lines := 1
	start := i
	depth := 0
	flush := func(to int) {
		if strings.TrimSpace(s[start:to]) != "" {
			out = append(out, rawStmt{start: start, end: to})
		}
	}
	j := i
	for j < end {
		switch {
		case strings.HasPrefix(s[j:], "//"):
			flush(j)
			return out, end + 1, lines, nil
		case strings.HasPrefix(s[j:], "/*"):
			close := strings.Index(s[j+2:], "*/")
			if close < 0 {
				return nil, 0, 0, fmt.Errorf("unterminated /* comment")
			}
			flush(j)
			lines += strings.Count(s[j:j+2+close+2], "\n")
			j += 2 + close + 2
			start = j
			if j > end {
				// the comment ran past this line: continue to the new line's end
				if e := strings.IndexByte(s[j:], '\n'); e >= 0 {
					end = j + e
				} else {
					end = len(s)
				}
			}
			continue
		case s[j] == '(' || s[j] == '[':
			depth++
		case s[j] == ')' || s[j] == ']':
			depth--
			if depth < 0 {
				return nil, 0, 0, fmt.Errorf("unbalanced %c", s[j])
			}
		case s[j] == ';' && depth == 0:
			flush(j)
			start = j + 1
		}
		j++
	}
	if depth != 0 {
		return nil, 0, 0, fmt.Errorf("unbalanced parentheses")
	}
	flush(end)
	return out, end + 1, lines, nil
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
