package operator

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"gathermut/mutate/load"
)

// IgnorePrefix starts a directive that takes a whole declaration out of
// generic mutation:
//
//	//gathermut:ignore <reason>
//
// in the doc comment of a func, of a var, const or type declaration (a
// parenthesised block, or one spec of it), or on the line of a spec. In
// the file's doc comment (above the package clause) it takes out the whole
// file. No generic mutant is made inside; catalog entries still resolve
// there. The reason is required; a directive anywhere else is an error.
const IgnorePrefix = "//gathermut:ignore"

// ignores are the parts of one file a //gathermut:ignore takes out.
type ignores struct {
	file  string              // the reason, when the whole file is out
	nodes map[ast.Node]string // declarations and specs that are out
}

// isIgnoreDirective reports whether c is a //gathermut:ignore comment (not
// another directive sharing the prefix) and returns its reason.
func isIgnoreDirective(c *ast.Comment) (reason string, ok bool) {
	rest, found := strings.CutPrefix(c.Text, IgnorePrefix)
	if !found || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// parseIgnores finds a file's //gathermut:ignore directives and what each
// applies to.
func parseIgnores(fset *token.FileSet, f *load.File) (ignores, error) {
	ig := ignores{nodes: map[ast.Node]string{}}
	owner := map[*ast.CommentGroup]ast.Node{}
	if f.Syntax.Doc != nil {
		owner[f.Syntax.Doc] = f.Syntax
	}
	for _, d := range f.Syntax.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				owner[d.Doc] = d
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				owner[d.Doc] = d
			}
			for _, s := range d.Specs {
				var doc, line *ast.CommentGroup
				switch s := s.(type) {
				case *ast.ValueSpec:
					doc, line = s.Doc, s.Comment
				case *ast.TypeSpec:
					doc, line = s.Doc, s.Comment
				}
				for _, g := range []*ast.CommentGroup{doc, line} {
					if g != nil {
						owner[g] = s
					}
				}
			}
		}
	}
	for _, group := range f.Syntax.Comments {
		for _, c := range group.List {
			reason, ok := isIgnoreDirective(c)
			if !ok {
				continue
			}
			line := fset.Position(c.Pos()).Line
			if reason == "" {
				return ig, fmt.Errorf("%s:%d: %s needs a reason (why this code is not worth mutating)", f.Rel, line, IgnorePrefix)
			}
			n, ok := owner[group]
			if !ok {
				return ig, fmt.Errorf("%s:%d: %s must be in the doc comment of a func, var, const or type declaration (or of the package clause, for the whole file)", f.Rel, line, IgnorePrefix)
			}
			if n == ast.Node(f.Syntax) {
				ig.file = reason
			} else {
				ig.nodes[n] = reason
			}
		}
	}
	return ig, nil
}

// Stats counts what //gathermut:ignore took out of a Generate call.
type Stats struct {
	IgnoredFiles int // files whose doc comment holds the directive
	IgnoredDecls int // declarations and specs
}

func (s *Stats) count(ig ignores) {
	if ig.file != "" {
		s.IgnoredFiles++
		return
	}
	s.IgnoredDecls += len(ig.nodes)
}
