package operator

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-toolsmith/astcopy"
	"golang.org/x/tools/go/ast/astutil"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// Config selects what Generate produces.
type Config struct {
	Packages    []string             // import paths of the packages to mutate; empty: every target
	Operators   []string             // generic operators to run, by name; empty: all
	Equivalents []catalog.Equivalent // declared equivalent mutants (become Ignored)
}

// Generate applies every selected generic operator to every non-test,
// non-generated file of the program's target packages. Each mutant is
// type-checked in process; one that does not type-check carries the error in
// Unviable. Mutants with the same file and resulting source are produced
// once. The result is sorted by id.
func Generate(prog *load.Program, cfg Config) ([]mutant.Mutant, error) {
	ops, err := selectOperators(cfg.Operators)
	if err != nil {
		return nil, err
	}
	for _, eq := range cfg.Equivalents {
		if err := checkEquivalent(eq); err != nil {
			return nil, err
		}
	}
	var out []mutant.Mutant
	ids := map[string]bool{}
	for _, pkg := range prog.Targets {
		if len(cfg.Packages) > 0 && !slices.Contains(cfg.Packages, pkg.Path) {
			continue
		}
		for _, file := range pkg.Files {
			if file.Generated {
				continue
			}
			sup, err := parseSuppressions(prog.Fset, file)
			if err != nil {
				return nil, err
			}
			fm := newFileMutator(prog, pkg, file)
			ms, err := fm.generic(ops)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if reason, ok := sup.match(m); ok {
					m.Equivalent = reason
				} else if reason, ok := matchEquivalent(cfg.Equivalents, m); ok {
					m.Equivalent = reason
				}
				if ids[m.ID] {
					m.ID = mutant.MakeID(m.Operator, m.File, m.Pos, m.Replacement+"\x00"+string(m.Source))
				}
				ids[m.ID] = true
				out = append(out, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func selectOperators(names []string) ([]*Operator, error) {
	if len(names) == 0 {
		return Operators, nil
	}
	var ops []*Operator
	for _, name := range names {
		op, ok := OperatorByName(name)
		if !ok {
			return nil, fmt.Errorf("operator: unknown operator %q", name)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// fileMutator applies rewrites to clones of one file.
type fileMutator struct {
	prog      *load.Program
	pkg       *load.Package
	file      *load.File
	canonical []byte           // the original file as go/format prints it
	index     map[ast.Node]int // preorder index of every node of the original
	others    []*ast.File      // the package's other files
}

func newFileMutator(prog *load.Program, pkg *load.Package, file *load.File) *fileMutator {
	fm := &fileMutator{prog: prog, pkg: pkg, file: file, index: map[ast.Node]int{}}
	var buf bytes.Buffer
	if err := format.Node(&buf, prog.Fset, file.Syntax); err == nil {
		fm.canonical = buf.Bytes()
	} else {
		fm.canonical = file.Src
	}
	i := 0
	ast.Inspect(file.Syntax, func(n ast.Node) bool {
		if n != nil {
			fm.index[n] = i
			i++
		}
		return true
	})
	for _, f := range pkg.Files {
		if f != file {
			fm.others = append(fm.others, f.Syntax)
		}
	}
	return fm
}

func (fm *fileMutator) generic(ops []*Operator) ([]mutant.Mutant, error) {
	var out []mutant.Mutant
	seen := map[string]bool{}
	var stack []ast.Node
	var firstErr error
	pass := &Pass{Info: fm.pkg.Info, File: fm.file.Syntax, Pkg: fm.pkg.Types}
	ast.Inspect(fm.file.Syntax, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if _, isImport := n.(*ast.ImportSpec); isImport {
			return false
		}
		pass.Stack = stack
		for _, op := range ops {
			for _, rw := range op.Mutate(pass, n) {
				m, ok, err := fm.build(op.Name, rw, stack)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if !ok || seen[string(m.Source)] {
					continue
				}
				seen[string(m.Source)] = true
				out = append(out, m)
			}
		}
		stack = append(stack, n)
		return true
	})
	return out, firstErr
}

// build applies one rewrite to a clone and makes the mutant; ok is false
// when the rewrite changes nothing.
func (fm *fileMutator) build(opName string, rw Rewrite, stack []ast.Node) (mutant.Mutant, bool, error) {
	src, err := fm.apply(rw)
	if err != nil {
		return mutant.Mutant{}, false, err
	}
	if bytes.Equal(src, fm.canonical) {
		return mutant.Mutant{}, false, nil
	}
	start, end := rw.SpanStart, rw.SpanEnd
	if !start.IsValid() {
		start, end = rw.Node.Pos(), rw.Node.End()
	}
	pos, endPos := fm.prog.Fset.Position(start), fm.prog.Fset.Position(end)
	m := mutant.Mutant{
		Operator:    opName,
		Kind:        mutant.Go,
		Package:     fm.pkg.Path,
		File:        fm.file.Rel,
		Func:        FuncName(stack, rw.Node),
		Pos:         mutant.Position{Line: pos.Line, Column: pos.Column},
		End:         mutant.Position{Line: endPos.Line, Column: endPos.Column},
		Original:    string(fm.file.Src[pos.Offset:endPos.Offset]),
		Replacement: replacementText(fm.prog.Fset, rw),
		Source:      src,
		Diff:        mutant.Diff(fm.file.Rel, fm.canonical, src),
	}
	if body := enclosingBody(stack, rw.Node); body != nil {
		bs, be := fm.prog.Fset.Position(body.Pos()), fm.prog.Fset.Position(body.End())
		m.InBody = true
		m.BodyStart = mutant.Position{Line: bs.Line, Column: bs.Column}
		m.BodyEnd = mutant.Position{Line: be.Line, Column: be.Column}
	}
	m.ID = mutant.MakeID(m.Operator, m.File, m.Pos, m.Replacement)
	m.Unviable = fm.typeCheck(src)
	return m, true, nil
}

func replacementText(fset *token.FileSet, rw Rewrite) string {
	if rw.New == nil {
		return ""
	}
	if !rw.SpanStart.IsValid() {
		return nodeString(fset, rw.New)
	}
	// The rewrite replaced a larger node than the reported span: show the
	// expressions placed at the span (zero-return's result, delete-call's
	// zero values).
	var list []ast.Expr
	switch n := rw.New.(type) {
	case *ast.ReturnStmt:
		list = n.Results
	case *ast.AssignStmt:
		list = n.Rhs
	case *ast.ValueSpec:
		list = n.Values
	}
	var parts []string
	for _, e := range list {
		if e.Pos() == rw.SpanStart {
			parts = append(parts, nodeString(fset, e))
		}
	}
	return strings.Join(parts, ", ")
}

// nodeString prints a node as go/format would (positions come from the
// original file, so its line breaks and spacing are kept).
func nodeString(fset *token.FileSet, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, n); err != nil {
		if e, ok := n.(ast.Expr); ok {
			return types.ExprString(e)
		}
		return fmt.Sprintf("%T", n)
	}
	return buf.String()
}

// apply replaces (or deletes) the clone's copy of rw.Node and prints the
// clone with go/format.
func (fm *fileMutator) apply(rw Rewrite) ([]byte, error) {
	idx, ok := fm.index[rw.Node]
	if !ok {
		return nil, fmt.Errorf("operator: %s: rewrite target is not a node of the file", fm.file.Rel)
	}
	clone := astcopy.File(fm.file.Syntax)
	var target ast.Node
	i := 0
	ast.Inspect(clone, func(n ast.Node) bool {
		if n == nil || target != nil {
			return false
		}
		if i == idx {
			target = n
			return false
		}
		i++
		return true
	})
	if target == nil {
		return nil, fmt.Errorf("operator: %s: clone does not match the original", fm.file.Rel)
	}
	var applyErr error
	done := false
	astutil.Apply(clone, func(c *astutil.Cursor) bool {
		if done {
			return false
		}
		if c.Node() != target {
			return true
		}
		done = true
		if rw.New == nil {
			if c.Index() < 0 {
				applyErr = fmt.Errorf("operator: %s: cannot delete %T outside a list", fm.file.Rel, target)
				return false
			}
			c.Delete()
		} else {
			c.Replace(rw.New)
		}
		return false
	}, nil)
	if applyErr != nil {
		return nil, applyErr
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fm.prog.Fset, clone); err != nil {
		return nil, fmt.Errorf("operator: %s: print mutant: %w", fm.file.Rel, err)
	}
	return buf.Bytes(), nil
}

// typeCheck parses the mutated source and type-checks it with the package's
// other files; it returns the first error, or "".
func (fm *fileMutator) typeCheck(src []byte) string {
	f, err := parser.ParseFile(fm.prog.Fset, fm.file.Path, src, parser.SkipObjectResolution)
	if err == nil {
		files := append(append([]*ast.File{}, fm.others...), f)
		_, err = load.Check(fm.pkg.Path, fm.prog.Fset, files, fm.pkg.Imports, fm.pkg.Cgo, nil)
	}
	if err != nil {
		return strings.ReplaceAll(err.Error(), fm.prog.Root+string(filepath.Separator), "")
	}
	return ""
}

// FuncName names the declaration enclosing node the way catalog targets do:
// "Name", "(*T).Name", "T.Name", or the first name of a package-level
// var/const/type spec.
func FuncName(stack []ast.Node, node ast.Node) string {
	all := append(append([]ast.Node{}, stack...), node)
	for _, n := range all {
		switch d := n.(type) {
		case *ast.FuncDecl:
			return DeclName(d)
		case *ast.ValueSpec:
			if len(d.Names) > 0 {
				return d.Names[0].Name
			}
		case *ast.TypeSpec:
			return d.Name.Name
		}
	}
	return ""
}

// DeclName is a function declaration's catalog name.
func DeclName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	recv := d.Recv.List[0].Type
	star := false
	if s, ok := recv.(*ast.StarExpr); ok {
		star, recv = true, s.X
	}
	switch r := recv.(type) {
	case *ast.IndexExpr:
		recv = r.X
	case *ast.IndexListExpr:
		recv = r.X
	}
	name := types.ExprString(recv)
	if star {
		return "(*" + name + ")." + d.Name.Name
	}
	return name + "." + d.Name.Name
}

// enclosingBody returns the innermost function body (of a declaration or a
// literal) that contains node, or nil at package level.
func enclosingBody(stack []ast.Node, node ast.Node) *ast.BlockStmt {
	all := append(append([]ast.Node{}, stack...), node)
	var body *ast.BlockStmt
	for i, n := range all {
		var b *ast.BlockStmt
		switch f := n.(type) {
		case *ast.FuncDecl:
			b = f.Body
		case *ast.FuncLit:
			b = f.Body
		}
		if b != nil && i+1 < len(all) && all[i+1] == b {
			body = b
		}
	}
	return body
}

func checkEquivalent(eq catalog.Equivalent) error {
	if eq.Package == "" {
		return fmt.Errorf("operator: equivalent %+v: Package is required", eq)
	}
	if strings.TrimSpace(eq.Reason) == "" {
		return fmt.Errorf("operator: equivalent in %s (func %q, operator %q): Reason is required", eq.Package, eq.Func, eq.Operator)
	}
	return nil
}

func matchEquivalent(eqs []catalog.Equivalent, m mutant.Mutant) (string, bool) {
	for _, eq := range eqs {
		if eq.Package == m.Package &&
			(eq.Func == "" || eq.Func == m.Func) &&
			(eq.Operator == "" || eq.Operator == m.Operator) &&
			(eq.Original == "" || eq.Original == m.Original) &&
			(eq.Replacement == "" || eq.Replacement == m.Replacement) {
			return eq.Reason, true
		}
	}
	return "", false
}
