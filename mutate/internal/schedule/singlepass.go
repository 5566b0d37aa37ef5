package schedule

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/sourcegraph/conc/pool"

	"gathermut/mutate/load"
	"gathermut/mutate/testbin"
)

// runSinglePass runs a package's baseline on its schema binary, whose
// tests the render wrapped (testwrap.go): all tests in one process, each
// test's hits recorded apart; only the tests that process cannot vouch
// for run again alone (not wrapped, overlapped, failed, or not finished).
// A test run both ways with different results is flaky, as in
// runPackageBaseline. With GATHERMUT_CHECK_BASELINE set, every other test
// runs alone too (checkSinglePass).
func runSinglePass(ctx context.Context, prog *load.Program, path string, w *wrapInfo, o packageOptions) (*PackageBaseline, error) {
	start := time.Now()
	pr := &packageRun{prog: prog, o: o, pb: &PackageBaseline{Path: path, Dir: prog.Dir(path), Tests: map[string]*TestBaseline{}}, firsts: map[string]*firstRun{}}
	pb := pr.pb
	names := prog.Tests(path)
	if len(names) == 0 {
		return pb, nil
	}
	together, hits, err := pr.oneProcess(ctx, w)
	if err != nil {
		return nil, err
	}
	var again []string
	for _, name := range names {
		if hits[name] == nil {
			again = append(again, name)
		}
	}
	if err := pr.runAlone(ctx, again); err != nil {
		return nil, err
	}
	for _, name := range names {
		pr.fileBoth(name, together, hits[name])
	}
	sort.Strings(pb.Names)
	sort.Strings(pb.Flaky)
	sort.Strings(pb.Failing)
	pb.Elapsed = time.Since(start)
	pb.single, pb.alone = true, len(again)
	if os.Getenv("GATHERMUT_CHECK_BASELINE") != "" {
		if err := checkSinglePass(ctx, prog, pb, names, again, o, os.Stderr); err != nil {
			return nil, err
		}
	}
	return pb, nil
}

// oneProcess runs every test of the package in one process with the
// per-test record; it returns that run and the hits of each test the
// process vouches for (wrapped, passed or skipped, its window closed
// alone).
func (pr *packageRun) oneProcess(ctx context.Context, w *wrapInfo) (*testbin.Result, map[string][]byte, error) {
	o, pb := pr.o, pr.pb
	n := profiles.Add(1)
	live := filepath.Join(o.TempDir, fmt.Sprintf("hits%d.out", n))
	record := filepath.Join(o.TempDir, fmt.Sprintf("tests%d.out", n))
	defer os.Remove(live)
	defer os.Remove(record)
	if err := os.WriteFile(live, make([]byte, o.Hits), 0o644); err != nil {
		return nil, nil, fmt.Errorf("schedule: baseline of %s: %w", pb.Path, err)
	}
	if err := os.WriteFile(record, make([]byte, w.recordSize()), 0o644); err != nil {
		return nil, nil, fmt.Errorf("schedule: baseline of %s: %w", pb.Path, err)
	}
	together, err := pr.run(ctx, testbin.Options{Binary: o.Binary, Dir: pb.Dir, Package: pb.Path, Timeout: o.Timeout,
		Env: []string{o.hitsEnv() + "=" + live, "GATHERMUT_TESTHITS=" + record, "GATHERMUT_MUTANT=0"}})
	if err != nil {
		return nil, nil, err
	}
	pb.Commands = append(pb.Commands, together.Command)
	rec, err := os.ReadFile(record)
	if err != nil {
		return nil, nil, fmt.Errorf("schedule: baseline of %s: %w", pb.Path, err)
	}
	hits := map[string][]byte{}
	for name, tg := range together.Tests {
		i, wrapped := w.index[name]
		if wrapped && (tg.Action == BasePass || tg.Action == BaseSkip) {
			if h := w.testHits(rec, i); h != nil {
				hits[name] = h
			}
		}
	}
	return together, hits, nil
}

// fileBoth files a test of a one-process baseline: from that process
// alone when it vouched for the test (hits), else from its run alone
// (pr.firsts) and what it did with the others.
func (pr *packageRun) fileBoth(name string, together *testbin.Result, hits []byte) {
	tg := together.Tests[name]
	second := BaseGone
	t := &TestBaseline{Name: name}
	if tg != nil {
		second, t.Elapsed, t.Output = tg.Action, tg.Elapsed, tg.Output
		if second == "run" {
			second = BaseFail // crashed mid-test, or hung
			t.Output += together.Output
		}
	}
	f := pr.firsts[name]
	if f == nil {
		t.hits = hits
		pr.pb.file(t, second, second, t.Output)
		return
	}
	t.hits, t.Elapsed = f.hits, max(t.Elapsed, f.elapsed)
	if second == BaseGone {
		// it never started with the others (a crash or a timeout
		// before it): its run alone decides
		t.Output = f.output
		second = f.action
	} else if second != f.action {
		t.Output += f.output
	}
	pr.pb.file(t, f.action, second, f.output)
}

// runAlone runs each named test alone, concurrently in the run's slots,
// into pr.firsts.
func (pr *packageRun) runAlone(ctx context.Context, names []string) error {
	p := pool.New().WithErrors().WithContext(ctx).WithCancelOnError()
	for _, name := range names {
		p.Go(func(ctx context.Context) error { return pr.alone(ctx, name) })
	}
	return p.Wait()
}

// hitsEnv is the variable a test process gets its hits file in.
func (o packageOptions) hitsEnv() string {
	if o.HitsEnv != "" {
		return o.HitsEnv
	}
	return "GATHERMUT_HITS"
}

// checkSinglePass (GATHERMUT_CHECK_BASELINE) runs alone every test the
// one process vouched for, says on w where its coverage alone differs
// from the one it had with the others (a cache filled once per process,
// a sync.Once: code an earlier test ran for it), and gives each test the
// union of both, so that the selection is what runs alone would give.
func checkSinglePass(ctx context.Context, prog *load.Program, pb *PackageBaseline, names, again []string, o packageOptions, w io.Writer) error {
	var rest []string
	for _, name := range names {
		if !slices.Contains(again, name) {
			rest = append(rest, name)
		}
	}
	pr := &packageRun{prog: prog, o: o, pb: &PackageBaseline{Path: pb.Path, Dir: pb.Dir, Tests: map[string]*TestBaseline{}}, firsts: map[string]*firstRun{}}
	if err := pr.runAlone(ctx, rest); err != nil {
		return err
	}
	pb.Commands = append(pb.Commands, pr.pb.Commands...)
	differ := 0
	for _, name := range rest {
		a, t := pr.firsts[name], pb.Tests[name]
		only := 0
		for s := range a.hits {
			if s < len(t.hits) && a.hits[s] != 0 && t.hits[s] == 0 {
				t.hits[s] = 1
				only++
			}
		}
		if only > 0 || a.action != t.Status {
			differ++
			fmt.Fprintf(w, "mutate: baseline check: %s.%s: %s alone, %s with the others; %d sites ran alone only\n", pb.Path, name, a.action, t.Status, only)
		}
	}
	fmt.Fprintf(w, "mutate: baseline check: %s: %d of %d tests covered more alone than with the others\n", pb.Path, differ, len(rest))
	return nil
}
