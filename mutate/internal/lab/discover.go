package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
// A whole discovery comes from the cache when one is there for this tree
// and these flags; run and diff without one generate only the files their
// glob can match.
func (l *lab) discover(ctx context.Context) (*discovery, error) {
	start := time.Now()
	tr, err := tree.HashTree(l.root, nil)
	if err != nil {
		return nil, Fail(exitcode.Config, "%v", err)
	}
	key := l.discoveryKey(tr)
	var d *discovery
	var entry discoveryEntry
	if !l.cfg.NoCache && readCache("discovery", key, &entry) && entry.Key == key && sameHashes(entry.Kernel, hashFiles(l.root, mapKeys(entry.Kernel))) {
		l.cat, l.catPath = entry.Catalog, entry.CatPath
		d = &discovery{mutants: entry.Mutants, generic: entry.Generic}
		l.progressf("mutate: %d mutants of tree %s from the discovery cache (%.1f s)\n", len(d.mutants), tr.Hash[:12], time.Since(start).Seconds())
	} else {
		if err := l.ensureTemp(); err != nil {
			return nil, err
		}
		if err := l.loadCatalog(); err != nil {
			return nil, Fail(exitcode.Config, "%v", err)
		}
		files, generic := selectFiles(l.cfg.Select)
		ms, genericPkgs, err := l.mutants(files, generic)
		if err != nil {
			return nil, Fail(exitcode.Config, "%v", err)
		}
		d = &discovery{mutants: ms, generic: genericPkgs}
		l.progressf("mutate: %d mutants in %.1f s\n", len(ms), time.Since(start).Seconds())
		if files == nil && generic && !l.cfg.NoCache {
			kernel := kernelFiles(l.root, l.cat)
			entry := discoveryEntry{Key: key, Catalog: l.cat, CatPath: l.catPath, Kernel: hashFiles(l.root, kernel), Generic: genericPkgs, Mutants: ms}
			if err := writeCache("discovery", key, entry); err != nil {
				fmt.Fprintf(l.stderr, "mutate: discovery cache not written: %v\n", err)
			}
		}
	}
	d.before, err = tr.With(l.root, kernelFiles(l.root, l.cat))
	if err != nil {
		return nil, Fail(exitcode.Config, "%v", err)
	}
	ms := d.mutants
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
	ms = shardOf(ms, l.cfg.Shard)
	d.mutants = ms
	l.discoverySeconds = time.Since(start).Seconds()
	if l.prog == nil && (l.cfg.Command == "all" || l.cfg.Command == "run") {
		if l.prog, err = load.LoadGraph(l.root); err != nil {
			return nil, Fail(exitcode.Config, "%v", err)
		}
	}
	return d, nil
}

// selectFiles reads a run/diff id glob for the files whose generic mutants
// it can match (nil: any file) and whether it can match a generic mutant
// at all. A generic id is operator:file:line:col:hash (operators have no
// colon); a catalog id has no colon.
func selectFiles(sel string) (files func(string) bool, generic bool) {
	if sel == "" {
		return nil, true
	}
	var prefixes []string // a file must equal one, or start with one ending in "*"
	for _, alt := range strings.Split(sel, ",") {
		wild := strings.ContainsAny(alt, "*?")
		if !wild && !strings.Contains(alt, ":") {
			continue // one catalog id
		}
		generic = true
		parts := strings.SplitN(alt, ":", 3)
		if len(parts) < 2 || strings.ContainsAny(parts[0], "*?") && (strings.Trim(parts[0], "*") != "" || strings.ContainsAny(parts[1], "*?") || !strings.Contains(parts[1], ".")) {
			// the file part cannot be told apart (a leading "*" alone is
			// fine before a plain file name: files have no colon, and no
			// other field of an id has a dot)
			return nil, true
		}
		file := parts[1]
		if i := strings.IndexAny(file, "*?"); i >= 0 {
			prefixes = append(prefixes, file[:i]+"*")
			continue
		}
		prefixes = append(prefixes, file)
	}
	if !generic {
		return nil, false
	}
	return func(rel string) bool {
		for _, p := range prefixes {
			if rest, wild := strings.CutSuffix(p, "*"); wild && strings.HasPrefix(rel, rest) || p == rel {
				return true
			}
		}
		return false
	}, true
}

func sameHashes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// progressf prints a phase line on stderr.
func (l *lab) progressf(format string, args ...any) {
	fmt.Fprintf(l.stderr, format, args...)
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

// mutants loads the program and makes the generic and catalog mutants:
// generic ones only in the files the filter keeps (nil: all), and none when
// generic is false.
func (l *lab) mutants(files func(string) bool, generic bool) ([]mutant.Mutant, []string, error) {
	var genericPkgs []string
	var err error
	if !l.cfg.OnlyCatalog {
		genericPkgs, err = ListPackages(l.cfg.Dir, l.cfg.Patterns)
		if err != nil {
			return nil, nil, err
		}
		genericPkgs = filter(genericPkgs, func(p string) bool { return p != l.catPath })
	}
	excl, err := l.newExclusion()
	if err != nil {
		return nil, nil, err
	}
	genericPkgs = excl.packages(l, genericPkgs)
	files = excl.filesFilter(files)
	loadPatterns := append([]string(nil), genericPkgs...)
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
	t0 := time.Now()
	l.prog, err = load.Load(l.root, loadPatterns...)
	if err != nil {
		return nil, nil, err
	}
	l.progressf("mutate: loaded and type-checked %d packages (%.1f s)\n", len(l.prog.Targets), time.Since(t0).Seconds())
	if err := operator.CheckSuppressions(l.prog); err != nil {
		return nil, nil, err
	}
	var ms []mutant.Mutant
	if len(genericPkgs) > 0 && generic {
		var stats operator.Stats
		prog := newProgress(l.stderr, 0, time.Now())
		tc := time.Now()
		defer func() { l.typeCheckSeconds = time.Since(tc).Seconds() }()
		ms, err = operator.Generate(l.prog, operator.Config{
			Packages:    genericPkgs,
			Files:       files,
			Operators:   l.cfg.Operators,
			Equivalents: l.cat.Equivalents,
			Workers:     l.cfg.Jobs,
			Progress:    func(done, total int) { prog.phase("type-checking mutants", done, total) },
			Stats:       &stats,
		})
		prog.finish()
		if err != nil {
			return nil, nil, err
		}
		l.reportExclusions(excl, stats)
	}
	entries := l.cat.Entries
	if !generic && l.cfg.Select != "" {
		re := GlobRegexp(l.cfg.Select)
		entries = filter(entries, func(e catalog.Entry) bool { return re.MatchString(e.ID) })
	}
	resolved, errs := operator.ResolveAll(l.prog, entries)
	for i, e := range entries {
		m, err := resolved[i], errs[i]
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
	return WithoutCatalogTwins(ms), genericPkgs, nil
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
