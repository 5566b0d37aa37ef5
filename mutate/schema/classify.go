package schema

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"gathermut/mutate/mutant"
)

// Input is what Classify needs to know about one mutant.
type Input struct {
	TF    *token.File
	Src   []byte
	Info  *types.Info
	Facts *Facts
	Stack []ast.Node // ancestors of Node, the file first
	Node  ast.Node   // the node the rewrite replaces (of the loaded tree)
	// Deleted is set when the rewrite deletes Node (a statement, a list
	// element).
	Deleted bool
	Edit    mutant.Edit
	// Spell writes a type as the file can name it, or returns "".
	Spell func(types.Type) string
	// Imprecise is set when the package's types are not the compiler's (a
	// cgo package checked with a faked C import): nothing is switched.
	Imprecise bool
}

// Classify decides how a mutant enters its package's schema: the site it
// is switched at, or why it falls back to a build of its own (with where
// its coverage probe goes).
func Classify(in Input) *mutant.Site {
	site := in.classify()
	site.Probe = in.probe() // a switched mutant's too: used if a build drops it
	site.Readers = in.readers()
	return site
}

func fallback(format string, args ...any) *mutant.Site {
	return &mutant.Site{Fallback: fmt.Sprintf(format, args...)}
}

func (in Input) off(p token.Pos) int { return in.TF.Offset(p) }

// text returns the source of [start, end) with the mutant's edit made;
// ok is false when the edit reaches outside the range.
func (in Input) text(start, end int) (string, bool) {
	e := in.Edit
	if e.Start < start || e.End > end {
		return "", false
	}
	return string(in.Src[start:e.Start]) + e.Text + string(in.Src[e.End:end]), true
}

func (in Input) parent() ast.Node {
	if len(in.Stack) == 0 {
		return nil
	}
	return in.Stack[len(in.Stack)-1]
}

func (in Input) classify() *mutant.Site {
	if in.Imprecise {
		return fallback("the package's C types are unknown to the type checker (cgo)")
	}
	for i, n := range in.Stack {
		switch d := n.(type) {
		case *ast.GenDecl:
			if d.Tok == token.CONST {
				return in.constSite(d, in.Stack[i+1:]) //gathermut:equivalent(arith) stack[i-1] is the GenDecl's parent (the file or a DeclStmt), never a ValueSpec: the first ValueSpec below is the same
			}
			if d.Tok == token.TYPE {
				return fallback("in a type declaration")
			}
		case *ast.ArrayType:
			if d.Len != nil && contains(d.Len, in.Node) {
				return fallback("in an array length")
			}
		case *ast.FuncType, *ast.StructType, *ast.InterfaceType, *ast.MapType, *ast.ChanType:
			return fallback("in a type")
		}
	}
	switch n := in.Node.(type) {
	case *ast.CaseClause:
		return in.caseSite(n)
	case *ast.BlockStmt:
		switch in.parent().(type) {
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			// its statements are case clauses: no if can hold them
			return fallback("the body of a switch or select")
		}
		t, ok := in.text(in.off(n.Pos()), in.off(n.End()))
		if !ok {
			return fallback("the edit reaches outside the block")
		}
		// any other block (an if's, else's, loop's or function's body, a
		// bare block) switches whole: { if active == n { mutated } else
		// { original } }, its declarations scoped as before; a statement
		// list reordered (guard-swap, unlock-early) is such an edit
		return &mutant.Site{Kind: mutant.BlockSite, Start: in.off(n.Pos()), End: in.off(n.End()), Text: t}
	case ast.Stmt:
		return in.stmtSite(n)
	case ast.Expr:
		if in.Deleted {
			return fallback("a deleted list element")
		}
		return in.exprSite(n)
	}
	return fallback("a %T", in.Node)
}

// isShiftCount reports whether x is the count of a shift.
func isShiftCount(parent ast.Node, x ast.Expr) bool {
	switch p := parent.(type) {
	case *ast.BinaryExpr:
		return (p.Op == token.SHL || p.Op == token.SHR) && p.Y == x
	case *ast.AssignStmt:
		return (p.Tok == token.SHL_ASSIGN || p.Tok == token.SHR_ASSIGN) && len(p.Rhs) == 1 && p.Rhs[0] == x
	}
	return false
}

func contains(outer, inner ast.Node) bool {
	return outer.Pos() <= inner.Pos() && inner.End() <= outer.End()
}

// stmtSite switches a statement in place.
func (in Input) stmtSite(s ast.Stmt) *mutant.Site {
	switch n := s.(type) {
	case *ast.DeclStmt, *ast.LabeledStmt:
		return fallback("a %s declares names", nodeKind(s))
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE {
			return fallback("a := declares names")
		}
	case *ast.BranchStmt:
		if n.Tok == token.FALLTHROUGH {
			return fallback("a fallthrough must stay last in its case")
		}
	}
	form := ""
	switch p := in.parent().(type) {
	case *ast.BlockStmt:
		if inStmts(p.List, s) {
			form = mutant.InList
		}
	case *ast.CaseClause:
		if inStmts(p.Body, s) {
			form = mutant.InList
		}
	case *ast.CommClause:
		if inStmts(p.Body, s) {
			form = mutant.InList
		}
	case *ast.LabeledStmt:
		switch s.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
		default:
			form = mutant.InList
		}
	case *ast.IfStmt:
		if p.Else == s {
			form = mutant.InElse
		}
		if p.Init == s {
			form = mutant.InFunc
		}
	case *ast.ForStmt:
		if p.Init == s || p.Post == s {
			form = mutant.InFunc
		}
	case *ast.SwitchStmt:
		if p.Init == s {
			form = mutant.InFunc
		}
	case *ast.TypeSwitchStmt:
		if p.Init == s {
			form = mutant.InFunc
		}
	}
	if form == "" {
		return fallback("a statement where no if/else can stand (%s)", nodeKind(in.parent()))
	}
	start, end := in.off(s.Pos()), in.off(s.End())
	t := ""
	if !in.Deleted {
		var ok bool
		if t, ok = in.text(start, end); !ok {
			return fallback("the edit reaches outside the statement")
		}
	}
	if form == mutant.InFunc && (callsRecover(s) || hasRecover(t)) {
		return fallback("recover must not move into a func literal")
	}
	return &mutant.Site{Kind: mutant.StmtSite, Start: start, End: end, Form: form, Text: t}
}

// caseSite switches a case body as one statement list (branch-case
// empties it).
func (in Input) caseSite(c *ast.CaseClause) *mutant.Site {
	if len(c.Body) == 0 {
		return fallback("an empty case")
	}
	if b, ok := c.Body[len(c.Body)-1].(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
		return fallback("a case that ends in fallthrough")
	}
	start, end := in.off(c.Body[0].Pos()), in.off(c.Body[len(c.Body)-1].End())
	t, ok := in.text(start, end)
	if !ok {
		// the edit took the whole clause body with the lines around it
		t = ""
	}
	return &mutant.Site{Kind: mutant.StmtSite, Start: start, End: end, Form: mutant.InList, Text: t}
}

func inStmts(list []ast.Stmt, s ast.Stmt) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// exprSite switches an expression: a constant one at the largest constant
// expression around it, whose value the compiler still folds exactly.
func (in Input) exprSite(e ast.Expr) *mutant.Site {
	x := e
	stack := in.Stack
	for len(stack) > 0 { //gathermut:equivalent(boundary) in.Stack starts with the file, which is no Expr: the loop stops there before the stack empties
		p, ok := stack[len(stack)-1].(ast.Expr)
		if !ok {
			break
		}
		if _, kv := p.(*ast.KeyValueExpr); kv {
			break
		}
		tv, ok := in.Info.Types[p]
		if !ok || tv.Value == nil {
			break
		}
		x, stack = p, stack[:len(stack)-1]
	}
	typ, why := in.switchType(x, stack)
	if why != nil {
		return why
	}
	if why := in.contextWhyNot(x, stack, typ); why != nil {
		return why
	}
	spelled := in.Spell(typ)
	if spelled == "" {
		return fallback("its type %s cannot be written in the file", typ)
	}
	start, end := in.off(x.Pos()), in.off(x.End())
	t, ok := in.text(start, end)
	if !ok {
		return fallback("the edit reaches outside the expression")
	}
	if callsRecover(x) || hasRecover(t) {
		return fallback("recover must not move into a func literal")
	}
	return &mutant.Site{Kind: mutant.ExprSite, Start: start, End: end, Type: spelled, Text: t}
}

// switchType is the type the switch of expression x (under stack) gives
// its values: x's own, or for an untyped constant the type its context
// gives it; a fallback site says why x cannot be switched.
func (in Input) switchType(x ast.Expr, stack []ast.Node) (types.Type, *mutant.Site) {
	tv, ok := in.Info.Types[x]
	if !ok || tv.Type == nil {
		return nil, fallback("an expression without a type")
	}
	if !tv.IsValue() || tv.IsBuiltin() || tv.IsType() {
		return nil, fallback("not a value")
	}
	if _, tuple := tv.Type.(*types.Tuple); tuple {
		return nil, fallback("a multi-valued expression")
	}
	typ := tv.Type
	b, ok := typ.(*types.Basic)
	if !ok || b.Info()&types.IsUntyped == 0 {
		return typ, nil
	}
	switch {
	case b.Kind() == types.UntypedBool:
		return types.Typ[types.Bool], nil
	case isShiftCount(parentOf(stack), x) && b.Info()&types.IsInteger != 0 && tv.Value != nil && constant.Sign(tv.Value) >= 0:
		return types.Typ[types.Uint], nil // any unsigned count shifts alike
	}
	return nil, fallback("an %s in a context that keeps it untyped", b)
}

func parentOf(stack []ast.Node) ast.Node {
	if len(stack) > 0 { //gathermut:equivalent(boundary) called with stacks that start with the file, never empty
		return stack[len(stack)-1]
	}
	return nil
}

// contextWhyNot is a fallback site when x's place needs something a
// switched value is not: a constant index key, a field name, something
// assigned to, incremented, ranged into, addressed or called; nil when
// x's place takes a switch.
func (in Input) contextWhyNot(x ast.Expr, stack []ast.Node, typ types.Type) *mutant.Site {
	switch p := parentOf(stack).(type) {
	case *ast.KeyValueExpr:
		if p.Key == x && len(stack) > 1 { //gathermut:equivalent(boundary) under a KeyValueExpr the stack holds the file and more: always longer than 1
			if cl, ok := stack[len(stack)-2].(*ast.CompositeLit); ok {
				switch in.Info.TypeOf(cl).Underlying().(type) {
				case *types.Array, *types.Slice:
					return fallback("an index key of an array or slice literal must be constant")
				case *types.Struct:
					return fallback("a field name") //gathermut:equivalent(branch-case) unreachable: a struct literal's keys are field names, which have no type, so switchType falls back first (TestClassify/expr-field-key)
				}
			}
		}
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if l == x {
				return fallback("assigned to")
			}
		}
	case *ast.IncDecStmt:
		if p.X == x {
			return fallback("incremented")
		}
	case *ast.RangeStmt:
		if p.Key == x || p.Value == x {
			return fallback("a range variable")
		}
	case *ast.UnaryExpr:
		if p.Op == token.AND {
			return fallback("its address is taken")
		}
	case *ast.SelectorExpr, *ast.IndexExpr, *ast.SliceExpr:
		switch typ.Underlying().(type) {
		case *types.Pointer, *types.Slice, *types.Map, *types.Basic, *types.Interface, *types.Signature, *types.Chan:
		default:
			return fallback("an operand that may need to be addressable")
		}
	case *ast.CallExpr:
		if p.Fun == x {
			return fallback("a called function")
		}
	}
	return nil
}

// constSite makes a constant a switched variable when no code needs it to
// be constant.
func (in Input) constSite(decl *ast.GenDecl, below []ast.Node) *mutant.Site {
	var spec *ast.ValueSpec
	for _, n := range below {
		if s, ok := n.(*ast.ValueSpec); ok {
			spec = s
			break
		}
	}
	if spec == nil {
		return fallback("in a constant declaration")
	}
	if len(spec.Names) != 1 || len(spec.Values) != 1 {
		return fallback("a constant declared with others in one spec")
	}
	obj, _ := in.Info.Defs[spec.Names[0]].(*types.Const)
	if obj == nil {
		return fallback("a constant without an object")
	}
	if !contains(spec.Values[0], in.Node) {
		return fallback("in a constant's type")
	}
	local := len(in.Stack) > 1 && !isFileLevel(in.Stack, decl) //gathermut:equivalent(boundary) a const GenDecl in the stack sits under the file: the stack is always longer than 1
	block := decl.Lparen.IsValid() && len(decl.Specs) > 1
	if block && local {
		return fallback("a constant in a block inside a function")
	}
	if reason := in.Facts.ConstReason(obj, decl); reason != "" {
		if local {
			return fallback("constant %s %s", obj.Name(), reason)
		}
		value, ok := in.text(in.off(spec.Values[0].Pos()), in.off(spec.Values[0].End()))
		if !ok {
			return fallback("the edit reaches outside the constant's value")
		}
		uses, why := in.Facts.UseSites(obj, spec, decl, value)
		if why != "" {
			return fallback("constant %s %s, and %s", obj.Name(), reason, why)
		}
		site := &mutant.Site{Kind: mutant.UsesSite, Name: obj.Name()}
		site.Uses = []mutant.UseSite{}
		for _, u := range uses {
			site.Uses = append(site.Uses, mutant.UseSite{File: u.File, Start: u.Start, End: u.End, Type: u.Type, Text: u.Text})
		}
		return site
	}
	typ := obj.Type()
	if b, ok := typ.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 { //gathermut:equivalent(bitwise) types.Default returns a typed type unchanged
		typ = types.Default(typ)
	}
	spelled := in.Spell(typ)
	if spelled == "" {
		return fallback("constant %s: its type %s cannot be written in the file", obj.Name(), typ)
	}
	vs, ve := in.off(spec.Values[0].Pos()), in.off(spec.Values[0].End())
	t, ok := in.text(vs, ve)
	if !ok {
		return fallback("the edit reaches outside the constant's value")
	}
	site := &mutant.Site{Kind: mutant.ConstSite, Name: obj.Name(), Type: spelled, Text: t, ValueStart: vs, ValueEnd: ve, Block: block}
	if block {
		site.Start, site.End = in.off(spec.Pos()), in.off(spec.End())
	} else {
		site.Start, site.End = in.off(decl.Pos()), in.off(decl.End())
	}
	return site
}

func isFileLevel(stack []ast.Node, decl *ast.GenDecl) bool {
	f, ok := stack[0].(*ast.File)
	if !ok {
		return false
	}
	for _, d := range f.Decls {
		if d == decl {
			return true
		}
	}
	return false
}

// readers returns, for a mutant of a package-level variable or constant
// (outside any function body), where its readers' bodies start, or nil
// when every test must count as covering it.
func (in Input) readers() []mutant.Probe {
	var spec *ast.ValueSpec
	for _, n := range in.Stack {
		switch x := n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return nil
		case *ast.ValueSpec:
			spec = x
		}
	}
	if spec == nil || in.Facts == nil {
		return nil
	}
	var objs []types.Object
	for _, name := range spec.Names {
		objs = append(objs, in.Info.Defs[name])
	}
	rs, ok := in.Facts.Readers(objs)
	if !ok {
		return nil
	}
	out := []mutant.Probe{}
	for _, r := range rs {
		out = append(out, mutant.Probe{File: r.File, At: r.At})
	}
	return out
}

// probe is the offset of the statement (in a statement list) closest
// around the mutant, before which the schema counts its coverage; -1 at
// package level, where every test covers it.
func (in Input) probe() int {
	all := append(append([]ast.Node{}, in.Stack...), in.Node)
	for i := len(all) - 1; i > 0; i-- { //gathermut:equivalent(boundary) all[0] is the file, no Stmt: i == 0 is skipped either way
		s, ok := all[i].(ast.Stmt)
		if !ok {
			continue
		}
		switch s.(type) {
		case *ast.CaseClause, *ast.CommClause:
			continue // a clause of a switch body, not a statement of a list
		}
		switch p := all[i-1].(type) {
		case *ast.BlockStmt:
			if inStmts(p.List, s) {
				return in.off(s.Pos())
			}
		case *ast.CaseClause:
			if inStmts(p.Body, s) {
				return in.off(s.Pos())
			}
		case *ast.CommClause:
			if inStmts(p.Body, s) {
				return in.off(s.Pos())
			}
		}
	}
	return -1
}

func callsRecover(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}

func hasRecover(text string) bool {
	return len(text) > 0 && containsWord(text, "recover") //gathermut:equivalent(boundary) containsWord of an empty text is false
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i == 0 || !isIdent(s[i-1])) && (i+len(w) == len(s) || !isIdent(s[i+len(w)])) {
			return true
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func nodeKind(n ast.Node) string {
	return fmt.Sprintf("%T", n)[len("*ast."):]
}
