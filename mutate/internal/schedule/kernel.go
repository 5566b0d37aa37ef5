package schedule

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// kernelState is built once per run: the kernel package's test binary and
// the baseline of the unmutated kernel.
type kernelState struct {
	once     sync.Once
	base     *testbin.Result // the killers on the unmutated kernel
	bin      string
	dir      string
	notRun   string // every kernel mutant is not run, for this reason
	err      string // every kernel mutant is an error, for this reason
	commands []string
	// claimed is set when a worker takes the run's first kernel mutant,
	// settled once that mutant knows whether the kernel needs preparing
	// and, if so, it is prepared: in between, the other workers take other
	// mutants rather than wait on once.
	claimed, settled atomic.Bool
}

// free reports whether a worker may take a kernel mutant without waiting
// on another worker's preparation of the kernel.
func (ks *kernelState) free() bool { return !ks.claimed.Load() || ks.settled.Load() }

// FindTool returns the first of tools found on PATH.
func FindTool(tools []string) (string, bool) {
	for _, t := range tools {
		if p, err := exec.LookPath(t); err == nil {
			return p, true
		}
	}
	return "", false
}

// kernelBuild is the backend of a kernel mutant: the kernel library
// rebuilt from the catalog's Kernel.Sources with the rewrite, and the
// mutant's expected killers run against it.
type kernelBuild struct{ r *Runner }

func (kb kernelBuild) judge(ctx context.Context, m mutant.Mutant) mutant.Result {
	r := kb.r
	k, ks := r.Opts.Kernel, &r.kernel
	if k == nil {
		ks.settled.Store(true)
		return mutant.Result{Status: mutant.Error, Why: "kernel-text entry, but the catalog has no Kernel config"}
	}
	if _, ok := FindTool(k.Tools); !ok {
		ks.settled.Store(true)
		return mutant.Result{Status: mutant.NotRun, Why: fmt.Sprintf("no compiler (none of %s on PATH)", strings.Join(k.Tools, ", "))}
	}
	ks.once.Do(func() { r.prepareKernel(ctx, m.Expected) })
	ks.settled.Store(true)
	res := mutant.Result{Commands: append([]string(nil), ks.commands...)}
	switch {
	case ks.err != "":
		res.Status, res.Why = mutant.Error, ks.err
		return res
	case ks.notRun != "":
		res.Status, res.Why = mutant.NotRun, ks.notRun
		return res
	}
	dir, err := os.MkdirTemp(r.Opts.TempDir, "kernel-")
	if err != nil {
		return mutant.Result{Status: mutant.Error, Why: err.Error()}
	}
	defer os.RemoveAll(dir)
	lib, cmdline, out, err := buildKernel(ctx, r.Prog.Root, k, dir, &m)
	res.Commands = append(res.Commands, cmdline)
	if ctx.Err() != nil {
		return res
	}
	if err != nil {
		res.Status, res.Why, res.Excerpt = mutant.Unviable, "kernel build failed: "+firstLine(out), testbin.Limit(out, 4<<10)
		res.ExitCode = testbin.ExitCode(err)
		return res
	}
	expected := expectedSet(m)
	var tests []*TestBaseline
	for name, t := range ks.base.Tests {
		tests = append(tests, &TestBaseline{Name: name, Elapsed: t.Elapsed})
	}
	limit := func(name string) time.Duration {
		if t := ks.base.Tests[name]; t != nil {
			return testTimeout(&TestBaseline{Elapsed: t.Elapsed}, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor)
		}
		return r.Opts.TimeoutFloor
	}
	if err := r.slots.acquire(ctx); err != nil {
		return res
	}
	run, err := testbin.Run(ctx, testbin.Options{Binary: ks.bin, Dir: ks.dir, Package: k.Package, Run: killerPattern(m.Expected), Env: []string{k.LibEnv + "=" + lib},
		Timeout: timeoutFor(tests, r.Opts.TimeoutFactor, r.Opts.TimeoutFloor), TestTimeout: limit})
	r.slots.release()
	if run != nil {
		res.Commands = append(res.Commands, run.Command)
	}
	if err != nil {
		if ctx.Err() == nil {
			res.Status, res.Why = mutant.Error, err.Error()
		}
		return res
	}
	v := verdict{skipped: map[string]string{}}
	v.add(k.Package, run)
	return v.result(res, m, expected)
}

// prepareKernel builds the kernel package's test binary and runs the
// killers against the unmutated kernel: when they all skip (no GPU), every
// kernel mutant is "not run" with their message.
func (r *Runner) prepareKernel(ctx context.Context, killers []mutant.TestID) {
	k, ks := r.Opts.Kernel, &r.kernel
	ks.dir = r.Prog.Dir(k.Package)
	if ks.dir == "" {
		ks.err = fmt.Sprintf("kernel package %s is not a package of module %s", k.Package, r.Prog.Module)
		return
	}
	ks.bin = filepath.Join(r.Opts.TempDir, "kernel.test")
	cmdline, out, err := testbin.Go(ctx, r.Prog.Root, "test", "-c", "-o", ks.bin, k.Package)
	ks.commands = append(ks.commands, cmdline)
	if err != nil {
		ks.err = "kernel package test build failed: " + firstLine(compileError(out))
		return
	}
	dir := filepath.Join(r.Opts.TempDir, "kernel-base")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ks.err = err.Error()
		return
	}
	lib, cmdline, out, err := buildKernel(ctx, r.Prog.Root, k, dir, nil)
	ks.commands = append(ks.commands, cmdline)
	if err != nil {
		ks.err = "unmutated kernel does not build: " + firstLine(out)
		return
	}
	run, err := testbin.Run(ctx, testbin.Options{Binary: ks.bin, Dir: ks.dir, Package: k.Package, Run: killerPattern(killers), Env: []string{k.LibEnv + "=" + lib}, Timeout: r.Opts.BaselineTimeout})
	if err != nil {
		ks.err = err.Error()
		return
	}
	ks.commands = append(ks.commands, run.Command)
	ks.base = run
	if failed := run.Failed(); len(failed) > 0 {
		ks.err = "kernel baseline failing: " + strings.Join(failed, ", ")
		return
	}
	if len(run.Ran()) == 0 {
		var skipped []string
		for name, t := range run.Tests {
			if t.Action == "skip" {
				skipped = append(skipped, k.Package+"."+name+": "+testbin.SkipMessage(t.Output))
			}
		}
		if len(skipped) > 0 {
			ks.notRun = "skipped: " + skipped[0]
		} else {
			ks.err = "no kernel killer ran against the unmutated kernel"
		}
	}
}

func killerPattern(ids []mutant.TestID) string {
	var names []string
	for _, id := range ids {
		names = append(names, regexp.QuoteMeta(id.Name))
	}
	return "^(" + strings.Join(names, "|") + ")$"
}

// buildKernel copies the kernel sources into dir/src (with m's rewrite
// applied when m is not nil) and runs the build command; it returns the
// built library's path.
func buildKernel(ctx context.Context, root string, k *catalog.Kernel, dir string, m *mutant.Mutant) (lib, cmdline, out string, err error) {
	src := filepath.Join(dir, "src")
	lib = filepath.Join(dir, "out", "libkernel.so")
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		return "", "", "", err
	}
	placed := m == nil
	for _, glob := range k.Sources {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		if err != nil {
			return "", "", "", fmt.Errorf("kernel source glob %q: %w", glob, err)
		}
		for _, path := range matches {
			rel, _ := filepath.Rel(root, path)
			data, err := os.ReadFile(path)
			if err != nil {
				return "", "", "", err
			}
			if m != nil && filepath.ToSlash(rel) == m.File {
				if data, err = m.Apply(data); err != nil {
					return "", "", "", err
				}
				placed = true
			}
			dst := filepath.Join(src, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return "", "", "", err
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return "", "", "", err
			}
		}
	}
	if !placed {
		return "", "", "", fmt.Errorf("kernel file %s is not among the Kernel.Sources %v", m.File, k.Sources)
	}
	var argv []string
	for _, a := range k.Build {
		argv = append(argv, strings.NewReplacer("{src}", src, "{out}", lib).Replace(a))
	}
	if len(argv) == 0 {
		return "", "", "", fmt.Errorf("kernel: empty Build command")
	}
	cmd := testbin.Command(ctx, root, load.Env(), argv...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	return lib, testbin.CommandLine(root, argv), buf.String(), err
}
