package discover

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/tree"
)

// Input is what discovery needs from the run.
type Input struct {
	Config config.Config        // the command line with the project file applied
	Ops    []*operator.Operator // the generic operators, resolved once from Config.Operators
	Root   string               // the module root
	Module string               // the module path
	// Temp makes the run's temp dir, if not made yet, and returns it (the
	// catalog program's overlay goes there; child processes put their
	// files there). Only a discovery not answered from the cache calls
	// it, so list and diff from the cache make none.
	Temp   func() (string, error)
	Stderr io.Writer // progress lines
}

// Discovery is what the step found.
type Discovery struct {
	// Mutants are the mutants to judge, sorted by id, after --in-diff, the
	// run/diff glob and --shard.
	Mutants     []mutant.Mutant
	Generic     []string        // the packages generic operators ran on
	Catalog     catalog.Catalog // the catalog read (empty without one)
	CatalogPath string          // its import path ("" without one)
	// Prog is the module: loaded and type-checked where mutants were made,
	// its package graph only where they came from the cache; nil for list
	// and diff answered from the cache.
	Prog   *load.Program
	Before tree.Tree // every source file before the run: the safety check
	// Judged are the files the report's tree hash covers
	// (tree.JudgedFiles), for the whole discovery before any filter.
	Judged []string
	// Seconds is the step's wall time; TypeCheckSeconds the part spent
	// type-checking generic mutants.
	Seconds, TypeCheckSeconds float64
	root                      string
}

// JudgedHash is the report's tree hash: the judged files of t.
func (d *Discovery) JudgedHash(t tree.Tree) string { return t.Subset(d.Judged).Hash }

// HashNow hashes the whole source tree again (after the run), with the
// same kernel sources and project file as Before.
func (d *Discovery) HashNow() (tree.Tree, error) {
	return tree.HashTree(d.root, append(KernelFiles(d.root, d.Catalog), projectFile(d.root)...))
}

// discoverer is one discovery in progress.
type discoverer struct {
	Input
	cfg              config.Config
	cat              catalog.Catalog
	catPath          string
	prog             *load.Program
	typeCheckSeconds float64
	tmp              string // the run's temp dir, once generate made it
}

// Run hashes the tree, makes the mutants (or takes a whole discovery from
// the cache for this tree and these flags), then applies the filters:
// --in-diff, the run/diff glob, --shard. run and diff without a cached
// discovery generate only the files their glob can match.
func Run(ctx context.Context, in Input) (*Discovery, error) {
	start := time.Now()
	x := &discoverer{Input: in, cfg: in.Config}
	tr, err := tree.HashTree(in.Root, projectFile(in.Root))
	if err != nil {
		return nil, exitcode.Fail(exitcode.Config, "%v", err)
	}
	d, err := x.fromCache(tr, start)
	if err != nil {
		return nil, err
	}
	if d == nil {
		d = x.fromShape(tr, start)
	}
	if d == nil {
		if d, err = x.generate(tr, start); err != nil {
			return nil, err
		}
	}
	d.root, d.Catalog, d.CatalogPath = in.Root, x.cat, x.catPath
	if d.Before, err = tr.With(in.Root, KernelFiles(in.Root, x.cat)); err != nil {
		return nil, exitcode.Fail(exitcode.Config, "%v", err)
	}
	if d.Mutants, err = x.filter(d.Mutants); err != nil {
		return nil, err
	}
	d.Seconds, d.TypeCheckSeconds = time.Since(start).Seconds(), x.typeCheckSeconds
	d.Prog = x.prog
	if d.Prog == nil && x.cfg.Command.Judges() {
		if d.Prog, err = load.LoadGraph(in.Root); err != nil {
			return nil, exitcode.Fail(exitcode.Config, "%v", err)
		}
	}
	return d, nil
}

// generate makes the run's temp dir (Input.Temp), reads the catalog,
// loads the module and makes the mutants,
// and caches the discovery when it is whole (not a run/diff subset).
func (x *discoverer) generate(tr tree.Tree, start time.Time) (*Discovery, error) {
	var err error
	if x.tmp, err = x.Temp(); err != nil {
		return nil, exitcode.Fail(exitcode.Config, "%v", err)
	}
	if err := x.loadCatalog(); err != nil {
		return nil, exitcode.Fail(exitcode.Config, "%v", err)
	}
	files, generic := selectFiles(x.cfg.Select)
	ms, genericPkgs, err := x.mutants(files, generic)
	if err != nil {
		return nil, exitcode.Fail(exitcode.Config, "%v", err)
	}
	judged, err := tree.JudgedFiles(x.prog, x.scope(genericPkgs))
	if err != nil {
		return nil, exitcode.Fail(exitcode.Config, "%v", err)
	}
	d := &Discovery{Mutants: ms, Generic: genericPkgs, Judged: judged}
	x.progressf("mutate: %d mutants in %.1f s; tree %s (%d files judged)\n", len(ms), time.Since(start).Seconds(), tr.Subset(judged).Hash[:12], len(judged))
	if files == nil && generic && !x.cfg.NoCache {
		x.store(tr, d)
	}
	return d, nil
}

// filter applies --in-diff, the run/diff glob and --shard, and sorts the
// mutants by id.
func (x *discoverer) filter(ms []mutant.Mutant) ([]mutant.Mutant, error) {
	var err error
	if x.cfg.InDiff != "" {
		if ms, err = filterInDiff(x.Root, x.cfg.InDiff, ms); err != nil {
			return nil, exitcode.Fail(exitcode.Config, "%v", err)
		}
	}
	if x.cfg.Select != "" {
		re := GlobRegexp(x.cfg.Select)
		ms = filter(ms, func(m mutant.Mutant) bool { return re.MatchString(m.ID) })
		if len(ms) == 0 {
			return nil, exitcode.Fail(exitcode.Usage, "no mutant matches %q (see: mutate list)", x.cfg.Select)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	return shardOf(ms, x.cfg.Shard), nil
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

// progressf prints a phase line on stderr.
func (x *discoverer) progressf(format string, args ...any) {
	fmt.Fprintf(x.Stderr, format, args...)
}

// scope is what the run judges (tree.Scope): the packages it mutates (the
// generic ones, the catalog's targets, the kernel's package), its catalog
// and kernel sources.
func (x *discoverer) scope(generic []string) tree.Scope {
	mutated := append([]string(nil), generic...)
	for _, e := range x.cat.Entries {
		if e.Operator != catalog.KernelText && e.Target.Package != "" {
			mutated = append(mutated, e.Target.Package)
		}
	}
	if x.cat.Kernel != nil && x.cat.Kernel.Package != "" {
		mutated = append(mutated, x.cat.Kernel.Package)
	}
	return tree.Scope{
		Mutated: dedupe(mutated),
		Catalog: x.catPath,
		Kernel:  KernelFiles(x.Root, x.cat),
		Tool:    path.Dir(reflect.TypeOf(catalog.Entry{}).PkgPath()),
		Project: config.ProjectFile,
	}
}

// projectFile lists the module's project file when it has one, for the
// tree hash (its name is not a source file's).
func projectFile(root string) []string {
	if info, err := os.Stat(filepath.Join(root, config.ProjectFile)); err == nil && info.Mode().IsRegular() {
		return []string{config.ProjectFile}
	}
	return nil
}

// KernelFiles lists the kernel sources a catalog may rewrite, so the tree
// hash covers them whatever their extension.
func KernelFiles(root string, cat catalog.Catalog) []string {
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

// GlobRegexp turns an id glob (* and ?, matching any characters including
// '/' and ':') into an anchored regexp; a string without wildcards matches
// exactly. Commas separate alternatives: "a,b*" matches a and every id
// starting with b (ids never contain commas).
func GlobRegexp(glob string) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("^(")
	for i, alt := range strings.Split(glob, ",") {
		if i > 0 {
			sb.WriteString("|")
		}
		for _, r := range alt {
			switch r {
			case '*':
				sb.WriteString(".*")
			case '?':
				sb.WriteString(".")
			default:
				sb.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
	}
	sb.WriteString(")$")
	return regexp.MustCompile(sb.String())
}

func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
