package lab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// Test statuses in the baseline.
const (
	BasePass  = "pass"
	BaseFail  = "fail"  // failed in both runs: the baseline is red
	BaseSkip  = "skip"  // skipped in both runs
	BaseFlaky = "flaky" // different results in the two runs: excluded
	BaseGone  = "absent"
)

// Baseline is the unmutated test suite of every observing package, run
// twice: once test by test with per-test coverage, once all together.
type Baseline struct {
	Packages map[string]*PackageBaseline
	Flaky    []string // "pkg.Test"
	Failing  []string // "pkg.Test"
	Duration time.Duration
	Commands []string
}

// PackageBaseline holds one observing package's tests.
type PackageBaseline struct {
	Path  string
	Dir   string
	Tests map[string]*TestBaseline
	Names []string // sorted
}

// TestBaseline is one top-level test's baseline.
type TestBaseline struct {
	Name    string
	Status  string
	Elapsed time.Duration // the longer of the two runs
	Skip    string        // the skip message
	Output  string        // for failing and flaky tests
	blocks  map[string][]block
	hits    []byte // schema sites the test ran (schemata)
}

// HitSite reports whether the test ran schema site s.
func (t *TestBaseline) HitSite(s int) bool { return s >= 0 && s < len(t.hits) && t.hits[s] != 0 }

type block struct {
	sl, sc, el, ec int
	hit            bool
}

// Red reports whether the baseline has failing tests.
func (b *Baseline) Red() bool { return len(b.Failing) > 0 }

// Covers reports whether the test executed the mutant's position in its
// baseline run. Positions outside function bodies (package-level
// initializers) are executed before any test, so every test covers them.
// A position no coverage block spans (a switch case expression, which the
// cover tool leaves between blocks) counts as executed when the test
// executed any block of the enclosing function body.
func (t *TestBaseline) Covers(m mutant.Mutant) bool {
	if !m.InBody {
		return true
	}
	instrumented := false
	for _, b := range t.blocks[m.File] {
		// blocks and mutants are [start, end) ranges of (line, column)
		if before(b.sl, b.sc, m.End.Line, m.End.Column) && before(m.Pos.Line, m.Pos.Column, b.el, b.ec) {
			if b.hit {
				return true
			}
			instrumented = true
		}
	}
	if instrumented {
		return false
	}
	for _, b := range t.blocks[m.File] {
		if b.hit && !before(b.sl, b.sc, m.BodyStart.Line, m.BodyStart.Column) && !before(m.BodyEnd.Line, m.BodyEnd.Column, b.el, b.ec) {
			return true
		}
	}
	return false
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || (l1 == l2 && c1 < c2) }

// BaselineOptions configure RunBaseline.
type BaselineOptions struct {
	Jobs     int
	TempDir  string
	Packages []string // observing packages
	Cover    []string // packages to collect coverage of (the mutated ones)
	// Bins are prebuilt schema test binaries, one per observing package:
	// coverage is then the schema sites each test ran (Sites of them),
	// recorded through GATHERMUT_HITS, instead of a -cover build.
	Bins    map[string]string
	Sites   int
	Timeout time.Duration // the limit on each baseline process
	// Progress is called as tests finish (done of total), from one
	// goroutine at a time.
	Progress func(done, total int)
}

// RunBaseline builds every observing package's test binary once with
// coverage (or takes the schema binaries) and runs its tests twice.
func RunBaseline(ctx context.Context, prog *load.Program, o BaselineOptions) (*Baseline, error) {
	start := time.Now()
	b := &Baseline{Packages: map[string]*PackageBaseline{}}
	var mu sync.Mutex
	bins := map[string]string{}
	for p, bin := range o.Bins {
		bins[p] = bin
	}
	p := pool.New().WithMaxGoroutines(max(o.Jobs, 1)).WithErrors().WithContext(ctx).WithCancelOnError()
	for i, path := range o.Packages {
		pb := &PackageBaseline{Path: path, Dir: prog.Dir(path), Tests: map[string]*TestBaseline{}}
		b.Packages[path] = pb
		if o.Bins != nil {
			if bins[path] == "" {
				return nil, fmt.Errorf("lab: no schema test binary for %s", path)
			}
			continue
		}
		bin := filepath.Join(o.TempDir, fmt.Sprintf("base%d.test", i))
		p.Go(func(ctx context.Context) error {
			cover := coverFor(prog, path, o.Cover)
			args := []string{"test", "-c", "-o", bin}
			if len(cover) > 0 {
				args = append(args, "-cover", "-covermode=set", "-coverpkg="+strings.Join(cover, ","))
			}
			args = append(args, path)
			cmdline, out, err := testbin.Go(ctx, prog.Root, args...)
			mu.Lock()
			b.Commands = append(b.Commands, cmdline)
			mu.Unlock()
			if err != nil {
				return fmt.Errorf("exec: baseline build of %s failed: %v\n%s", path, err, out)
			}
			mu.Lock()
			bins[path] = bin
			mu.Unlock()
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	total, done := 0, 0
	for _, path := range o.Packages {
		if n := len(prog.Tests(path)); n > 0 {
			total += n + 1
		}
	}
	tick := func() {
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}

	// Run 1: each test alone, with its coverage profile (or hits).
	type first struct {
		action, output string
		elapsed        time.Duration
		blocks         map[string][]block
		hits           []byte
	}
	firsts := map[string]*first{}
	p = pool.New().WithMaxGoroutines(max(o.Jobs, 1)).WithErrors().WithContext(ctx).WithCancelOnError()
	n := 0
	for _, path := range o.Packages {
		pb := b.Packages[path]
		for _, name := range prog.Tests(path) {
			n++
			profile := filepath.Join(o.TempDir, fmt.Sprintf("cover%d.out", n))
			p.Go(func(ctx context.Context) error {
				opts := testbin.Options{Binary: bins[path], Dir: pb.Dir, Package: path, Run: "^" + regexp.QuoteMeta(name) + "$", Timeout: o.Timeout}
				if o.Bins != nil {
					if err := os.WriteFile(profile, make([]byte, max(o.Sites, 1)), 0o644); err != nil {
						return err
					}
					opts.Env = []string{"GATHERMUT_HITS=" + profile, "GATHERMUT_MUTANT=0"}
				} else {
					opts.Cover = profile
				}
				res, err := testbin.Run(ctx, opts)
				if err != nil {
					return err
				}
				f := &first{action: BaseGone}
				if t, ok := res.Tests[name]; ok {
					f.action, f.output, f.elapsed = t.Action, t.Output, t.Elapsed
				}
				if f.action == "run" {
					f.action = BaseFail // crashed mid-test, or hung
					f.output += res.Output
					if res.TimedOut {
						f.output += fmt.Sprintf("\n[the baseline run was stopped after %s]", o.Timeout)
					}
				}
				if o.Bins != nil {
					f.hits, err = os.ReadFile(profile)
					os.Remove(profile)
				} else {
					f.blocks, err = readProfile(profile, prog.Module)
				}
				if err != nil {
					return err
				}
				mu.Lock()
				firsts[path+"."+name] = f
				b.Commands = append(b.Commands, res.Command)
				tick()
				mu.Unlock()
				return nil
			})
		}
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}

	// Run 2: all tests of each package in one process.
	seconds := map[string]*testbin.Result{}
	p = pool.New().WithMaxGoroutines(max(o.Jobs, 1)).WithErrors().WithContext(ctx).WithCancelOnError()
	for _, path := range o.Packages {
		if len(prog.Tests(path)) == 0 {
			continue
		}
		p.Go(func(ctx context.Context) error {
			res, err := testbin.Run(ctx, testbin.Options{Binary: bins[path], Dir: b.Packages[path].Dir, Package: path, Timeout: o.Timeout})
			if err != nil {
				return err
			}
			mu.Lock()
			seconds[path] = res
			b.Commands = append(b.Commands, res.Command)
			tick()
			mu.Unlock()
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}

	for _, path := range o.Packages {
		pb := b.Packages[path]
		for _, name := range prog.Tests(path) {
			f := firsts[path+"."+name]
			t := &TestBaseline{Name: name, Elapsed: f.elapsed, blocks: f.blocks, hits: f.hits, Output: f.output}
			second := BaseGone
			if res := seconds[path]; res != nil {
				if s, ok := res.Tests[name]; ok {
					second = s.Action
					if second == "run" {
						second = BaseFail
					}
					t.Elapsed = max(t.Elapsed, s.Elapsed)
					if second != f.action {
						t.Output += s.Output
					}
				}
			}
			switch {
			case f.action != second:
				t.Status = BaseFlaky
				b.Flaky = append(b.Flaky, fmt.Sprintf("%s.%s (%s alone, %s with the others)", path, name, f.action, second))
			default:
				t.Status = f.action
			}
			if t.Status == BaseFail {
				b.Failing = append(b.Failing, path+"."+name)
			}
			if t.Status == BaseSkip {
				t.Skip = testbin.SkipMessage(f.output)
			}
			pb.Tests[name] = t
			pb.Names = append(pb.Names, name)
		}
		sort.Strings(pb.Names)
	}
	sort.Strings(b.Flaky)
	sort.Strings(b.Failing)
	sort.Strings(b.Commands)
	b.Duration = time.Since(start)
	return b, nil
}

// coverFor lists the mutated packages whose code the observing package's
// tests can reach.
func coverFor(prog *load.Program, observer string, mutated []string) []string {
	var out []string
	for _, m := range mutated {
		for _, o := range prog.Observers(m) {
			if o == observer {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// readProfile reads a "mode: set" coverage profile: every block, executed
// or not, by module-relative file.
func readProfile(path, module string) (map[string][]block, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil // the binary covers nothing (no -coverpkg match)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// name.go:12.3,14.5 2 1
		fileAndRange, rest, ok := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("exec: coverage profile %s: bad line %q", path, line)
		}
		bl := block{hit: fields[2] != "0"}
		if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &bl.sl, &bl.sc, &bl.el, &bl.ec); err != nil {
			return nil, fmt.Errorf("exec: coverage profile %s: bad range in %q", path, line)
		}
		rel := strings.TrimPrefix(fileAndRange, module+"/")
		out[rel] = append(out[rel], bl)
	}
	return out, sc.Err()
}

// timeoutFor derives a run's timeout from the baseline time of the tests
// it selects.
func timeoutFor(tests []*TestBaseline, factor float64, floor time.Duration) time.Duration {
	var sum time.Duration
	for _, t := range tests {
		sum += t.Elapsed
	}
	return time.Duration(factor*float64(sum)) + floor
}
