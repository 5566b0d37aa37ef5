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

// Arguments whose callee treats a whole range of values alike, so that
// n±1 within the range is the same call (facts from the functions' Go
// documentation): a negative count or precision means "no limit" or
// "as few digits as needed", and ParseFloat parses as float64 for every
// bitSize but 32.
var (
	// negativeAlike: callee (types.Func.FullName) -> argument index
	negativeAlike = map[string]int{
		"strings.Replace": 3, "strings.SplitN": 2, "strings.SplitAfterN": 2,
		"bytes.Replace": 3, "bytes.SplitN": 2, "bytes.SplitAfterN": 2,
		"strconv.FormatFloat": 2, "strconv.AppendFloat": 2,
		"(*math/big.Float).Text": 1, "(*math/big.Float).Append": 2,
		"(*regexp.Regexp).FindAll": 1, "(*regexp.Regexp).FindAllIndex": 1,
		"(*regexp.Regexp).FindAllString": 1, "(*regexp.Regexp).FindAllStringIndex": 1,
		"(*regexp.Regexp).FindAllSubmatch": 1, "(*regexp.Regexp).FindAllSubmatchIndex": 1,
		"(*regexp.Regexp).FindAllStringSubmatch": 1, "(*regexp.Regexp).FindAllStringSubmatchIndex": 1,
		"(*regexp.Regexp).Split": 1,
	}
	// float64Alike: callee -> the bitSize argument, where every value but
	// 32 means float64
	float64Alike = map[string]int{"strconv.ParseFloat": 1}
)

// sameCall reports whether changing the integer literal lit (the node
// after the pass's stack) from its value to v, both with the sign of a
// unary minus over it, leaves a call the same by its callee's contract
// (negativeAlike, float64Alike).
func sameCall(p *Pass, lit *ast.BasicLit, old, v uint64) bool {
	var arg ast.Node = lit
	negative := false
	i := len(p.Stack) - 1
	for ; i >= 0; i-- {
		switch u := p.Stack[i].(type) {
		case *ast.ParenExpr:
			arg = u
			continue
		case *ast.UnaryExpr:
			if u.Op == token.SUB && !negative {
				negative = true
				arg = u
				continue
			}
		}
		break
	}
	if i < 0 {
		return false
	}
	call, ok := p.Stack[i].(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := calleeFunc(p.Info, call)
	if fn == nil {
		return false
	}
	index := -1
	for k, a := range call.Args {
		if a == arg {
			index = k
		}
	}
	if index < 0 {
		return false
	}
	if k, ok := negativeAlike[fn.FullName()]; ok && k == index {
		return negative && old > 0 && v > 0 // -old and -v are both negative
	}
	if k, ok := float64Alike[fn.FullName()]; ok && k == index {
		return !negative && old != 32 && v != 32
	}
	return false
}

// calleeFunc returns the function or method a call calls, nil for a
// builtin, a conversion or a function value.
func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}
