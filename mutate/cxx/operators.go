package cxx

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Operator is one kernel mutation operator: a name (shared with the Go
// operator of the same meaning, so reports and equivalents read alike), a
// description and an example.
type Operator struct {
	Name, Doc, Example string
}

// Operators are the operators applied to device code, in the order they
// run.
var Operators = []Operator{
	{"arith", "swap an arithmetic operator (+ and -, * and /, % to *)", "a + b -> a - b"},
	{"boundary", "move a comparison boundary (< and <=, > and >=)", "i < n -> i <= n"},
	{"negate", "negate a comparison (== and !=, < to >=, <= to >, > to <=, >= to <)", "a == b -> a != b"},
	{"logical", "swap && and ||", "a && b -> a || b"},
	{"bitwise", "swap a bitwise operator (& and |, ^ to &)", "a & b -> a | b"},
	{"shift", "swap << and >>", "a << n -> a >> n"},
	{"shift-amount", "move a computed shift amount by one (a literal amount is const-int's)", "a >> (8 * k) -> a >> ((8 * k) + 1)"},
	{"unary-not", "remove a logical negation", "!ok -> ok"},
	{"unary-minus", "remove a numeric negation", "-x -> x"},
	{"unary-bitnot", "remove a bitwise complement", "~m -> m"},
	{"incdec", "swap ++ and --", "++i -> --i"},
	{"assign", "swap a compound assignment (+= and -=, *= and /=, %= to *=, |= and &=, ^= to &=, <<= and >>=) or drop it to =", "x |= y -> x &= y; x |= y -> x = y"},
	{"const-int", "perturb an integer literal: n -> n+1, and n -> n-1 for n > 0 (same base and suffix, within the literal's type)", "15 -> 16, 15 -> 14"},
	{"const-float", "perturb a float literal: x -> x+1 (skipped where x+1 == x)", "0.5f -> 1.5f"},
	{"index", "move a computed index by one element (a literal index is const-int's)", "y[k] -> y[k + 1], y[k - 1]"},
	{"remove-stmt", "remove an expression statement that is not a call (an assignment, ++ or --)", "q |= b << 4; -> (removed)"},
	{"remove-call", "remove a call used as a statement", "gm_store(dst, y, vec); -> (removed)"},
	{"zero-return", "return 0 instead of a value that is not already 0", "return (u >> 16) | 0x40u; -> return 0;"},
	{"branch-if", "empty the body of an if", "if (c) f(); -> if (c) {}"},
	{"branch-true", "force an if condition to true", "if (c) -> if (true)"},
	{"branch-false", "force an if condition to false (only where there is an else)", "if (c) a(); else b(); -> if (false) ..."},
	{"branch-else", "remove the else branch of an if", "if (c) a(); else b(); -> if (c) a(); else {}"},
	{"loop-control", "swap break and continue inside a loop", "continue; -> break;"},
	{"neg-form", "write the negation of a float the function declares as a subtraction from zero (differs on signed zero)", "-d -> (0 - d)"},
	{"recip-div", "divide floats by multiplying with the reciprocal (one ulp off; not for a literal power of two)", "x / n -> (x * (1.0f / n))"},
	{"guard-swap", "swap two adjacent guard clauses (if (c) return ...;); not where they return the same or test one value against two constants", "if (e == 0) return z; if (e > m) return inf; -> the other order"},
}

// SiteKind is how a mutant's site is switched in a schema.
type SiteKind string

const (
	ExprSite SiteKind = "expr" // an expression: a conditional over the texts
	StmtSite SiteKind = "stmt" // a statement: an if/else chain over the texts
)

// Edit replaces the bytes [Start, End) of a file with Text.
type Edit struct {
	Start, End int
	Text       string
}

// Site is the range a schema switches for a mutant: the bytes [Start, End)
// of the file (a whole expression or statement) read Text under the
// mutant. A mutant whose Site cannot be switched (Why says why) is built
// on its own.
type Site struct {
	Kind       SiteKind
	Start, End int
	Text       string
	Why        string
	// Probe is the byte offset of the function body's opening brace:
	// where a schema counts the coverage of a mutant it does not switch.
	Probe int
}

// Mutant is one operator mutant of a device function.
type Mutant struct {
	File     string
	Func     string
	Operator string
	Edit     Edit // the smallest change: diffs and positions come from it
	Site     Site
	// Original and Replacement are the texts of the node the operator
	// changed, before and after (for reports and equivalents).
	Original, Replacement string
}

// Mutants applies the named operators (all when names is empty) to the
// device functions of srcs. A device function whose body did not parse is
// an error: no device code is left unmutated silently. Mutants with the
// same file and result are produced once; the result is sorted by file,
// offset and operator.
func Mutants(srcs []*Source, names []string) ([]Mutant, error) {
	want := map[string]bool{}
	for _, n := range names {
		found := false
		for _, op := range Operators {
			found = found || op.Name == n
		}
		if !found {
			return nil, fmt.Errorf("cxx: unknown operator %q", n)
		}
		want[n] = true
	}
	var out []Mutant
	seen := map[string]bool{}
	for _, s := range srcs {
		for _, f := range s.Funcs {
			if !f.Device {
				continue
			}
			if f.BodyErr != nil {
				return nil, fmt.Errorf("cxx: %s: device function %s: %w", s.Name, f.Name, f.BodyErr)
			}
			g := &gen{src: s, fn: f, want: want}
			g.stmt(f.Body, nil)
			for _, m := range g.out {
				key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", m.File, m.Edit.Start, m.Edit.End, m.Edit.Text)
				if seen[key] || m.Edit.Text == s.text(m.Edit.Start, m.Edit.End) {
					continue
				}
				seen[key] = true
				out = append(out, m)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Edit.Start != b.Edit.Start {
			return a.Edit.Start < b.Edit.Start
		}
		return a.Operator < b.Operator
	})
	return out, nil
}

func (s *Source) text(start, end int) string { return string(s.Src[start:end]) }

type gen struct {
	src  *Source
	fn   *Func
	want map[string]bool
	out  []Mutant
	ptrs map[string]bool
	// taken: while a case label is mutated, the values of its switch's
	// literal labels, which a const-int mutant of it must not take
	taken map[uint64]bool
	// floats, floatPtrs: the names the function declares float, and as
	// pointers to float (floatNames)
	floats, floatPtrs map[string]bool
}

// caseValues returns the values of the literal case labels of a switch
// (those directly in its body: a nested switch has its own).
func caseValues(src *Source, sw *Stmt) map[uint64]bool {
	vals := map[uint64]bool{}
	if sw.Body == nil {
		return vals
	}
	for _, c := range sw.Body.List {
		if c.Kind == CaseStmt && c.X != nil && isIntLiteral(src, c.X) {
			if lit, err := ParseInt(src.Toks[c.X.First].Text); err == nil {
				vals[lit.Value] = true
			}
		}
	}
	return vals
}

func (g *gen) on(op string) bool { return len(g.want) == 0 || g.want[op] }

func (g *gen) span(first, last int) (int, int) { return g.src.Toks[first].Start, g.src.Toks[last].End }

// add records a mutant replacing bytes [start, end) with text inside the
// site [siteStart, siteEnd) of the given kind.
func (g *gen) add(op string, kind SiteKind, siteStart, siteEnd, start, end int, text string, constant bool) {
	text = separated(g.src.Src, start, end, text)
	orig := g.src.text(siteStart, siteEnd)
	m := Mutant{
		File: g.src.Name, Func: g.fn.Name, Operator: op,
		Edit: Edit{Start: start, End: end, Text: text},
		Site: Site{Kind: kind, Start: siteStart, End: siteEnd, Probe: g.fn.Open,
			Text: orig[:start-siteStart] + text + orig[end-siteStart:]},
		Original: g.src.text(start, end), Replacement: text,
	}
	if constant {
		m.Site.Why = "in a constant expression (template argument, array bound, case label or static initializer): a run-time switch cannot stand there"
	}
	g.out = append(g.out, m)
}

// separated returns text, the replacement of src[start:end], with a space
// before or after it where it would otherwise join the punctuation beside
// it into other tokens: a+-b with + -> - must read a- -b, not a--b; a**p
// with * -> / must read a/ *p, not open a comment; removing the - of
// a+ -+b must not make ++.
func separated(src []byte, start, end int, text string) string {
	isPunct := func(c byte) bool { return strings.IndexByte("{}[]()<>;:,.?~!+-*/%^&|=#", c) >= 0 }
	pre, post := start, end
	for pre > 0 && start-pre < 3 && isPunct(src[pre-1]) {
		pre--
	}
	for post < len(src) && post-end < 3 && isPunct(src[post]) {
		post++
	}
	if pre == start && post == end {
		return text
	}
	before, after := string(src[pre:start]), string(src[end:post])
	joins := func(text string) (bool, bool) {
		toks, err := Lex([]byte(before + text + after))
		if err != nil {
			return true, true
		}
		cut1, cut2 := len(before), len(before)+len(text)
		bad1, bad2 := false, false
		for _, t := range toks {
			bad1 = bad1 || (t.Start < cut1 && t.End > cut1)
			bad2 = bad2 || (t.Start < cut2 && t.End > cut2)
		}
		return bad1, bad2
	}
	bad1, bad2 := joins(text)
	if bad1 && before != "" {
		text = " " + text
	}
	if bad2 && after != "" {
		text += " "
	}
	return text
}

// loops is the stack of enclosing statements that break and continue refer to.
func (g *gen) stmt(s *Stmt, loops []*Stmt) {
	if s == nil {
		return
	}
	switch s.Kind {
	case BlockStmt:
		g.guardSwap(s)
		for _, c := range s.List {
			g.stmt(c, loops)
		}
	case IfStmt:
		g.expr(s.Cond)
		g.ifMutants(s)
		g.stmt(s.Body, loops)
		g.stmt(s.Else, loops)
	case ForStmt:
		if s.Init != nil && s.Init.Kind == ExprStmt {
			// a for's init is an expression, not a statement: it is
			// mutated, never removed (for ({}; ...) does not compile)
			g.expr(s.Init.X)
		} else {
			g.stmt(s.Init, loops)
		}
		g.expr(s.Range)
		g.expr(s.Cond)
		g.expr(s.Post)
		g.stmt(s.Body, append(loops, s))
	case WhileStmt, DoStmt:
		g.expr(s.Cond)
		g.stmt(s.Body, append(loops, s))
	case SwitchStmt:
		g.expr(s.Cond)
		g.stmt(s.Body, append(loops, s))
	case ReturnStmt:
		g.expr(s.X)
		g.zeroReturn(s)
	case ExprStmt:
		g.expr(s.X)
		g.removeStmt(s)
	case DeclStmt:
		for _, d := range s.Decls {
			for _, b := range d.Bounds {
				g.expr(b)
			}
			g.expr(d.Init)
		}
	case CaseStmt:
		// constant: its mutants build alone; a literal label is not
		// moved onto another label's value (a duplicate case does not
		// compile)
		if len(loops) > 0 && loops[len(loops)-1].Kind == SwitchStmt && s.X != nil && isIntLiteral(g.src, s.X) {
			g.taken = caseValues(g.src, loops[len(loops)-1])
		}
		g.expr(s.X)
		g.taken = nil
	case BreakStmt, ContinueStmt:
		g.loopControl(s, loops)
	}
}

func (g *gen) ifMutants(s *Stmt) {
	cs, ce := g.span(s.Cond.First, s.Cond.Last)
	// an if constexpr's condition is constant: its mutants build alone
	if g.on("branch-true") && g.src.text(cs, ce) != "true" {
		g.add("branch-true", ExprSite, cs, ce, cs, ce, "true", s.Cond.Const)
	}
	if s.Else != nil && g.on("branch-false") && g.src.text(cs, ce) != "false" {
		g.add("branch-false", ExprSite, cs, ce, cs, ce, "false", s.Cond.Const)
	}
	if g.on("branch-if") && !emptyBlock(s.Body) {
		bs, be := g.span(s.Body.First, s.Body.Last)
		g.add("branch-if", StmtSite, bs, be, bs, be, "{}", false)
	}
	if s.Else != nil && g.on("branch-else") && !emptyBlock(s.Else) {
		es, ee := g.span(s.Else.First, s.Else.Last)
		g.add("branch-else", StmtSite, es, ee, es, ee, "{}", false)
	}
}

func emptyBlock(s *Stmt) bool {
	return (s.Kind == BlockStmt && len(s.List) == 0) || s.Kind == EmptyStmt
}

func (g *gen) removeStmt(s *Stmt) {
	x := s.X
	for x.Kind == ParenExpr {
		x = x.X
	}
	op := "remove-stmt"
	switch x.Kind {
	case CallExpr:
		op = "remove-call"
	case AssignExpr, PostfixExpr, CommaExpr:
	case UnaryExpr:
		if x.Op != "++" && x.Op != "--" {
			return
		}
	default:
		return // a discarded value: (void)x and the like
	}
	if !g.on(op) {
		return
	}
	ss, se := g.span(s.First, s.Last)
	g.add(op, StmtSite, ss, se, ss, se, "{}", false)
}

func (g *gen) zeroReturn(s *Stmt) {
	if s.X == nil || !g.on("zero-return") {
		return
	}
	xs, xe := g.span(s.X.First, s.X.Last)
	if t := g.src.text(xs, xe); t == "false" || t == "nullptr" || isZeroLiteral(t) {
		return
	}
	g.add("zero-return", ExprSite, xs, xe, xs, xe, "0", false)
}

func (g *gen) loopControl(s *Stmt, loops []*Stmt) {
	if !g.on("loop-control") || len(loops) == 0 {
		return
	}
	inner := loops[len(loops)-1]
	if inner.Kind == SwitchStmt {
		return // break leaves the switch; continue would mean the loop outside
	}
	ss, _ := g.span(s.First, s.First)
	se := g.src.Toks[s.First].End
	repl := "break"
	if s.Kind == BreakStmt {
		repl = "continue"
	}
	stEnd := g.src.Toks[s.Last].End
	g.add("loop-control", StmtSite, ss, stEnd, ss, se, repl, false)
}

var (
	arithSwaps    = map[string]string{"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}
	boundarySwaps = map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
	negateSwaps   = map[string]string{"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
	logicalSwaps  = map[string]string{"&&": "||", "||": "&&"}
	bitwiseSwaps  = map[string]string{"&": "|", "|": "&", "^": "&"}
	shiftSwaps    = map[string]string{"<<": ">>", ">>": "<<"}
	assignSwaps   = map[string]string{"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=", "%=": "*=", "|=": "&=", "&=": "|=", "^=": "&=", "<<=": ">>=", ">>=": "<<="}
)

func (g *gen) expr(e *Expr) {
	if e == nil {
		return
	}
	switch e.Kind {
	case BinaryExpr:
		g.binary(e)
		g.recipDiv(e)
	case UnaryExpr:
		g.unary(e)
		g.negForm(e)
	case PostfixExpr:
		g.swapOp(e, "incdec", map[string]string{"++": "--", "--": "++"})
	case AssignExpr:
		g.assign(e)
	case LitExpr:
		g.literal(e)
	case IndexExpr:
		g.index(e)
	case CastExpr, ParenExpr, MemberExpr:
	case TemplateExpr, NameExpr:
		// template arguments are types or constants: mutated as literals
		// inside them (const, so built on their own)
	}
	for _, c := range []*Expr{e.X, e.Y, e.Z} {
		g.expr(c)
	}
	for _, a := range e.Args {
		g.expr(a)
	}
}

// swapOp makes one mutant per replacement of e's operator token.
func (g *gen) swapOp(e *Expr, op string, swaps map[string]string) {
	r, ok := swaps[e.Op]
	if !ok || !g.on(op) {
		return
	}
	ss, se := g.span(e.First, e.Last)
	t := g.src.Toks[e.OpTok]
	g.add(op, ExprSite, ss, se, t.Start, t.End, r, e.Const)
}

func (g *gen) binary(e *Expr) {
	g.swapOp(e, "arith", arithSwaps)
	g.swapOp(e, "boundary", boundarySwaps)
	g.swapOp(e, "negate", negateSwaps)
	g.swapOp(e, "logical", logicalSwaps)
	g.swapOp(e, "bitwise", bitwiseSwaps)
	g.swapOp(e, "shift", shiftSwaps)
	if (e.Op == "<<" || e.Op == ">>") && g.on("shift-amount") && !isIntLiteral(g.src, e.Y) {
		g.plusOne("shift-amount", e.Y, e.Const)
	}
}

// plusOne makes x (x) + 1.
func (g *gen) plusOne(op string, x *Expr, constant bool) {
	xs, xe := g.span(x.First, x.Last)
	text := g.src.text(xs, xe)
	if x.Kind != ParenExpr && x.Kind != NameExpr && x.Kind != LitExpr {
		text = "(" + text + ")"
	}
	g.add(op, ExprSite, xs, xe, xs, xe, text+" + 1", constant)
}

func isIntLiteral(s *Source, e *Expr) bool {
	if e.Kind != LitExpr || e.First != e.Last || s.Toks[e.First].Kind != Number {
		return false
	}
	_, err := ParseInt(s.Toks[e.First].Text)
	return err == nil
}

func (g *gen) unary(e *Expr) {
	ops := map[string]string{"!": "unary-not", "-": "unary-minus", "~": "unary-bitnot"}
	if op, ok := ops[e.Op]; ok && g.on(op) {
		ss, se := g.span(e.First, e.Last)
		t := g.src.Toks[e.OpTok]
		g.add(op, ExprSite, ss, se, t.Start, t.End, "", e.Const)
	}
	if e.Op == "++" || e.Op == "--" {
		g.swapOp(e, "incdec", map[string]string{"++": "--", "--": "++"})
	}
}

func (g *gen) assign(e *Expr) {
	if e.Op == "=" || !g.on("assign") {
		return
	}
	ss, se := g.span(e.First, e.Last)
	t := g.src.Toks[e.OpTok]
	if r, ok := assignSwaps[e.Op]; ok {
		g.add("assign", ExprSite, ss, se, t.Start, t.End, r, e.Const)
	}
	// p += n -> p = n does not compile for a pointer p
	if e.X.Kind == NameExpr && e.X.First == e.X.Last && g.pointers()[g.src.Toks[e.X.First].Text] {
		return
	}
	g.add("assign", ExprSite, ss, se, t.Start, t.End, "=", e.Const)
}

// pointers returns the names the function declares as pointers (a
// parameter or variable whose declarator starts with *).
func (g *gen) pointers() map[string]bool {
	if g.ptrs != nil {
		return g.ptrs
	}
	g.ptrs = map[string]bool{}
	toks := g.src.Toks
	for i := range toks {
		if toks[i].Start < g.fn.ParamsStart || toks[i].Start > g.fn.Close {
			continue
		}
		if toks[i].Text == "*" && i+2 < len(toks) && toks[i+1].Kind == Ident {
			switch toks[i+2].Text {
			case "=", ",", ";", ")", "[":
				g.ptrs[toks[i+1].Text] = true
			}
		}
	}
	return g.ptrs
}

func (g *gen) index(e *Expr) {
	if !g.on("index") || isIntLiteral(g.src, e.Y) {
		return
	}
	ys, ye := g.span(e.Y.First, e.Y.Last)
	text := g.src.text(ys, ye)
	if e.Y.Kind != ParenExpr && e.Y.Kind != NameExpr {
		text = "(" + text + ")"
	}
	g.add("index", ExprSite, ys, ye, ys, ye, text+" + 1", e.Const)
	g.add("index", ExprSite, ys, ye, ys, ye, text+" - 1", e.Const)
}

func (g *gen) literal(e *Expr) {
	if e.First != e.Last {
		return
	}
	t := g.src.Toks[e.First]
	if t.Kind != Number {
		return
	}
	if lit, err := ParseInt(t.Text); err == nil {
		if !g.on("const-int") {
			return
		}
		for _, v := range []int64{1, -1} {
			if v < 0 && lit.Value == 0 {
				continue
			}
			n := lit.Value + uint64(v)
			if !fitsLiteral(lit, n) || g.taken[n] {
				continue
			}
			g.add("const-int", ExprSite, t.Start, t.End, t.Start, t.End, formatInt(t.Text, lit, n), e.Const)
		}
		return
	}
	if g.on("const-float") {
		if text, ok := floatPlusOne(t.Text); ok {
			g.add("const-float", ExprSite, t.Start, t.End, t.Start, t.End, text, e.Const)
		}
	}
}

// isZeroLiteral reports whether text is a numeric literal of value 0
// (0, 0u, 0x0, 0.0f, 0e5): return 0 instead of it changes nothing.
func isZeroLiteral(text string) bool {
	if lit, err := ParseInt(text); err == nil {
		return lit.Value == 0
	}
	body := strings.TrimRight(text, "fFlL")
	if strings.HasPrefix(strings.ToLower(text), "0x") {
		body = text
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(body, "'", ""), 64)
	return err == nil && v == 0
}

// fitsLiteral reports whether n keeps the literal's type, by C++'s rules
// for the type of an integer literal (LP64: int and unsigned int of 32
// bits, long and long long of 64): an unsuffixed decimal literal is the
// first of int, long that holds it; an unsuffixed hexadecimal, octal or
// binary one the first of int, unsigned int, long, unsigned long; a u
// literal unsigned int or unsigned long; an l or ll one long (or, not
// decimal, unsigned long); ul and ull unsigned long. A mutant that would
// move the literal to another type (2147483647 -> 2147483648 is a long)
// or wrap it is not made.
func fitsLiteral(lit IntLit, n uint64) bool {
	c, ok := literalType(lit, lit.Value)
	d, ok2 := literalType(lit, n)
	wrapped := (n == 0 && lit.Value == math.MaxUint64) || (n == math.MaxUint64 && lit.Value == 0)
	return ok && ok2 && c == d && !wrapped
}

// literalType returns the type v has when written with lit's base and
// suffix, as the index of its range: 0 int, 1 unsigned int, 2 long, 3
// unsigned long; false when no type holds it (a decimal literal past
// long's range).
func literalType(lit IntLit, v uint64) (int, bool) {
	suffix := strings.ToLower(lit.Suffix)
	long := strings.Contains(suffix, "l")
	unsigned := strings.Contains(suffix, "u")
	decimal := lit.Base == 10
	var candidates []int
	switch {
	case unsigned && long:
		candidates = []int{3}
	case unsigned:
		candidates = []int{1, 3}
	case long && decimal:
		candidates = []int{2}
	case long:
		candidates = []int{2, 3}
	case decimal:
		candidates = []int{0, 2}
	default:
		candidates = []int{0, 1, 2, 3}
	}
	limits := []uint64{math.MaxInt32, math.MaxUint32, math.MaxInt64, math.MaxUint64}
	for _, c := range candidates {
		if v <= limits[c] {
			return c, true
		}
	}
	return 0, false
}

// formatInt writes n the way text (lit) is written: the same base, prefix
// and suffix, hexadecimal digits in the same case, and, after a prefix, at
// least as many digits as the original had (leading zeros kept: 0x0f ->
// 0x10, 0x00ff -> 0x0100). Digit separators are dropped.
func formatInt(text string, lit IntLit, n uint64) string {
	raw := strings.ReplaceAll(text, "'", "")
	digits := raw[:len(raw)-len(lit.Suffix)]
	prefix := ""
	switch lit.Base {
	case 16, 2:
		prefix, digits = digits[:2], digits[2:]
	case 8:
		prefix, digits = "0", digits[1:]
	}
	out := strconv.FormatUint(n, lit.Base)
	if lit.Base == 16 && strings.ToUpper(digits) == digits && strings.ToLower(digits) != digits {
		out = strings.ToUpper(out)
	}
	for lit.Base != 10 && len(out) < len(digits) {
		out = "0" + out // never in a decimal literal: 0999 would be octal
	}
	return prefix + out + lit.Suffix
}

// floatPlusOne returns the float literal x+1 with x's suffix, when x+1
// differs from x in the literal's precision.
func floatPlusOne(text string) (string, bool) {
	suffix := ""
	body := text
	if n := len(body); n > 0 && strings.ContainsRune("fFlL", rune(body[n-1])) && !strings.HasPrefix(strings.ToLower(body), "0x") {
		suffix, body = body[n-1:], body[:n-1]
	}
	v, err := strconv.ParseFloat(body, 64)
	if err != nil {
		return "", false
	}
	bits := 64
	if strings.EqualFold(suffix, "f") {
		bits = 32
		v = float64(float32(v))
	}
	w := v + 1
	if bits == 32 {
		w = float64(float32(w))
	}
	if w == v {
		return "", false
	}
	s := strconv.FormatFloat(w, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s + suffix, true
}
