package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/testbin"
)

// Options configure a Runner.
type Options struct {
	Jobs          int
	TimeoutFactor float64       // per-mutant timeout = factor * baseline time of the selected tests + floor
	TimeoutFloor  time.Duration //
	TempDir       string        // removed by the caller
	Kernel        *catalog.Kernel
}

// Runner runs mutants against the tests that can observe them.
type Runner struct {
	Prog     *load.Program
	Baseline *Baseline
	Opts     Options
	// Schema, when set, holds the schema binaries: a switched mutant runs
	// in them, and coverage is the schema sites each test ran.
	Schema *schemaRun

	kernel kernelState
	timing timing
}

// timing adds up where workers spent their time.
type timing struct {
	mu                   sync.Mutex
	overlayBuilds, tests time.Duration
	builds, runs         int
}

func (t *timing) add(build, run time.Duration, builds, runs int) {
	t.mu.Lock()
	t.overlayBuilds += build
	t.tests += run
	t.builds += builds
	t.runs += runs
	t.mu.Unlock()
}

// Run runs every mutant in a pool of Opts.Jobs workers and calls done (from
// one goroutine at a time) as each finishes. Mutants not judged when ctx is
// cancelled are reported Interrupted (no verdict).
func (r *Runner) Run(ctx context.Context, ms []mutant.Mutant, done func(mutant.Outcome)) []mutant.Outcome {
	out := make([]mutant.Outcome, len(ms))
	var mu sync.Mutex
	p := pool.New().WithMaxGoroutines(max(r.Opts.Jobs, 1))
	for i, m := range ms {
		p.Go(func() {
			var res mutant.Result
			if ctx.Err() != nil {
				res = mutant.Result{Status: mutant.Interrupted, Why: "interrupted before it ran"}
			} else {
				res = r.One(ctx, m)
				if ctx.Err() != nil && res.Status != mutant.Killed {
					res = mutant.Result{Status: mutant.Interrupted, Why: "interrupted while it ran", Commands: res.Commands, Duration: res.Duration}
				}
			}
			mu.Lock()
			out[i] = mutant.Outcome{Mutant: m, Result: res}
			if done != nil {
				done(out[i])
			}
			mu.Unlock()
		})
	}
	p.Wait()
	return out
}

// One runs one mutant.
func (r *Runner) One(ctx context.Context, m mutant.Mutant) mutant.Result {
	start := time.Now()
	res := r.one(ctx, m)
	res.Duration = time.Since(start)
	if res.Mode == "" {
		res.Mode = mutant.ModeStatic
	}
	if r.Schema != nil && m.Kind == mutant.Go && res.Mode != mutant.ModeSchema {
		if why, ok := r.Schema.dropped[m.ID]; ok {
			res.ModeNote = why
		} else if m.Schema != nil && m.Schema.Fallback != "" {
			res.ModeNote = "not switched: " + m.Schema.Fallback
		}
	}
	return res
}

// covers reports whether test t of package pkg runs mutant m's code: in a
// schema run, whether it ran the mutant's site.
func (r *Runner) covers(t *TestBaseline, m mutant.Mutant) bool {
	if r.Schema == nil {
		return t.Covers(m)
	}
	if !m.InBody {
		return true
	}
	s, ok := r.Schema.site[m.ID]
	return !ok || t.HitSite(s)
}

func (r *Runner) one(ctx context.Context, m mutant.Mutant) mutant.Result {
	switch {
	case m.Invalid != "":
		return mutant.Result{Status: mutant.Error, Why: m.Invalid}
	case m.Equivalent != "":
		return mutant.Result{Status: mutant.Ignored, Why: "equivalent: " + m.Equivalent}
	case m.Unviable != "":
		why := "does not type-check: " + firstLine(m.Unviable)
		if vet, ok := strings.CutPrefix(m.Unviable, operator.VetPrefix); ok {
			why = "fails the go vet checks go test runs: " + firstLine(vet)
		}
		return mutant.Result{Status: mutant.Unviable, Why: why, Excerpt: m.Unviable}
	case m.Kind == mutant.Kernel:
		return r.runKernel(ctx, m)
	}
	plan, res, ok := r.plan(m)
	if !ok {
		return res
	}
	return r.execute(ctx, m, plan)
}

// pkgRun is the selection of tests of one observing package.
type pkgRun struct {
	pkg   *PackageBaseline
	tests []*TestBaseline
}

func (p pkgRun) names() []string {
	var out []string
	for _, t := range p.tests {
		out = append(out, t.Name)
	}
	return out
}

func (p pkgRun) runPattern() string {
	var quoted []string
	for _, n := range p.names() {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// plan selects, per observing package, the tests that execute the mutant
// (plus a catalog mutant's expected killers), expected-killer packages
// first, then the mutated package, then its importers.
func (r *Runner) plan(m mutant.Mutant) ([]pkgRun, mutant.Result, bool) {
	expected := map[string]map[string]bool{}
	for _, k := range m.Expected {
		pkg, name, err := SplitTestID(k)
		if err != nil {
			return nil, mutant.Result{Status: mutant.Error, Why: err.Error()}, false
		}
		if expected[pkg] == nil {
			expected[pkg] = map[string]bool{}
		}
		expected[pkg][name] = true
	}
	observers := r.Prog.Observers(m.Package)
	for pkg := range expected {
		if !slices.Contains(observers, pkg) {
			return nil, mutant.Result{Status: mutant.Error, Why: fmt.Sprintf("expected killer package %s cannot observe %s (it does not import it)", pkg, m.Package)}, false
		}
	}
	var plan, rest []pkgRun
	for _, path := range observers {
		pb := r.Baseline.Packages[path]
		if pb == nil {
			continue
		}
		run := pkgRun{pkg: pb}
		for _, name := range pb.Names {
			t := pb.Tests[name]
			if t.Status != BasePass && t.Status != BaseSkip {
				continue // failing, flaky or absent tests cannot decide
			}
			if expected[path][name] || r.covers(t, m) {
				run.tests = append(run.tests, t)
			}
		}
		// an expected killer the baseline does not know still runs: the
		// test binary then shows whether it exists
		for name := range expected[path] {
			if _, known := pb.Tests[name]; !known {
				run.tests = append(run.tests, &TestBaseline{Name: name, Status: BaseGone})
			}
		}
		if len(run.tests) == 0 {
			continue
		}
		if len(expected[path]) == 0 {
			rest = append(rest, run)
			continue
		}
		// The expected killers run first and alone: another test that
		// panics under the mutant ends the whole binary, and would hide
		// whether the expected killer fails. The package's other covering
		// tests run afterwards, only if the killers did not fail.
		killers, others := pkgRun{pkg: pb}, pkgRun{pkg: pb}
		for _, t := range run.tests {
			if expected[path][t.Name] {
				killers.tests = append(killers.tests, t)
			} else {
				others.tests = append(others.tests, t)
			}
		}
		plan = append(plan, killers)
		if len(others.tests) > 0 {
			rest = append(rest, others)
		}
	}
	plan = append(plan, rest...)
	if len(plan) == 0 {
		return nil, mutant.Result{Status: mutant.Survived, Why: "not covered by any test"}, false
	}
	return plan, mutant.Result{}, true
}

// SplitTestID splits "pkgpath.TestName".
func SplitTestID(id string) (pkg, name string, err error) {
	i := strings.LastIndex(id, ".")
	if i <= 0 || i == len(id)-1 || strings.Contains(id[i+1:], "/") {
		return "", "", fmt.Errorf("test %q is not of the form pkgpath.TestName", id)
	}
	return id[:i], id[i+1:], nil
}

type verdict struct {
	failed   []string // "pkg.Test"
	ran      []string
	skipped  map[string]string // "pkg.Test" -> skip message
	timedOut string
	crashed  []string // packages whose binary failed with no failing test
	excerpt  strings.Builder
	exitCode int
	signal   string // the signal that ended a test process (a timeout's kill)
}

func (r *Runner) execute(ctx context.Context, m mutant.Mutant, plan []pkgRun) mutant.Result {
	res := mutant.Result{Mode: mutant.ModeOverlay}
	for _, p := range plan {
		res.CoveredBy = append(res.CoveredBy, prefixed(p.pkg.Path, p.names())...)
	}
	var env []string
	schemaRun := r.Schema != nil && r.Schema.switched[m.ID]
	if schemaRun {
		res.Mode = mutant.ModeSchema
		env = []string{fmt.Sprintf("GATHERMUT_MUTANT=%d", r.Schema.number[m.ID])}
	}
	var overlay, dir string
	expected := map[string]bool{}
	for _, k := range m.Expected {
		expected[k] = true
	}
	v := verdict{skipped: map[string]string{}}
	bins := map[string]string{} // package -> its mutant test binary, built once
	var buildTime, runTime time.Duration
	builds, runs := 0, 0
	defer func() { r.timing.add(buildTime, runTime, builds, runs) }()
	for i, p := range plan {
		bin, built := bins[p.pkg.Path]
		if schemaRun {
			bin, built = r.Schema.bins[p.pkg.Path], true
			if bin == "" {
				return mutant.Result{Status: mutant.Error, Why: "no schema test binary for " + p.pkg.Path, Mode: res.Mode}
			}
			res.Commands = append(res.Commands, r.Schema.builds[p.pkg.Path])
		}
		if !built {
			if overlay == "" {
				var err error
				if dir, err = os.MkdirTemp(r.Opts.TempDir, "mutant-"); err != nil {
					return mutant.Result{Status: mutant.Error, Why: err.Error()}
				}
				defer os.RemoveAll(dir)
				if overlay, err = writeOverlay(dir, r.Prog.Root, m); err != nil {
					return mutant.Result{Status: mutant.Error, Why: err.Error()}
				}
			}
			bin = filepath.Join(dir, fmt.Sprintf("p%d.test", i))
			t0 := time.Now()
			cmdline, out, err := testbin.Go(ctx, r.Prog.Root, "test", "-c", "-o", bin, "-overlay", overlay, p.pkg.Path)
			buildTime += time.Since(t0)
			builds++
			res.Commands = append(res.Commands, cmdline)
			if ctx.Err() != nil {
				return res
			}
			if err != nil {
				res.Status, res.Why = mutant.Unviable, "does not compile: "+firstLine(compileError(out))
				res.Excerpt = testbin.Limit(out, 4<<10)
				res.ExitCode = testbin.ExitCode(err)
				return res
			}
			bins[p.pkg.Path] = bin
		}
		t0 := time.Now()
		run, err := testbin.Run(ctx, testbin.Options{
			Binary:   bin,
			Dir:      p.pkg.Dir,
			Package:  p.pkg.Path,
			Run:      p.runPattern(),
			Failfast: m.Catalog == nil,
			Timeout:  timeoutFor(p.tests, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor),
			Env:      env,
		})
		runTime += time.Since(t0)
		runs++
		if run != nil {
			res.Commands = append(res.Commands, run.Command)
		}
		if err != nil {
			if ctx.Err() != nil {
				return res
			}
			res.Status, res.Why = mutant.Error, err.Error()
			return res
		}
		v.add(p.pkg.Path, run)
		if v.timedOut != "" || (len(v.failed) > 0 && (m.Catalog == nil || anyIn(v.failed, expected))) {
			break
		}
	}
	return v.result(res, m, expected)
}

func (v *verdict) add(pkg string, run *testbin.Result) {
	if run.ExitCode != 0 && (v.exitCode == 0 || run.ExitCode > v.exitCode) {
		v.exitCode = run.ExitCode // -1 when a signal ended it
	}
	if run.Signal != "" {
		v.signal = run.Signal
	}
	var failedHere, running []string
	for name, t := range run.Tests {
		id := pkg + "." + name
		switch t.Action {
		case "fail":
			failedHere = append(failedHere, id)
			v.ran = append(v.ran, id)
			v.excerpt.WriteString(testbin.Limit(t.Output, 2<<10))
		case "pass":
			v.ran = append(v.ran, id)
		case "skip":
			v.skipped[id] = testbin.SkipMessage(t.Output)
		case "run":
			running = append(running, id)
		}
	}
	sort.Strings(failedHere)
	sort.Strings(running)
	if run.TimedOut {
		v.timedOut = fmt.Sprintf("%s after %s", pkg, run.Elapsed.Round(time.Millisecond))
		if len(running) > 0 {
			v.timedOut += ", running " + strings.Join(running, ", ")
		}
		return
	}
	if run.ExitCode != 0 && len(failedHere) == 0 {
		// a crash: blame the tests that were running, else the binary
		if len(running) > 0 {
			failedHere = running
			v.ran = append(v.ran, running...)
		} else {
			failedHere = []string{pkg + " (test binary)"}
		}
		v.excerpt.WriteString(testbin.Limit(run.Output, 2<<10))
	}
	v.failed = append(v.failed, failedHere...)
}

func (v *verdict) result(res mutant.Result, m mutant.Mutant, expected map[string]bool) mutant.Result {
	sort.Strings(v.failed)
	res.ExitCode = v.exitCode
	res.Signal = v.signal
	res.TestsRun = len(v.ran)
	res.Excerpt = testbin.Limit(v.excerpt.String(), 4<<10)
	expectedRan := false
	for _, id := range v.ran {
		if expected[id] {
			expectedRan = true
		}
	}
	switch {
	case v.timedOut != "":
		res.Status, res.Why = mutant.TimedOut, "timed out: "+v.timedOut
		if v.signal != "" {
			res.Why += " (stopped with " + v.signal + ")"
		}
	case len(v.failed) > 0:
		res.Status, res.KilledBy = mutant.Killed, v.failed
		res.ExpectedKiller = anyIn(v.failed, expected)
		if m.Catalog != nil && !res.ExpectedKiller {
			res.Why = "killed by an unexpected test: " + strings.Join(v.failed, ", ") + "; expected " + strings.Join(m.Expected, ", ")
		}
	case m.Catalog != nil && !expectedRan && allSkipped(v.skipped, m.Expected):
		res.Status, res.Why = mutant.NotRun, firstSkip(v.skipped, m.Expected)
	case m.Catalog != nil && !expectedRan:
		res.Status, res.Why = mutant.Error, "no expected killer ran ("+strings.Join(m.Expected, ", ")+"): no such test, or -run matched nothing"
	case len(v.ran) == 0 && len(v.skipped) > 0:
		res.Status, res.Why = mutant.NotRun, firstSkip(v.skipped, nil)
	case len(v.ran) == 0:
		res.Status, res.Why = mutant.Error, "no test ran under the selection (go test -run matched nothing)"
	default:
		res.Status = mutant.Survived
		res.Why = fmt.Sprintf("every selected test passed (%d ran)", len(v.ran))
		if m.Catalog != nil {
			res.Why = "the expected killers passed (" + strings.Join(m.Expected, ", ") + ")"
		}
	}
	return res
}

func allSkipped(skipped map[string]string, ids []string) bool {
	for _, id := range ids {
		if _, ok := skipped[id]; !ok {
			return false
		}
	}
	return len(ids) > 0
}

// firstSkip names the first skipped test and its message, preferring ids.
func firstSkip(skipped map[string]string, ids []string) string {
	for _, id := range ids {
		if msg, ok := skipped[id]; ok {
			return "skipped: " + id + ": " + msg
		}
	}
	var names []string
	for id := range skipped {
		names = append(names, id)
	}
	sort.Strings(names)
	return "skipped: " + names[0] + ": " + skipped[names[0]]
}

func anyIn(ids []string, set map[string]bool) bool {
	for _, id := range ids {
		if set[id] {
			return true
		}
	}
	return false
}

func prefixed(pkg string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pkg + "." + n
	}
	return out
}

// writeOverlay writes the mutated source and the overlay that maps the
// original path to it; it returns the overlay's path.
func writeOverlay(dir, root string, m mutant.Mutant) (string, error) {
	orig := filepath.Join(root, filepath.FromSlash(m.File))
	mutated := filepath.Join(dir, filepath.Base(orig))
	data, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("lab: read %s: %w", m.File, err)
	}
	src, err := m.Apply(data)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		return "", fmt.Errorf("lab: write mutant: %w", err)
	}
	path := filepath.Join(dir, "overlay.json")
	return path, testbin.WriteOverlay(path, map[string]string{orig: mutated})
}

// compileError keeps the compiler's messages from go test -c output.
func compileError(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ".go:") {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(out)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
