package operator

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/go-toolsmith/astcopy"
)

// The fault operators (issue 36): forms of code that compute the same
// value on ordinary inputs and differ on the inputs the row's real bugs
// came from (a NaN's sign, a signed zero, one ulp, a race, the order of
// two checks, a CPU without the feature). The package doc says which are
// in the default set and why.

// isFloat reports whether e has a (possibly named) floating-point type.
func isFloat(p *Pass, e ast.Expr) bool { return basicInfo(p.Info.TypeOf(e))&types.IsFloat != 0 }

// isConstant reports whether e is a constant expression (folded by the
// compiler: every rewrite of it is the same program).
func isConstant(p *Pass, e ast.Expr) bool {
	tv, ok := p.Info.Types[e]
	return ok && tv.Value != nil
}

// parenIn wraps x in parentheses where the parent of the node it replaces
// binds tighter than a binary expression.
func parenIn(p *Pass, at ast.Node, x ast.Expr) ast.Expr {
	switch p.Parent().(type) {
	case *ast.BinaryExpr, *ast.UnaryExpr, *ast.StarExpr, *ast.SelectorExpr:
		return &ast.ParenExpr{Lparen: at.Pos(), X: x, Rparen: at.End()}
	}
	return x
}

// negForm: -x -> 0 - x on floats (not constants). 0 - (+0) is +0 where
// -(+0) is -0. -1 * x is not made: Go's compiler rewrites a product with
// the constant -1 into the negation (as gcc and clang do), so it would be
// the same program.
func negForm(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.UnaryExpr)
	if !ok || n.Op != token.SUB || !isFloat(p, n.X) || isConstant(p, n) {
		return nil
	}
	sub := &ast.BinaryExpr{X: &ast.BasicLit{ValuePos: n.Pos(), Kind: token.INT, Value: "0"}, OpPos: n.Pos(), Op: token.SUB, Y: astcopy.Expr(n.X)}
	return []Rewrite{{Node: n, New: parenIn(p, n, sub)}}
}

// recipDiv: x / n -> x * (1 / n) on floats, where n is not a constant
// power of two (whose reciprocal is exact: the same value) and x is not
// the constant 1 or -1 (1 * (1 / n) is 1 / n exactly).
func recipDiv(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.BinaryExpr)
	if !ok || n.Op != token.QUO || !isFloat(p, n) || isConstant(p, n) || exactReciprocal(p, n.Y) || unitConstant(p, n.X) {
		return nil
	}
	recip := &ast.ParenExpr{Lparen: n.Y.Pos(), X: &ast.BinaryExpr{X: &ast.BasicLit{ValuePos: n.Y.Pos(), Kind: token.INT, Value: "1"}, OpPos: n.Y.Pos(), Op: token.QUO, Y: astcopy.Expr(n.Y)}, Rparen: n.Y.End()}
	mul := &ast.BinaryExpr{X: astcopy.Expr(n.X), OpPos: n.OpPos, Op: token.MUL, Y: recip}
	return []Rewrite{{Node: n, New: parenIn(p, n, mul)}}
}

// unitConstant reports whether e is the constant 1 or -1.
func unitConstant(p *Pass, e ast.Expr) bool {
	tv, ok := p.Info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	f, _ := constant.Float64Val(constant.ToFloat(tv.Value))
	return f == 1 || f == -1
}

// exactReciprocal reports whether e is a constant power of two.
func exactReciprocal(p *Pass, e ast.Expr) bool {
	tv, ok := p.Info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	f, _ := constant.Float64Val(constant.ToFloat(tv.Value))
	if f == 0 || math.IsInf(f, 0) {
		return false
	}
	frac, _ := math.Frexp(math.Abs(f))
	return frac == 0.5
}

// fusingArchs are the GOARCH values whose compiler fuses x*y + z into one
// fused multiply-add; amd64 does from GOAMD64=v3 on.
var fusingArchs = []string{"arm64", "loong64", "ppc64", "ppc64le", "riscv64", "s390x"}

// fuses reports whether the build target (GOARCH, GOAMD64 from the
// environment, else this machine's and v1) fuses a*b + c.
func fuses() bool {
	arch := os.Getenv("GOARCH")
	if arch == "" {
		arch = runtime.GOARCH
	}
	if arch == "amd64" {
		level := os.Getenv("GOAMD64")
		return level >= "v3"
	}
	return slices.Contains(fusingArchs, arch)
}

// noFusion is the reason a fuse-product mutant is the same program here.
const noFusion = "fuse-product: this build target (GOARCH, GOAMD64) does not fuse a*b + c, so dropping the conversion is the same program here; the fault (FMA contraction, one ulp) shows on arm64, ppc64, s390x, riscv64, loong64 and amd64 at GOAMD64=v3"

// fuseProduct: float32(a*b) + c -> a*b + c. The explicit conversion
// rounds the product and forbids its fusion with the addition; without it
// a target with FMA computes a*b + c with one rounding.
func fuseProduct(p *Pass, node ast.Node) []Rewrite {
	n, ok := node.(*ast.BinaryExpr)
	if !ok || (n.Op != token.ADD && n.Op != token.SUB) || !isFloat(p, n) {
		return nil
	}
	var out []Rewrite
	for _, side := range []ast.Expr{n.X, n.Y} {
		call, ok := ast.Unparen(side).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || !p.Info.Types[call.Fun].IsType() {
			continue
		}
		prod, ok := ast.Unparen(call.Args[0]).(*ast.BinaryExpr)
		if !ok || prod.Op != token.MUL || !types.Identical(p.Info.TypeOf(call), p.Info.TypeOf(prod)) || isConstant(p, prod) {
			continue
		}
		rw := Rewrite{Node: call, New: astcopy.BinaryExpr(prod)}
		if !fuses() {
			rw.Equivalent = noFusion
		}
		out = append(out, rw)
	}
	return out
}

// stmtList returns the statement list of a block or clause, and whether
// node has one.
func stmtList(node ast.Node) ([]ast.Stmt, bool) {
	switch n := node.(type) {
	case *ast.BlockStmt:
		return n.List, true
	case *ast.CaseClause:
		return n.Body, true
	case *ast.CommClause:
		return n.Body, true
	}
	return nil, false
}

// withList returns a copy of a block or clause holding list instead.
func withList(node ast.Node, list []ast.Stmt) ast.Node {
	switch n := node.(type) {
	case *ast.BlockStmt:
		m := astcopy.BlockStmt(n)
		m.List = list
		return m
	case *ast.CaseClause:
		m := astcopy.CaseClause(n)
		m.Body = list
		return m
	case *ast.CommClause:
		m := astcopy.CommClause(n)
		m.Body = list
		return m
	}
	return nil
}

// lockCall returns the receiver text of a statement mu.Lock() (or RLock,
// Unlock, RUnlock: the method names given), or "".
func lockCall(s ast.Stmt, methods ...string) string {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return ""
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !slices.Contains(methods, sel.Sel.Name) {
		return ""
	}
	return types.ExprString(sel.X)
}

// deferredUnlock returns the receiver text of defer mu.Unlock() (or
// RUnlock), or "".
func deferredUnlock(s ast.Stmt) string {
	d, ok := s.(*ast.DeferStmt)
	if !ok {
		return ""
	}
	return lockCall(&ast.ExprStmt{X: d.Call}, "Unlock", "RUnlock")
}

// movable reports whether a statement of a critical section can move out
// of it: a simple statement (an assignment other than :=, ++ or --, a
// call, a send), not one that declares, returns or branches.
func movable(s ast.Stmt) bool {
	switch n := s.(type) {
	case *ast.AssignStmt:
		return n.Tok != token.DEFINE
	case *ast.IncDecStmt, *ast.SendStmt:
		return true
	case *ast.ExprStmt:
		return lockCall(n, "Lock", "RLock", "Unlock", "RUnlock") == ""
	}
	return false
}

// usesDeclared reports whether s uses a name that one of before declares
// (moving s above them would not compile).
func usesDeclared(p *Pass, s ast.Stmt, before []ast.Stmt) bool {
	declared := map[types.Object]bool{}
	for _, b := range before {
		ast.Inspect(b, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && p.Info.Defs[id] != nil {
				declared[p.Info.Defs[id]] = true
			}
			return true
		})
	}
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && declared[p.Info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

// moved returns list with the statement at from placed at to (an index of
// the list without it).
func moved(list []ast.Stmt, from, to int) []ast.Stmt {
	s := list[from]
	rest := slices.Delete(slices.Clone(list), from, from+1)
	return slices.Insert(rest, to, s)
}

// unlockEarly: a statement between mu.Lock() and mu.Unlock() of one
// statement list moves after the Unlock; under defer mu.Unlock() (right
// after the Lock), it moves before the Lock. Either way it runs outside
// the critical section: a race only -race or a concurrent test shows.
// The mutant's span is the statements that change places.
func unlockEarly(p *Pass, node ast.Node) []Rewrite {
	list, ok := stmtList(node)
	if !ok {
		return nil
	}
	var out []Rewrite
	for i, s := range list {
		mu := lockCall(s, "Lock", "RLock")
		if mu == "" {
			continue
		}
		if i+1 < len(list) && deferredUnlock(list[i+1]) == mu {
			for k := i + 2; k < len(list); k++ {
				if movable(list[k]) && !usesDeclared(p, list[k], list[i+2:k]) {
					out = append(out, Rewrite{Node: node, New: withList(node, moved(list, k, i)), SpanStart: s.Pos(), SpanEnd: list[k].End()})
				}
			}
			continue
		}
		for j := i + 1; j < len(list); j++ {
			if lockCall(list[j], "Unlock", "RUnlock") != mu {
				continue
			}
			for k := i + 1; k < j; k++ {
				if movable(list[k]) {
					out = append(out, Rewrite{Node: node, New: withList(node, moved(list, k, j)), SpanStart: list[k].Pos(), SpanEnd: list[j].End()})
				}
			}
			break
		}
	}
	return out
}

// guardClause reports whether s is if cond { return ... } (no else).
func guardClause(s ast.Stmt) (*ast.IfStmt, bool) {
	n, ok := s.(*ast.IfStmt)
	if !ok || n.Else != nil || len(n.Body.List) != 1 {
		return nil, false
	}
	_, ret := n.Body.List[0].(*ast.ReturnStmt)
	return n, ret
}

// guardSwap: two adjacent guard clauses (if c { return ... }) swap
// places, so that on an input both catch the other one answers. Not made
// where the two return the same text (only a panicking condition could
// tell), test one value against two different constants (disjoint: no
// input meets both), or where the first is the error check of the call
// before it (errorCheck).
func guardSwap(p *Pass, node ast.Node) []Rewrite {
	list, ok := stmtList(node)
	if !ok {
		return nil
	}
	var out []Rewrite
	for k := 0; k+1 < len(list); k++ {
		a, ok1 := guardClause(list[k])
		b, ok2 := guardClause(list[k+1])
		if !ok1 || !ok2 || returnText(a) == returnText(b) || disjoint(p, a.Cond, b.Cond) || errorCheck(p, a) {
			continue
		}
		swapped := slices.Clone(list)
		swapped[k], swapped[k+1] = list[k+1], list[k]
		out = append(out, Rewrite{Node: node, New: withList(node, swapped), SpanStart: a.Pos(), SpanEnd: b.End()})
	}
	return out
}

// errorCheck reports whether s is if err != nil { return ... } without
// an init statement: the check of the call before it, whose other results
// the guard after it reads and which Go's convention makes meaningless
// beside a non-nil error (discardedResults' rule).
func errorCheck(p *Pass, s *ast.IfStmt) bool {
	b, ok := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if s.Init != nil || !ok || b.Op != token.NEQ || !p.Info.Types[b.Y].IsNil() {
		return false
	}
	t := p.Info.TypeOf(b.X)
	return t != nil && types.Identical(t, types.Universe.Lookup("error").Type())
}

func returnText(s *ast.IfStmt) string {
	var parts []string
	for _, r := range s.Body.List[0].(*ast.ReturnStmt).Results {
		parts = append(parts, types.ExprString(r))
	}
	return strings.Join(parts, ", ")
}

// disjoint reports whether two conditions are v == c1 and v == c2 with
// the same v and different constants.
func disjoint(p *Pass, a, b ast.Expr) bool {
	x, ok1 := ast.Unparen(a).(*ast.BinaryExpr)
	y, ok2 := ast.Unparen(b).(*ast.BinaryExpr)
	if !ok1 || !ok2 || x.Op != token.EQL || y.Op != token.EQL || types.ExprString(x.X) != types.ExprString(y.X) {
		return false
	}
	cx, cy := p.Info.Types[x.Y].Value, p.Info.Types[y.Y].Value
	return cx != nil && cy != nil && !constant.Compare(cx, token.EQL, cy)
}

// featureWords mark a name as a CPU feature check (lowercased substrings).
var featureWords = []string{"avx", "sse", "neon", "fma", "f16c", "bmi", "popcnt", "simd", "accel", "sve", "vnni", "amx", "cpuhas", "hascpu"}

// featureCheck reports whether e is a bool whose name says it is a CPU
// feature check: an identifier, a selector (cpu.X86.HasAVX2) or a call of
// one (hasAVX2()).
func featureCheck(p *Pass, e ast.Expr) bool {
	if basicInfo(p.Info.TypeOf(e))&types.IsBoolean == 0 {
		return false
	}
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 0 {
		e = call.Fun
	}
	var name string
	switch x := e.(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.SelectorExpr:
		name = x.Sel.Name
	default:
		return false
	}
	name = strings.ToLower(name)
	return slices.ContainsFunc(featureWords, func(w string) bool { return strings.Contains(name, w) })
}

// installs reports whether a block assigns a function value: a variable,
// field or element of func type (a decoder table's entry).
func installs(p *Pass, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if t := p.Info.TypeOf(l); t != nil {
					_, fn := t.Underlying().(*types.Signature)
					found = found || fn
				}
			}
		}
		return !found
	})
	return found
}

// conjuncts returns the operands of a chain of && (e itself when none).
func conjuncts(e ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LAND {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ast.Expr{e}
}

// skipFeatureCheck: the install path of accelerated code runs without its
// CPU check. Two shapes: an if whose condition is, or has as a conjunct,
// a feature check (featureCheck) and whose body installs function values
// (if hasAVX2 { decode = decodeAVX2 }: the check becomes true); and a
// feature check passed as the argument of a package function that
// installs under that parameter (setAccel(cpuHasAVX2) with
// func setAccel(on bool) { ... if on { c.fast = ... } }: the argument
// becomes true).
func skipFeatureCheck(p *Pass, node ast.Node) []Rewrite {
	switch n := node.(type) {
	case *ast.IfStmt:
		if !installs(p, n.Body) {
			return nil
		}
		var out []Rewrite
		for _, c := range conjuncts(n.Cond) {
			if featureCheck(p, c) {
				out = append(out, Rewrite{Node: c, New: &ast.Ident{NamePos: c.Pos(), Name: "true"}})
			}
		}
		return out
	case *ast.CallExpr:
		var out []Rewrite
		for i, a := range n.Args {
			if featureCheck(p, a) && installsUnder(p, n, i) {
				out = append(out, Rewrite{Node: a, New: &ast.Ident{NamePos: a.Pos(), Name: "true"}})
			}
		}
		return out
	}
	return nil
}

// installsUnder reports whether the callee of call, a function of the
// package, installs function values under an if on its i-th parameter
// (or a conjunct of it).
func installsUnder(p *Pass, call *ast.CallExpr, i int) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	fn, ok := p.Info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != p.Pkg {
		return false
	}
	decl := funcDecl(p, fn)
	if decl == nil || decl.Body == nil {
		return false
	}
	param := paramAt(p, decl, i)
	if param == nil {
		return false
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if ifs, ok := n.(*ast.IfStmt); ok && !found && installs(p, ifs.Body) {
			for _, c := range conjuncts(ifs.Cond) {
				if id, ok := ast.Unparen(c).(*ast.Ident); ok && p.Info.Uses[id] == param {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// funcDecl finds the declaration of a package function among the
// package's files.
func funcDecl(p *Pass, fn *types.Func) *ast.FuncDecl {
	files := p.Files
	if files == nil {
		files = []*ast.File{p.File}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && p.Info.Defs[fd.Name] == fn {
				return fd
			}
		}
	}
	return nil
}

// paramAt returns the object of a declaration's i-th parameter (nil for
// none, or for a variadic or unnamed one).
func paramAt(p *Pass, decl *ast.FuncDecl, i int) types.Object {
	k := 0
	for _, field := range decl.Type.Params.List {
		if _, variadic := field.Type.(*ast.Ellipsis); variadic {
			return nil
		}
		for _, name := range field.Names {
			if k == i {
				return p.Info.Defs[name]
			}
			k++
		}
	}
	return nil
}
