package cxx

import (
	"fmt"
	"strings"
)

// StmtKind is a statement's form.
type StmtKind int

const (
	BlockStmt StmtKind = iota + 1
	IfStmt
	ForStmt
	WhileStmt
	DoStmt
	SwitchStmt
	CaseStmt // case X: or default:, the label alone
	ReturnStmt
	BreakStmt
	ContinueStmt
	ExprStmt
	DeclStmt
	EmptyStmt
	AsmStmt          // asm(...) / asm volatile(...): never mutated
	StaticAssertStmt // static_assert(...): constant, never mutated
)

// Stmt is a statement of a device function body. First and Last are
// indices of its first and last token in the file's active tokens.
type Stmt struct {
	Kind        StmtKind
	First, Last int
	List        []*Stmt // BlockStmt, SwitchStmt's body
	Init        *Stmt   // ForStmt
	Cond        *Expr   // IfStmt, ForStmt (may be nil), WhileStmt, DoStmt, SwitchStmt
	Range       *Expr   // a range-based ForStmt: the range after ':' (Init declares the variable)
	Constexpr   bool    // IfStmt: if constexpr (its Cond is constant)
	Post        *Expr   // ForStmt (may be nil)
	Body, Else  *Stmt   // IfStmt, ForStmt, WhileStmt, DoStmt
	X           *Expr   // ExprStmt, ReturnStmt (may be nil), CaseStmt's value
	Decls       []*Declarator
	DeclConst   bool // DeclStmt: static, constexpr or const of a constant initializer context
}

// Declarator is one name a declaration introduces: its array bounds
// (constant expressions) and its initializer.
type Declarator struct {
	Name   int // token index
	Bounds []*Expr
	Init   *Expr
}

// ExprKind is an expression's form.
type ExprKind int

const (
	NameExpr     ExprKind = iota + 1 // an identifier, possibly qualified (a::b, C::template f)
	LitExpr                          // a number, string, character, true/false/nullptr
	ParenExpr                        // ( X )
	UnaryExpr                        // Op X: + - ! ~ * & ++ -- sizeof
	PostfixExpr                      // X Op: ++ --
	BinaryExpr                       // X Op Y
	AssignExpr                       // X Op Y with = or a compound assignment
	CondExpr                         // X ? Y : Z
	CallExpr                         // X(Args)
	IndexExpr                        // X[Y]
	MemberExpr                       // X.name, X->name
	CastExpr                         // (T)X; T is tokens First+1 .. X.First-2
	TemplateExpr                     // X<Args>: template arguments, constant
	BracedExpr                       // T{Args} or {Args}
	CommaExpr                        // X, Y
)

// Expr is an expression. OpTok is the operator's token index (BinaryExpr,
// AssignExpr, UnaryExpr, PostfixExpr, CondExpr's ?).
type Expr struct {
	Kind        ExprKind
	First, Last int
	OpTok       int
	Op          string
	X, Y, Z     *Expr
	Args        []*Expr
	// Const marks an expression the language requires to be constant
	// (a template argument, an array bound, a case label, the initializer
	// of a static or constexpr variable): a run-time switch cannot stand
	// there.
	Const bool
}

type parser struct {
	toks []Token
	src  *Source
	i    int
	end  int // parsing stops before this token
	// targs: the parser reads a template argument list, which ends at
	// p.end; a type there ends at ',' or the end, not at ')'
	targs bool
}

func (p *parser) peek() string {
	if p.i < p.end {
		return p.toks[p.i].Text
	}
	return ""
}

func (p *parser) peekAt(k int) string {
	if p.i+k < p.end {
		return p.toks[p.i+k].Text
	}
	return ""
}

func (p *parser) errorf(format string, args ...any) error {
	off := 0
	if p.i < len(p.toks) {
		off = p.toks[p.i].Start
	} else if len(p.toks) > 0 {
		off = p.toks[len(p.toks)-1].End
	}
	return fmt.Errorf("offset %d: %s", off, fmt.Sprintf(format, args...))
}

func (p *parser) expect(text string) error {
	if p.peek() != text {
		return p.errorf("want %q, found %q", text, p.peek())
	}
	p.i++
	return nil
}

func (p *parser) block() (*Stmt, error) {
	s := &Stmt{Kind: BlockStmt, First: p.i}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for p.peek() != "}" {
		if p.i >= p.end {
			return nil, p.errorf("unterminated block")
		}
		st, err := p.stmt()
		if err != nil {
			return nil, err
		}
		s.List = append(s.List, st)
	}
	s.Last = p.i
	p.i++
	return s, nil
}

// stmt parses the statement at p.i, a function per statement form.
func (p *parser) stmt() (*Stmt, error) {
	first := p.i
	var s *Stmt
	var err error
	switch p.peek() {
	case "{":
		return p.block()
	case "for":
		return p.forStmt()
	case ";":
		p.i++
		s = &Stmt{Kind: EmptyStmt}
	case "if":
		s, err = p.ifStmt()
	case "while":
		s, err = p.condBody(WhileStmt, p.stmt)
	case "do":
		s, err = p.doStmt()
	case "switch":
		s, err = p.condBody(SwitchStmt, p.block)
	case "case":
		s, err = p.caseStmt()
	case "default":
		s, err = p.defaultStmt()
	case "return":
		s, err = p.returnStmt()
	case "break", "continue":
		s, err = p.jumpStmt()
	case "asm", "__asm__", "__asm":
		s, err = p.asmStmt()
	case "static_assert":
		s, err = p.staticAssertStmt()
	default:
		s, err = p.simpleStmt()
	}
	if err != nil {
		return nil, err
	}
	s.First, s.Last = first, p.i-1
	return s, nil
}

// The statement forms below parse from their first token and leave the
// statement's First and Last to stmt.

// ifStmt: if [constexpr] (cond) body [else body]. An if constexpr's
// condition is constant.
func (p *parser) ifStmt() (*Stmt, error) {
	p.i++
	constexpr := p.peek() == "constexpr"
	if constexpr {
		p.i++
	}
	cond, err := p.parenCond()
	if err != nil {
		return nil, err
	}
	if constexpr {
		markConst(cond)
	}
	body, err := p.stmt()
	if err != nil {
		return nil, err
	}
	s := &Stmt{Kind: IfStmt, Cond: cond, Body: body, Constexpr: constexpr}
	if p.peek() == "else" {
		p.i++
		if s.Else, err = p.stmt(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// condBody: while (cond) body, or switch (cond) { ... } (body is p.block).
func (p *parser) condBody(kind StmtKind, body func() (*Stmt, error)) (*Stmt, error) {
	p.i++
	cond, err := p.parenCond()
	if err != nil {
		return nil, err
	}
	b, err := body()
	if err != nil {
		return nil, err
	}
	return &Stmt{Kind: kind, Cond: cond, Body: b}, nil
}

// doStmt: do body while (cond);
func (p *parser) doStmt() (*Stmt, error) {
	p.i++
	body, err := p.stmt()
	if err != nil {
		return nil, err
	}
	if err := p.expect("while"); err != nil {
		return nil, err
	}
	cond, err := p.parenCond()
	if err != nil {
		return nil, err
	}
	return p.semicolon(&Stmt{Kind: DoStmt, Cond: cond, Body: body})
}

// caseStmt: case X:, the label alone; X is constant.
func (p *parser) caseStmt() (*Stmt, error) {
	p.i++
	x, err := p.conditional()
	if err != nil {
		return nil, err
	}
	markConst(x)
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	return &Stmt{Kind: CaseStmt, X: x}, nil
}

// defaultStmt: default:, a CaseStmt without a value.
func (p *parser) defaultStmt() (*Stmt, error) {
	p.i++
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	return &Stmt{Kind: CaseStmt}, nil
}

// returnStmt: return [X];
func (p *parser) returnStmt() (*Stmt, error) {
	p.i++
	s := &Stmt{Kind: ReturnStmt}
	if p.peek() != ";" {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		s.X = x
	}
	return p.semicolon(s)
}

// jumpStmt: break; or continue;
func (p *parser) jumpStmt() (*Stmt, error) {
	kind := BreakStmt
	if p.peek() == "continue" {
		kind = ContinueStmt
	}
	p.i++
	return p.semicolon(&Stmt{Kind: kind})
}

// asmStmt: asm [volatile] (...); skipped whole, its parentheses balanced.
func (p *parser) asmStmt() (*Stmt, error) {
	for p.i < p.end && p.peek() != ";" {
		if p.peek() == "(" {
			c := matchClose(p.toks, p.i)
			if c < 0 || c >= p.end {
				return nil, p.errorf("unbalanced asm statement")
			}
			p.i = c
		}
		p.i++
	}
	return p.semicolon(&Stmt{Kind: AsmStmt})
}

// staticAssertStmt: static_assert(...); skipped whole.
func (p *parser) staticAssertStmt() (*Stmt, error) {
	p.i++
	if p.peek() != "(" {
		return nil, p.errorf("want ( after static_assert")
	}
	c := matchClose(p.toks, p.i)
	if c < 0 || c >= p.end {
		return nil, p.errorf("unbalanced static_assert")
	}
	p.i = c + 1
	return p.semicolon(&Stmt{Kind: StaticAssertStmt})
}

// simpleStmt: a declaration or an expression, then ;.
func (p *parser) simpleStmt() (*Stmt, error) {
	if p.isDecl() {
		s, err := p.decl()
		if err != nil {
			return nil, err
		}
		return p.semicolon(s)
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	return p.semicolon(&Stmt{Kind: ExprStmt, X: x})
}

// semicolon consumes the ; that ends s.
func (p *parser) semicolon(s *Stmt) (*Stmt, error) {
	if err := p.expect(";"); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) parenCond() (*Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	return x, p.expect(")")
}

func (p *parser) forStmt() (*Stmt, error) {
	first := p.i
	p.i++
	if err := p.expect("("); err != nil {
		return nil, err
	}
	s := &Stmt{Kind: ForStmt}
	initFirst := p.i
	switch {
	case p.peek() == ";":
	case p.isDecl():
		d, err := p.decl()
		if err != nil {
			return nil, err
		}
		s.Init = d
		if p.peek() == ":" {
			// for (decl : range) body
			s.Init.First, s.Init.Last = initFirst, p.i-1
			p.i++
			if s.Range, err = p.expr(); err != nil {
				return nil, err
			}
			return p.forBody(s, first)
		}
	default:
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		s.Init = &Stmt{Kind: ExprStmt, X: x}
	}
	if s.Init != nil {
		s.Init.First, s.Init.Last = initFirst, p.i-1
	}
	if err := p.expect(";"); err != nil {
		return nil, err
	}
	var err error
	if s.Cond, err = p.optExpr(";"); err != nil {
		return nil, err
	}
	if err := p.expect(";"); err != nil {
		return nil, err
	}
	if s.Post, err = p.optExpr(")"); err != nil {
		return nil, err
	}
	return p.forBody(s, first)
}

// optExpr parses an expression unless the next token is end (an empty
// part of a for header: nil).
func (p *parser) optExpr(end string) (*Expr, error) {
	if p.peek() == end {
		return nil, nil
	}
	return p.expr()
}

// forBody parses ") body", the end of the for statement s that began at
// token first.
func (p *parser) forBody(s *Stmt, first int) (*Stmt, error) {
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	body, err := p.stmt()
	if err != nil {
		return nil, err
	}
	s.Body = body
	s.First, s.Last = first, p.i-1
	return s, nil
}

var declStarters = map[string]bool{
	"const": true, "static": true, "constexpr": true, "volatile": true, "register": true, "auto": true,
	"unsigned": true, "signed": true, "int": true, "char": true, "short": true, "long": true, "float": true,
	"double": true, "bool": true, "void": true, "struct": true, "typedef": true, "__shared__": true,
}

// isDecl reports whether the statement at p.i declares names: it starts
// with a declaration keyword or a type name followed by a declarator, or
// reads "Name [<...>] [* & const]* Name" (two names in a row cannot start
// an expression).
func (p *parser) isDecl() bool {
	t := p.peek()
	if declStarters[t] {
		return true
	}
	if p.i >= p.end || p.toks[p.i].Kind != Ident {
		return false
	}
	j := p.i + 1
	for j < p.end && p.toks[j].Text == "::" {
		j++
		if j < p.end && p.toks[j].Text == "template" {
			j++
		}
		if j >= p.end || p.toks[j].Kind != Ident {
			return false
		}
		j++
	}
	if j < p.end && p.toks[j].Text == "<" && p.src.Templates[p.toks[j-1].Text] || (j < p.end && p.toks[j].Text == "<" && p.src.Types[p.toks[j-1].Text]) {
		c := matchAngle(p.toks, j)
		if c < 0 {
			return false
		}
		j = c + 1
	}
	for j < p.end && (p.toks[j].Text == "*" || p.toks[j].Text == "&" || p.toks[j].Text == "const") {
		j++
	}
	return j < p.end && p.toks[j].Kind == Ident && (p.src.Types[t] || j == p.i+1 || p.toks[j-1].Text != "*")
}

// decl parses "specifiers type declarator [= init] {, declarator [= init]}"
// up to (not including) the ';'.
func (p *parser) decl() (*Stmt, error) {
	s := &Stmt{Kind: DeclStmt}
	// specifiers and the type: up to the first declarator name, which is
	// the identifier followed by = , ; [ ( or {
	for p.i < p.end {
		t := p.toks[p.i]
		if t.Text == "static" || t.Text == "constexpr" {
			s.DeclConst = true
		}
		if t.Text == "<" {
			c := matchAngle(p.toks, p.i)
			if c < 0 {
				return nil, p.errorf("unbalanced < in a declaration")
			}
			p.i = c + 1
			continue
		}
		if t.Kind == Ident && !declStarters[t.Text] {
			next := p.peekAt(1)
			if next == "=" || next == "," || next == ";" || next == "[" || next == "{" || next == "(" || next == ":" {
				break
			}
		}
		p.i++
	}
	for {
		if p.i >= p.end || p.toks[p.i].Kind != Ident {
			return nil, p.errorf("want a declarator name, found %q", p.peek())
		}
		d := &Declarator{Name: p.i}
		p.i++
		for p.peek() == "[" {
			p.i++
			b, err := p.expr()
			if err != nil {
				return nil, err
			}
			markConst(b)
			d.Bounds = append(d.Bounds, b)
			if err := p.expect("]"); err != nil {
				return nil, err
			}
		}
		switch p.peek() {
		case "=":
			p.i++
			x, err := p.assign()
			if err != nil {
				return nil, err
			}
			d.Init = x
		case "{", "(":
			x, err := p.initList()
			if err != nil {
				return nil, err
			}
			d.Init = x
		}
		if d.Init != nil && s.DeclConst {
			markConst(d.Init)
		}
		s.Decls = append(s.Decls, d)
		if p.peek() != "," {
			return s, nil
		}
		p.i++
		for p.peek() == "*" || p.peek() == "&" {
			p.i++
		}
	}
}

// initList parses a braced or parenthesized initializer as a BracedExpr or
// a CallExpr without a callee.
func (p *parser) initList() (*Expr, error) {
	open := p.i
	closer := map[string]string{"{": "}", "(": ")"}[p.peek()]
	p.i++
	e := &Expr{Kind: BracedExpr, First: open}
	for p.peek() != closer {
		a, err := p.assign()
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, a)
		if p.peek() == "," {
			p.i++
		} else if p.peek() != closer {
			return nil, p.errorf("want , or %s in an initializer, found %q", closer, p.peek())
		}
	}
	e.Last = p.i
	p.i++
	return e, nil
}

func markConst(e *Expr) {
	if e == nil {
		return
	}
	e.Const = true
	for _, c := range []*Expr{e.X, e.Y, e.Z} {
		markConst(c)
	}
	for _, a := range e.Args {
		markConst(a)
	}
}

// expr parses a comma expression.
func (p *parser) expr() (*Expr, error) {
	x, err := p.assign()
	if err != nil {
		return nil, err
	}
	for p.peek() == "," {
		op := p.i
		p.i++
		y, err := p.assign()
		if err != nil {
			return nil, err
		}
		x = &Expr{Kind: CommaExpr, First: x.First, Last: y.Last, OpTok: op, Op: ",", X: x, Y: y}
	}
	return x, nil
}

var assignOps = map[string]bool{"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "&=": true, "|=": true, "^=": true, "<<=": true, ">>=": true}

func (p *parser) assign() (*Expr, error) {
	x, err := p.conditional()
	if err != nil {
		return nil, err
	}
	if assignOps[p.peek()] {
		op := p.i
		p.i++
		y, err := p.assign()
		if err != nil {
			return nil, err
		}
		return &Expr{Kind: AssignExpr, First: x.First, Last: y.Last, OpTok: op, Op: p.toks[op].Text, X: x, Y: y}, nil
	}
	return x, nil
}

func (p *parser) conditional() (*Expr, error) {
	c, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if p.peek() != "?" {
		return c, nil
	}
	op := p.i
	p.i++
	a, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	b, err := p.assign()
	if err != nil {
		return nil, err
	}
	return &Expr{Kind: CondExpr, First: c.First, Last: b.Last, OpTok: op, Op: "?", X: c, Y: a, Z: b}, nil
}

var binaryLevels = [][]string{{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}}

func (p *parser) binary(level int) (*Expr, error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		op := p.peek()
		found := false
		for _, o := range binaryLevels[level] {
			found = found || o == op
		}
		if !found {
			return x, nil
		}
		opTok := p.i
		p.i++
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &Expr{Kind: BinaryExpr, First: x.First, Last: y.Last, OpTok: opTok, Op: op, X: x, Y: y}
	}
}

func (p *parser) unary() (*Expr, error) {
	first := p.i
	switch op := p.peek(); op {
	case "+", "-", "!", "~", "*", "&", "++", "--":
		p.i++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Expr{Kind: UnaryExpr, First: first, Last: x.Last, OpTok: first, Op: op, X: x}, nil
	case "sizeof", "alignof", "__alignof__", "decltype":
		// the operand is not evaluated: the whole is one constant, with
		// nothing inside to mutate
		p.i++
		if p.peek() == "..." {
			p.i++
		}
		if p.peek() == "(" && (op == "decltype" || p.isTypeAt(p.i+1)) {
			c := matchClose(p.toks, p.i)
			if c < 0 || c >= p.end {
				return nil, p.errorf("unbalanced %s(", op)
			}
			p.i = c + 1
			return &Expr{Kind: LitExpr, First: first, Last: c, Const: true}, nil
		}
		if op == "decltype" {
			return nil, p.errorf("want ( after decltype")
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Expr{Kind: LitExpr, First: first, Last: x.Last, Const: true}, nil
	case "(":
		if p.isTypeAt(p.i + 1) {
			c := matchClose(p.toks, p.i)
			if c < 0 || c >= p.end {
				return nil, p.errorf("unbalanced cast")
			}
			// a parenthesized type followed by an operand is a cast
			if c+1 < p.end && p.startsOperand(c+1) {
				p.i = c + 1
				x, err := p.unary()
				if err != nil {
					return nil, err
				}
				return &Expr{Kind: CastExpr, First: first, Last: x.Last, X: x}, nil
			}
		}
	}
	return p.postfix()
}

// isTypeAt reports whether the tokens at i spell a type (inside a cast's
// parentheses, or a template argument): keywords, known type names and
// template types, then pointers, references and const, up to the closing
// parenthesis (for a template argument: up to the next ',' or the end of
// the list).
func (p *parser) isTypeAt(i int) bool {
	if i >= p.end {
		return false
	}
	seenType := false
	for j := i; j < p.end; j++ {
		t := p.toks[j]
		switch {
		case t.Text == ")":
			return seenType
		case t.Text == "," && p.targs:
			return seenType
		case t.Text == "const" || t.Text == "volatile" || t.Text == "*" || t.Text == "&" || t.Text == "struct":
		case declStarters[t.Text] && t.Text != "static" && t.Text != "typedef":
			seenType = true
		case t.Kind == Ident && p.src.Types[t.Text]:
			seenType = true
		case t.Text == "::" && seenType:
			seenType = false
		case t.Text == "<" && seenType:
			c := matchAngle(p.toks, j)
			if c < 0 {
				return false
			}
			j = c
		default:
			return false
		}
	}
	return p.targs && seenType
}

// startsOperand reports whether token i can begin a cast's operand.
func (p *parser) startsOperand(i int) bool {
	t := p.toks[i]
	switch t.Kind {
	case Ident, Number, String, Char:
		return true
	}
	switch t.Text {
	case "(", "!", "~", "-", "+", "*", "&", "++", "--", "{":
		return true
	}
	return false
}

func (p *parser) postfix() (*Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch p.peek() {
		case "(":
			open := p.i
			args, last, err := p.args("(", ")")
			if err != nil {
				return nil, err
			}
			x = &Expr{Kind: CallExpr, First: x.First, Last: last, OpTok: open, X: x, Args: args}
		case "[":
			p.i++
			y, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.peek() != "]" {
				return nil, p.errorf("want ], found %q", p.peek())
			}
			x = &Expr{Kind: IndexExpr, First: x.First, Last: p.i, X: x, Y: y}
			p.i++
		case ".", "->":
			op := p.i
			p.i++
			if p.peek() == "template" {
				p.i++
			}
			if p.i >= p.end || p.toks[p.i].Kind != Ident {
				return nil, p.errorf("want a member name after %s", p.toks[op].Text)
			}
			x = &Expr{Kind: MemberExpr, First: x.First, Last: p.i, OpTok: op, Op: p.toks[op].Text, X: x}
			p.i++
			if err := p.templateArgs(x); err != nil {
				return nil, err
			}
		case "++", "--":
			x = &Expr{Kind: PostfixExpr, First: x.First, Last: p.i, OpTok: p.i, Op: p.peek(), X: x}
			p.i++
		case "{":
			if x.Kind != NameExpr && x.Kind != TemplateExpr {
				return x, nil
			}
			args, last, err := p.args("{", "}")
			if err != nil {
				return nil, err
			}
			x = &Expr{Kind: BracedExpr, First: x.First, Last: last, X: x, Args: args}
		default:
			return x, nil
		}
	}
}

// templateArgs wraps x in a TemplateExpr when a template argument list
// follows it; the arguments are constant expressions.
func (p *parser) templateArgs(x *Expr) error {
	if p.peek() != "<" {
		return nil
	}
	name := p.toks[x.Last].Text
	if !p.src.Templates[name] && !p.src.Types[name] && !strings.HasSuffix(name, "_cast") && !(x.Last > 0 && p.toks[x.Last-1].Text == "template") {
		return nil
	}
	c := matchAngle(p.toks, p.i)
	if c < 0 || c >= p.end {
		return p.errorf("unbalanced template argument list")
	}
	inner := *x
	sub := &parser{toks: p.toks, src: p.src, i: p.i + 1, end: c, targs: true}
	var args []*Expr
	for sub.i < c {
		var a *Expr
		if sub.isTypeAt(sub.i) || sub.typeArgEnds(c) {
			a = &Expr{Kind: NameExpr, First: sub.i}
			sub.skipArg(c)
			a.Last = sub.i - 1
		} else {
			var err error
			if a, err = sub.conditionalNoGT(); err != nil {
				return err
			}
		}
		markConst(a)
		args = append(args, a)
		if sub.peek() == "," {
			sub.i++
		} else if sub.i < c {
			return sub.errorf("want , or > in template arguments, found %q", sub.peek())
		}
	}
	*x = Expr{Kind: TemplateExpr, First: inner.First, Last: c, X: &inner, Args: args}
	p.i = c + 1
	return nil
}

// typeArgEnds reports whether the template argument at p.i is a bare type
// name (a known type alone up to , or the closer).
func (p *parser) typeArgEnds(c int) bool {
	j := p.i
	for j < c && (p.toks[j].Kind == Ident || p.toks[j].Text == "::") {
		j++
	}
	return j > p.i && (j == c || p.toks[j].Text == ",") && p.src.Types[p.toks[j-1].Text]
}

func (p *parser) skipArg(c int) {
	depth := 0
	for p.i < c {
		switch p.peek() {
		case "(", "<", "[":
			depth++
		case ")", ">", "]":
			depth--
		case ",":
			if depth == 0 {
				return
			}
		}
		p.i++
	}
}

// conditionalNoGT parses a template argument expression: the sub-parser
// ends at the list's closing >, so a > inside cannot be taken for it.
func (p *parser) conditionalNoGT() (*Expr, error) { return p.conditional() }

func (p *parser) args(open, close string) ([]*Expr, int, error) {
	if err := p.expect(open); err != nil {
		return nil, 0, err
	}
	var args []*Expr
	for p.peek() != close {
		if p.i >= p.end {
			return nil, 0, p.errorf("unterminated argument list")
		}
		var a *Expr
		var err error
		if p.peek() == "{" {
			a, err = p.initList()
		} else {
			a, err = p.assign()
		}
		if err != nil {
			return nil, 0, err
		}
		args = append(args, a)
		if p.peek() == "," {
			p.i++
		} else if p.peek() != close {
			return nil, 0, p.errorf("want , or %s, found %q", close, p.peek())
		}
	}
	last := p.i
	p.i++
	return args, last, nil
}

func (p *parser) primary() (*Expr, error) {
	if p.i >= p.end {
		return nil, p.errorf("unexpected end of expression")
	}
	t := p.toks[p.i]
	first := p.i
	switch t.Kind {
	case Number, String, Char:
		p.i++
		// adjacent string literals concatenate
		for t.Kind == String && p.i < p.end && p.toks[p.i].Kind == String {
			p.i++
		}
		return &Expr{Kind: LitExpr, First: first, Last: p.i - 1}, nil
	case Ident:
		switch t.Text {
		case "true", "false", "nullptr", "NULL":
			p.i++
			return &Expr{Kind: LitExpr, First: first, Last: first}, nil
		}
		p.i++
		for p.peek() == "::" {
			p.i++
			if p.peek() == "template" {
				p.i++
			}
			if p.i >= p.end || p.toks[p.i].Kind != Ident {
				return nil, p.errorf("want a name after ::")
			}
			p.i++
		}
		x := &Expr{Kind: NameExpr, First: first, Last: p.i - 1}
		if err := p.templateArgs(x); err != nil {
			return nil, err
		}
		// a qualified name after template arguments: GmFloat<T>::size
		for p.peek() == "::" {
			p.i++
			if p.peek() == "template" {
				p.i++
			}
			if p.i >= p.end || p.toks[p.i].Kind != Ident {
				return nil, p.errorf("want a name after ::")
			}
			p.i++
			x = &Expr{Kind: NameExpr, First: first, Last: p.i - 1, X: x}
			if err := p.templateArgs(x); err != nil {
				return nil, err
			}
		}
		return x, nil
	}
	switch t.Text {
	case "(":
		p.i++
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, p.errorf("want ), found %q", p.peek())
		}
		e := &Expr{Kind: ParenExpr, First: first, Last: p.i, X: x}
		p.i++
		return e, nil
	case "{":
		return p.initList()
	case "::":
		p.i++
		return p.primary()
	}
	return nil, p.errorf("unexpected %q in an expression", t.Text)
}
