package discover

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/internal/progress"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// loadCatalog reads the catalog package the configuration names, through
// a program that exists only in an overlay. A catalog that is the
// default's and is missing means generic mutants only; one named with
// --catalog must exist.
func (x *discoverer) loadCatalog() error {
	if x.cfg.Catalog == "" {
		return nil
	}
	path, dir := catalogImportPath(x.cfg.Catalog, x.Root, x.Module)
	if dir != "" {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			if x.cfg.CatalogExplicit {
				return fmt.Errorf("catalog package %s: no directory %s", path, dir)
			}
			fmt.Fprintf(x.Stderr, "mutate: no catalog package %s in %s; generic mutants only\n", path, x.Module)
			return nil
		}
	}
	cat, err := readCatalog(x.Root, path, x.tmp)
	if err != nil {
		return err
	}
	x.cat, x.catPath = cat, path
	return nil
}

// mutants loads the program and makes the generic and catalog mutants:
// generic ones only in the files the filter keeps (nil: all), and none when
// generic is false.
func (x *discoverer) mutants(files func(string) bool, generic bool) ([]mutant.Mutant, []string, error) {
	genericPkgs, excl, err := x.genericPackages()
	if err != nil {
		return nil, nil, err
	}
	files = excl.filesFilter(files)
	if err := x.load(genericPkgs); err != nil {
		return nil, nil, err
	}
	var ms []mutant.Mutant
	if len(genericPkgs) > 0 && generic {
		if x.cfg.Mutates("go") && len(x.Ops) > 0 {
			if ms, err = x.generic(genericPkgs, files, excl); err != nil {
				return nil, nil, err
			}
		}
		more, err := x.otherLanguages(genericPkgs, files)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, more...)
	}
	ms = append(ms, x.catalogMutants(generic)...)
	return WithoutCatalogTwins(ms), genericPkgs, nil
}

// genericPackages lists the packages the generic operators run on: the
// configured patterns' packages but the catalog and those an exclusion
// takes out whole.
func (x *discoverer) genericPackages() ([]string, *exclusion, error) {
	var pkgs []string
	var err error
	if !x.cfg.OnlyCatalog {
		if pkgs, err = ListPackages(x.cfg.Dir, x.cfg.Patterns); err != nil {
			return nil, nil, err
		}
		pkgs = filter(pkgs, func(p string) bool { return p != x.catPath })
	}
	excl, err := x.newExclusion()
	if err != nil {
		return nil, nil, err
	}
	return excl.packages(x, pkgs), excl, nil
}

// load loads and type-checks the generic packages, the catalog's targets
// and the kernel's package, with the module's package graph.
func (x *discoverer) load(genericPkgs []string) error {
	patterns := append([]string(nil), genericPkgs...)
	for _, e := range x.cat.Entries {
		if e.Operator != catalog.KernelText && e.Target.Package != "" {
			patterns = append(patterns, e.Target.Package)
		}
	}
	if x.cat.Kernel != nil && x.cat.Kernel.Package != "" {
		patterns = append(patterns, x.cat.Kernel.Package)
	}
	patterns = dedupe(patterns)
	if len(patterns) == 0 {
		if x.cfg.OnlyCatalog {
			return errors.New("--only-catalog, but there is no catalog")
		}
		return fmt.Errorf("no packages match %s", strings.Join(x.cfg.Patterns, " "))
	}
	t0 := time.Now()
	var err error
	if x.prog, err = load.Load(x.Root, patterns...); err != nil {
		return err
	}
	pkgs := "packages"
	if len(x.prog.Targets) == 1 {
		pkgs = "package"
	}
	x.progressf("mutate: loaded and type-checked %d %s (%.1f s)\n", len(x.prog.Targets), pkgs, time.Since(t0).Seconds())
	return operator.CheckSuppressions(x.prog)
}

// generic applies the generic operators to the files the filter keeps and
// type-checks every mutant, saying what the exclusions left out.
func (x *discoverer) generic(pkgs []string, files func(string) bool, excl *exclusion) ([]mutant.Mutant, error) {
	var stats operator.Stats
	line := progress.New(x.Stderr, 0, time.Now())
	tc := time.Now()
	defer func() { x.typeCheckSeconds = time.Since(tc).Seconds() }()
	ms, err := operator.Generate(x.prog, operator.Config{
		Packages:    pkgs,
		Files:       files,
		Operators:   x.Ops,
		Equivalents: x.cat.Equivalents,
		Workers:     x.cfg.Jobs,
		Progress:    func(done, total int) { line.Phase("type-checking mutants", done, total) },
		Stats:       &stats,
	})
	line.Finish()
	if err != nil {
		return nil, err
	}
	x.reportExclusions(excl, stats)
	return ms, nil
}

// catalogMutants resolves the catalog's entries (only those the run/diff
// glob names when it can match no generic mutant); an entry that does not
// resolve is an Invalid mutant, reported as an error.
func (x *discoverer) catalogMutants(generic bool) []mutant.Mutant {
	entries := x.cat.Entries
	if !generic && x.cfg.Select != "" {
		re := GlobRegexp(x.cfg.Select)
		entries = filter(entries, func(e catalog.Entry) bool { return re.MatchString(e.ID) })
	}
	resolved, errs := operator.ResolveAll(x.prog, entries)
	ms := make([]mutant.Mutant, 0, len(entries))
	for i, e := range entries {
		m, err := resolved[i], errs[i]
		if err != nil {
			entry := e
			killers, _ := mutant.ParseTestIDs(e.Killers) // a malformed one is the error, or one of them
			m = mutant.Mutant{ID: e.ID, Operator: string(e.Operator), Kind: mutant.Go, Package: e.Target.Package, File: e.Target.File,
				Func: e.Target.Func, Catalog: &entry, Expected: killers, State: mutant.Invalid, Note: err.Error(), Replacement: e.Replacement, Original: e.Target.Match}
			if e.Operator == catalog.KernelText {
				m.Kind = mutant.Kernel
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// WithoutCatalogTwins drops each generic mutant whose file and resulting
// source equal a catalog mutant's: the same program would be built and
// tested twice, and the catalog entry, which names its expected killer,
// is the one worth keeping.
func WithoutCatalogTwins(ms []mutant.Mutant) []mutant.Mutant {
	catalogResults := map[string]bool{}
	for _, m := range ms {
		if m.Catalog != nil && m.ResultHash != "" {
			catalogResults[m.File+"\x00"+m.ResultHash] = true
		}
	}
	return filter(ms, func(m mutant.Mutant) bool {
		return m.Catalog != nil || m.ResultHash == "" || !catalogResults[m.File+"\x00"+m.ResultHash]
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

// otherLanguages makes the generic mutants of what a Go package runs that
// is not Go: its assembly files (package goasm's operators) and, when the
// catalog's kernel recipe names an entry file and its package is among
// the generic ones, the kernel's device code (package cxx's).
func (x *discoverer) otherLanguages(genericPkgs []string, files func(string) bool) ([]mutant.Mutant, error) {
	var asm []mutant.Mutant
	if x.cfg.Mutates("asm") {
		var err error
		asm, err = operator.GenerateAsm(x.prog, operator.AsmConfig{
			Packages: genericPkgs, Files: files, Operators: operator.AsmOperatorNames(x.cfg.Operators), Equivalents: x.cat.Equivalents,
		})
		if err != nil {
			return nil, fmt.Errorf("assembly mutants: %w", err)
		}
	}
	k := x.cat.Kernel
	if k == nil || k.Entry == "" || !slices.Contains(genericPkgs, k.Package) || !x.cfg.Mutates("kernel") {
		return asm, nil
	}
	kern, err := operator.GenerateKernel(x.Root, k, operator.KernelOperatorNames(x.cfg.Operators), files, x.cat.Equivalents)
	if err != nil {
		return nil, fmt.Errorf("kernel mutants: %w", err)
	}
	return append(asm, kern...), nil
}
