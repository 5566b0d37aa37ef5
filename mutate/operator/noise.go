package operator

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"runtime"
)

// TableSize is the number of elements from which a composite literal is a
// table: const-int leaves its integer literals to the opt-in const-table
// operator. Measured (see the package doc): in the three foreign modules
// and this repository every const-int survivor in a composite literal sat
// in one of 16 or more elements, and every mutant in a smaller one was
// killed.
const TableSize = 16

// tableOf returns the composite literal with at least TableSize elements
// of which the integer literal (the node after the stack) is an element,
// a key, or part of one (-1, 1<<4, (2)); nil when there is none.
func tableOf(p *Pass, lit ast.Node) *ast.CompositeLit {
	child := lit
	for i := len(p.Stack) - 1; i >= 0; i-- {
		switch a := p.Stack[i].(type) {
		case *ast.ParenExpr, *ast.UnaryExpr, *ast.BinaryExpr:
			child = a
			continue
		case *ast.KeyValueExpr:
			child = a
			continue
		case *ast.CompositeLit:
			for _, e := range a.Elts {
				if e == child {
					if len(a.Elts) >= TableSize {
						return a
					}
					return nil
				}
			}
		}
		return nil
	}
	return nil
}

// fitsLiteral reports whether an integer literal changed to v can still
// stand where it is: false only when the literal's own type (a sized
// integer type, not an untyped constant) cannot represent v (with the
// literal's unary minus, if any), which would not compile.
func fitsLiteral(p *Pass, lit *ast.BasicLit, v uint64) bool {
	// the value the literal stands for: itself, or under parentheses and
	// a unary sign (-128), whose type is the one the value must fit
	var value ast.Node = lit
	val := constant.MakeUint64(v)
up:
	for parent := p.Parent(); parent != nil; parent = parentOf(p, parent) {
		switch u := parent.(type) {
		case *ast.ParenExpr:
			value = u
			continue
		case *ast.UnaryExpr:
			if u.Op == token.SUB {
				val = constant.UnaryOp(token.SUB, val, 0)
			} else if u.Op != token.ADD {
				return true
			}
			value = u
			continue
		case *ast.BinaryExpr:
			return true // part of a constant expression: only the whole must fit
		}
		break up
	}
	tv, ok := p.Info.Types[value.(ast.Expr)]
	if !ok || tv.Type == nil {
		return true
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 || b.Info()&types.IsUntyped != 0 {
		return true
	}
	lo, hi := intBounds(b)
	return constant.Compare(val, token.GEQ, lo) && constant.Compare(val, token.LEQ, hi)
}

// parentOf returns the ancestor above n on the pass's stack, nil at the top.
func parentOf(p *Pass, n ast.Node) ast.Node {
	for i := len(p.Stack) - 1; i > 0; i-- {
		if p.Stack[i] == n {
			return p.Stack[i-1]
		}
	}
	return nil
}

var sizes = types.SizesFor("gc", runtime.GOARCH)

// intBounds returns the smallest and largest value of an integer type.
func intBounds(b *types.Basic) (lo, hi constant.Value) {
	bits := uint(8 * sizes.Sizeof(b))
	one := constant.MakeInt64(1)
	if b.Info()&types.IsUnsigned != 0 {
		return constant.MakeInt64(0), constant.BinaryOp(constant.Shift(one, token.SHL, bits), token.SUB, one)
	}
	half := constant.Shift(one, token.SHL, bits-1)
	return constant.UnaryOp(token.SUB, half, 0), constant.BinaryOp(half, token.SUB, one)
}
