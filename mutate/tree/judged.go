package tree

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gathermut/mutate/load"
)

// Scope is what one run judges, as discovery knows it before any filter
// (--shard, --in-diff, a run or diff glob) picks mutants: shards of one
// run, and a run of a few mutants of it, judge the same files.
type Scope struct {
	Mutated []string // import paths of the packages the run mutates (generic, catalog targets, the kernel's package)
	Catalog string   // the catalog package's import path; "" for none
	Kernel  []string // module-relative kernel sources the catalog may rewrite
	// Tool is the import path of the mutation tool's own packages
	// (gathermut/mutate): a catalog imports its vocabulary from there, and
	// the tool is not what a run judges (the report names its version).
	Tool    string
	Project string // the project file's name (config.ProjectFile)
}

// JudgedFiles lists, sorted, the module-relative files a run over s
// judges, the files its report's tree hash covers:
//
//   - the mutated packages and every module package whose tests can
//     observe them (load.Program.Observers): each one's source files,
//     tests included (IsSourceFile, in the package directory itself:
//     Go, assembly, C and headers, HIP/CUDA, build scripts);
//   - everything those tests import within the module, transitively:
//     those packages' source files without their tests (which no run of
//     this scope executes), the tool's own packages left out unless the
//     run mutates them (a catalog's tests may use the tool's loader);
//   - the catalog package and its imports within the module, without
//     tests and without the tool's own packages;
//   - every file under a testdata directory of any of those packages'
//     directories or of a directory above one, up to the module root: a
//     test reads testdata by a relative path, its own ./testdata or an
//     enclosing one's (../testdata);
//   - the kernel sources, go.mod, go.sum and the project file.
//
// Anything else is not judged: documentation, the reports, and packages
// no judged test imports, the mutation tool and its fixtures (a
// testdata directory under mutate/) among them. A report is current while
// the hash of these files is the tree's (mutate list with the run's
// flags prints it).
func JudgedFiles(prog *load.Program, s Scope) ([]string, error) {
	tested := map[string]bool{}
	for _, p := range s.Mutated {
		tested[p] = true
		for _, o := range prog.Observers(p) {
			tested[o] = true
		}
	}
	var roots []string
	for p := range tested {
		roots = append(roots, p)
		roots = append(roots, prog.TestImports(p)...)
	}
	built := closure(prog, roots, toolUnlessMutated(s))
	if s.Catalog != "" {
		for p := range closure(prog, []string{s.Catalog}, s.Tool) {
			built[p] = true
		}
	}
	set := map[string]bool{}
	dirs := map[string]bool{}
	for p := range built {
		dir := prog.Dir(p)
		if dir == "" {
			continue
		}
		dirs[dir] = true
		if err := addPackageFiles(set, prog.Root, dir, tested[p]); err != nil {
			return nil, err
		}
	}
	if err := addTestdata(set, prog.Root, dirs); err != nil {
		return nil, err
	}
	for _, rel := range append(append([]string(nil), s.Kernel...), "go.mod", "go.sum", s.Project) {
		if rel == "" {
			continue
		}
		if info, err := os.Stat(filepath.Join(prog.Root, filepath.FromSlash(rel))); err == nil && info.Mode().IsRegular() {
			set[rel] = true
		}
	}
	out := make([]string, 0, len(set))
	for rel := range set {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out, nil
}

// toolUnlessMutated is the tool's import path, whose packages a judged
// test may import (a catalog's tests load packages with the tool's
// loader) without the run judging them, or "" when the run mutates the
// tool itself.
func toolUnlessMutated(s Scope) string {
	if s.Tool == "" {
		return ""
	}
	for _, p := range s.Mutated {
		if p == s.Tool || strings.HasPrefix(p, s.Tool+"/") {
			return ""
		}
	}
	return s.Tool
}

// closure is roots and every module package they import, transitively,
// by their non-test files; packages at or under skip ("" for none) are
// left out with what only they import.
func closure(prog *load.Program, roots []string, skip string) map[string]bool {
	in := func(p string) bool { return skip != "" && (p == skip || strings.HasPrefix(p, skip+"/")) }
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || in(p) {
			continue
		}
		seen[p] = true
		queue = append(queue, prog.Imports(p)...)
	}
	return seen
}

// addPackageFiles adds the source files directly in a package's directory
// (tests only when withTests).
func addPackageFiles(set map[string]bool, root, dir string, withTests bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("tree: judged files: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !IsSourceFile(name) || !withTests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("tree: judged files: %w", err)
		}
		set[filepath.ToSlash(rel)] = true
	}
	return nil
}

// addTestdata adds every file under a testdata directory of each of dirs
// and of each directory above one, up to root (directories starting with
// "." or "_" skipped, as in HashTree).
func addTestdata(set map[string]bool, root string, dirs map[string]bool) error {
	seen := map[string]bool{}
	for dir := range dirs {
		for d := dir; ; d = filepath.Dir(d) {
			if rel, err := filepath.Rel(root, d); err != nil || strings.HasPrefix(rel, "..") {
				break
			}
			if seen[d] {
				break
			}
			seen[d] = true
			if err := addTree(set, root, filepath.Join(d, "testdata")); err != nil {
				return err
			}
			if d == root {
				break
			}
		}
	}
	return nil
}

// addTree adds every regular file under dir; a missing dir adds nothing.
func addTree(set map[string]bool, root, dir string) error {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		set[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("tree: judged files: %w", err)
	}
	return nil
}

// Subset is the hash of the files of t named in files (module-relative):
// the report's tree hash. A file t does not hold is hashed as absent, so
// that a judged file removed during a run changes the hash after it.
func (t Tree) Subset(files []string) Tree {
	out := Tree{Files: make(map[string]string, len(files))}
	for _, rel := range files {
		h, ok := t.Files[rel]
		if !ok {
			h = "absent"
		}
		out.Files[rel] = h
	}
	out.Hash = out.sum()
	return out
}
