package operator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
)

// Config selects what Generate produces.
type Config struct {
	Packages    []string              // import paths of the packages to mutate; empty: every target
	Files       func(rel string) bool // module-relative files to mutate; nil: all
	Operators   []*Operator           // generic operators to run (SelectOperators); nil: the default set
	Equivalents []catalog.Equivalent  // declared equivalent mutants (become Ignored)
	Workers     int                   // type-checking goroutines; 0: one
	Progress    func(done, total int) // called as mutants are checked (from one goroutine at a time)
	Stats       *Stats                // when set, counts what //gathermut:ignore took out
}

// Generate applies every selected generic operator to every non-test,
// non-generated file of the program's target packages. Each mutant is
// type-checked in process; one that does not type-check is Unbuildable,
// with the error in its Note. Mutants with the same file and resulting
// source are produced once. The result is sorted by id.
func Generate(prog *load.Program, cfg Config) ([]mutant.Mutant, error) {
	ops := cfg.Operators
	if ops == nil {
		ops = defaultOperators()
	}
	for _, eq := range cfg.Equivalents {
		if err := checkEquivalent(eq); err != nil {
			return nil, err
		}
	}
	var cands []*candidate
	for _, pkg := range prog.Targets {
		if len(cfg.Packages) > 0 && !slices.Contains(cfg.Packages, pkg.Path) {
			continue
		}
		for _, file := range pkg.Files {
			if file.Generated || (cfg.Files != nil && !cfg.Files(file.Rel)) {
				continue
			}
			sup, err := parseSuppressions(prog.Fset, file)
			if err != nil {
				return nil, err
			}
			ig, err := parseIgnores(prog.Fset, file)
			if err != nil {
				return nil, err
			}
			if cfg.Stats != nil {
				cfg.Stats.count(ig)
			}
			if ig.file != "" {
				continue
			}
			fm := newFileMutator(prog, pkg, file)
			fm.ignored = ig.nodes
			cs, err := fm.generic(ops)
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				if reason, ok := sup.match(c.m); ok {
					c.m.Decide(mutant.Equivalent, reason)
				} else if reason, ok := matchEquivalent(cfg.Equivalents, c.m, fm.file.Src, c.m.Edit.Start); ok {
					c.m.Decide(mutant.Equivalent, reason)
				}
			}
			cands = append(cands, cs...)
		}
	}
	checkAll(prog, cands, cfg.Workers, cfg.Progress)
	var out []mutant.Mutant
	ids := map[string]bool{}
	for _, c := range cands {
		m := c.m
		if ids[m.ID] {
			m.ID = mutant.MakeID(m.Operator, m.File, m.Pos, m.Replacement+"\x00"+m.ResultHash)
		}
		ids[m.ID] = true
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// defaultOperators is the default set: every operator not marked OptIn.
func defaultOperators() []*Operator {
	var ops []*Operator
	for _, op := range Operators {
		if !op.OptIn {
			ops = append(ops, op)
		}
	}
	return ops
}

// fileMutator turns rewrites of one file into mutants.
type fileMutator struct {
	prog *load.Program
	pkg  *load.Package
	file *load.File
	tf   *token.File
	// ignored are the declarations //gathermut:ignore takes out
	ignored map[ast.Node]string
}

func newFileMutator(prog *load.Program, pkg *load.Package, file *load.File) *fileMutator {
	return &fileMutator{prog: prog, pkg: pkg, file: file, tf: prog.Fset.File(file.Syntax.Pos())}
}

// candidate is a mutant before its type check, with what the check needs.
type candidate struct {
	m     mutant.Mutant
	fm    *fileMutator
	decl  *ast.FuncDecl // the top-level function whose body holds the edit; nil at package level
	stack []ast.Node
	rw    Rewrite
}

func (fm *fileMutator) generic(ops []*Operator) ([]*candidate, error) {
	var out []*candidate
	seen := map[string]bool{}
	var stack []ast.Node
	var firstErr error
	pass := &Pass{Info: fm.pkg.Info, File: fm.file.Syntax, Files: packageSyntax(fm.pkg), Pkg: fm.pkg.Types}
	discarded := map[ast.Node]bool{}
	ast.Inspect(fm.file.Syntax, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if _, isImport := n.(*ast.ImportSpec); isImport {
			return false
		}
		if _, out := fm.ignored[n]; out {
			return false
		}
		if discarded[n] {
			return false // a result no caller may look at (discardedResults)
		}
		if ret, ok := n.(*ast.ReturnStmt); ok {
			for _, r := range discardedResults(fm.pkg.Info, pass.Files, stack, ret) {
				discarded[r] = true
			}
		}
		pass.Stack = stack
		for _, op := range ops {
			for _, rw := range op.Mutate(pass, n) {
				st := stack
				if rw.Node != n {
					st = append(stack[:len(stack):len(stack)], n) // the rewrite is of a child of n
				}
				c, ok, err := fm.build(op.Name, rw, st)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if !ok || seen[c.m.ResultHash] {
					continue
				}
				seen[c.m.ResultHash] = true
				out = append(out, c)
			}
		}
		stack = append(stack, n)
		return true
	})
	return out, firstErr
}

// build makes the mutant of one rewrite; ok is false when the rewrite
// changes nothing. The mutant is not type-checked yet.
func (fm *fileMutator) build(opName string, rw Rewrite, stack []ast.Node) (*candidate, bool, error) {
	if rw.New != nil && nodeString(fm.prog.Fset, rw.New) == nodeString(fm.prog.Fset, rw.Node) {
		return nil, false, nil // the same code, perhaps spaced differently
	}
	edit, err := fm.edit(rw)
	if err != nil {
		return nil, false, err
	}
	if edit.Start == edit.End && edit.Text == "" {
		return nil, false, nil
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
		Replacement: fm.replacement(rw),
		Edit:        &edit,
		ResultHash:  fm.semanticHash(stack, edit),
		Diff:        mutant.EditDiff(fm.file.Rel, fm.file.Src, edit),
	}
	c := &candidate{fm: fm, stack: append([]ast.Node(nil), stack...), rw: rw}
	if body := enclosingBody(stack, rw.Node); body != nil {
		bs, be := fm.prog.Fset.Position(body.Pos()), fm.prog.Fset.Position(body.End())
		m.InBody = true
		m.BodyStart = mutant.Position{Line: bs.Line, Column: bs.Column}
		m.BodyEnd = mutant.Position{Line: be.Line, Column: be.Column}
		if len(stack) > 1 {
			if fd, ok := stack[1].(*ast.FuncDecl); ok && fd.Body != nil && fd.Body.Pos() <= rw.Node.Pos() && rw.Node.End() <= fd.Body.End() {
				c.decl = fd
			}
		}
	}
	m.ID = mutant.MakeID(m.Operator, m.File, m.Pos, m.Replacement)
	m.Schema = schema.Classify(schema.Input{
		TF:        fm.tf,
		Src:       fm.file.Src,
		Info:      fm.pkg.Info,
		Facts:     factsOf(fm.prog, fm.pkg),
		Stack:     stack,
		Node:      rw.Node,
		Deleted:   rw.New == nil,
		Edit:      edit,
		Spell:     func(t types.Type) string { return schema.Spell(t, fm.pkg.Types, fm.file.Syntax) },
		Imprecise: fm.pkg.Cgo && fm.pkg.CgoTypes == nil,
	})
	if rw.Equivalent != "" {
		m.Decide(mutant.Equivalent, rw.Equivalent)
	}
	c.m = m
	return c, true, nil
}

var (
	factsMu sync.Mutex
	facts   = map[*load.Package]*schema.Facts{}
)

// internalTests returns the source of the package's internal test files
// (package p, not p_test), which can use its unexported names.
func internalTests(pkg *load.Package) []byte {
	var out []byte
	names, _ := filepath.Glob(filepath.Join(pkg.Dir, "*_test.go"))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, data, parser.PackageClauseOnly)
		if err == nil && f.Name.Name == pkg.Name {
			out = append(out, data...)
		}
	}
	return out
}

// factsOf returns the schema facts of a loaded package, made once.
func factsOf(prog *load.Program, pkg *load.Package) *schema.Facts {
	factsMu.Lock()
	defer factsMu.Unlock()
	f := facts[pkg]
	if f == nil {
		var files []*ast.File
		var rels []string
		var srcs [][]byte
		for _, file := range pkg.Files {
			files = append(files, file.Syntax)
			rels = append(rels, file.Rel)
			srcs = append(srcs, file.Src)
		}
		f = schema.NewFacts(prog.Fset, pkg.Types, files, srcs, rels, pkg.Info, internalTests(pkg))
		facts[pkg] = f
	}
	return f
}

// semanticHash identifies the program a mutant makes: the tokens of the
// mutated top-level declaration (spacing and comments aside), with the
// file and the declaration's place. Two rewrites that differ only in
// layout (emptying an if body, removing its one statement) hash alike.
func (fm *fileMutator) semanticHash(stack []ast.Node, e mutant.Edit) string {
	start, end := 0, len(fm.file.Src)
	if len(stack) > 1 {
		start, end = fm.tf.Offset(stack[1].Pos()), fm.tf.Offset(stack[1].End())
	}
	if e.Start < start || e.End > end {
		start, end = 0, len(fm.file.Src)
	}
	text := make([]byte, 0, end-start-(e.End-e.Start)+len(e.Text))
	text = append(text, fm.file.Src[start:e.Start]...)
	text = append(text, e.Text...)
	text = append(text, fm.file.Src[e.End:end]...)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00", fm.file.Rel, start, end)
	var sc scanner.Scanner
	fset := token.NewFileSet()
	sc.Init(fset.AddFile("", -1, len(text)), text, func(token.Position, string) {}, 0)
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON {
			lit = ""
		}
		fmt.Fprintf(h, "%d %s\x00", tok, lit)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// resultHash hashes the mutated file without building it.
func resultHash(src []byte, e mutant.Edit) string {
	h := sha256.New()
	h.Write(src[:e.Start])
	h.Write([]byte(e.Text))
	h.Write(src[e.End:])
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// replacement is the text a mutant's report shows in place of its span:
// a reordered statement list's statements in their new order, else
// replacementText's.
func (fm *fileMutator) replacement(rw Rewrite) string {
	if e, ok := fm.reorder(rw); ok {
		return e.Text
	}
	return replacementText(fm.prog.Fset, rw)
}

// reorder makes the edit of a rewrite that only reorders a statement list
// (New holds the original statements, in another order: unlock-early,
// guard-swap): the statements from the first that moved to the last keep
// their own source text, and the text between two places (line breaks,
// indentation, comments) stays where it was. ok is false for any other
// rewrite.
func (fm *fileMutator) reorder(rw Rewrite) (mutant.Edit, bool) {
	if rw.New == nil {
		return mutant.Edit{}, false
	}
	old, ok1 := stmtList(rw.Node)
	moved, ok2 := stmtList(rw.New)
	if !ok1 || !ok2 || len(old) != len(moved) || len(old) == 0 {
		return mutant.Edit{}, false
	}
	lo, hi := -1, -1
	for i := range old {
		if !slices.Contains(old, moved[i]) {
			return mutant.Edit{}, false // a new statement: not a reordering
		}
		if old[i] != moved[i] {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return mutant.Edit{}, false
	}
	src, off := fm.file.Src, fm.tf.Offset
	var b strings.Builder
	for i := lo; i <= hi; i++ {
		b.Write(src[off(moved[i].Pos()):off(moved[i].End())])
		if i < hi {
			b.Write(src[off(old[i].End()):off(old[i+1].Pos())])
		}
	}
	return mutant.Edit{Start: off(old[lo].Pos()), End: off(old[hi].End()), Text: b.String()}, true
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

// edit turns a rewrite into a byte-range change of the file on disk: the
// rewritten node is printed in place (indented as the line it starts on)
// and the change trimmed to the bytes that differ; a deleted statement
// alone on its line takes the line with it.
func (fm *fileMutator) edit(rw Rewrite) (mutant.Edit, error) {
	src := fm.file.Src
	if e, ok := fm.reorder(rw); ok {
		return e.Minimize(src), nil
	}
	start, end := fm.tf.Offset(rw.Node.Pos()), fm.tf.Offset(rw.Node.End())
	if rw.New == nil {
		if _, isStmt := rw.Node.(ast.Stmt); !isStmt {
			// an element of a comma-separated list (a composite literal's):
			// the comma after it goes too, or the one before it when it is
			// the last element
			j := end
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && src[j] == ',' {
				end = j + 1
			} else {
				k := start
				for k > 0 && (src[k-1] == ' ' || src[k-1] == '\t' || src[k-1] == '\n' || src[k-1] == '\r') {
					k--
				}
				if k > 0 && src[k-1] == ',' {
					start = k - 1
				}
			}
		}
		ls := start
		for ls > 0 && (src[ls-1] == ' ' || src[ls-1] == '\t') {
			ls--
		}
		le := end
		for le < len(src) && (src[le] == ' ' || src[le] == '\t' || src[le] == '\r') {
			le++
		}
		if (ls == 0 || src[ls-1] == '\n') && le < len(src) && src[le] == '\n' {
			return mutant.Edit{Start: ls, End: le + 1}, nil
		}
		return mutant.Edit{Start: start, End: end}, nil
	}
	ls := start
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	indent := 0
	for ls+indent < start && src[ls+indent] == '\t' {
		indent++
	}
	var buf bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8, Indent: indent}
	if err := cfg.Fprint(&buf, fm.prog.Fset, rw.New); err != nil {
		return mutant.Edit{}, fmt.Errorf("operator: %s: print mutant: %w", fm.file.Rel, err)
	}
	text := strings.TrimLeft(buf.String(), "\t")
	return mutant.Edit{Start: start, End: end, Text: text}.Minimize(src), nil
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

// matchEquivalent returns the reason of the first of eqs that matches m,
// whose mutation starts at byte offset start of src.
func matchEquivalent(eqs []catalog.Equivalent, m mutant.Mutant, src []byte, start int) (string, bool) {
	for _, eq := range eqs {
		if eq.Package == m.Package &&
			(eq.Line == "" || strings.Contains(lineAt(src, start), eq.Line)) &&
			(eq.Func == "" || eq.Func == m.Func) &&
			(eq.Operator == "" || namesOperator(eq.Operator, m.Operator)) &&
			(eq.Original == "" || eq.Original == m.Original) &&
			(eq.Replacement == "" || eq.Replacement == m.Replacement) {
			return eq.Reason, true
		}
	}
	return "", false
}

// packageSyntax returns the syntax of a package's files.
func packageSyntax(pkg *load.Package) []*ast.File {
	out := make([]*ast.File, len(pkg.Files))
	for i, f := range pkg.Files {
		out[i] = f.Syntax
	}
	return out
}

// lineAt is the line of src that holds byte offset off, without its
// newline ("" when off is outside src).
func lineAt(src []byte, off int) string {
	if off < 0 || off > len(src) {
		return ""
	}
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		return string(src[start:])
	}
	return string(src[start : off+end])
}
