package operator

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-toolsmith/astcopy"

	"gathermut/mutate/catalog"
	"gathermut/mutate/goasm"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
)

// ErrEmptyDiff is returned by Resolve when an entry's rewrite changes
// nothing.
var ErrEmptyDiff = errors.New("the rewrite changes nothing (empty diff)")

// Resolve turns a catalog entry into its mutant. It fails when the target
// does not exist, matches more than once, or the rewrite changes nothing,
// or when an expected killer is not of the form pkgpath.TestName. Go
// mutants are type-checked like generic ones (Unbuildable, with the error
// in the Note); kernel-text mutants are not (their build decides).
func Resolve(prog *load.Program, e catalog.Entry) (mutant.Mutant, error) {
	ms, errs := ResolveAll(prog, []catalog.Entry{e})
	return ms[0], errs[0]
}

// ResolveAll resolves every entry (as Resolve does), type-checking the
// mutants together; errs[i] is entry i's error.
func ResolveAll(prog *load.Program, entries []catalog.Entry) (ms []mutant.Mutant, errs []error) {
	ms = make([]mutant.Mutant, len(entries))
	errs = make([]error, len(entries))
	cands := make([]*candidate, len(entries))
	var check []*candidate
	for i, e := range entries {
		m, c, err := resolve(prog, e)
		if err != nil {
			errs[i] = fmt.Errorf("catalog entry %q: %w", e.ID, err)
			continue
		}
		if c != nil {
			cands[i] = c
			check = append(check, c)
			continue
		}
		ms[i] = m
	}
	checkAll(prog, check, 1, nil)
	for i, e := range entries {
		if errs[i] != nil {
			continue
		}
		if c := cands[i]; c != nil {
			ms[i] = c.m
			if ms[i].Replacement == "" && e.Replacement != "" {
				ms[i].Replacement = e.Replacement
			}
		}
		entry := e
		ms[i].ID = e.ID
		ms[i].Operator = string(e.Operator)
		ms[i].Catalog = &entry
		killers, err := mutant.ParseTestIDs(e.Killers)
		if err != nil {
			errs[i] = fmt.Errorf("catalog entry %q: expected killer: %w", e.ID, err)
			continue
		}
		ms[i].Expected = killers
	}
	return ms, errs
}

// resolve finds the entry's one place: a Go entry gives a candidate to
// type-check, a kernel entry its mutant.
func resolve(prog *load.Program, e catalog.Entry) (mutant.Mutant, *candidate, error) {
	if e.ID == "" {
		return mutant.Mutant{}, nil, errors.New("empty id")
	}
	if e.Operator == catalog.KernelText {
		m, err := resolveKernel(prog, e)
		return m, nil, err
	}
	if e.Operator == catalog.AsmText {
		m, err := resolveAsm(prog, e)
		return m, nil, err
	}
	pkg, ok := prog.Package(e.Target.Package)
	if !ok {
		return mutant.Mutant{}, nil, fmt.Errorf("package %q is not loaded (not in the module, or not a target)", e.Target.Package)
	}
	if e.Target.Func == "" {
		return mutant.Mutant{}, nil, errors.New("Target.Func is empty")
	}
	finder, err := finderOf(e)
	if err != nil {
		return mutant.Mutant{}, nil, err
	}
	matches, scopes, err := findMatches(prog, pkg, e, finder)
	if err != nil {
		return mutant.Mutant{}, nil, err
	}
	where := fmt.Sprintf("%s in package %s", e.Target.Func, e.Target.Package)
	if e.Target.File != "" {
		where += " (file " + e.Target.File + ")"
	}
	switch {
	case scopes == 0:
		return mutant.Mutant{}, nil, fmt.Errorf("no function, method, var or const %s", where)
	case len(matches) == 0:
		return mutant.Mutant{}, nil, fmt.Errorf("%s %q not found in %s", e.Operator, e.Target.Match, where)
	case len(matches) > 1:
		var at []string
		for _, mt := range matches {
			p := prog.Fset.Position(mt.rw.Node.Pos())
			at = append(at, fmt.Sprintf("%s:%d:%d", mt.fm.file.Rel, p.Line, p.Column))
		}
		return mutant.Mutant{}, nil, fmt.Errorf("%s %q is ambiguous in %s: %d matches (%s)", e.Operator, e.Target.Match, where, len(matches), strings.Join(at, ", "))
	}
	mt := matches[0]
	c, changed, err := mt.fm.build(string(e.Operator), mt.rw, mt.stack)
	if err != nil {
		return mutant.Mutant{}, nil, err
	}
	if !changed {
		return mutant.Mutant{}, nil, ErrEmptyDiff
	}
	return mutant.Mutant{}, c, nil
}

// finderOf is the search a catalog operator makes in one scope.
func finderOf(e catalog.Entry) (func(*scope) ([]Rewrite, error), error) {
	switch e.Operator {
	case catalog.DeleteCall:
		return func(s *scope) ([]Rewrite, error) { return s.deleteCall(e.Target.Match) }, nil
	case catalog.DeleteElement:
		return func(s *scope) ([]Rewrite, error) { return s.deleteElement(e.Target.Match) }, nil
	case catalog.ReplaceValue:
		return func(s *scope) ([]Rewrite, error) { return s.replaceValue(e.Target, e.Replacement) }, nil
	case catalog.ReplaceExpr:
		return func(s *scope) ([]Rewrite, error) { return s.replaceExpr(e.Target.Match, e.Replacement) }, nil
	}
	return nil, fmt.Errorf("unknown operator %q", e.Operator)
}

// match is one place a catalog entry's target matches.
type match struct {
	fm    *fileMutator
	rw    Rewrite
	stack []ast.Node
}

// findMatches runs the finder in every scope named Target.Func (in
// Target.File when set); it returns the matches and how many scopes
// there were.
func findMatches(prog *load.Program, pkg *load.Package, e catalog.Entry, finder func(*scope) ([]Rewrite, error)) ([]match, int, error) {
	var matches []match
	scopes := 0
	for _, file := range pkg.Files {
		if e.Target.File != "" && file.Rel != e.Target.File {
			continue
		}
		fm := newFileMutator(prog, pkg, file)
		for _, s := range findScopes(fm, e.Target.Func) {
			scopes++
			rws, err := finder(s)
			if err != nil {
				return nil, 0, fmt.Errorf("%s in %s: %w", e.Target.Func, file.Rel, err)
			}
			for _, rw := range rws {
				matches = append(matches, match{fm, rw, s.stackOf(rw.Node)})
			}
		}
	}
	return matches, scopes, nil
}

// scope is one declaration a catalog Func names: a function body or a
// package-level var/const value.
type scope struct {
	fm    *fileMutator
	root  ast.Node   // the body, or the spec's value expression
	outer []ast.Node // ancestors of root
	spec  *ast.ValueSpec
	index int // value index in spec
}

func findScopes(fm *fileMutator, name string) []*scope {
	var out []*scope
	for _, decl := range fm.file.Syntax.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Body != nil && DeclName(d) == name {
				out = append(out, &scope{fm: fm, root: d.Body, outer: []ast.Node{fm.file.Syntax, d}})
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR && d.Tok != token.CONST {
				continue
			}
			for _, spec := range d.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if id.Name != name {
						continue
					}
					s := &scope{fm: fm, outer: []ast.Node{fm.file.Syntax, d, vs}, spec: vs, index: i}
					if i < len(vs.Values) {
						s.root = vs.Values[i]
					}
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// walk visits every node under the scope's root with its ancestors.
func (s *scope) walk(visit func(n ast.Node, stack []ast.Node)) {
	if s.root == nil {
		return
	}
	stack := append([]ast.Node{}, s.outer...)
	ast.Inspect(s.root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		visit(n, stack)
		stack = append(stack, n)
		return true
	})
}

func (s *scope) stackOf(target ast.Node) []ast.Node {
	var found []ast.Node
	s.walk(func(n ast.Node, stack []ast.Node) {
		if n == target && found == nil {
			found = append([]ast.Node{}, stack...)
		}
	})
	if found == nil {
		return s.outer
	}
	return found
}

func (s *scope) info() *types.Info { return s.fm.pkg.Info }

// normalize prints an expression the way go/format would.
func normalize(src string) (string, error) {
	fset := token.NewFileSet()
	e, err := parser.ParseExprFrom(fset, "match", src, 0)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", src, err)
	}
	return exprSource(fset, e), nil
}

func exprSource(fset *token.FileSet, e ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, e); err != nil {
		return ""
	}
	return buf.String()
}

func (s *scope) source(n ast.Node) string { return exprSource(s.fm.prog.Fset, n) }

func (s *scope) deleteCall(match string) ([]Rewrite, error) {
	want, err := normalize(match)
	if err != nil {
		return nil, err
	}
	var out []Rewrite
	var firstErr error
	s.walk(func(n ast.Node, stack []ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok || (s.source(call.Fun) != want && s.source(call) != want) {
			return
		}
		rw, err := s.callRemoval(call, stack)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		out = append(out, rw)
	})
	return out, firstErr
}

// callRemoval deletes the statement holding call when it is a statement of
// its own, or replaces the call by the zero values of its results.
func (s *scope) callRemoval(call *ast.CallExpr, stack []ast.Node) (Rewrite, error) {
	parent := stack[len(stack)-1]
	var grand ast.Node
	if len(stack) > 1 {
		grand = stack[len(stack)-2]
	}
	inList := func() bool {
		switch grand.(type) {
		case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
			return true
		}
		return false
	}
	switch p := parent.(type) {
	case *ast.ExprStmt, *ast.DeferStmt, *ast.GoStmt:
		if inList() {
			return Rewrite{Node: p}, nil
		}
	}
	zeros, err := s.zeroResults(call)
	if err != nil {
		return Rewrite{Node: call}, err
	}
	if len(zeros) == 1 {
		return Rewrite{Node: call, New: zeros[0]}, nil
	}
	switch p := parent.(type) {
	case *ast.AssignStmt:
		if len(p.Rhs) == 1 {
			m := astcopy.AssignStmt(p)
			m.Rhs = zeros
			return Rewrite{Node: p, New: m, SpanStart: call.Pos(), SpanEnd: call.End()}, nil
		}
	case *ast.ValueSpec:
		if len(p.Values) == 1 {
			m := astcopy.ValueSpec(p)
			m.Values = zeros
			return Rewrite{Node: p, New: m, SpanStart: call.Pos(), SpanEnd: call.End()}, nil
		}
	case *ast.ReturnStmt:
		if len(p.Results) == 1 {
			m := astcopy.ReturnStmt(p)
			m.Results = zeros
			return Rewrite{Node: p, New: m, SpanStart: call.Pos(), SpanEnd: call.End()}, nil
		}
	}
	return Rewrite{Node: call}, fmt.Errorf("cannot delete the %d-result call %s here", len(zeros), s.source(call))
}

func (s *scope) zeroResults(call *ast.CallExpr) ([]ast.Expr, error) {
	t := s.info().TypeOf(call)
	if t == nil {
		return nil, fmt.Errorf("no type for %s", s.source(call))
	}
	var results []types.Type
	if tuple, ok := t.(*types.Tuple); ok {
		for i := 0; i < tuple.Len(); i++ {
			results = append(results, tuple.At(i).Type())
		}
	} else {
		results = []types.Type{t}
	}
	var zeros []ast.Expr
	for _, rt := range results {
		// typed, so "n, err := ..." keeps its types
		z := TypedZero(rt, s.fm.pkg.Types, s.fm.file.Syntax)
		if z == nil {
			return nil, fmt.Errorf("cannot write the zero value of %s in %s", rt, s.fm.file.Rel)
		}
		setPos(z, call.Pos())
		zeros = append(zeros, z)
	}
	return zeros, nil
}

func (s *scope) keyedElements(match string) ([]*ast.CompositeLit, []ast.Expr, error) {
	want, err := normalize(match)
	if err != nil {
		return nil, nil, err
	}
	var lits []*ast.CompositeLit
	var elts []ast.Expr
	s.walk(func(n ast.Node, _ []ast.Node) {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return
		}
		for _, el := range cl.Elts {
			key := el
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				key = kv.Key
			}
			if s.source(key) == want {
				lits = append(lits, cl)
				elts = append(elts, el)
			}
		}
	})
	return lits, elts, nil
}

func (s *scope) deleteElement(match string) ([]Rewrite, error) {
	_, elts, err := s.keyedElements(match)
	if err != nil {
		return nil, err
	}
	var out []Rewrite
	for _, el := range elts {
		out = append(out, Rewrite{Node: el})
	}
	return out, nil
}

func (s *scope) replaceValue(t catalog.Target, replacement string) ([]Rewrite, error) {
	repl, err := parser.ParseExpr(replacement)
	if err != nil {
		return nil, fmt.Errorf("replacement: %w", err)
	}
	if t.Match == "" {
		if s.spec == nil {
			return nil, errors.New("replace-value with an empty Match needs a package-level var or const")
		}
		if s.root == nil {
			return nil, fmt.Errorf("%s has no initializer to replace", t.Func)
		}
		setPos(repl, s.root.Pos())
		return []Rewrite{{Node: s.root, New: repl}}, nil
	}
	_, elts, err := s.keyedElements(t.Match)
	if err != nil {
		return nil, err
	}
	var out []Rewrite
	for _, el := range elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return nil, fmt.Errorf("element %q has no key", t.Match)
		}
		value := kv.Value
		if t.Field != "" {
			fv, err := fieldValue(kv.Value, t.Field)
			if err != nil {
				return nil, fmt.Errorf("element %q: %w", t.Match, err)
			}
			value = fv
		}
		r := astcopy.Expr(repl)
		setPos(r, value.Pos())
		out = append(out, Rewrite{Node: value, New: r})
	}
	return out, nil
}

// fieldValue finds the value of a keyed field in a composite literal (or a
// pointer to one).
func fieldValue(e ast.Expr, field string) (ast.Expr, error) {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("value is not a composite literal, so it has no field %s", field)
	}
	for _, el := range cl.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == field {
				return kv.Value, nil
			}
		}
	}
	return nil, fmt.Errorf("field %s is not set in the literal", field)
}

func (s *scope) replaceExpr(match, replacement string) ([]Rewrite, error) {
	want, err := normalize(match)
	if err != nil {
		return nil, err
	}
	repl, err := parser.ParseExpr(replacement)
	if err != nil {
		return nil, fmt.Errorf("replacement: %w", err)
	}
	var out []Rewrite
	s.walk(func(n ast.Node, _ []ast.Node) {
		e, ok := n.(ast.Expr)
		if !ok {
			return
		}
		if _, isKV := e.(*ast.KeyValueExpr); isKV {
			return
		}
		if s.source(e) == want {
			r := astcopy.Expr(repl)
			setPos(r, e.Pos())
			out = append(out, Rewrite{Node: e, New: r})
		}
	})
	return out, nil
}

func resolveKernel(prog *load.Program, e catalog.Entry) (mutant.Mutant, error) {
	if e.Target.File == "" {
		return mutant.Mutant{}, errors.New("kernel-text needs Target.File")
	}
	if e.Target.Match == "" {
		return mutant.Mutant{}, errors.New("kernel-text needs Target.Match")
	}
	path := filepath.Join(prog.Root, filepath.FromSlash(e.Target.File))
	src, err := os.ReadFile(path)
	if err != nil {
		return mutant.Mutant{}, err
	}
	text := string(src)
	switch n := strings.Count(text, e.Target.Match); n {
	case 0:
		return mutant.Mutant{}, fmt.Errorf("%q not found in %s", e.Target.Match, e.Target.File)
	case 1:
	default:
		return mutant.Mutant{}, fmt.Errorf("%q is ambiguous in %s: %d occurrences", e.Target.Match, e.Target.File, n)
	}
	off := strings.Index(text, e.Target.Match)
	if e.Replacement == e.Target.Match {
		return mutant.Mutant{}, ErrEmptyDiff
	}
	edit := mutant.Edit{Start: off, End: off + len(e.Target.Match), Text: e.Replacement}
	return mutant.Mutant{
		Kind:        mutant.Kernel,
		Package:     e.Target.Package,
		File:        e.Target.File,
		Func:        e.Target.Func,
		Pos:         offsetPos(text, off),
		End:         offsetPos(text, off+len(e.Target.Match)),
		InBody:      true,
		Original:    e.Target.Match,
		Replacement: e.Replacement,
		Edit:        &edit,
		ResultHash:  resultHash(src, edit),
		Diff:        mutant.EditDiff(e.Target.File, src, edit),
	}, nil
}

func offsetPos(text string, off int) mutant.Position {
	line := strings.Count(text[:off], "\n") + 1
	col := off - strings.LastIndex(text[:off], "\n")
	return mutant.Position{Line: line, Column: col}
}

// resolveAsm resolves an asm-text entry: the one occurrence of its match in
// an assembly file of its package, a Go mutant switched with its routine
// (package goasm) like the generic assembly mutants.
func resolveAsm(prog *load.Program, e catalog.Entry) (mutant.Mutant, error) {
	pkg, ok := prog.Package(e.Target.Package)
	if !ok {
		return mutant.Mutant{}, fmt.Errorf("package %q is not loaded (not in the module, or not a target)", e.Target.Package)
	}
	var file *load.File
	for _, f := range pkg.Asm {
		if f.Rel == e.Target.File {
			file = f
		}
	}
	if file == nil {
		return mutant.Mutant{}, fmt.Errorf("%s is not an assembly file that package %s builds here", e.Target.File, e.Target.Package)
	}
	text := string(file.Src)
	switch n := strings.Count(text, e.Target.Match); {
	case e.Target.Match == "":
		return mutant.Mutant{}, errors.New("asm-text needs Target.Match")
	case n == 0:
		return mutant.Mutant{}, fmt.Errorf("%q not found in %s", e.Target.Match, e.Target.File)
	case n > 1:
		return mutant.Mutant{}, fmt.Errorf("%q is ambiguous in %s: %d occurrences", e.Target.Match, e.Target.File, n)
	}
	if e.Replacement == e.Target.Match {
		return mutant.Mutant{}, ErrEmptyDiff
	}
	off := strings.Index(text, e.Target.Match)
	edit := mutant.Edit{Start: off, End: off + len(e.Target.Match), Text: e.Replacement}
	f, err := goasm.Parse(file.Src)
	if err != nil {
		return mutant.Mutant{}, fmt.Errorf("%s: %w", e.Target.File, err)
	}
	am, err := f.MutantAt("asm-text", edit.Start, edit.Start, edit.Text)
	if err != nil || am.Routine == "" {
		return mutant.Mutant{}, fmt.Errorf("%s: the match does not start in a routine's instruction", e.Target.File)
	}
	r := f.RoutineOf(am.Instr)
	if r == nil || edit.End > r.End {
		return mutant.Mutant{}, fmt.Errorf("%s: the match runs past routine %s", e.Target.File, am.Routine)
	}
	return mutant.Mutant{
		Kind:        mutant.Go,
		Package:     e.Target.Package,
		File:        e.Target.File,
		Func:        strings.TrimPrefix(am.Routine, "·"),
		Pos:         offsetPos(text, off),
		End:         offsetPos(text, edit.End),
		InBody:      true,
		BodyStart:   offsetPos(text, r.Start),
		BodyEnd:     offsetPos(text, r.End),
		Original:    e.Target.Match,
		Replacement: e.Replacement,
		Edit:        &edit,
		ResultHash:  resultHash(file.Src, edit),
		Diff:        mutant.EditDiff(e.Target.File, file.Src, edit),
		Schema:      &mutant.Site{Kind: mutant.AsmSite, Start: edit.Start, End: edit.End, Text: edit.Text, Name: am.Routine, Probe: -1},
	}, nil
}
