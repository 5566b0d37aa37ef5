package cxx

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Env is what a build predefines: the macros a compiler or its command
// line sets (GM_HOST_EMULATION for the host emulation, __CUDA_ARCH__ for
// nvcc's device pass, __AMDGCN__ for hipcc's).
type Env struct {
	Name    string
	Defines map[string]string
}

// The environments the row's kernel is built in. Device code is the code a
// compiler sees in the device pass: for nvcc the pass with __CUDA_ARCH__
// set, for hipcc the one with __HIP_DEVICE_COMPILE__.
var (
	Emulation = Env{Name: "emulation", Defines: map[string]string{"GM_HOST_EMULATION": "1", "__cplusplus": "201402L"}}
	NVCC      = Env{Name: "nvcc", Defines: map[string]string{"__CUDACC__": "1", "__NVCC__": "1", "__CUDA_ARCH__": "900", "__cplusplus": "201703L"}}
	HIPCC     = Env{Name: "hipcc", Defines: map[string]string{"__HIPCC__": "1", "__HIP__": "1", "__HIP_DEVICE_COMPILE__": "1", "__AMDGCN__": "1", "__gfx1100__": "1", "__cplusplus": "201703L"}}
)

// Macro is a #define: an object-like macro (Params nil) or a function-like
// one, with its replacement text.
type Macro struct {
	Name   string
	Params []string
	Func   bool
	Body   string
}

// Unit is one translation unit preprocessed in one Env: for each file
// reached, which of its tokens the compiler sees, and the macros defined
// at the end.
type Unit struct {
	Env    Env
	Files  map[string]*FileTokens
	Order  []string // files in the order they were first reached
	Macros map[string]*Macro
}

// FileTokens is a file's tokens and, for each, whether the compiler sees
// it in the unit's Env (it lies in a taken branch of every conditional
// around it, in at least one inclusion).
type FileTokens struct {
	Name   string
	Src    []byte
	Tokens []Token
	Active []bool
}

// PPError is a preprocessing failure in a file.
type PPError struct {
	File   string
	Offset int
	Msg    string
}

func (e *PPError) Error() string { return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg) }

// Preprocess follows the conditionals and the quoted #includes of entry
// through files (slash-separated path -> contents; a quoted #include is
// looked up beside the including file, then as written; one not among the
// files, or an <angle> include, is a system header and is skipped), under
// env. It
// evaluates #if, #ifdef, #ifndef, #elif and #else with the macros defined so
// far (an identifier that is not a macro is 0, as in C), records #define
// and #undef, and fails on an active #error, an unbalanced conditional or
// a malformed directive. Macros are not expanded in the code itself: the
// parser sees the source as written.
func Preprocess(entry string, files map[string][]byte, env Env) (*Unit, error) {
	u := &Unit{Env: env, Files: map[string]*FileTokens{}, Macros: map[string]*Macro{}}
	for name, body := range env.Defines {
		u.Macros[name] = &Macro{Name: name, Body: body}
	}
	if _, ok := files[entry]; !ok {
		return nil, fmt.Errorf("cxx: entry file %s is not among the sources", entry)
	}
	if err := u.file(entry, files, 0); err != nil {
		return nil, err
	}
	return u, nil
}

type cond struct {
	active, taken, parent bool
	elseSeen              bool
}

func (u *Unit) file(name string, files map[string][]byte, depth int) error {
	ft := u.Files[name]
	if ft == nil {
		toks, err := Lex(files[name])
		if err != nil {
			return fmt.Errorf("cxx: %s: %w", name, err)
		}
		ft = &FileTokens{Name: name, Src: files[name], Tokens: toks, Active: make([]bool, len(toks))}
		u.Files[name] = ft
		u.Order = append(u.Order, name)
	}
	var stack []cond
	active := func() bool { return len(stack) == 0 || stack[len(stack)-1].active }
	for i, t := range ft.Tokens {
		if t.Kind != Directive {
			if active() && t.Kind != Comment {
				ft.Active[i] = true
			}
			continue
		}
		d := parseDirective(t.Text)
		switch d.name {
		case "if", "ifdef", "ifndef":
			on := false
			if active() {
				v, err := u.condition(d)
				if err != nil {
					return &PPError{name, t.Start, err.Error()}
				}
				on = v
			}
			stack = append(stack, cond{active: on, taken: on, parent: active()})
		case "elif":
			if len(stack) == 0 || stack[len(stack)-1].elseSeen {
				return &PPError{name, t.Start, "#elif without #if"}
			}
			c := &stack[len(stack)-1]
			c.active = false
			if c.parent && !c.taken {
				v, err := u.condition(directive{name: "if", rest: d.rest})
				if err != nil {
					return &PPError{name, t.Start, err.Error()}
				}
				c.active, c.taken = v, v
			}
		case "else":
			if len(stack) == 0 || stack[len(stack)-1].elseSeen {
				return &PPError{name, t.Start, "#else without #if"}
			}
			c := &stack[len(stack)-1]
			c.active = c.parent && !c.taken
			c.taken, c.elseSeen = true, true
		case "endif":
			if len(stack) == 0 {
				return &PPError{name, t.Start, "#endif without #if"}
			}
			stack = stack[:len(stack)-1]
		default:
			if !active() {
				continue
			}
			ft.Active[i] = true
			if err := u.directive(name, t, d, files, depth); err != nil {
				return err
			}
		}
	}
	if len(stack) > 0 {
		return &PPError{name, len(ft.Src), "unterminated #if"}
	}
	return nil
}

func (u *Unit) directive(name string, t Token, d directive, files map[string][]byte, depth int) error {
	switch d.name {
	case "define":
		m, err := parseDefine(d.rest)
		if err != nil {
			return &PPError{name, t.Start, err.Error()}
		}
		u.Macros[m.Name] = m
	case "undef":
		m := strings.TrimSpace(d.rest)
		if !isMacroName(m) {
			return &PPError{name, t.Start, fmt.Sprintf("#undef wants one macro name, found %q", m)}
		}
		delete(u.Macros, m)
	case "include":
		inc := strings.TrimSpace(d.rest)
		if inc == "" {
			return &PPError{name, t.Start, "#include without a file name"}
		}
		if len(inc) >= 2 && inc[0] == '"' && inc[len(inc)-1] == '"' {
			// a quoted include is looked up beside the including file first
			target := path.Join(path.Dir(name), inc[1:len(inc)-1])
			if _, ok := files[target]; !ok {
				target = inc[1 : len(inc)-1]
			}
			if _, ok := files[target]; ok {
				if depth >= 32 {
					return &PPError{name, t.Start, "#include nested too deeply (a cycle without an include guard?): " + inc}
				}
				return u.file(target, files, depth+1)
			}
		}
	case "error":
		return &PPError{name, t.Start, "#error " + strings.TrimSpace(d.rest)}
	}
	return nil
}

type directive struct{ name, rest string }

// parseDirective splits a directive line into its name and the rest, with
// continuations joined and comments removed.
func parseDirective(text string) directive {
	text = strings.NewReplacer("\\\r\n", " ", "\\\n", " ").Replace(text)
	text = stripComments(text)
	text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "#"))
	name := text
	rest := ""
	for i := 0; i < len(text); i++ {
		if !isIdentPart(text[i]) {
			name, rest = text[:i], text[i:]
			break
		}
	}
	return directive{name: name, rest: rest}
}

func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"' || s[i] == '\'':
			j, err := lexQuoted(s, i, s[i])
			if err != nil {
				b.WriteString(s[i:])
				return b.String()
			}
			b.WriteString(s[i:j])
			i = j - 1
		case strings.HasPrefix(s[i:], "//"):
			return b.String()
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			b.WriteByte(' ')
			i += 2 + end + 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func parseDefine(rest string) (*Macro, error) {
	rest = strings.TrimLeft(rest, " \t")
	i := 0
	for i < len(rest) && isIdentPart(rest[i]) {
		i++
	}
	if i == 0 || !isIdentStart(rest[0]) {
		return nil, fmt.Errorf("#define without a macro name")
	}
	m := &Macro{Name: rest[:i]}
	rest = rest[i:]
	if strings.HasPrefix(rest, "(") {
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, fmt.Errorf("#define %s: unterminated parameter list", m.Name)
		}
		m.Func = true
		for _, p := range strings.Split(rest[1:end], ",") {
			if p = strings.TrimSpace(p); p != "" {
				m.Params = append(m.Params, p)
			}
		}
		rest = rest[end+1:]
	}
	m.Body = strings.TrimSpace(rest)
	return m, nil
}

// condition evaluates an #if, #ifdef or #ifndef.
func (u *Unit) condition(d directive) (bool, error) {
	switch d.name {
	case "ifdef", "ifndef":
		name := strings.TrimSpace(d.rest)
		if !isMacroName(name) {
			return false, fmt.Errorf("#%s wants one macro name, found %q", d.name, name)
		}
		_, ok := u.Macros[name]
		return ok == (d.name == "ifdef"), nil
	}
	toks, err := Lex([]byte(d.rest))
	if err != nil {
		return false, fmt.Errorf("#if %s: %w", strings.TrimSpace(d.rest), err)
	}
	toks, err = u.expandCondition(toks, map[string]bool{})
	if err != nil {
		return false, fmt.Errorf("#if %s: %w", strings.TrimSpace(d.rest), err)
	}
	p := &ppExpr{toks: toks}
	v, err := p.ternary()
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.i].Text)
	}
	if err != nil {
		return false, fmt.Errorf("#if %s: %w", strings.TrimSpace(d.rest), err)
	}
	return v != 0, nil
}

// expandCondition replaces defined(X) by 1 or 0 and object-like macros by
// their bodies (recursively; a macro met inside its own expansion is not
// expanded again, as in C); true is 1, and any identifier left is 0.
func (u *Unit) expandCondition(toks []Token, expanding map[string]bool) ([]Token, error) {
	var out []Token
	num := func(v bool) Token {
		if v {
			return Token{Kind: Number, Text: "1"}
		}
		return Token{Kind: Number, Text: "0"}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind == Comment {
			continue
		}
		if t.Kind != Ident {
			out = append(out, t)
			continue
		}
		if t.Text == "defined" {
			j := i + 1
			paren := j < len(toks) && toks[j].Text == "("
			if paren {
				j++
			}
			if j >= len(toks) || toks[j].Kind != Ident {
				return nil, fmt.Errorf("defined without a macro name")
			}
			_, ok := u.Macros[toks[j].Text]
			out = append(out, num(ok))
			if paren {
				j++
				if j >= len(toks) || toks[j].Text != ")" {
					return nil, fmt.Errorf("defined( without )")
				}
			}
			i = j
			continue
		}
		m, ok := u.Macros[t.Text]
		switch {
		case !ok || expanding[t.Text]:
			// C++: after expansion true is 1; every other identifier,
			// false included, is 0
			out = append(out, num(t.Text == "true"))
		case m.Func:
			return nil, fmt.Errorf("function-like macro %s in a condition is not supported", m.Name)
		default:
			body, err := Lex([]byte(m.Body))
			if err != nil {
				return nil, err
			}
			expanding[t.Text] = true
			body, err = u.expandCondition(body, expanding)
			delete(expanding, t.Text)
			if err != nil {
				return nil, err
			}
			out = append(out, body...)
		}
	}
	return out, nil
}

// ppExpr evaluates a preprocessor constant expression (int64, C's
// precedence). The operands && and || do not evaluate, and the arm ?: does
// not take, are still parsed but cannot fail: #if 0 && 1 / 0 is 0, as in
// C.
type ppExpr struct {
	toks []Token
	i    int
	dead int // > 0 while parsing an operand that is not evaluated
}

// isMacroName reports whether s is one identifier.
func isMacroName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}

func (p *ppExpr) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].Text
	}
	return ""
}

var ppLevels = [][]string{{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}}

func (p *ppExpr) ternary() (int64, error) {
	c, err := p.binary(0)
	if err != nil || p.peek() != "?" {
		return c, err
	}
	p.i++
	if c == 0 {
		p.dead++
	}
	a, err := p.ternary()
	if c == 0 {
		p.dead--
	}
	if err != nil {
		return 0, err
	}
	if p.peek() != ":" {
		return 0, fmt.Errorf("? with no matching colon")
	}
	p.i++
	if c != 0 {
		p.dead++
	}
	b, err := p.ternary()
	if c != 0 {
		p.dead--
	}
	if err != nil {
		return 0, err
	}
	if c != 0 {
		return a, nil
	}
	return b, nil
}

func (p *ppExpr) binary(level int) (int64, error) {
	if level == len(ppLevels) {
		return p.unary()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		found := false
		for _, o := range ppLevels[level] {
			found = found || o == op
		}
		if !found {
			return x, nil
		}
		p.i++
		// the right operand of && after 0 and of || after non-zero is
		// not evaluated
		skip := (op == "&&" && x == 0) || (op == "||" && x != 0)
		if skip {
			p.dead++
		}
		y, err := p.binary(level + 1)
		if skip {
			p.dead--
		}
		if err != nil {
			return 0, err
		}
		if x, err = ppApply(op, x, y, p.dead > 0); err != nil {
			return 0, err
		}
	}
}

// ppApply applies a binary operator; in an operand that is not evaluated
// (dead) a division by zero is not an error.
func ppApply(op string, x, y int64, dead bool) (int64, error) {
	b := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	switch op {
	case "||":
		return b(x != 0 || y != 0), nil
	case "&&":
		return b(x != 0 && y != 0), nil
	case "|":
		return x | y, nil
	case "^":
		return x ^ y, nil
	case "&":
		return x & y, nil
	case "==":
		return b(x == y), nil
	case "!=":
		return b(x != y), nil
	case "<":
		return b(x < y), nil
	case "<=":
		return b(x <= y), nil
	case ">":
		return b(x > y), nil
	case ">=":
		return b(x >= y), nil
	case "<<":
		return x << uint64(y&63), nil
	case ">>":
		return x >> uint64(y&63), nil
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/", "%":
		if y == 0 {
			if dead {
				return 0, nil
			}
			return 0, fmt.Errorf("division by zero")
		}
		if op == "/" {
			return x / y, nil
		}
		return x % y, nil
	}
	return 0, fmt.Errorf("operator %s", op)
}

func (p *ppExpr) unary() (int64, error) {
	switch p.peek() {
	case "!", "-", "+", "~":
		op := p.peek()
		p.i++
		v, err := p.unary()
		if err != nil {
			return 0, err
		}
		switch op {
		case "!":
			if v == 0 {
				return 1, nil
			}
			return 0, nil
		case "-":
			return -v, nil
		case "~":
			return ^v, nil
		}
		return v, nil
	case "(":
		p.i++
		v, err := p.ternary()
		if err != nil {
			return 0, err
		}
		if p.peek() != ")" {
			return 0, fmt.Errorf("missing )")
		}
		p.i++
		return v, nil
	}
	if p.i >= len(p.toks) {
		return 0, fmt.Errorf("unexpected end of expression")
	}
	t := p.toks[p.i]
	p.i++
	switch t.Kind {
	case Number:
		v, err := ParseInt(t.Text)
		return int64(v.Value), err
	case Char:
		if len(t.Text) == 3 {
			return int64(t.Text[1]), nil
		}
	}
	return 0, fmt.Errorf("unexpected %q", t.Text)
}

// IntLit is a parsed integer literal: its value, the base it is written
// in, and its suffix (u, l, ul, ll, ull, in any case and order).
type IntLit struct {
	Value  uint64
	Base   int
	Suffix string
}

// ParseInt parses a C++ integer literal (decimal, 0x hex, 0b binary,
// leading-0 octal, digit separators, suffixes).
func ParseInt(text string) (IntLit, error) {
	s := strings.ReplaceAll(text, "'", "")
	end := len(s)
	for end > 0 && strings.ContainsRune("uUlLzZ", rune(s[end-1])) {
		end--
	}
	lit := IntLit{Suffix: s[end:], Base: 10}
	digits := s[:end]
	switch {
	case strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X"):
		lit.Base, digits = 16, digits[2:]
	case strings.HasPrefix(digits, "0b") || strings.HasPrefix(digits, "0B"):
		lit.Base, digits = 2, digits[2:]
	case len(digits) > 1 && digits[0] == '0':
		lit.Base, digits = 8, digits[1:]
	}
	v, err := strconv.ParseUint(digits, lit.Base, 64)
	if err != nil {
		return IntLit{}, fmt.Errorf("integer literal %q: %w", text, err)
	}
	lit.Value = v
	return lit, nil
}

// MacroNames returns the unit's macro names, sorted.
func (u *Unit) MacroNames() []string {
	var names []string
	for n := range u.Macros {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
