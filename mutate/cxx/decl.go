package cxx

import (
	"fmt"
	"strings"
)

// Func is a function definition found in a file: its name (Struct::name
// for a member), whether it is device code, and its body.
type Func struct {
	Name   string
	Device bool
	// Specs are the tokens before the name (template head, specifiers,
	// return type): where __device__ / __global__ are looked for.
	Specs []Token
	// Body is the compound statement, parsed; BodyErr says why it could
	// not be (then the function gets no mutants and the error is
	// reported by Mutants).
	Body    *Stmt
	BodyErr error
	// Open and Close are the byte offsets of the body's braces,
	// ParamsStart that of the parameter list's opening parenthesis.
	Open, Close, ParamsStart int
}

// Source is a parsed file: its active tokens (what the compiler sees in
// the unit's Env, comments and directives dropped) and its functions.
type Source struct {
	Name  string
	Src   []byte
	Toks  []Token
	Funcs []*Func
	// Templates are the names declared with a template head in any file
	// of the unit: a < after one of them opens a template argument list.
	Templates map[string]bool
	// Types are the names that name a type (struct, class, typedef,
	// template type parameters, the fixed-width integer types): a
	// parenthesized one starts a cast.
	Types map[string]bool
}

// deviceMarkers are the specifiers that make a function device code. A
// macro counts when its replacement, expanded, holds one of them (GM_DEV is
// "__device__ __forceinline__"); the markers themselves are not expanded,
// so the emulation's empty definitions of them do not hide them.
var deviceMarkers = map[string]bool{"__device__": true, "__global__": true}

// Parse finds the function definitions of every file of the unit and parses
// the bodies of the device functions.
func Parse(u *Unit) ([]*Source, error) {
	templates, types := map[string]bool{}, map[string]bool{}
	var srcs []*Source
	for _, name := range u.Order {
		ft := u.Files[name]
		s := &Source{Name: name, Src: ft.Src, Templates: templates, Types: types}
		for i, t := range ft.Tokens {
			if ft.Active[i] && t.Kind != Directive && t.Kind != Comment {
				s.Toks = append(s.Toks, t)
			}
		}
		collectNames(s.Toks, templates, types)
		srcs = append(srcs, s)
	}
	for _, s := range srcs {
		s.Toks = splitAngles(s.Toks, templates, types)
		if err := s.scan(u); err != nil {
			return nil, fmt.Errorf("cxx: %s: %w", s.Name, err)
		}
	}
	return srcs, nil
}

// splitAngles splits each >> that closes a template argument list into
// two > tokens (C++11: inside a template argument list, >> is two closers:
// f<g<1>>(x)), so that every later match of < and > counts tokens. A list
// opens at a < after a template or type name, a name ending in _cast, or
// a name after the keyword template; a >> inside parentheses or brackets
// within the list stays a shift.
func splitAngles(toks []Token, templates, types map[string]bool) []Token {
	var out []Token
	var stack []byte // '<' for an open list, '(' for ( or [
	for i, t := range toks {
		switch t.Text {
		case "<":
			if i > 0 && toks[i-1].Kind == Ident {
				name := toks[i-1].Text
				if templates[name] || types[name] || strings.HasSuffix(name, "_cast") || (i > 1 && toks[i-2].Text == "template") {
					stack = append(stack, '<')
				}
			}
		case "(", "[":
			stack = append(stack, '(')
		case ")", "]":
			// close the parenthesis, and any list left open inside it
			for len(stack) > 0 && stack[len(stack)-1] == '<' {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ">":
			if len(stack) > 0 && stack[len(stack)-1] == '<' {
				stack = stack[:len(stack)-1]
			}
		case ">>":
			if len(stack) > 0 && stack[len(stack)-1] == '<' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1] == '<' {
					stack = stack[:len(stack)-1]
				}
				out = append(out, Token{Kind: Punct, Text: ">", Start: t.Start, End: t.Start + 1},
					Token{Kind: Punct, Text: ">", Start: t.Start + 1, End: t.End})
				continue
			}
		case ";", "{", "}":
			stack = stack[:0]
		}
		out = append(out, t)
	}
	return out
}

// collectNames records the names introduced by struct/class/union/enum,
// typedef, using and template heads.
func collectNames(toks []Token, templates, types map[string]bool) {
	for _, t := range []string{"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintptr_t", "size_t", "intptr_t", "ptrdiff_t"} {
		types[t] = true
	}
	for i := 0; i < len(toks); i++ {
		switch toks[i].Text {
		case "struct", "class", "union", "enum":
			// a type parameter "class C" in a template head is a type too
			if name := typeName(toks[i+1:]); name != "" {
				types[name] = true
			}
		case "typedef":
			if name := typedefName(toks[i+1:]); name != "" {
				types[name] = true
			}
		case "using":
			// using Name = type;
			if i+2 < len(toks) && toks[i+1].Kind == Ident && toks[i+2].Text == "=" {
				types[toks[i+1].Text] = true
			}
		case "template":
			if i+1 >= len(toks) || toks[i+1].Text != "<" {
				continue
			}
			close := matchAngle(toks, i+1)
			if close < 0 {
				continue
			}
			for j := i + 2; j < close; j++ {
				if (toks[j].Text == "class" || toks[j].Text == "typename") && j+1 < close && toks[j+1].Kind == Ident {
					types[toks[j+1].Text] = true
				}
			}
			if name := templatedName(toks[close+1:]); name != "" {
				templates[name] = true
			}
		}
	}
}

// typedefName returns the name a typedef declares, from the tokens after
// the keyword: the name in a declarator "(*name)" of a function pointer
// type, else the last identifier before the ';' outside parentheses,
// brackets and braces (typedef struct { ... } name;).
func typedefName(toks []Token) string {
	depth, last := 0, ""
	for j := 0; j < len(toks) && !(depth == 0 && toks[j].Text == ";"); j++ {
		switch toks[j].Text {
		case "(", "[", "{":
			if depth == 0 && toks[j].Text == "(" && j+2 < len(toks) && (toks[j+1].Text == "*" || toks[j+1].Text == "&") && toks[j+2].Kind == Ident {
				return toks[j+2].Text
			}
			depth++
		case ")", "]", "}":
			depth--
		}
		if toks[j].Kind == Ident && depth == 0 {
			last = toks[j].Text
		}
	}
	return last
}

// templatedName returns the name a template head declares, from the
// tokens after the head: a struct's or class's name (not its base or its
// specialization's arguments), or the name before a function's
// parameter list.
func templatedName(toks []Token) string {
	name := ""
	for j := 0; j < len(toks); j++ {
		tx := toks[j].Text
		switch {
		case tx == "struct" || tx == "class" || tx == "union":
			return typeName(toks[j+1:])
		case tx == "(" || tx == "{" || tx == ";" || tx == "=":
			return name
		case tx == "<":
			// a template-id in the return type: GmFloat<T> f(
			if c := matchAngle(toks, j); c > 0 {
				j = c
			}
		case toks[j].Kind == Ident:
			name = tx
		}
	}
	return name
}

// matchAngle returns the index of the > closing the < at open, counting
// nested <>, (), and >> as two closers; -1 if there is none.
func matchAngle(toks []Token, open int) int {
	depth, paren := 0, 0
	for j := open; j < len(toks); j++ {
		switch toks[j].Text {
		case "(":
			paren++
		case ")":
			paren--
		case "<":
			if paren == 0 {
				depth++
			}
		case ">":
			if paren == 0 {
				depth--
			}
		case ">>":
			if paren == 0 {
				depth -= 2
			}
		case ";", "{", "}":
			return -1
		}
		if depth <= 0 && paren == 0 {
			return j
		}
	}
	return -1
}

// matchClose returns the index of the token closing the bracket at open.
func matchClose(toks []Token, open int) int {
	pairs := map[string]string{"(": ")", "[": "]", "{": "}"}
	want := pairs[toks[open].Text]
	depth := 0
	for j := open; j < len(toks); j++ {
		switch toks[j].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				if toks[j].Text != want {
					return -1
				}
				return j
			}
		}
	}
	return -1
}

type scope struct {
	name   string // the struct's name, "" for a namespace or linkage block
	isType bool
}

// scan walks the file's declarations: struct and class bodies and linkage
// blocks are entered, initializers skipped, and each function definition
// recorded (its body parsed when it is device code).
func (s *Source) scan(u *Unit) error {
	toks := s.Toks
	var scopes []scope
	start := 0 // first token of the declaration being read
	for i := 0; i < len(toks); i++ {
		t := toks[i].Text
		switch t {
		case ";":
			start = i + 1
		case ":":
			// an access specifier (public:) ends nothing but itself
			if i > 0 && (toks[i-1].Text == "public" || toks[i-1].Text == "private" || toks[i-1].Text == "protected") {
				start = i + 1
			}
		case "}":
			if len(scopes) == 0 {
				return fmt.Errorf("offset %d: unbalanced }", toks[i].Start)
			}
			scopes = scopes[:len(scopes)-1]
			start = i + 1
		case "(", "[":
			c := matchClose(toks, i)
			if c < 0 {
				return fmt.Errorf("offset %d: unbalanced %s", toks[i].Start, t)
			}
			i = c
		case "{":
			seg := toks[start:i]
			kind, name, head := classify(seg)
			switch kind {
			case declType:
				scopes = append(scopes, scope{name: name, isType: true})
				start = i + 1
			case declBlock:
				scopes = append(scopes, scope{})
				start = i + 1
			case declFunc:
				c := matchClose(toks, i)
				if c < 0 {
					return fmt.Errorf("offset %d: unbalanced {", toks[i].Start)
				}
				f := s.function(u, seg, head, scopes, i, c)
				s.Funcs = append(s.Funcs, f)
				i, start = c, c+1
			default:
				// an initializer, a lambda, or what cannot be told: skipped
				// whole, and the next declaration starts after it (else
				// every function after it would be read as part of it)
				c := matchClose(toks, i)
				if c < 0 {
					return fmt.Errorf("offset %d: unbalanced {", toks[i].Start)
				}
				i, start = c, c+1
			}
		}
	}
	if len(scopes) != 0 {
		return fmt.Errorf("unbalanced { at end of file")
	}
	return nil
}

type declKind int

const (
	declOther declKind = iota
	declType           // struct/class/union/enum body
	declBlock          // extern "C" { or namespace {
	declFunc           // a function definition's body
)

// funcHead is where a function definition's declarator lies in the tokens
// before its body: the name's first token, its text (qualified names and
// operator names joined: Foo::bar, operator()) and the parameter list's
// opening parenthesis.
type funcHead struct {
	name          string
	first, params int
}

// classify says what the { after seg opens, the name it belongs to, and
// for a function where its name and parameters are.
func classify(seg []Token) (declKind, string, funcHead) {
	if len(seg) == 0 {
		return declOther, "", funcHead{}
	}
	if (seg[0].Text == "extern" && len(seg) == 2 && seg[1].Kind == String) || seg[0].Text == "namespace" {
		return declBlock, "", funcHead{}
	}
	top, hasParen, ok := topLevel(seg)
	if !ok {
		return declOther, "", funcHead{}
	}
	if hasParen {
		if h, found, ok := funcDeclarator(seg, declaratorEnd(seg, top)); found {
			if !ok {
				return declOther, "", funcHead{}
			}
			return declFunc, h.name, h
		}
	}
	if name, ok := typeHead(seg); ok {
		return declType, name, funcHead{}
	}
	return declOther, "", funcHead{}
}

// topLevel marks seg's top-level tokens: outside parentheses and brackets
// (their delimiters count as top-level), and outside the template heads
// (template <int N = 4>). hasParen says whether seg holds a parenthesis;
// ok is false when a group does not close or a top-level = (not of an
// operator= name) shows an initializer.
func topLevel(seg []Token) (top []bool, hasParen, ok bool) {
	top = make([]bool, len(seg))
	for j := 0; j < len(seg); j++ {
		switch seg[j].Text {
		case "(", "[":
			hasParen = hasParen || seg[j].Text == "("
			c := matchClose(seg, j)
			if c < 0 {
				return nil, false, false
			}
			top[j], top[c] = true, true
			j = c
			continue
		case "template":
			top[j] = true
			j = skipTemplateHead(seg, j)
			continue
		case "=":
			if j == 0 || seg[j-1].Text != "operator" {
				return nil, false, false
			}
		}
		top[j] = true
	}
	return top, hasParen, true
}

// skipTemplateHead returns the index of the > closing the template head
// whose "template" keyword is at j, or j when none follows.
func skipTemplateHead(seg []Token, j int) int {
	if j+1 < len(seg) && seg[j+1].Text == "<" {
		if c := matchAngle(seg, j+1); c > 0 {
			return c
		}
	}
	return j
}

// declaratorEnd is where the declarator ends: before a constructor's
// initializer list (a top-level ':' after the parameters) or a trailing
// return type, else at the end of seg.
func declaratorEnd(seg []Token, top []bool) int {
	for j := 0; j < len(seg); j++ {
		if top[j] && (seg[j].Text == "->" || (seg[j].Text == ":" && j > 0 && seg[j-1].Text == ")")) {
			return j
		}
	}
	return len(seg)
}

// funcDeclarator reads a function's head from seg[:end]: the last
// parenthesized group before end (skipping trailing qualifiers) is its
// parameter list. found is false when seg[:end] does not end in such a
// group; ok is false when it does but the group does not open or no
// declarator name precedes it.
func funcDeclarator(seg []Token, end int) (h funcHead, found, ok bool) {
	last := end - 1
	for last >= 0 && trailingQualifiers[seg[last].Text] {
		last--
	}
	if last < 0 || seg[last].Text != ")" {
		return funcHead{}, false, false
	}
	depth := 0
	for j := last; j >= 0; j-- {
		switch seg[j].Text {
		case ")":
			depth++
		case "(":
			depth--
		}
		if depth == 0 {
			h, ok := declaratorName(seg, j)
			return h, true, ok
		}
	}
	return funcHead{}, true, false
}

// typeHead finds a struct, class, union or enum head in seg (outside the
// template head, whose "class T" parameters are not the type) and its
// name.
func typeHead(seg []Token) (string, bool) {
	for j := 0; j < len(seg); j++ {
		switch seg[j].Text {
		case "template":
			j = skipTemplateHead(seg, j)
		case "struct", "class", "union", "enum":
			return typeName(seg[j+1:]), true
		}
	}
	return "", false
}

var trailingQualifiers = map[string]bool{"const": true, "noexcept": true, "override": true, "final": true, "&": true, "&&": true, "volatile": true}

// declaratorName reads the function name before the parameter list at
// open: an identifier, qualified (Foo::bar) or not, or an operator
// function's name (operator(), operator+=).
func declaratorName(seg []Token, open int) (funcHead, bool) {
	h := funcHead{params: open}
	j := open - 1
	if j < 0 {
		return h, false
	}
	switch {
	case seg[j].Kind == Ident && seg[j].Text != "operator":
		h.first = j
	case seg[j].Text == ")" && macroDeclarator(seg, j) >= 0:
		// a declarator a function-like macro writes: GM_KERNEL(name)(...)
		h.first = macroDeclarator(seg, j)
	default:
		// operator@ or operator(): the keyword at most 2 tokens back
		k := j
		for k >= 0 && k >= j-2 && seg[k].Text != "operator" {
			k--
		}
		if k < 0 || k < j-2 {
			return h, false
		}
		h.first = k
	}
	// a qualified name: Foo::bar, Foo::template bar
	for h.first >= 2 && seg[h.first-1].Text == "::" && seg[h.first-2].Kind == Ident {
		h.first -= 2
	}
	var b strings.Builder
	for k := h.first; k < open; k++ {
		b.WriteString(seg[k].Text)
	}
	h.name = b.String()
	return h, true
}

// macroDeclarator returns the index of the macro name of a declarator
// "NAME(args)" ending at the ')' at close, or -1.
func macroDeclarator(seg []Token, close int) int {
	depth := 0
	for k := close; k >= 0; k-- {
		switch seg[k].Text {
		case ")":
			depth++
		case "(":
			depth--
		}
		if depth == 0 {
			if k > 0 && seg[k-1].Kind == Ident && seg[k-1].Text != "operator" {
				return k - 1
			}
			return -1
		}
	}
	return -1
}

func (s *Source) function(u *Unit, seg []Token, h funcHead, scopes []scope, open, close int) *Func {
	var prefix []string
	for _, sc := range scopes {
		if sc.isType && sc.name != "" {
			prefix = append(prefix, sc.name)
		}
	}
	full := strings.Join(append(prefix, h.name), "::")
	f := &Func{Name: full, Open: s.Toks[open].Start, Close: s.Toks[close].Start, ParamsStart: seg[h.params].Start}
	f.Specs = append(f.Specs, seg[:h.first]...)
	// the declarator's tokens count too: a macro that writes it may hold
	// the marker (GM_KERNEL(name) expanding to __global__ void name)
	f.Device = isDevice(u, seg[:h.params])
	// Host bodies are parsed too, for SiteAt (a catalog entry's change in
	// host code can still be switched); Mutants only reads device bodies.
	p := &parser{toks: s.Toks, src: s, i: open, end: close + 1}
	body, err := p.block()
	if err == nil && p.i != close+1 {
		err = fmt.Errorf("body ends at offset %d, not at its closing brace", s.Toks[p.i-1].End)
	}
	f.Body, f.BodyErr = body, err
	return f
}

// isDevice reports whether specs hold a device marker, directly or in the
// expansion of a macro.
func isDevice(u *Unit, specs []Token) bool {
	seen := map[string]bool{}
	var visit func(name string, depth int) bool
	visit = func(name string, depth int) bool {
		if deviceMarkers[name] {
			return true
		}
		// a function-like macro counts by its body too:
		// #define GM_KERNEL(name) __global__ void name
		m, ok := u.Macros[name]
		if !ok || depth > 16 || seen[name] {
			return false
		}
		seen[name] = true
		toks, err := Lex([]byte(m.Body))
		if err != nil {
			return false
		}
		for _, t := range toks {
			if t.Kind == Ident && visit(t.Text, depth+1) {
				return true
			}
		}
		return false
	}
	for _, t := range specs {
		if t.Kind == Ident && visit(t.Text, 0) {
			return true
		}
	}
	return false
}

// typeName returns the name after struct, class, union or enum: the last
// identifier before the body, a base clause, a declarator or the end,
// past attributes such as alignas(16), __align__(16) or [[nodiscard]] (an
// identifier followed by parentheses) and the class of "enum class"; ""
// for an anonymous one.
func typeName(toks []Token) string {
	name := ""
	for k := 0; k < len(toks); k++ {
		switch t := toks[k]; {
		case t.Text == "{" || t.Text == ":" || t.Text == ";" || t.Text == "," || t.Text == ">" || t.Text == "=" || t.Text == "<":
			return name
		case t.Text == "(" || t.Text == "[":
			c := matchClose(toks, k)
			if c < 0 {
				return name
			}
			k = c
		case t.Text == "alignas" || t.Text == "final" || (k == 0 && (t.Text == "class" || t.Text == "struct")):
		case t.Kind == Ident && k+1 < len(toks) && toks[k+1].Text == "(":
			// an attribute: __align__(16), __attribute__((aligned(16)))
		case t.Kind == Ident:
			if name != "" {
				return name // a declarator after the type: struct T x;
			}
			name = t.Text
		default:
			return name
		}
	}
	return name
}
