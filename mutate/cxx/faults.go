package cxx

import (
	"math"
	"strconv"
	"strings"
)

// The kernel's fault operators (issue 36), the twins of package
// operator's of the same names: neg-form, recip-div and guard-swap.
// Without types, a value is floating-point only where the function shows
// it (floatExpr); fuse-product has no kernel twin (the sources write no
// __fmul_rn-style product, and the builds turn contraction off with
// -ffp-contract=off and -fmad=false), nor have unlock-early and
// skip-feature-check (device code takes no locks and checks no CPU).

// floatTypes are the type names whose variables floatExpr counts.
var floatTypes = map[string]bool{"float": true, "half": true, "__half": true, "GmFloat": true}

// floatNames returns the names the function declares with a float type,
// and those it declares as pointers to one (whose elements are floats):
// a parameter or variable whose declarator directly follows the type
// (float d, const float* y).
func (g *gen) floatNames() (vals, ptrs map[string]bool) {
	if g.floats != nil {
		return g.floats, g.floatPtrs
	}
	g.floats, g.floatPtrs = map[string]bool{}, map[string]bool{}
	toks := g.src.Toks
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].Start < g.fn.ParamsStart || toks[i].Start > g.fn.Close || toks[i].Kind != Ident || toks[i+1].Text == "(" {
			continue
		}
		switch {
		case floatTypes[toks[i-1].Text]:
			g.floats[toks[i].Text] = true
		case toks[i-1].Text == "*" && i > 1 && floatTypes[toks[i-2].Text]:
			g.floatPtrs[toks[i].Text] = true
		}
	}
	return g.floats, g.floatPtrs
}

// isFloatLiteral reports whether a number token is a floating literal
// (1.5f, 2e3, 0.5), not an integer.
func isFloatLiteral(text string) bool {
	if _, err := ParseInt(text); err == nil {
		return false
	}
	_, err := strconv.ParseFloat(strings.TrimRight(strings.ReplaceAll(text, "'", ""), "fFlL"), 64)
	return err == nil
}

// floatExpr reports whether the function shows e to be floating-point: a
// float literal, a name declared float, an element of a float pointer, a
// cast to float, or arithmetic, negation or parentheses over one.
func (g *gen) floatExpr(e *Expr) bool {
	if e == nil {
		return false
	}
	vals, ptrs := g.floatNames()
	name := func(x *Expr) string {
		if x.Kind == NameExpr && x.First == x.Last {
			return g.src.Toks[x.First].Text
		}
		return ""
	}
	switch e.Kind {
	case LitExpr:
		return e.First == e.Last && g.src.Toks[e.First].Kind == Number && isFloatLiteral(g.src.Toks[e.First].Text)
	case NameExpr:
		return vals[name(e)]
	case IndexExpr:
		return ptrs[name(e.X)]
	case CastExpr:
		return floatTypes[g.src.Toks[e.First+1].Text]
	case ParenExpr:
		return g.floatExpr(e.X)
	case UnaryExpr:
		return e.Op == "-" && g.floatExpr(e.X)
	case BinaryExpr:
		return strings.Contains("+-*/", e.Op) && len(e.Op) == 1 && (g.floatExpr(e.X) || g.floatExpr(e.Y))
	}
	return false
}

// constantExpr reports whether e is a literal, through parentheses and
// signs (its rewrites fold to the same constant).
func constantExpr(e *Expr) bool {
	for e.Kind == ParenExpr || e.Kind == UnaryExpr {
		e = e.X
	}
	return e.Kind == LitExpr
}

// negForm: -x -> (0 - x) on a float x (not a literal). -1 * x is not
// made: compilers fold it into -x.
func (g *gen) negForm(e *Expr) {
	if e.Op != "-" || !g.on("neg-form") || constantExpr(e) || !g.floatExpr(e.X) {
		return
	}
	ss, se := g.span(e.First, e.Last)
	xs, xe := g.span(e.X.First, e.X.Last)
	g.add("neg-form", ExprSite, ss, se, ss, se, "(0 - "+g.src.text(xs, xe)+")", e.Const)
}

// recipDiv: x / n -> (x * (1.0f / n)) on floats, not where n is a literal
// power of two (an exact reciprocal: the same value) nor where x is the
// literal 1 (1 * (1 / n) is 1 / n).
func (g *gen) recipDiv(e *Expr) {
	if e.Op != "/" || !g.on("recip-div") || !g.floatExpr(e) || constantExpr(e.X) && constantExpr(e.Y) || g.unitLiteral(e.X) {
		return
	}
	if y := e.Y; y.Kind == LitExpr && y.First == y.Last {
		text := strings.TrimRight(g.src.Toks[y.First].Text, "fFlLuU")
		if v, err := strconv.ParseFloat(text, 64); err == nil && v != 0 {
			if frac, _ := math.Frexp(math.Abs(v)); frac == 0.5 {
				return
			}
		}
	}
	ss, se := g.span(e.First, e.Last)
	xs, xe := g.span(e.X.First, e.X.Last)
	ys, ye := g.span(e.Y.First, e.Y.Last)
	g.add("recip-div", ExprSite, ss, se, ss, se, "("+g.src.text(xs, xe)+" * (1.0f / "+g.src.text(ys, ye)+"))", e.Const)
}

// unitLiteral reports whether e is a literal 1 (1, 1.0f, 1.f).
func (g *gen) unitLiteral(e *Expr) bool {
	if e.Kind != LitExpr || e.First != e.Last {
		return false
	}
	v, err := strconv.ParseFloat(strings.TrimRight(g.src.Toks[e.First].Text, "fFlLuU"), 64)
	return err == nil && v == 1
}

// guardOf returns the return statement of a guard clause if (c) return
// ...; (or { return ...; }) without else, or nil.
func guardOf(s *Stmt) *Stmt {
	if s.Kind != IfStmt || s.Else != nil || s.Constexpr {
		return nil
	}
	b := s.Body
	if b.Kind == BlockStmt && len(b.List) == 1 {
		b = b.List[0]
	}
	if b.Kind != ReturnStmt {
		return nil
	}
	return b
}

// guardSwap: two adjacent guard clauses of a block swap places. Not made
// where they return the same text, or test one value against two
// different literals or capitalized constants (disjoint). The site of
// every swap in a run of adjacent guards is the whole run, so that the
// sites of two overlapping pairs nest instead of crossing.
func (g *gen) guardSwap(block *Stmt) {
	if !g.on("guard-swap") {
		return
	}
	list := block.List
	for first := 0; first < len(list); {
		last := first
		for last+1 < len(list) && guardOf(list[first]) != nil && guardOf(list[last+1]) != nil {
			last++
		}
		rs, re := g.span(list[first].First, list[last].Last)
		for k := first; k < last; k++ {
			a, b := list[k], list[k+1]
			if g.stmtText(guardOf(a)) == g.stmtText(guardOf(b)) || g.disjoint(a.Cond, b.Cond) {
				continue
			}
			as, ae := g.span(a.First, a.Last)
			bs, be := g.span(b.First, b.Last)
			text := g.src.text(bs, be) + g.src.text(ae, bs) + g.src.text(as, ae)
			g.add("guard-swap", StmtSite, rs, re, as, be, text, false)
		}
		first = last + 1
	}
}

func (g *gen) stmtText(s *Stmt) string {
	ss, se := g.span(s.First, s.Last)
	return g.src.text(ss, se)
}

// disjoint reports whether two conditions are v == c1 and v == c2 with
// the same v and different constants (literals or capitalized names).
func (g *gen) disjoint(a, b *Expr) bool {
	for a.Kind == ParenExpr {
		a = a.X
	}
	for b.Kind == ParenExpr {
		b = b.X
	}
	if a.Kind != BinaryExpr || b.Kind != BinaryExpr || a.Op != "==" || b.Op != "==" {
		return false
	}
	text := func(e *Expr) string { s, t := g.span(e.First, e.Last); return g.src.text(s, t) }
	constant := func(e *Expr) bool {
		if e.Kind == LitExpr {
			return true
		}
		t := text(e)
		return e.Kind == NameExpr && t == strings.ToUpper(t)
	}
	return text(a.X) == text(b.X) && constant(a.Y) && constant(b.Y) && text(a.Y) != text(b.Y)
}
