package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/exec"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/report"
)

// version is reported in the JSON framework block.
const version = "0.1.0"

// defaultPatterns are the row's packages.
var defaultPatterns = []string{"./gguf/...", "./gather/...", "./engine/...", "./hipkern/..."}

type options struct {
	jobs          int
	timeoutFactor float64
	timeoutFloor  time.Duration
	strictTimeout bool
	dir           string
	reportDir     string
	name          string
	onlyCatalog   bool
	inDiff        string
	shard         string
	catalog       string
	operators     string
	verbose       bool
	args          []string
	flags         []string
}

// exitError carries an exit code and its one-line reason.
type exitError struct {
	code   int
	reason string
}

func (e *exitError) Error() string { return e.reason }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, reason: fmt.Sprintf(format, args...)}
}

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee.reason != "" {
			fmt.Fprintln(os.Stderr, "mutate: "+ee.reason)
		}
		os.Exit(ee.code)
	default:
		fmt.Fprintln(os.Stderr, "mutate: "+err.Error())
		os.Exit(report.ExitConfig)
	}
}

func newFlagSet(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.jobs, "j", runtime.NumCPU(), "parallel workers")
	fs.Float64Var(&o.timeoutFactor, "timeout-factor", 3, "per-mutant test timeout = factor * baseline time of the selected tests + floor")
	fs.DurationVar(&o.timeoutFloor, "timeout-floor", 10*time.Second, "the constant part of the per-mutant test timeout")
	fs.BoolVar(&o.strictTimeout, "strict-timeouts", false, "fail the run (exit 4) when a generic mutant times out, instead of counting it as detected")
	fs.StringVar(&o.dir, "dir", ".", "directory inside the module to test")
	fs.StringVar(&o.reportDir, "report-dir", "reports", "where reports are written (relative to the current directory)")
	fs.StringVar(&o.name, "name", "", "report base name (default: mutation, or mutation-shard-K-of-N)")
	fs.BoolVar(&o.onlyCatalog, "only-catalog", false, "only the catalog's mutants")
	fs.StringVar(&o.inDiff, "in-diff", "", "only mutants on lines changed since this git ref")
	fs.StringVar(&o.shard, "shard", "", "run shard k/n of the id-sorted mutants (k in 0..n-1)")
	fs.StringVar(&o.catalog, "catalog", "./mutants", "catalog package (import path, or ./dir in the module); empty: none")
	fs.StringVar(&o.operators, "operators", "", "comma-separated generic operators (default: all)")
	fs.BoolVar(&o.verbose, "v", false, "print each mutant's verdict on stderr as it finishes")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}

// parseFlags accepts flags before, between and after positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fail(report.ExitUsage, "no command")
	}
	cmd := args[0]
	if cmd == "help" || cmd == "-h" || cmd == "--help" || cmd == "-help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	var o options
	fs := newFlagSet(&o, stderr)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fail(report.ExitUsage, "%v", err)
	}
	fs.Visit(func(f *flag.Flag) { o.flags = append(o.flags, "--"+f.Name+"="+f.Value.String()) })
	o.args = pos
	if o.jobs < 1 {
		return fail(report.ExitUsage, "-j must be at least 1")
	}
	switch cmd {
	case "all", "list":
		return mutateCmd(cmd, "", o, stdout, stderr)
	case "run", "diff":
		if len(o.args) == 0 {
			return fail(report.ExitUsage, "%s needs a mutant id or glob", cmd)
		}
		sel := o.args[0]
		o.args = o.args[1:]
		return mutateCmd(cmd, sel, o, stdout, stderr)
	case "merge":
		return mergeCmd(o, stdout)
	case "bench":
		return benchCmd(o, stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return fail(report.ExitUsage, "unknown command %q", cmd)
}

// session is one mutation run's state.
type session struct {
	o        options
	root     string
	module   string
	prog     *load.Program
	cat      catalog.Catalog
	catPath  string
	patterns []string
	tmp      string
	stderr   io.Writer
}

func mutateCmd(cmd, sel string, o options, stdout, stderr io.Writer) error {
	started := time.Now()
	shardK, shardN, err := parseShard(o.shard)
	if err != nil {
		return fail(report.ExitUsage, "%v", err)
	}
	var selRe *regexp.Regexp
	if sel != "" {
		selRe = globRegexp(sel)
	}
	s := &session{o: o, stderr: stderr, patterns: o.args}
	if len(s.patterns) == 0 {
		s.patterns = defaultPatterns
	}
	s.root, s.module, err = load.ModuleRoot(o.dir)
	if err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	s.tmp, err = os.MkdirTemp("", "gathermut-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(s.tmp)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := s.loadCatalog(); err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	before, err := exec.HashTree(s.root, kernelFiles(s.root, s.cat))
	if err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	ms, genericPkgs, err := s.mutants()
	if err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	if o.inDiff != "" {
		ms, err = filterInDiff(s.root, o.inDiff, ms)
		if err != nil {
			return fail(report.ExitConfig, "%v", err)
		}
	}
	if selRe != nil {
		ms = filter(ms, func(m mutant.Mutant) bool { return selRe.MatchString(m.ID) })
		if len(ms) == 0 {
			return fail(report.ExitUsage, "no mutant matches %q (see: mutate list)", sel)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	if shardN > 0 {
		var kept []mutant.Mutant
		for i, m := range ms {
			if i%shardN == shardK {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	switch cmd {
	case "list":
		for _, m := range ms {
			fmt.Fprintf(stdout, "%s\t%s\t%s:%d:%d\t%s\t%s -> %s%s\n", m.ID, m.Operator, m.File, m.Pos.Line, m.Pos.Column, m.Func, oneLine(m.Original), oneLine(m.Replacement), listNote(m))
		}
		fmt.Fprintf(stderr, "%d mutants in %s (%d generic packages)\n", len(ms), s.module, len(genericPkgs))
		return nil
	case "diff":
		for _, m := range ms {
			if m.Diff == "" {
				fmt.Fprintf(stdout, "# %s: %s\n", m.ID, m.Invalid)
				continue
			}
			fmt.Fprintf(stdout, "# %s\n%s", m.ID, m.Diff)
		}
		return nil
	}
	return s.execute(ctx, ms, before, started, shardK, shardN, stdout)
}

func listNote(m mutant.Mutant) string {
	switch {
	case m.Invalid != "":
		return "\t[error: " + m.Invalid + "]"
	case m.Equivalent != "":
		return "\t[ignored: " + m.Equivalent + "]"
	case m.Unviable != "":
		return "\t[unviable: " + oneLine(m.Unviable) + "]"
	}
	return ""
}

func (s *session) loadCatalog() error {
	if s.o.catalog == "" {
		return nil
	}
	path, dir := catalogImportPath(s.o.catalog, s.root, s.module)
	explicit := false
	for _, f := range s.o.flags {
		if strings.HasPrefix(f, "--catalog=") {
			explicit = true
		}
	}
	if dir != "" {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			if explicit {
				return fmt.Errorf("catalog package %s: no directory %s", path, dir)
			}
			fmt.Fprintf(s.stderr, "mutate: no catalog package %s in %s; generic mutants only\n", path, s.module)
			return nil
		}
	}
	cat, err := readCatalog(s.root, path, s.tmp)
	if err != nil {
		return err
	}
	s.cat, s.catPath = cat, path
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
func (s *session) mutants() ([]mutant.Mutant, []string, error) {
	var generic []string
	var err error
	if !s.o.onlyCatalog {
		generic, err = listPackages(s.o.dir, s.patterns)
		if err != nil {
			return nil, nil, err
		}
		generic = filter(generic, func(p string) bool { return p != s.catPath })
	}
	loadPatterns := append([]string(nil), generic...)
	for _, e := range s.cat.Entries {
		if e.Operator != catalog.KernelText && e.Target.Package != "" {
			loadPatterns = append(loadPatterns, e.Target.Package)
		}
	}
	if s.cat.Kernel != nil && s.cat.Kernel.Package != "" {
		loadPatterns = append(loadPatterns, s.cat.Kernel.Package)
	}
	loadPatterns = dedupe(loadPatterns)
	if len(loadPatterns) == 0 {
		if s.o.onlyCatalog {
			return nil, nil, errors.New("--only-catalog, but there is no catalog")
		}
		return nil, nil, fmt.Errorf("no packages match %s", strings.Join(s.patterns, " "))
	}
	s.prog, err = load.Load(s.root, loadPatterns...)
	if err != nil {
		return nil, nil, err
	}
	if err := operator.CheckSuppressions(s.prog); err != nil {
		return nil, nil, err
	}
	var ms []mutant.Mutant
	if len(generic) > 0 {
		ms, err = operator.Generate(s.prog, operator.Config{
			Packages:    generic,
			Operators:   splitList(s.o.operators),
			Equivalents: s.cat.Equivalents,
		})
		if err != nil {
			return nil, nil, err
		}
	}
	for _, e := range s.cat.Entries {
		m, err := operator.Resolve(s.prog, e)
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
	return withoutCatalogTwins(ms), generic, nil
}

// withoutCatalogTwins drops each generic mutant whose file and resulting
// source equal a catalog mutant's: the same program would be built and
// tested twice, and the catalog entry, which names its expected killer,
// is the one worth keeping.
func withoutCatalogTwins(ms []mutant.Mutant) []mutant.Mutant {
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

// listPackages expands patterns to the module's import paths. A pattern
// that matches no package, or a matched package that does not load, is an
// error: mutating the rest silently would report on less code than asked.
func listPackages(dir string, patterns []string) ([]string, error) {
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

func (s *session) execute(ctx context.Context, ms []mutant.Mutant, before exec.Tree, started time.Time, shardK, shardN int, stdout io.Writer) error {
	meta := report.Meta{
		Name:       s.o.name,
		Module:     s.module,
		Root:       s.root,
		Patterns:   s.patterns,
		Catalog:    s.catPath,
		Started:    started,
		Jobs:       s.o.jobs,
		Machine:    describeMachine(),
		GoVersion:  goVersion(),
		Version:    version,
		TreeBefore: before.Hash,
		Flags:      s.o.flags,
	}
	if shardN > 0 {
		meta.Shard = fmt.Sprintf("%d/%d", shardK, shardN)
	}
	if meta.Name == "" {
		meta.Name = "mutation"
		if shardN > 0 {
			meta.Name = fmt.Sprintf("mutation-shard-%d-of-%d", shardK, shardN)
		}
	}

	// Baseline over every package that can observe a mutant to run.
	observers := map[string]bool{}
	mutated := map[string]bool{}
	for _, m := range ms {
		if m.Kind != mutant.Go || m.Invalid != "" || m.Unviable != "" || m.Equivalent != "" {
			continue
		}
		mutated[m.Package] = true
		for _, p := range s.prog.Observers(m.Package) {
			observers[p] = true
		}
	}
	fmt.Fprintf(s.stderr, "mutate: %d mutants; baseline of %d packages\n", len(ms), len(observers))
	base, err := exec.RunBaseline(ctx, s.prog, exec.BaselineOptions{
		Jobs:     s.o.jobs,
		TempDir:  s.tmp,
		Packages: sortedKeys(observers),
		Cover:    sortedKeys(mutated),
	})
	if err != nil {
		if ctx.Err() != nil {
			return fail(report.ExitInterrupted, "interrupted during the baseline")
		}
		return fail(report.ExitBaseline, "%v", err)
	}
	meta.Baseline = baselineInfo(base)
	var outcomes []mutant.Outcome
	interrupted := false
	if base.Red() {
		fmt.Fprintf(s.stderr, "mutate: baseline failing: %s\n", strings.Join(base.Failing, ", "))
		for _, p := range base.Failing {
			pkg, name, _ := exec.SplitTestID(p)
			if t := base.Packages[pkg].Tests[name]; t != nil && t.Output != "" {
				fmt.Fprintf(s.stderr, "--- %s\n%s\n", p, strings.TrimSpace(t.Output))
			}
		}
	} else {
		runner := &exec.Runner{Prog: s.prog, Baseline: base, Opts: exec.Options{
			Jobs: s.o.jobs, TimeoutFactor: s.o.timeoutFactor, TimeoutFloor: s.o.timeoutFloor, TempDir: s.tmp, Kernel: s.cat.Kernel,
		}}
		prog := newProgress(s.stderr, len(ms), time.Now())
		prog.verbose = s.o.verbose
		outcomes = runner.Run(ctx, ms, prog.update)
		prog.finish()
		interrupted = ctx.Err() != nil
	}

	after, err := exec.HashTree(s.root, kernelFiles(s.root, s.cat))
	if err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	meta.TreeAfter = after.Hash
	meta.TreeChanged = before.Changed(after)
	meta.Interrupted = interrupted
	meta.WallSeconds = time.Since(started).Seconds()
	sources := map[string]string{}
	for _, o := range outcomes {
		if _, ok := sources[o.Mutant.File]; !ok {
			data, _ := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(o.Mutant.File)))
			sources[o.Mutant.File] = string(data)
		}
	}
	rep := report.Build(meta, outcomes, sources)
	rep.Gathermut.ExitCode, rep.Gathermut.Reason = report.ExitCode(rep.Gathermut.Summary, report.Conditions{
		TreeChanged:    len(meta.TreeChanged) > 0,
		BaselineRed:    base.Red(),
		Interrupted:    interrupted,
		BaselineNote:   strings.Join(base.Failing, ", "),
		StrictTimeouts: s.o.strictTimeout,
	})
	jsonPath, mdPath, err := report.Write(s.o.reportDir, rep)
	if err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	sum := rep.Gathermut.Summary
	fmt.Fprintf(stdout, "%d mutants: %d killed, %d survived, %d timed out, %d unviable, %d not run, %d errors, %d ignored; score %s; %.1f s (-j %d)\n",
		sum.Total, sum.Counts[mutant.Killed], sum.Counts[mutant.Survived], sum.Counts[mutant.TimedOut], sum.Counts[mutant.Unviable],
		sum.Counts[mutant.NotRun], sum.Counts[mutant.Error], sum.Counts[mutant.Ignored], report.FormatScore(sum), meta.WallSeconds, s.o.jobs)
	for _, o := range outcomes {
		if o.Result.Status == mutant.NotRun {
			fmt.Fprintf(stdout, "not run: %s: %s\n", o.Mutant.ID, o.Result.Why)
		}
	}
	fmt.Fprintf(stdout, "reports: %s, %s\n", jsonPath, mdPath)
	if rep.Gathermut.ExitCode != 0 {
		return fail(rep.Gathermut.ExitCode, "%s", rep.Gathermut.Reason)
	}
	fmt.Fprintln(stdout, rep.Gathermut.Reason)
	return nil
}

func baselineInfo(b *exec.Baseline) report.BaselineInfo {
	info := report.BaselineInfo{Packages: len(b.Packages), Flaky: b.Flaky, Failing: b.Failing, Seconds: b.Duration.Seconds()}
	for _, p := range b.Packages {
		info.Tests += len(p.Tests)
		for _, name := range p.Names {
			if t := p.Tests[name]; t.Status == exec.BaseSkip {
				info.Skipped = append(info.Skipped, p.Path+"."+name+" ("+t.Skip+")")
			}
		}
	}
	sort.Strings(info.Skipped)
	return info
}

func mergeCmd(o options, stdout io.Writer) error {
	if len(o.args) == 0 {
		return fail(report.ExitUsage, "merge needs report files")
	}
	var reports []*report.Report
	for _, p := range o.args {
		r, err := report.Read(p)
		if err != nil {
			return fail(report.ExitUsage, "%v", err)
		}
		reports = append(reports, r)
	}
	name := o.name
	if name == "" {
		name = "mutation"
	}
	merged, err := report.Merge(name, reports)
	if err != nil {
		return fail(report.ExitUsage, "%v", err)
	}
	jsonPath, mdPath, err := report.Write(o.reportDir, merged)
	if err != nil {
		return fail(report.ExitConfig, "%v", err)
	}
	fmt.Fprintf(stdout, "merged %d reports (%d mutants): %s, %s\n", len(reports), merged.Gathermut.Summary.Total, jsonPath, mdPath)
	if merged.Gathermut.ExitCode != 0 {
		return fail(merged.Gathermut.ExitCode, "%s", merged.Gathermut.Reason)
	}
	fmt.Fprintln(stdout, merged.Gathermut.Reason)
	return nil
}

func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("--shard %q: want k/n with 0 <= k < n", s)
	}
	return k, n, nil
}

// globRegexp turns an id glob (* and ?, matching any characters including
// '/' and ':') into an anchored regexp; a string without wildcards matches
// exactly. Commas separate alternatives: "a,b*" matches a and every id
// starting with b (ids never contain commas).
func globRegexp(glob string) *regexp.Regexp {
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

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
