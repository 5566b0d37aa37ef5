package operator

import "fmt"

// SelectOperators returns the generic operators a run uses: with no names,
// the default set (every operator not marked OptIn); otherwise the named
// ones, where "default" stands for the default set and "all" for every
// operator. An unknown name is an error.
func SelectOperators(names []string) ([]*Operator, error) {
	if len(names) == 0 {
		names = []string{"default"}
	}
	var ops []*Operator
	seen := map[string]bool{}
	add := func(op *Operator) {
		if !seen[op.Name] {
			seen[op.Name] = true
			ops = append(ops, op)
		}
	}
	for _, name := range names {
		switch name {
		case "all":
			for _, op := range Operators {
				add(op)
			}
		case "default":
			for _, op := range defaultOperators() {
				add(op)
			}
		default:
			op, ok := OperatorByName(name)
			if !ok {
				return nil, fmt.Errorf("unknown operator %q (mutate operators lists them; \"default\" and \"all\" name sets)", name)
			}
			add(op)
		}
	}
	return ops, nil
}

// GoOperatorNames returns the Go operators among names for Generate: nil
// (the default set) for no names; names of assembly or kernel operators
// only (package goasm's and cxx's) are left out, so one --operators list
// serves every language; a name no language knows is an error. An empty,
// non-nil result means no Go operator was named.
func GoOperatorNames(names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := []string{}
	for _, n := range names {
		_, isGo := OperatorByName(n)
		switch {
		case isGo || n == "default" || n == "all":
			out = append(out, n)
		case isAsmOperator(n) || isKernelOperator(n):
		default:
			return nil, fmt.Errorf("unknown operator %q (mutate operators lists them; \"default\" and \"all\" name sets)", n)
		}
	}
	return out, nil
}
