package lab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// testLocations finds where the tests the outcomes name are declared (for
// the report's testFiles): the top-level functions of the _test.go files
// of their packages. A file excluded by build constraints may declare a
// test again; the first declaration found wins.
func testLocations(prog *load.Program, outcomes []mutant.Outcome) map[string]report.TestLocation {
	pkgs := map[string]bool{}
	for _, o := range outcomes {
		for _, ids := range [][]string{o.Result.KilledBy, o.Result.CoveredBy, mutant.TestIDStrings(o.Mutant.Expected)} {
			for _, id := range ids {
				if t, err := mutant.ParseTestID(id); err == nil {
					pkgs[t.Package] = true
				}
			}
		}
	}
	out := map[string]report.TestLocation{}
	if prog == nil {
		return out
	}
	paths := make([]string, 0, len(pkgs))
	for pkg := range pkgs {
		paths = append(paths, pkg)
	}
	sort.Strings(paths) // the same files parsed in the same order every run
	fset := token.NewFileSet()
	for _, pkg := range paths {
		dir := prog.Dir(pkg)
		if dir == "" { //gathermut:equivalent(branch-if) the glob of a relative pattern gives relative names, which filepath.Rel against the absolute root below refuses
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		sort.Strings(files)
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			rel, err := filepath.Rel(prog.Root, file)
			//gathermut:equivalent(branch-if,logical) for a module package (an absolute dir under the root) Rel succeeds without ".."; a relative one is the dir == "" case above
			if err != nil || strings.HasPrefix(rel, "..") {
				continue //gathermut:equivalent(loop-control) unreachable (see above)
			}
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Recv != nil {
					continue
				}
				id := pkg + "." + fd.Name.Name
				if _, seen := out[id]; !seen {
					out[id] = report.TestLocation{File: filepath.ToSlash(rel), Line: fset.Position(fd.Pos()).Line}
				}
			}
		}
	}
	return out
}
