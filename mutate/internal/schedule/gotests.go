package schedule

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/internal/selection"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// pkgRun is the selection of tests of one observing package.
type pkgRun struct {
	pkg   *PackageBaseline
	tests []*TestBaseline
	// run, when set, is the process's -test.run pattern (predicted
	// killers, subtests among them); else its tests run whole.
	run string
	// step is the step of the mutant's order the process runs in
	// (stepPredicted, stepTier, stepTail), for the run's timing.
	step string
}

func (p pkgRun) names() []string {
	var out []string
	for _, t := range p.tests {
		out = append(out, t.Name)
	}
	return out
}

func (p pkgRun) runPattern() string {
	if p.run != "" {
		return p.run
	}
	var quoted []string
	for _, n := range p.names() {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// costTiers splits a selection into its cost tiers and its tail
// (selection.Tiers), each a process of its own package. Expected killers
// stay together in one process: they must all run.
func costTiers(p pkgRun, killers bool) (tiers, tail []pkgRun) {
	groups, late := selection.Tiers(p.tests, func(t *TestBaseline) time.Duration { return t.Elapsed }, killers)
	for _, g := range groups {
		tiers = append(tiers, pkgRun{pkg: p.pkg, tests: g})
	}
	for _, t := range late {
		tail = append(tail, pkgRun{pkg: p.pkg, tests: []*TestBaseline{t}})
	}
	return tiers, tail
}

// byCost is a selection's processes in the order they run: its cost
// tiers, then its tail.
func byCost(p pkgRun, killers bool) []pkgRun {
	tiers, tail := costTiers(p, killers)
	return append(tiers, tail...)
}

// step is one run of a mutant's tests in one observing package: its
// expected killers alone, or the other tests that execute it.
type step struct {
	path    string
	killers bool // only the expected killers of this package
}

// steps orders a mutant's runs: the packages of its expected killers
// first (those killers alone: a panic in another test would end the
// binary before a killer ran), then every observing package's other
// covering tests, the mutated package first, then its importers.
func (r *Runner) steps(m mutant.Mutant) ([]step, map[string]map[string]bool, mutant.Result, bool) {
	expected := map[string]map[string]bool{}
	for _, k := range m.Expected {
		if expected[k.Package] == nil {
			expected[k.Package] = map[string]bool{}
		}
		expected[k.Package][k.Name] = true
	}
	observers := r.Prog.Observers(m.Package)
	for pkg := range expected {
		if !slices.Contains(observers, pkg) {
			return nil, nil, mutant.Result{Status: mutant.Error, Why: fmt.Sprintf("expected killer package %s cannot observe %s (it does not import it)", pkg, m.Package)}, false
		}
	}
	var out []step
	for _, path := range observers {
		if len(expected[path]) > 0 {
			out = append(out, step{path: path, killers: true})
		}
	}
	for _, path := range observers {
		out = append(out, step{path: path})
	}
	return out, expected, mutant.Result{}, true
}

// pkgBaseline returns an observing package's baseline: from the schema
// run (made on first use) or the baseline run up front.
func (r *Runner) pkgBaseline(ctx context.Context, path string) (*PackageBaseline, error) {
	if r.Schema != nil {
		return r.Schema.baseline(ctx, path)
	}
	return r.Baseline.Packages[path], nil
}

// selection picks a step's tests from the package's baseline.
func (r *Runner) selection(pb *PackageBaseline, st step, m mutant.Mutant, expected map[string]bool) pkgRun {
	run := pkgRun{pkg: pb}
	for _, name := range pb.Names {
		t := pb.Tests[name]
		if t.Status != BasePass && t.Status != BaseSkip {
			continue // failing, flaky or absent tests cannot decide
		}
		if st.killers {
			if expected[name] {
				run.tests = append(run.tests, t)
			}
			continue
		}
		if !expected[name] && r.covers(pb, t, m) {
			run.tests = append(run.tests, t)
		}
	}
	if st.killers {
		// an expected killer the baseline does not know still runs: the
		// test binary then shows whether it exists
		var missing []string
		for name := range expected {
			if _, known := pb.Tests[name]; !known {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		for _, name := range missing {
			run.tests = append(run.tests, &TestBaseline{Name: name, Status: BaseGone})
		}
	}
	return run
}

// writeOverlay writes the mutated source and the overlay that maps the
// original path to it; it returns the overlay's path.
func writeOverlay(dir, root string, m mutant.Mutant) (string, error) {
	orig := filepath.Join(root, filepath.FromSlash(m.File))
	mutated := filepath.Join(dir, filepath.Base(orig))
	data, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("schedule: read %s: %w", m.File, err)
	}
	src, err := m.Apply(data)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		return "", fmt.Errorf("schedule: write mutant: %w", err)
	}
	path := filepath.Join(dir, "overlay.json")
	return path, testbin.WriteOverlay(path, map[string]string{orig: mutated})
}

// compileError keeps the compiler's messages from go test -c output.
func compileError(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ".go:") || strings.Contains(line, ".s:") {
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(out)
}

// goTests is the backend of a Go mutant: its predicted killers first
// (predicted, from the killer map), then its observing packages' tests,
// step by step (steps), each package's in cost tiers, then the tail of
// every package (costTiers), each on the package's schema test binary
// when the mutant is switched in it, else on a build of its own through
// -overlay. The verdict depends on neither the binary nor the order: the
// same tests run until one decides.
type goTests struct{ r *Runner }

func (g goTests) judge(ctx context.Context, m mutant.Mutant) mutant.Result {
	return g.judgeOnce(ctx, m, false)
}

// judgeOnce judges m; whole makes a hanging mutant's search go through
// every covering test (no searchStops). A search that hangs cut short
// and whose confirmations then all finished (slow, not hung: a loaded
// machine) never ran the tests after the cut: the mutant is judged again
// with the whole search rather than called survived.
func (g goTests) judgeOnce(ctx context.Context, m mutant.Mutant, whole bool) mutant.Result {
	steps, expectedByPkg, res, ok := g.r.steps(m)
	if !ok {
		return res
	}
	j := &goJudging{Runner: g.r, m: m, expected: expectedSet(m), v: verdict{skipped: map[string]string{}},
		res: mutant.Result{Mode: mutant.ModeOverlay}, bins: map[string]string{}, ranWhole: map[string]bool{}, wholeSearch: whole}
	defer j.close()
	if final, done := j.judgeSteps(ctx, steps, expectedByPkg); done {
		return final
	}
	if final, done := j.confirmHung(ctx); done {
		return final
	}
	if !j.ran {
		return mutant.Result{Status: mutant.Survived, Why: mutant.NotCovered, Mode: mutant.ModeStatic}
	}
	out := timeoutVerdict(j.v.result(j.res, m, j.expected), j.slowWhy)
	if j.cut && out.Status == mutant.Survived && ctx.Err() == nil {
		return g.judgeOnce(ctx, m, true)
	}
	if out.Status == mutant.Survived && j.raceRecheck(ctx, steps) {
		out = raceVerdict(j.v.result(j.res, m, j.expected))
	}
	out.CoveredBy = uniq(out.CoveredBy)
	j.learn(m, out, &j.v)
	return out
}

// learn teaches the run's killer map what killed a mutant, or that its
// timeout was confirmed on this tree (a later run of the tree need not
// confirm it again: timeouts.go).
func (r *Runner) learn(m mutant.Mutant, out mutant.Result, v *verdict) {
	if r.Killers == nil {
		return
	}
	switch {
	case out.Status == mutant.Killed:
		r.Killers.Learn(killerKey(m), v.killers)
	case out.Status == mutant.TimedOut && out.Timeout == mutant.TimeoutConfirmed:
		r.Killers.LearnHang(killerKey(m), r.Tree)
	case out.Status != mutant.TimedOut:
		r.Killers.ForgetHang(m.ID)
	}
}

// judgeSteps runs the predicted killers, the steps and the tail until
// one decides; done when the result is final (an error, an interrupt).
func (j *goJudging) judgeSteps(ctx context.Context, steps []step, expectedByPkg map[string]map[string]bool) (mutant.Result, bool) {
	if final, done := j.predicted(ctx, steps); done || j.stop {
		return final, done
	}
	for i, st := range steps {
		if final, done := j.step(ctx, i, st, expectedByPkg[st.path]); done || j.stop {
			return final, done
		}
	}
	slices.SortStableFunc(j.tail, func(a, b tailRun) int { return cmp.Compare(a.p.tests[0].Elapsed, b.p.tests[0].Elapsed) })
	for _, t := range j.tail {
		finished := j.runningTail(t.p)
		final, done := j.runGroup(ctx, t.tb, t.p)
		finished()
		if done || j.stop {
			return final, done
		}
	}
	return mutant.Result{}, false
}

// killerKey is what the killer map knows of a mutant.
func killerKey(m mutant.Mutant) selection.Key {
	return selection.Key{ID: m.ID, Package: m.Package, File: m.File, Func: m.Func}
}

// goJudging is one Go mutant's judging in progress.
type goJudging struct {
	*Runner
	m        mutant.Mutant
	expected map[string]bool // "pkgpath.TestName"
	v        verdict
	res      mutant.Result
	bins     map[string]string // package -> its overlay test binary, built once
	dir      string            // the mutant's temp dir, with its overlay
	overlay  string
	// cut is set when hangs ended the search (searchStops) before every
	// covering test ran; wholeSearch, for a judging again after a cut
	// search found only slow processes, never ends it so.
	cut, wholeSearch bool
	// ranWhole are the tests ("pkg.Test") the predicted killers ran
	// whole: the steps leave them out. tail is every package's tail
	// (costTiers), run after every step.
	ranWhole map[string]bool
	tail     []tailRun
	// hung are the generic mutant's processes that timed out, confirmed
	// after every other covering test (confirmHung).
	hung []hungRun

	buildTime, runTime time.Duration
	builds, runs       int
	ran                bool   // a selection was not empty
	stop               bool   // the mutant is decided: no more steps
	slowWhy            string // where a slow test process first timed out (timeouts.go)
}

// tailRun is one test of a package's tail and the binary it runs on.
type tailRun struct {
	tb testBinary
	p  pkgRun
}

// close removes the mutant's temp dir and adds its time to the run's.
func (j *goJudging) close() {
	if j.dir != "" {
		os.RemoveAll(j.dir)
	}
	j.timing.add(j.buildTime, j.runTime, j.builds, j.runs)
}

// predicted runs the killer map's predicted killers of the mutant
// (selection.Map.Predict) that cover it, in one process per package, in
// the order predicted; a whole test that ran is left out of the steps.
// Catalog mutants, and runs without a killer map, skip it.
func (j *goJudging) predicted(ctx context.Context, steps []step) (mutant.Result, bool) {
	if j.Killers == nil || j.m.Catalog != nil {
		return mutant.Result{}, false
	}
	preds, own := j.Killers.Predict(killerKey(j.m))
	var pkgs []string
	for _, r := range preds {
		if !slices.Contains(pkgs, r.Package) {
			pkgs = append(pkgs, r.Package)
		}
	}
	for _, path := range pkgs {
		i := slices.IndexFunc(steps, func(s step) bool { return s.path == path && !s.killers })
		if i < 0 {
			continue
		}
		if final, done := j.predictedIn(ctx, i, steps[i], preds, own); done || j.stop {
			return final, done
		}
	}
	return mutant.Result{}, false
}

// predictedIn runs the predicted killers of one package that cover the
// mutant, in one process; tail tests only when the mutant's own entry
// (own) names them.
func (j *goJudging) predictedIn(ctx context.Context, i int, st step, preds []selection.Ref, own bool) (mutant.Result, bool) {
	pb, final, done := j.stepBaseline(ctx, st)
	if done || pb == nil {
		return final, done
	}
	covering := j.selection(pb, st, j.m, nil)
	p, whole, ok := predictedGroup(covering, preds, own)
	if !ok {
		return mutant.Result{}, false
	}
	j.ran = true
	j.res.CoveredBy = append(j.res.CoveredBy, prefixed(pb.Path, covering.names())...)
	tb, final, done := j.binary(ctx, i, st, pb, p)
	if done {
		return final, true
	}
	hung := len(j.hung)
	if final, done := j.runGroup(ctx, tb, p); done || j.stop {
		return final, done
	}
	// A hang stops its process: the tests it never started ran on in a
	// process of their own (notReached) unless the process ran
	// subtests; a test that hung is confirmed at the end, not run again
	// in the tiers (it would only hang again).
	started := map[string]bool{}
	for _, h := range j.hung[hung:] {
		for name := range h.first.Tests {
			started[name] = true
		}
	}
	for name := range whole {
		if started[name] || p.run == "" || len(j.hung) == hung {
			j.ranWhole[st.path+"."+name] = true
		}
	}
	return mutant.Result{}, false
}

// predictedGroup is the process of the predicted killers among a
// package's covering tests (tail tests only from the mutant's own entry,
// own), with its -test.run pattern; whole are the tests it runs whole,
// which the tiers then leave out. false when no prediction covers it.
func predictedGroup(covering pkgRun, preds []selection.Ref, own bool) (p pkgRun, whole map[string]bool, ok bool) {
	p, whole = pkgRun{pkg: covering.pkg, step: stepPredicted}, map[string]bool{}
	var refs []selection.Ref
	for _, ref := range preds {
		k := slices.IndexFunc(covering.tests, func(t *TestBaseline) bool { return t.Name == ref.Test })
		if ref.Package != covering.pkg.Path || k < 0 || (!own && covering.tests[k].Elapsed >= selection.TailTest) {
			continue
		}
		refs = append(refs, ref)
		if ref.Sub == "" {
			whole[ref.Test] = true
		}
		if !slices.Contains(p.tests, covering.tests[k]) {
			p.tests = append(p.tests, covering.tests[k])
		}
	}
	if len(refs) == 0 {
		return pkgRun{}, nil, false
	}
	p.run = selection.Pattern(refs)
	return p, whole, true
}

// stepBaseline is the baseline of a step's package; done when the
// mutant's result is final (an error, an interrupt); nil when the
// package has none.
func (j *goJudging) stepBaseline(ctx context.Context, st step) (*PackageBaseline, mutant.Result, bool) {
	pb, err := j.pkgBaseline(ctx, st.path)
	if err != nil {
		if red, ok := isRed(err); ok {
			j.red(red)
		}
		if ctx.Err() != nil {
			return nil, j.res, true
		}
		return nil, mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: j.res.Mode, Commands: j.res.Commands}, true
	}
	return pb, mutant.Result{}, false
}

// step runs one step's selection of tests, but for the tests the
// predicted killers ran whole, in cost tiers; its tail waits for every
// other step. done when the mutant's result is final (an error, an
// interrupt, a build that fails).
func (j *goJudging) step(ctx context.Context, i int, st step, expected map[string]bool) (mutant.Result, bool) {
	pb, final, done := j.stepBaseline(ctx, st)
	if done || pb == nil {
		return final, done
	}
	p := j.selection(pb, st, j.m, expected)
	if !st.killers {
		p.tests = slices.DeleteFunc(p.tests, func(t *TestBaseline) bool { return j.ranWhole[st.path+"."+t.Name] })
	}
	if len(p.tests) == 0 {
		return mutant.Result{}, false
	}
	j.ran = true
	j.res.CoveredBy = append(j.res.CoveredBy, prefixed(p.pkg.Path, p.names())...)
	tb, final, done := j.binary(ctx, i, st, pb, p)
	if done {
		return final, true
	}
	tiers, tail := costTiers(p, st.killers)
	for _, t := range tail {
		t.step = stepTail
		j.tail = append(j.tail, tailRun{tb: tb, p: t})
	}
	for _, group := range tiers {
		if final, done := j.runGroup(ctx, tb, group); done || j.stop {
			return final, done
		}
	}
	return mutant.Result{}, false
}

// testBinary is the test binary a step runs, the environment that
// selects its mutant and the overlay it was built from (the go commands
// its tests run build with it too: testbin.Options.Overlay).
type testBinary struct {
	path    string
	env     []string
	overlay string
	r       *render // the schema render of a schema binary, else nil
}

// binary is the test binary a step runs: the package's schema binary
// when the mutant is switched in it (with the switch's environment),
// else the package's build of its own with the mutant.
func (j *goJudging) binary(ctx context.Context, i int, st step, pb *PackageBaseline, p pkgRun) (testBinary, mutant.Result, bool) {
	bin, built := j.bins[st.path]
	tb := testBinary{path: bin, overlay: j.overlay}
	if sch := j.Schema; sch != nil && !pb.plain && sch.main.switched[j.m.ID] {
		b, err := sch.binary(ctx, st.path)
		if err != nil {
			return tb, mutant.Result{Status: mutant.Error, Why: err.Error(), Mode: mutant.ModeSchema}, true
		}
		if b.r.switched[j.m.ID] {
			built = true
			tb = testBinary{path: b.path, overlay: b.r.overlay, env: []string{fmt.Sprintf("GATHERMUT_MUTANT=%d", sch.number[j.m.ID])}, r: b.r}
			j.res.Mode = mutant.ModeSchema
			j.res.Commands = append(j.res.Commands, b.command)
		}
	}
	if !built && j.Schema != nil && j.res.ModeNote == "" {
		if why := j.Schema.unusableReason(st.path); why != "" {
			j.res.ModeNote = why
		}
	}
	if built {
		return tb, mutant.Result{}, false
	}
	bin, final, done := j.ownBuild(ctx, i, st, p)
	return testBinary{path: bin, overlay: j.overlay}, final, done
}

// ensureOverlay makes the mutant's temp dir and overlay, once.
func (j *goJudging) ensureOverlay() error {
	if j.overlay != "" {
		return nil
	}
	var err error
	if j.dir == "" {
		if j.dir, err = os.MkdirTemp(j.Opts.TempDir, "mutant-"); err != nil {
			return err
		}
	}
	j.overlay, err = writeOverlay(j.dir, j.Prog.Root, j.m)
	return err
}

// ownBuild builds the observing package's test binary with the mutant
// through -overlay; a build that fails makes the mutant unviable.
func (j *goJudging) ownBuild(ctx context.Context, i int, st step, p pkgRun) (string, mutant.Result, bool) {
	if err := j.ensureOverlay(); err != nil {
		return "", mutant.Result{Status: mutant.Error, Why: err.Error()}, true
	}
	bin := filepath.Join(j.dir, fmt.Sprintf("p%d.test", i))
	if err := j.slots.acquire(ctx); err != nil {
		return "", j.res, true
	}
	t0 := time.Now()
	cmdline, out, err := testbin.Go(ctx, j.Prog.Root, "test", "-c", "-o", bin, "-overlay", j.overlay, p.pkg.Path)
	j.slots.release()
	j.buildTime += time.Since(t0)
	j.builds++
	j.res.Commands = append(j.res.Commands, cmdline)
	if ctx.Err() != nil {
		return "", j.res, true
	}
	if err != nil {
		j.res.Status, j.res.Why = mutant.Unviable, "does not compile: "+firstLine(compileError(out))
		j.res.Excerpt = testbin.Limit(out, 4<<10)
		j.res.ExitCode = testbin.ExitCode(err)
		return "", j.res, true
	}
	j.bins[st.path] = bin
	return bin, mutant.Result{}, false
}

// runGroup runs one process of a mutant's tests (a tier, a tail test,
// or the predicted killers), its timeout confirmed (timeouts.go); it
// sets stop when the process decided the mutant, and is done when the
// result is final (an error, an interrupt).
func (j *goJudging) runGroup(ctx context.Context, tb testBinary, group pkgRun) (mutant.Result, bool) {
	t0 := time.Now()
	opts := j.testOptions(tb, group)
	hitsFile, hitsEnv := j.evidenceHits(tb.r)
	opts.Env = append(append([]string(nil), tb.env...), hitsEnv...)
	run, err := j.testProcess(ctx, group.pkg.Path, opts)
	j.noteEvidence(j.m, group.pkg.Path, run, tb.r, hitsFile)
	j.runTime += time.Since(t0)
	j.runs++
	if err == nil {
		j.timing.addStep(group.step, time.Since(t0), run.TimedOut || run.ExitCode != 0)
	}
	if run != nil {
		j.res.Commands = append(j.res.Commands, run.Command)
	}
	if err == nil && run.TimedOut {
		if j.m.Catalog == nil {
			// confirmed only if no other test kills the mutant; a
			// second hang ends the search (each costs its limit)
			j.hung = append(j.hung, hungRun{tb: tb, group: group, opts: opts, first: run})
			j.stop = !j.wholeSearch && (searchStops(j.hung) || j.knownHang())
			j.cut = j.cut || j.stop
			if rest := notReached(group, run); !j.stop && len(rest.tests) > 0 {
				// the hang ended the process: its later tests run on
				return j.runGroup(ctx, tb, rest)
			}
			return mutant.Result{}, false
		}
		run, err = j.confirm(ctx, hungRun{tb: tb, group: group, opts: opts, first: run})
	}
	return j.decide(ctx, group, run, err)
}

// decide adds a process's run to the verdict; it sets stop when the
// run decided the mutant, and is done when the result is final (an
// error, an interrupt).
func (j *goJudging) decide(ctx context.Context, group pkgRun, run *testbin.Result, err error) (mutant.Result, bool) {
	if err != nil {
		if ctx.Err() != nil {
			return j.res, true
		}
		j.res.Status, j.res.Why = mutant.Error, err.Error()
		return j.res, true
	}
	j.v.add(group.pkg.Path, run)
	if j.v.timedOut != "" || (len(j.v.failed) > 0 && (j.m.Catalog == nil || anyIn(j.v.failed, j.expected))) {
		j.stop = true
	}
	return mutant.Result{}, false
}

// notReached is the part of a process's whole tests that never started
// before it was stopped (a predicted process of subtests has none: its
// tests run again in the tiers).
func notReached(group pkgRun, run *testbin.Result) pkgRun {
	rest := pkgRun{pkg: group.pkg, step: group.step}
	if group.run != "" {
		return rest
	}
	for _, t := range group.tests {
		if _, started := run.Tests[t.Name]; !started {
			rest.tests = append(rest.tests, t)
		}
	}
	return rest
}

// How far the search for a test that kills a hanging generic mutant
// outright goes: past maxHung hung processes only while they took less
// than hangBudget together, and never past hungCap. Each hang costs its
// test's limit. Four was too few on the row: gguf/reader.go:586's
// mutant hangs a dozen of gguf's quick tests (a quarter of a second
// each) before TestParseBoundaries, which fails, so a fresh run timed it
// out where a run whose killer map knew the killer killed it; the
// engine's deadlocks hang every test that takes its lock twice, at half
// a second or more each, and stop after four as before.
const (
	maxHung    = 4
	hangBudget = 3 * time.Second
	hungCap    = 32
)

// searchStops reports whether a generic mutant's hung processes end
// the search for a test that kills it (maxHung, hangBudget, hungCap).
func searchStops(hung []hungRun) bool {
	var spent time.Duration
	for _, h := range hung {
		spent += h.first.Elapsed
	}
	return len(hung) >= hungCap || (len(hung) >= maxHung && spent >= hangBudget)
}

// knownHang reports whether an earlier run of this judged tree confirmed
// the mutant's timeout (the killer map records it): then its first hang
// here ends the search, as the confirmation does (timeouts.go). On that
// tree no other covering test killed it, so the tests left would only
// cost their time (and a hang, its limit), and the verdict is the
// earlier run's.
func (j *goJudging) knownHang() bool {
	return j.Killers != nil && j.Killers.HungOn(j.m.ID, j.Tree)
}

// hungRun is a generic mutant's test process that ran past its limit,
// to be confirmed once every other covering test has run.
type hungRun struct {
	tb    testBinary
	group pkgRun
	opts  testbin.Options
	first *testbin.Result
}

// confirm runs a hung process again with twice its time
// (confirmTimeout); the rerun counts what it ran with a hits file of its
// own.
func (j *goJudging) confirm(ctx context.Context, h hungRun) (*testbin.Result, error) {
	hitsFile, hitsEnv := j.evidenceHits(h.tb.r)
	h.opts.Env = append(append([]string(nil), h.tb.env...), hitsEnv...)
	run, err := j.confirmTimeout(ctx, j.gpuSlotsOf(h.group.pkg.Path), j.m.ID, h.group.pkg.Path, h.opts, h.first, &j.res, &j.slowWhy)
	j.noteEvidence(j.m, h.group.pkg.Path, run, h.tb.r, hitsFile)
	return run, err
}

// confirmHung confirms, in the order they hung, the processes of a
// generic mutant that no other covering test killed: the first rerun
// that times out again or fails decides. A mutant that one test fails
// and another hangs on is so killed whatever order its tests ran in
// (unless the hangs before the failing test ended the search:
// searchStops).
func (j *goJudging) confirmHung(ctx context.Context) (mutant.Result, bool) {
	if len(j.v.failed) > 0 {
		return mutant.Result{}, false
	}
	j.stop = false
	for _, h := range j.hung {
		if j.stop {
			break
		}
		run, err := j.confirm(ctx, h)
		if final, done := j.decide(ctx, h.group, run, err); done {
			return final, true
		}
	}
	return mutant.Result{}, false
}

// runningTail tells the progress line that a worker runs a tail test,
// until the func it returns is called.
func (j *goJudging) runningTail(p pkgRun) func() {
	if j.Running == nil {
		return func() {}
	}
	return j.Running(p.pkg.Path + "." + p.tests[0].Name)
}

// uniq keeps the first of each string, in order.
func uniq(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// testOptions runs one tier: its tests alone, each held to its own
// limit, the process to their sum (timeoutFor); generic mutants stop at
// the first failure.
func (j *goJudging) testOptions(tb testBinary, group pkgRun) testbin.Options {
	return testbin.Options{
		Binary:   tb.path,
		Dir:      group.pkg.Dir,
		Package:  group.pkg.Path,
		Run:      group.runPattern(),
		Failfast: j.m.Catalog == nil,
		Timeout:  timeoutFor(group.tests, j.Opts.TimeoutFactor, j.Opts.TimeoutFloor),
		TestTimeout: func(name string) time.Duration {
			if t := group.pkg.Tests[name]; t != nil {
				return testTimeout(t, j.Opts.TimeoutFactor, j.Opts.TimeoutFloor)
			}
			return j.Opts.TimeoutFloor
		},
		Env:     tb.env,
		Overlay: tb.overlay,
	}
}

// testProcess runs one test process of package path in a slot, and in a
// GPU slot too where the package's tests may use the GPU (gpuSlotsOf).
func (r *Runner) testProcess(ctx context.Context, path string, o testbin.Options) (*testbin.Result, error) {
	if gpu := r.gpuSlotsOf(path); gpu != nil {
		if err := gpu.acquire(ctx); err != nil {
			return nil, err
		}
		defer gpu.release()
	}
	if err := r.slots.acquire(ctx); err != nil {
		return nil, err
	}
	defer r.slots.release()
	return testbin.Run(ctx, o)
}
