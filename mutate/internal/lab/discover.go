package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gathermut/mutate/catalog"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/tree"
)

// discovery is what the discover step found: the mutants to judge, sorted
// by id, the packages generic operators ran on, and the tree they came
// from.
type discovery struct {
	mutants []mutant.Mutant
	generic []string
	before  tree.Tree
}

// discover reads the catalog, hashes the tree, loads the module, makes the
// mutants and applies the filters (--in-diff, the run/diff glob, --shard).
func (l *lab) discover(ctx context.Context) (*discovery, error) {
	if err := l.loadCatalog(); err != nil {
		return nil, Fail(exitcode.Config, "%v", err)
	}
	before, err := tree.HashTree(l.root, kernelFiles(l.root, l.cat))
	if err != nil {
		return nil, Fail(exitcode.Config, "%v", err)
	}
	ms, generic, err := l.mutants()
	if err != nil {
		return nil, Fail(exitcode.Config, "%v", err)
	}
	if l.cfg.InDiff != "" {
		ms, err = filterInDiff(l.root, l.cfg.InDiff, ms)
		if err != nil {
			return nil, Fail(exitcode.Config, "%v", err)
		}
	}
	if l.cfg.Select != "" {
		re := GlobRegexp(l.cfg.Select)
		ms = filter(ms, func(m mutant.Mutant) bool { return re.MatchString(m.ID) })
		if len(ms) == 0 {
			return nil, Fail(exitcode.Usage, "no mutant matches %q (see: mutate list)", l.cfg.Select)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	if n := l.cfg.Shard.N; n > 0 {
		var kept []mutant.Mutant
		for i, m := range ms {
			if i%n == l.cfg.Shard.K {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	return &discovery{mutants: ms, generic: generic, before: before}, nil
}

func (l *lab) loadCatalog() error {
	if l.cfg.Catalog == "" {
		return nil
	}
	path, dir := catalogImportPath(l.cfg.Catalog, l.root, l.module)
	if dir != "" {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			if l.cfg.CatalogExplicit {
				return fmt.Errorf("catalog package %s: no directory %s", path, dir)
			}
			fmt.Fprintf(l.stderr, "mutate: no catalog package %s in %s; generic mutants only\n", path, l.module)
			return nil
		}
	}
	cat, err := readCatalog(l.root, path, l.tmp)
	if err != nil {
		return err
	}
	l.cat, l.catPath = cat, path
	return nil
}

// kernelFiles lists the kernel sources a catalog may rewrite, so the tree
// hash covers them whatever their extension.
func kernelFiles(root string, cat catalog.Catalog) []string {
	if cat.Kernel == nil {
		return nil
	}
	var out []string
	for _, glob := range cat.Kernel.Sources {
		matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		for _, m := range matches {
			if rel, err := filepath.Rel(root, m); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
	}
	return out
}

// mutants loads the program and makes the generic and catalog mutants.
func (l *lab) mutants() ([]mutant.Mutant, []string, error) {
	var generic []string
	var err error
	if !l.cfg.OnlyCatalog {
		generic, err = ListPackages(l.cfg.Dir, l.cfg.Patterns)
		if err != nil {
			return nil, nil, err
		}
		generic = filter(generic, func(p string) bool { return p != l.catPath })
	}
	loadPatterns := append([]string(nil), generic...)
	for _, e := range l.cat.Entries {
		if e.Operator != catalog.KernelText && e.Target.Package != "" {
			loadPatterns = append(loadPatterns, e.Target.Package)
		}
	}
	if l.cat.Kernel != nil && l.cat.Kernel.Package != "" {
		loadPatterns = append(loadPatterns, l.cat.Kernel.Package)
	}
	loadPatterns = dedupe(loadPatterns)
	if len(loadPatterns) == 0 {
		if l.cfg.OnlyCatalog {
			return nil, nil, errors.New("--only-catalog, but there is no catalog")
		}
		return nil, nil, fmt.Errorf("no packages match %s", strings.Join(l.cfg.Patterns, " "))
	}
	l.prog, err = load.Load(l.root, loadPatterns...)
	if err != nil {
		return nil, nil, err
	}
	if err := operator.CheckSuppressions(l.prog); err != nil {
		return nil, nil, err
	}
	var ms []mutant.Mutant
	if len(generic) > 0 {
		ms, err = operator.Generate(l.prog, operator.Config{
			Packages:    generic,
			Operators:   l.cfg.Operators,
			Equivalents: l.cat.Equivalents,
		})
		if err != nil {
			return nil, nil, err
		}
	}
	for _, e := range l.cat.Entries {
		m, err := operator.Resolve(l.prog, e)
		if err != nil {
			entry := e
			m = mutant.Mutant{ID: e.ID, Operator: string(e.Operator), Kind: mutant.Go, Package: e.Target.Package, File: e.Target.File,
				Func: e.Target.Func, Catalog: &entry, Expected: e.Killers, Invalid: err.Error(), Replacement: e.Replacement, Original: e.Target.Match}
			if e.Operator == catalog.KernelText {
				m.Kind = mutant.Kernel
			}
		}
		ms = append(ms, m)
	}
	return WithoutCatalogTwins(ms), generic, nil
}

// WithoutCatalogTwins drops each generic mutant whose file and resulting
// source equal a catalog mutant's: the same program would be built and
// tested twice, and the catalog entry, which names its expected killer,
// is the one worth keeping.
func WithoutCatalogTwins(ms []mutant.Mutant) []mutant.Mutant {
	catalogSources := map[string]bool{}
	for _, m := range ms {
		if m.Catalog != nil && m.Source != nil {
			catalogSources[m.File+"\x00"+string(m.Source)] = true
		}
	}
	return filter(ms, func(m mutant.Mutant) bool {
		return m.Catalog != nil || m.Source == nil || !catalogSources[m.File+"\x00"+string(m.Source)]
	})
}

// ListPackages expands patterns to the module's import paths. A pattern
// that matches no package, or a matched package that does not load, is an
// error: mutating the rest silently would report on less code than asked.
func ListPackages(dir string, patterns []string) ([]string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	args := append([]string{"list", "-e", "-f", "{{if .Error}}!{{.ImportPath}}: {{.Error}}{{else}}{{.ImportPath}}{{end}}"}, patterns...)
	out, stderr, err := runGoStderr(absDir, args...)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.Contains(line, "matched no packages") {
			return nil, fmt.Errorf("%s", strings.TrimPrefix(strings.TrimSpace(line), "go: warning: "))
		}
	}
	var pkgs, broken []string
	for _, line := range strings.Split(string(out), "\n") {
		switch line = strings.TrimSpace(line); {
		case line == "":
		case strings.HasPrefix(line, "!"):
			broken = append(broken, strings.TrimPrefix(line, "!"))
		default:
			pkgs = append(pkgs, line)
		}
	}
	if len(broken) > 0 {
		return nil, fmt.Errorf("packages that do not load: %s", strings.Join(broken, "; "))
	}
	return pkgs, nil
}
