package operator

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// SuppressionPrefix starts a comment that marks the generic mutants on its
// line, or on the line below when the comment stands alone on its line, as
// equivalent:
//
//	//gathermut:equivalent <reason>
//	//gathermut:equivalent(boundary,negate) <reason>
//
// The optional parenthesised list limits it to those operators. The reason
// is required.
const SuppressionPrefix = "//gathermut:equivalent"

type suppression struct {
	line      int // the line the suppression applies to
	operators []string
	reason    string
}

type suppressions []suppression

func (s suppressions) match(m mutant.Mutant) (string, bool) {
	for _, sup := range s {
		if sup.line == m.Pos.Line && (len(sup.operators) == 0 || slices.ContainsFunc(sup.operators, func(name string) bool { return namesOperator(name, m.Operator) })) {
			return sup.reason, true
		}
	}
	return "", false
}

// CheckSuppressions validates every suppression comment and
// //gathermut:ignore directive of the program's target files.
func CheckSuppressions(prog *load.Program) error {
	for _, pkg := range prog.Targets {
		for _, f := range pkg.Files {
			if _, err := parseSuppressions(prog.Fset, f); err != nil {
				return err
			}
			if _, err := parseIgnores(prog.Fset, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func parseSuppressions(fset *token.FileSet, f *load.File) (suppressions, error) {
	var out suppressions
	for _, group := range f.Syntax.Comments {
		for _, c := range group.List {
			if !strings.HasPrefix(c.Text, SuppressionPrefix) {
				continue
			}
			pos := fset.Position(c.Pos())
			rest := c.Text[len(SuppressionPrefix):]
			var ops []string
			if strings.HasPrefix(rest, "(") {
				list, after, ok := strings.Cut(rest[1:], ")")
				if !ok {
					return nil, fmt.Errorf("%s:%d: %s: missing ')' after the operator list", f.Rel, pos.Line, SuppressionPrefix)
				}
				for _, name := range strings.Split(list, ",") {
					name = strings.TrimSpace(name)
					if _, known := OperatorByName(name); !known {
						return nil, fmt.Errorf("%s:%d: %s: unknown operator %q", f.Rel, pos.Line, SuppressionPrefix, name)
					}
					ops = append(ops, name)
				}
				rest = after
			} else if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
				continue // another directive that shares the prefix
			}
			reason := strings.TrimSpace(rest)
			if reason == "" {
				return nil, fmt.Errorf("%s:%d: %s needs a reason (why the mutant cannot change behaviour)", f.Rel, pos.Line, SuppressionPrefix)
			}
			line := pos.Line
			if standsAlone(f.Src, pos.Offset) {
				line++
			}
			out = append(out, suppression{line: line, operators: ops, reason: reason})
		}
	}
	return out, nil
}

// standsAlone reports whether only blanks precede offset on its line.
func standsAlone(src []byte, offset int) bool {
	for i := offset - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return false
		}
	}
	return true
}

// namesOperator reports whether an operator name in a suppression or a
// catalog Equivalent covers a mutant of operator op: its own name, and
// const-int also its split-off parts const-table and const-tune, so that
// a suppression written for const-int keeps covering the same literals.
func namesOperator(name, op string) bool {
	return name == op || (name == "const-int" && (op == "const-table" || op == "const-tune"))
}
