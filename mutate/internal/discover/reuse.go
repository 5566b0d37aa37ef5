package discover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/internal/cache"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/tree"
)

// A discovery after a change inside function bodies, or to comments,
// tests or formatting. The discovery cache is keyed by the exact tree, so
// any change makes it miss; yet a package's mutants depend on its own
// code and on the declarations (not the function bodies) of what it
// imports, and not at all on test files. A whole discovery is therefore
// also recorded under a second key, the tree's shape (shapeKey): every
// non-test Go file by its tokens with the function bodies left out (with
// its //go: and build lines; a file that imports "C", and the catalog's
// package, by all their bytes), go.mod, go.sum and the other non-source
// files as they are; test files, testdata, assembly and kernel sources
// left out. When the exact key misses and the shape key hits a stored
// discovery, the mutants of the packages none of whose files changed are
// kept, and only the changed packages are loaded and their files' mutants
// made again: every Go file of a package with a changed Go file (a
// function's body decides which functions read a constant, so every
// file's mutants may change), a changed assembly file, every kernel
// source when one changed, with the catalog entries that target them. A
// kept mutant whose schema data points into a file made again goes with
// it, and so does one with schema data that can point into other files
// (a constant's uses, a variable's readers) whenever a Go file outside
// its package changed: a new use elsewhere would be missing from it. A
// change to a declaration (a signature, a type, a constant), to the
// catalog or to go.mod is a whole discovery. The judged files (the
// report's tree hash) are listed again from the module's package graph.

// shapeEntry ties a shape to the exact discovery made of it, with that
// tree's file hashes.
type shapeEntry struct {
	Key   string            `json:"key"`
	Exact string            `json:"exact"`
	Files map[string]string `json:"files"`
}

// shapeKey is the discovery key of the tree's shape (see above), or ""
// when a file does not read.
func (x *discoverer) shapeKey(tr tree.Tree) string {
	h := sha256.New()
	fmt.Fprintf(h, "discovery shape\x00%s\x00%s\x00%s\x00", cache.Tool(), x.Root, x.flagsText())
	files := make([]string, 0, len(tr.Files))
	for f := range tr.Files {
		files = append(files, f)
	}
	sort.Strings(files)
	catDir := ""
	if x.cfg.Catalog != "" {
		if _, dir := catalogImportPath(x.cfg.Catalog, x.Root, x.Module); dir != "" {
			if rel, err := filepath.Rel(x.Root, dir); err == nil {
				catDir = filepath.ToSlash(rel)
			}
		}
	}
	for _, f := range files {
		ext := path.Ext(f)
		if slices.Contains(strings.Split(f, "/"), "testdata") || strings.HasSuffix(f, "_test.go") || isSourceText(ext) {
			continue // not read by discovery, or made again when changed
		}
		data, err := os.ReadFile(filepath.Join(x.Root, filepath.FromSlash(f)))
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s\x00", f)
		if ext == ".go" {
			h.Write(goShape(data, path.Dir(f) == catDir))
		} else {
			h.Write(data)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// flagsText is the flags that choose mutants (as in key).
func (x *discoverer) flagsText() string {
	return fmt.Sprintf("%s\x00%q\x00%v\x00%v\x00%s\x00%s\x00%v\x00%s", strings.Join(x.cfg.Patterns, " "), x.cfg.Catalog, x.cfg.CatalogExplicit, x.cfg.OnlyCatalog,
		strings.Join(x.cfg.Operators, ","), strings.Join(x.cfg.Exclude, ","), x.cfg.Given.Packages, strings.Join(x.cfg.Languages, ","))
}

// goShape is a Go file's tokens without comments (but its //go:
// directives and +build lines) and, unless whole is set, without the
// bodies of its function declarations; a cgo file (one that imports "C":
// its preamble is code) or one that does not parse as it is.
func goShape(src []byte, whole bool) []byte {
	if bytes.Contains(src, []byte(`"C"`)) {
		return src
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	var bodies [][2]int // byte ranges of the function bodies
	if !whole {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				bodies = append(bodies, [2]int{fset.Position(fd.Body.Lbrace).Offset, fset.Position(fd.Body.Rbrace).Offset})
			}
		}
	}
	tf := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(tf, src, func(token.Position, string) {}, scanner.ScanComments)
	var out bytes.Buffer
	next := 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := tf.Offset(pos)
		for next < len(bodies) && off > bodies[next][1] {
			next++
		}
		switch {
		case next < len(bodies) && off >= bodies[next][0]:
			if off == bodies[next][0] {
				out.WriteString("{body}\n")
			}
			continue
		case tok == token.SEMICOLON:
			continue
		case tok == token.COMMENT && !strings.HasPrefix(lit, "//go:") && !strings.HasPrefix(lit, "// +build"):
			continue
		}
		fmt.Fprintf(&out, "%d %s\n", tok, lit)
	}
	return out.Bytes()
}

func isSourceText(ext string) bool {
	switch ext {
	case ".s", ".S", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hip", ".cu", ".cuh":
		return true
	}
	return false
}

// storeShape records a whole discovery stored under exact under its
// shape key too.
func (x *discoverer) storeShape(tr tree.Tree, exact string) {
	key := x.shapeKey(tr)
	if key == "" {
		return
	}
	if err := cache.Write("discovery-shape", key, shapeEntry{Key: key, Exact: exact, Files: tr.Files}); err != nil {
		fmt.Fprintf(x.Stderr, "mutate: discovery cache not written: %v\n", err)
	}
}

// fromShape makes a whole discovery from the one of a tree of the same
// shape (see above), and stores it under this tree's keys; nil when there
// is none (or --no-cache, or a run/diff glob: those make subsets).
func (x *discoverer) fromShape(tr tree.Tree, start time.Time) *Discovery {
	if x.cfg.NoCache || x.cfg.Select != "" {
		return nil
	}
	key := x.shapeKey(tr)
	var se shapeEntry
	if key == "" || !cache.Read("discovery-shape", key, &se) || se.Key != key {
		return nil
	}
	var old discoveryEntry
	if !cache.Read("discovery", se.Exact, &old) || old.Key != se.Exact {
		return nil
	}
	x.cat, x.catPath = old.Catalog, old.CatPath
	d, kept, redo, err := x.remakeChanged(tr, se, old)
	if err != nil {
		fmt.Fprintf(x.Stderr, "mutate: the mutants of the changed files could not be made again (%v): a whole discovery\n", err)
		x.cat, x.catPath, x.prog = catalog.Catalog{}, "", nil
		return nil
	}
	x.progressf("mutate: %d mutants: %d kept from the discovery of a tree of the same shape, %d made again in %d files (%.1f s)\n",
		len(d.Mutants), kept, len(d.Mutants)-kept, len(redo), time.Since(start).Seconds())
	x.store(tr, d)
	return d
}

// remakeChanged keeps the old discovery's mutants of unchanged files and
// makes the changed files' again; it lists the judged files again.
func (x *discoverer) remakeChanged(tr tree.Tree, se shapeEntry, old discoveryEntry) (*Discovery, int, map[string]bool, error) {
	changed := map[string]bool{}
	for f, sum := range tr.Files {
		if se.Files[f] != sum {
			changed[f] = true
		}
	}
	for f, sum := range cache.HashFiles(x.Root, mapKeys(old.Kernel)) {
		if old.Kernel[f] != sum {
			changed[f] = true
		}
	}
	redo := x.filesToRemake(changed, tr, old.Mutants)
	var keep []mutant.Mutant
	for _, m := range old.Mutants {
		if !redo[m.File] {
			keep = append(keep, m)
		}
	}
	made, err := x.remake(redo, old)
	if err != nil {
		return nil, 0, nil, err
	}
	if x.prog == nil {
		if x.prog, err = load.LoadGraph(x.Root); err != nil {
			return nil, 0, nil, err
		}
	}
	judged, err := tree.JudgedFiles(x.prog, x.scope(old.Generic))
	if err != nil {
		return nil, 0, nil, err
	}
	ms := WithoutCatalogTwins(append(keep, made...))
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	return &Discovery{Mutants: ms, Generic: old.Generic, Judged: judged}, len(keep), redo, nil
}

// filesToRemake are the files whose mutants are made again after the
// changed files (see above).
func (x *discoverer) filesToRemake(changed map[string]bool, tr tree.Tree, old []mutant.Mutant) map[string]bool {
	redo := map[string]bool{}
	kernel := KernelFiles(x.Root, x.cat)
	changedGo := map[string]bool{} // directories with a changed non-test Go file
	pkgOf := func(f string) {
		dir := path.Dir(f)
		for g := range tr.Files {
			if path.Dir(g) == dir && strings.HasSuffix(g, ".go") && !strings.HasSuffix(g, "_test.go") {
				redo[g] = true
			}
		}
	}
	for f := range changed {
		switch {
		case slices.Contains(kernel, f):
			for _, k := range kernel {
				redo[k] = true
			}
		case strings.HasSuffix(f, "_test.go"), slices.Contains(strings.Split(f, "/"), "testdata"):
		case strings.HasSuffix(f, ".go"):
			changedGo[path.Dir(f)] = true
			pkgOf(f)
		default:
			redo[f] = true
		}
	}
	// a mutant goes with every file its schema data points into, and one
	// whose data can point elsewhere with a Go change outside its package
	for grown := true; grown; {
		grown = false
		for _, m := range old {
			if redo[m.File] || !x.goesWith(m, redo, changedGo) {
				continue
			}
			pkgOf(m.File)
			redo[m.File] = true
			grown = true
		}
	}
	return redo
}

// goesWith reports whether a kept mutant must be made again with the
// files in redo (see filesToRemake).
func (x *discoverer) goesWith(m mutant.Mutant, redo, changedGo map[string]bool) bool {
	s := m.Schema
	if s == nil {
		return false
	}
	if len(s.Uses) > 0 || len(s.Readers) > 0 {
		for dir := range changedGo {
			if dir != path.Dir(m.File) {
				return true
			}
		}
	}
	for _, u := range s.Uses {
		if redo[u.File] {
			return true
		}
	}
	for _, r := range s.Readers {
		if redo[r.File] {
			return true
		}
	}
	return false
}

// remake makes again the mutants of the files in redo: the generic ones
// of their packages, the assembly and kernel ones of those files, and the
// catalog entries that target them. The packages it loads (with the
// module's package graph) become x.prog.
func (x *discoverer) remake(redo map[string]bool, old discoveryEntry) ([]mutant.Mutant, error) {
	if len(redo) == 0 {
		return nil, nil
	}
	excl, err := x.newExclusion()
	if err != nil {
		return nil, err
	}
	generic := excl.packages(x, old.Generic)
	files := excl.filesFilter(func(rel string) bool { return redo[rel] })
	entries, pkgs := x.remadePackages(redo, generic, old.Mutants)
	if len(pkgs) == 0 {
		return nil, nil
	}
	if x.prog, err = load.Load(x.Root, sortedKeys(pkgs)...); err != nil {
		return nil, err
	}
	var ms []mutant.Mutant
	mutated := filter(generic, func(p string) bool { return pkgs[p] })
	if !x.cfg.OnlyCatalog && len(mutated) > 0 {
		if x.cfg.Mutates("go") && len(x.Ops) > 0 {
			ms, err = operator.Generate(x.prog, operator.Config{
				Packages: mutated, Files: files, Operators: x.Ops, Equivalents: x.cat.Equivalents, Workers: x.cfg.Jobs,
			})
			if err != nil {
				return nil, err
			}
		}
		more, err := x.otherLanguages(mutated, files)
		if err != nil {
			return nil, err
		}
		ms = append(ms, more...)
	}
	resolved, errs := operator.ResolveAll(x.prog, entries)
	for i, e := range entries {
		if errs[i] != nil {
			return nil, fmt.Errorf("catalog entry %s: %w", e.ID, errs[i])
		}
		ms = append(ms, resolved[i])
	}
	return ms, nil
}

// remadePackages lists the catalog entries that target the files in redo
// (by their Target.File, or, for an entry that names a package and a
// declaration only, by the file its mutant of the old discovery lay in)
// and the packages to load: those files' generic packages, the entries'
// targets, and the kernel's package when a kernel source is made again.
func (x *discoverer) remadePackages(redo map[string]bool, generic []string, old []mutant.Mutant) ([]catalog.Entry, map[string]bool) {
	kernel := false
	for _, f := range KernelFiles(x.Root, x.cat) {
		kernel = kernel || redo[f]
	}
	inRedo := map[string]bool{} // catalog ids whose old mutant lay in a remade file
	for _, m := range old {
		if m.Catalog != nil && redo[m.File] {
			inRedo[m.Catalog.ID] = true
		}
	}
	var entries []catalog.Entry
	for _, e := range x.cat.Entries {
		if redo[e.Target.File] || inRedo[e.ID] || (e.Operator == catalog.KernelText && kernel) {
			entries = append(entries, e)
		}
	}
	pkgs := map[string]bool{}
	for f := range redo {
		dir := path.Dir(f)
		if dir == "." {
			dir = ""
		}
		for _, p := range generic {
			if x.relDir(p) == dir {
				pkgs[p] = true
			}
		}
	}
	for _, e := range entries {
		if e.Operator != catalog.KernelText && e.Target.Package != "" {
			pkgs[e.Target.Package] = true
		}
	}
	if k := x.cat.Kernel; k != nil && k.Package != "" && kernel {
		pkgs[k.Package] = true
	}
	return entries, pkgs
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
