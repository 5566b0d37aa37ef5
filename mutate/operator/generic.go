package operator

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-toolsmith/astcopy"
)

// Operator is one generic mutation operator: a name (used in ids, reports,
// suppression comments and catalog Equivalents), a one-line description, an
// example, and the function that proposes rewrites at one node. Operators
// never edit the tree; the driver applies each Rewrite to a clone.
type Operator struct {
	Name    string
	Doc     string
	Example string
	Mutate  func(p *Pass, n ast.Node) []Rewrite
	// OptIn operators run only when named (or with "all"): their
	// survivors were found to be mostly noise (see the package doc).
	OptIn bool
}

// Pass is what an operator sees of the node it is asked about.
type Pass struct {
	Info  *types.Info
	Stack []ast.Node // ancestors of the node, outermost first
	File  *ast.File
	Files []*ast.File // the package's files (File among them)
	Pkg   *types.Package

	tune *tuner // the package's tuning values (tune.go), built on first need
}

// sameOutcome reports whether the integer literal lit (the node after the
// stack) is only compared with constants, each comparison the same for
// old and v (tune.go): the mutant would be the same program.
func (p *Pass) sameOutcome(lit *ast.BasicLit, old, v uint64) bool {
	if p.unaryMinus() {
		return false // -n: the comparisons see the negated value
	}
	p.tuner()
	return p.tune.sameOutcome(p.Stack, lit, old, v)
}

// unaryMinus reports whether the literal after the stack stands under a
// unary minus (through parentheses).
func (p *Pass) unaryMinus() bool {
	for i := len(p.Stack) - 1; i >= 0; i-- {
		switch u := p.Stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.UnaryExpr:
			return u.Op == token.SUB
		}
		return false
	}
	return false
}

func (p *Pass) tuner() {
	if p.tune == nil {
		files := []*ast.File{p.File}
		if p.Files != nil {
			files = p.Files
		}
		p.tune = &tuner{info: p.Info, files: files}
	}
}

// tunes reports whether the integer literal lit, the node after the
// stack, only tunes (tune.go): const-int leaves it to const-tune.
func (p *Pass) tunes(lit ast.Node) bool {
	p.tuner()
	return p.tune.tunes(p.Stack, lit)
}

// Parent returns the node's direct ancestor.
func (p *Pass) Parent() ast.Node {
	if len(p.Stack) == 0 {
		return nil
	}
	return p.Stack[len(p.Stack)-1]
}

// Rewrite replaces Node (a node of the original tree) with New, or deletes
// it from its list when New is nil. Span, when set, is the source range the
// mutant is reported at and whose coverage decides which tests run it
// (e.g. the else branch of an if whose Else field is dropped).
type Rewrite struct {
	Node      ast.Node
	New       ast.Node
	SpanStart token.Pos
	SpanEnd   token.Pos
	// Equivalent, when set, says why the mutant is the same program on
	// this build target: it is made Ignored with that reason, not run.
	Equivalent string
}

// Operators is the table of generic operators, in the order they run.
var Operators = []*Operator{
	{Name: "arith", Doc: "swap an arithmetic operator (+ and -, * and /, % to *) where the result type-checks", Example: "a + b -> a - b", Mutate: arith},
	{Name: "boundary", Doc: "move a comparison boundary (< and <=, > and >=)", Example: "i < n -> i <= n", Mutate: binarySwap(boundarySwaps, nil)},
	{Name: "negate", Doc: "negate a comparison (== and !=, < to >=, <= to >, > to <=, >= to <)", Example: "a == b -> a != b", Mutate: binarySwap(negateSwaps, nil)},
	{Name: "logical", Doc: "swap && and ||", Example: "a && b -> a || b", Mutate: binarySwap(logicalSwaps, nil)},
	{Name: "bitwise", Doc: "swap a bitwise operator (& and |, ^ to &, &^ to &) on integers", Example: "a & b -> a | b", Mutate: binarySwap(bitwiseSwaps, isInteger)},
	{Name: "shift", Doc: "swap << and >>", Example: "a << n -> a >> n", Mutate: binarySwap(shiftSwaps, isInteger)},
	{Name: "unary-not", Doc: "remove a logical negation", Example: "!ok -> ok", Mutate: unaryRemove(token.NOT)},
	{Name: "unary-minus", Doc: "remove a numeric negation", Example: "-x -> x", Mutate: unaryRemove(token.SUB)},
	{Name: "incdec", Doc: "swap ++ and --", Example: "i++ -> i--", Mutate: incdec},
	{Name: "assign", Doc: "swap an assignment operator (+= and -=, *= and /=, %= to *=, |= and &=, ^= and &^= to &=, <<= and >>=) or drop it (x op= y to x = y)", Example: "x += y -> x -= y; x += y -> x = y", Mutate: assignOp},
	{Name: "const-int", Doc: "perturb an integer literal: n -> n+1, and n -> n-1 for n > 0, where its type holds the result; not in tables (const-table) nor where it only tunes (const-tune)", Example: "256 -> 257, 256 -> 255", Mutate: constInt},
	{Name: "const-table", Doc: "const-int on the elements and keys of a composite literal of 16 or more elements (opt-in)", Example: "[]byte{..., 9, ...} -> []byte{..., 10, ...}", Mutate: constTable, OptIn: true},
	{Name: "const-tune", Doc: "const-int on literals that only tune: entries of package-level tables, make's capacities and size hints, unexported constants used only as such sizes or array lengths; never a value compared or indexed with (opt-in)", Example: "make([]byte, 0, 64) -> make([]byte, 0, 65)", Mutate: constTune, OptIn: true},
	{Name: "const-float", Doc: "perturb a float literal: x -> x+1 (skipped where x+1 == x)", Example: "0.5 -> 1.5", Mutate: constFloat},
	{Name: "remove-stmt", Doc: "remove an assignment (not :=), ++/--, send, defer, go or non-call expression statement", Example: "n = n * 2 -> (removed)", Mutate: removeStmt},
	{Name: "remove-call", Doc: "remove a call used as a statement", Example: "wg.Done() -> (removed)", Mutate: removeCall},
	{Name: "zero-return", Doc: "replace one returned value with the zero value of its result type (an error result with nil)", Example: "return n, err -> return 0, err; return n, err -> return n, nil", Mutate: zeroReturn},
	{Name: "branch-if", Doc: "empty the body of an if", Example: "if c { f() } -> if c { }", Mutate: branchIf},
	{Name: "branch-true", Doc: "force an if condition to true", Example: "if c { -> if true {", Mutate: branchCond("true")},
	{Name: "branch-false", Doc: "force an if condition to false (only where there is an else; otherwise it equals branch-if)", Example: "if c { a() } else { b() } -> if false { ...", Mutate: branchCond("false")},
	{Name: "branch-else", Doc: "remove the else branch of an if", Example: "if c { a() } else { b() } -> if c { a() }", Mutate: branchElse},
	{Name: "branch-case", Doc: "empty the body of a switch case", Example: "case 1: f() -> case 1:", Mutate: branchCase},
	{Name: "loop-control", Doc: "swap break and continue inside a loop", Example: "break -> continue", Mutate: loopControl},
	{Name: "neg-form", Doc: "write a float negation as a subtraction from zero (differs on signed zero; -1*x is not made: compilers fold it back into -x)", Example: "-d -> 0 - d", Mutate: negForm},
	{Name: "recip-div", Doc: "divide a float by multiplying with the reciprocal (one ulp off; not for a constant power of two)", Example: "x / n -> x * (1 / n)", Mutate: recipDiv},
	{Name: "fuse-product", Doc: "drop the float conversion that keeps a product from fusing with the sum (an FMA on targets that fuse; Ignored as the same program where the target does not)", Example: "float32(a*b) + c -> a*b + c", Mutate: fuseProduct},
	{Name: "unlock-early", Doc: "move a statement of a mu.Lock() critical section after its mu.Unlock() (before the Lock under defer mu.Unlock())", Example: "mu.Lock(); n++; mu.Unlock() -> mu.Lock(); mu.Unlock(); n++", Mutate: unlockEarly},
	{Name: "guard-swap", Doc: "swap two adjacent guard clauses (if c { return ... }); not where they return the same or test one value against two constants", Example: "if n == 0 { return nil }; if n > max { return errTooBig } -> the other order", Mutate: guardSwap},
	{Name: "skip-feature-check", Doc: "install accelerated code without its CPU feature check: a feature check (avx, sse, neon, fma, f16c, simd, accel, ...) that guards assignments of function values, or is passed to a package function that installs under that parameter, becomes true", Example: "setAccel(cpuHasAVX2) -> setAccel(true); if hasAVX2 && n > 0 { decode = decodeAVX2 } -> if true && n > 0 {", Mutate: skipFeatureCheck},
}

// OperatorByName returns the generic operator with that name.
func OperatorByName(name string) (*Operator, bool) {
	for _, op := range Operators {
		if op.Name == name {
			return op, true
		}
	}
	return nil, false
}

var (
	boundarySwaps = map[token.Token][]token.Token{token.LSS: {token.LEQ}, token.LEQ: {token.LSS}, token.GTR: {token.GEQ}, token.GEQ: {token.GTR}}
	negateSwaps   = map[token.Token][]token.Token{token.EQL: {token.NEQ}, token.NEQ: {token.EQL}, token.LSS: {token.GEQ}, token.LEQ: {token.GTR}, token.GTR: {token.LEQ}, token.GEQ: {token.LSS}}
	logicalSwaps  = map[token.Token][]token.Token{token.LAND: {token.LOR}, token.LOR: {token.LAND}}
	bitwiseSwaps  = map[token.Token][]token.Token{token.AND: {token.OR}, token.OR: {token.AND}, token.XOR: {token.AND}, token.AND_NOT: {token.AND}}
	shiftSwaps    = map[token.Token][]token.Token{token.SHL: {token.SHR}, token.SHR: {token.SHL}}
	assignSwaps   = map[token.Token][]token.Token{
		token.ADD_ASSIGN: {token.SUB_ASSIGN}, token.SUB_ASSIGN: {token.ADD_ASSIGN},
		token.MUL_ASSIGN: {token.QUO_ASSIGN}, token.QUO_ASSIGN: {token.MUL_ASSIGN}, token.REM_ASSIGN: {token.MUL_ASSIGN},
		token.OR_ASSIGN: {token.AND_ASSIGN}, token.AND_ASSIGN: {token.OR_ASSIGN},
		token.XOR_ASSIGN: {token.AND_ASSIGN}, token.AND_NOT_ASSIGN: {token.AND_ASSIGN},
		token.SHL_ASSIGN: {token.SHR_ASSIGN}, token.SHR_ASSIGN: {token.SHL_ASSIGN},
	}
)

func basicInfo(t types.Type) types.BasicInfo {
	if t == nil {
		return 0
	}
	if b, ok := t.Underlying().(*types.Basic); ok {
		return b.Info()
	}
	return 0
}

func isInteger(p *Pass, e ast.Expr) bool { return basicInfo(p.Info.TypeOf(e))&types.IsInteger != 0 }
func isString(p *Pass, e ast.Expr) bool  { return basicInfo(p.Info.TypeOf(e))&types.IsString != 0 }
func isNumeric(p *Pass, e ast.Expr) bool { return basicInfo(p.Info.TypeOf(e))&types.IsNumeric != 0 }

// withOp builds a copy of a binary expression with another operator,
// parenthesised when the new operator binds less tightly (go/printer would
// add the parentheses too; writing them makes the snippet in reports read
// the same as the file).
func withOp(p *Pass, n *ast.BinaryExpr, op token.Token) ast.Expr {
	m := astcopy.BinaryExpr(n)
	m.Op = op
	if op.Precedence() < n.Op.Precedence() {
		switch p.Parent().(type) {
		case *ast.BinaryExpr, *ast.UnaryExpr, *ast.StarExpr:
			return &ast.ParenExpr{Lparen: n.Pos(), X: m, Rparen: n.End()}
		}
	}
	return m
}

func binarySwap(table map[token.Token][]token.Token, guard func(*Pass, ast.Expr) bool) func(*Pass, ast.Node) []Rewrite {
	return func(p *Pass, node ast.Node) []Rewrite {
		n, ok := node.(*ast.BinaryExpr)
		if !ok || (guard != nil && !guard(p, n.X)) {
			return nil
		}
		var out []Rewrite
		for _, op := range table[n.Op] {
			out = append(out, Rewrite{Node: n, New: withOp(p, n, op)})
		}
		return out
	}
}

func arith(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.BinaryExpr)
	if !ok || !isNumeric(p, n) {
		return nil // + on strings has no type-correct arithmetic swap
	}
	var op token.Token
	switch n.Op {
	case token.ADD:
		op = token.SUB
	case token.SUB:
		op = token.ADD
	case token.MUL:
		if isConstZero(p, n.Y) {
			return nil // x / 0 does not compile
		}
		op = token.QUO
	case token.QUO:
		op = token.MUL
	case token.REM:
		op = token.MUL
	default:
		return nil
	}
	return []Rewrite{{Node: n, New: withOp(p, n, op)}}
}

func isConstZero(p *Pass, e ast.Expr) bool {
	tv, ok := p.Info.Types[e]
	return ok && tv.Value != nil && constant.Sign(tv.Value) == 0
}

func unaryRemove(op token.Token) func(*Pass, ast.Node) []Rewrite {
	return func(p *Pass, node ast.Node) []Rewrite {
		n, ok := node.(*ast.UnaryExpr)
		if !ok || n.Op != op {
			return nil
		}
		if op == token.SUB && !isNumeric(p, n.X) {
			return nil
		}
		return []Rewrite{{Node: n, New: astcopy.Expr(n.X)}}
	}
}

func incdec(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.IncDecStmt)
	if !ok {
		return nil
	}
	m := astcopy.IncDecStmt(n)
	if n.Tok == token.INC {
		m.Tok = token.DEC
	} else {
		m.Tok = token.INC
	}
	return []Rewrite{{Node: n, New: m}}
}

func assignOp(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.AssignStmt)
	if !ok || len(n.Lhs) != 1 || len(n.Rhs) != 1 {
		return nil
	}
	swaps, ok := assignSwaps[n.Tok]
	if !ok {
		return nil
	}
	var out []Rewrite
	if !(n.Tok == token.ADD_ASSIGN && isString(p, n.Lhs[0])) {
		for _, tok := range swaps {
			m := astcopy.AssignStmt(n)
			m.Tok = tok
			out = append(out, Rewrite{Node: n, New: m})
		}
	}
	if n.Tok != token.SHL_ASSIGN && n.Tok != token.SHR_ASSIGN && assignable(p, n.Rhs[0], n.Lhs[0]) {
		m := astcopy.AssignStmt(n)
		m.Tok = token.ASSIGN
		out = append(out, Rewrite{Node: n, New: m})
	}
	return out
}

// assignable reports whether "lhs = rhs" type-checks, given that
// "lhs op= rhs" did.
func assignable(p *Pass, rhs, lhs ast.Expr) bool {
	tv, ok := p.Info.Types[rhs]
	if !ok {
		return false
	}
	lt := p.Info.TypeOf(lhs)
	if lt == nil {
		return false
	}
	if tv.Value != nil {
		return true // an untyped constant that worked with op= is representable
	}
	return types.AssignableTo(tv.Type, lt)
}

func inArrayLen(p *Pass) bool {
	for _, a := range p.Stack {
		if at, ok := a.(*ast.ArrayType); ok && at.Len != nil {
			return true
		}
	}
	return false
}

func constInt(p *Pass, node ast.Node) []Rewrite {
	if !isIntLit(node) || tableOf(p, node) != nil || p.tunes(node) {
		return nil // const-table's, const-tune's
	}
	return perturbInt(p, node)
}

// constTune is const-int on the literals that only tune (tune.go), outside
// the tables const-table takes.
func constTune(p *Pass, node ast.Node) []Rewrite {
	if !isIntLit(node) || tableOf(p, node) != nil || !p.tunes(node) {
		return nil
	}
	return perturbInt(p, node)
}

func isIntLit(n ast.Node) bool {
	lit, ok := n.(*ast.BasicLit)
	return ok && lit.Kind == token.INT
}

func constTable(p *Pass, node ast.Node) []Rewrite {
	if tableOf(p, node) == nil {
		return nil
	}
	return perturbInt(p, node)
}

// perturbInt makes n+1 and n-1 (n > 0) of an integer literal, each where
// the literal's type can hold it.
func perturbInt(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.BasicLit)
	if !ok || n.Kind != token.INT || inArrayLen(p) {
		return nil
	}
	v, err := strconv.ParseUint(n.Value, 0, 64)
	if err != nil {
		return nil // beyond uint64: leave big constants alone
	}
	var out []Rewrite
	if v < math.MaxUint64 && fitsLiteral(p, n, v+1) && !sameCall(p, n, v, v+1) && !p.sameOutcome(n, v, v+1) {
		out = append(out, Rewrite{Node: n, New: &ast.BasicLit{ValuePos: n.ValuePos, Kind: token.INT, Value: strconv.FormatUint(v+1, 10)}})
	}
	if v > 0 && fitsLiteral(p, n, v-1) && !sameCall(p, n, v, v-1) && !p.sameOutcome(n, v, v-1) {
		out = append(out, Rewrite{Node: n, New: &ast.BasicLit{ValuePos: n.ValuePos, Kind: token.INT, Value: strconv.FormatUint(v-1, 10)}})
	}
	return out
}

func constFloat(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.BasicLit)
	if !ok || n.Kind != token.FLOAT {
		return nil
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || v+1 == v || math.IsInf(v+1, 0) {
		return nil
	}
	s := strconv.FormatFloat(v+1, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0" // stay a float constant, so inferred types do not change
	}
	return []Rewrite{{Node: n, New: &ast.BasicLit{ValuePos: n.ValuePos, Kind: token.FLOAT, Value: s}}}
}

// inList reports whether the node is an element of a statement list, the
// only place a statement can be deleted.
func inList(p *Pass, n ast.Node) bool {
	var list []ast.Stmt
	switch parent := p.Parent().(type) {
	case *ast.BlockStmt:
		list = parent.List
	case *ast.CaseClause:
		list = parent.Body
	case *ast.CommClause:
		list = parent.Body
	}
	for _, s := range list {
		if s == n {
			return true
		}
	}
	return false
}

func removeStmt(p *Pass, node ast.Node) []Rewrite {
	if !inList(p, node) {
		return nil
	}
	switch n := node.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE || allBlank(n.Lhs) {
			return nil // := declares names; "_ = x" exists to use x
		}
	case *ast.IncDecStmt, *ast.SendStmt, *ast.DeferStmt, *ast.GoStmt:
	case *ast.ExprStmt:
		if _, call := ast.Unparen(n.X).(*ast.CallExpr); call {
			return nil // remove-call's
		}
	default:
		return nil
	}
	return []Rewrite{{Node: node}}
}

func allBlank(exprs []ast.Expr) bool {
	for _, e := range exprs {
		if id, ok := e.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}

func removeCall(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.ExprStmt)
	if !ok || !inList(p, n) {
		return nil
	}
	if _, call := ast.Unparen(n.X).(*ast.CallExpr); !call {
		return nil
	}
	return []Rewrite{{Node: n}}
}

func zeroReturn(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.ReturnStmt)
	if !ok || len(n.Results) == 0 {
		return nil
	}
	sig := enclosingSignature(p)
	if sig == nil || sig.Results().Len() != len(n.Results) {
		return nil // bare return, or return f() of a multi-value call
	}
	discarded := discardedResults(p.Info, p.Files, p.Stack, n)
	var out []Rewrite
	for i, res := range n.Results {
		t := sig.Results().At(i).Type()
		if isZeroValue(p, res) || slices.Contains(discarded, res) {
			continue
		}
		zero := ZeroValue(t, p.Pkg, p.File)
		if zero == nil {
			continue
		}
		setPos(zero, res.Pos())
		m := astcopy.ReturnStmt(n)
		m.Results[i] = zero
		out = append(out, Rewrite{Node: n, New: m, SpanStart: res.Pos(), SpanEnd: res.End()})
	}
	return out
}

func enclosingSignature(p *Pass) *types.Signature { return signatureOf(p.Info, p.Stack) }

// isZeroValue reports whether e already is a zero value: a constant zero,
// "", false, nil, or an empty composite literal.
func isZeroValue(p *Pass, e ast.Expr) bool {
	e = ast.Unparen(e)
	if tv, ok := p.Info.Types[e]; ok {
		if tv.IsNil() {
			return true
		}
		if tv.Value != nil {
			switch tv.Value.Kind() {
			case constant.Bool:
				return !constant.BoolVal(tv.Value)
			case constant.String:
				return constant.StringVal(tv.Value) == ""
			case constant.Int, constant.Float, constant.Complex:
				return constant.Sign(tv.Value) == 0 && constant.Sign(constant.Imag(tv.Value)) == 0
			}
		}
	}
	if cl, ok := e.(*ast.CompositeLit); ok && len(cl.Elts) == 0 {
		return true
	}
	return false
}

func branchIf(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.IfStmt)
	if !ok || len(n.Body.List) == 0 {
		return nil
	}
	return []Rewrite{{Node: n.Body, New: &ast.BlockStmt{Lbrace: n.Body.Lbrace, Rbrace: n.Body.Rbrace}}}
}

func branchCond(value string) func(*Pass, ast.Node) []Rewrite {
	return func(p *Pass, node ast.Node) []Rewrite {
		n, ok := node.(*ast.IfStmt)
		if !ok {
			return nil
		}
		if value == "false" && n.Else == nil {
			return nil // the same behaviour as branch-if
		}
		if id, ok := ast.Unparen(n.Cond).(*ast.Ident); ok && id.Name == value {
			return nil
		}
		return []Rewrite{{Node: n.Cond, New: &ast.Ident{NamePos: n.Cond.Pos(), Name: value}}}
	}
}

func branchElse(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.IfStmt)
	if !ok || n.Else == nil {
		return nil
	}
	m := astcopy.IfStmt(n)
	m.Else = nil
	return []Rewrite{{Node: n, New: m, SpanStart: n.Else.Pos(), SpanEnd: n.Else.End()}}
}

func branchCase(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.CaseClause)
	if !ok || len(n.Body) == 0 {
		return nil
	}
	m := astcopy.CaseClause(n)
	m.Body = nil
	return []Rewrite{{Node: n, New: m, SpanStart: n.Body[0].Pos(), SpanEnd: n.Body[len(n.Body)-1].End()}}
}

func loopControl(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.BranchStmt)
	if !ok || (n.Tok != token.BREAK && n.Tok != token.CONTINUE) || !insideLoop(p, n) {
		return nil
	}
	m := astcopy.BranchStmt(n)
	if n.Tok == token.BREAK {
		m.Tok = token.CONTINUE
	} else {
		m.Tok = token.BREAK
	}
	return []Rewrite{{Node: n, New: m}}
}

// insideLoop reports whether a continue would be legal in place of the
// branch statement: it is (for a labelled one: its label is) a loop within
// the same function.
func insideLoop(p *Pass, n *ast.BranchStmt) bool {
	for i := len(p.Stack) - 1; i >= 0; i-- {
		switch s := p.Stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Label == nil {
				return true
			}
		case *ast.LabeledStmt:
			if n.Label != nil && s.Label.Name == n.Label.Name {
				switch s.Stmt.(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					return true
				}
				return false
			}
		}
	}
	return false
}
