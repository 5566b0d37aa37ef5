package testbin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"gathermut/mutate/load"
)

// Command builds a child process in its own process group, so a timeout or
// an interrupt kills it and everything it started (test2json, the test
// binary, the compiler).
func Command(ctx context.Context, dir string, env []string, argv ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// CommandLine renders argv for a report.
func CommandLine(dir string, argv []string) string {
	var parts []string
	for _, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'$|&;()<>*?[]") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return "(cd " + dir + " && " + strings.Join(parts, " ") + ")"
}

var (
	test2jsonOnce sync.Once
	test2jsonPath string
	test2jsonErr  error
)

// test2json returns the path of the go distribution's test2json, so it runs
// without a go command in between.
func test2json() (string, error) {
	test2jsonOnce.Do(func() {
		out, err := exec.Command("go", "tool", "-n", "test2json").Output()
		if err != nil {
			test2jsonErr = fmt.Errorf("testbin: find test2json: %w", err)
			return
		}
		test2jsonPath = strings.TrimSpace(string(out))
	})
	return test2jsonPath, test2jsonErr
}

// Go runs a go command and returns its combined output.
func Go(ctx context.Context, dir string, args ...string) (string, string, error) {
	argv := append([]string{"go"}, args...)
	cmd := Command(ctx, dir, load.Env(), argv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return CommandLine(dir, argv), out.String(), err
}

// TestOutcome is what one top-level test did in one run.
type TestOutcome struct {
	Action  string        // "pass", "fail", "skip", or "run" when it never finished
	Elapsed time.Duration //
	Output  string        // its output, trimmed
	// FailedSubtests are the innermost subtests that failed, by their
	// full names ("TestX/Q4_K/w1"), in the order they failed: a failing
	// subtest's parents fail with it and are left out.
	FailedSubtests []string
	// RunningSubtests are the subtests that started and had not ended
	// when the output stopped, by their full names: for a crash, where
	// it happened.
	RunningSubtests []string
}

// Result is the result of one run of a test binary.
type Result struct {
	Command  string
	ExitCode int
	Signal   string // the signal that ended the process ("SIGKILL"), when one did
	TimedOut bool
	// TimedOutTest is the test that ran past its own limit (TestTimeout),
	// or "" when the whole run's limit ended it.
	TimedOutTest string
	Tests        map[string]*TestOutcome // top-level tests that started
	Output       string                  // output not attributed to a test (package level)
	Elapsed      time.Duration
}

// Failed lists the tests that failed, sorted.
func (r *Result) Failed() []string { return r.withAction("fail") }

// Ran lists the tests that passed or failed (skipped tests did not run to a
// verdict).
func (r *Result) Ran() []string {
	return append(r.withAction("pass"), r.withAction("fail")...)
}

func (r *Result) withAction(action string) []string {
	var out []string
	for name, t := range r.Tests {
		if t.Action == action {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Options configure one test-binary run.
type Options struct {
	Binary   string
	Dir      string // the package directory
	Package  string
	Run      string // -test.run regexp; "" runs everything
	Failfast bool
	Timeout  time.Duration // the whole run's limit; 0: none
	// TestTimeout, when set, limits each top-level test from when it
	// starts (or continues, for a parallel test): a test that runs past its
	// limit ends the run as timed out. A hang then costs its own test's
	// limit, not the whole selection's.
	TestTimeout func(test string) time.Duration
	Cover       string   // -test.coverprofile path, or ""
	Env         []string // extra environment
	// Overlay is the -overlay file the binary was built from, or "": the
	// go commands its tests run get it through GOFLAGS (see nested.go), so
	// a test that builds the module builds what its binary was built from.
	Overlay string
	// NestedCover, with Cover, are the packages whose coverage the
	// binaries the tests build (and their nested go tests) report; it is
	// added to the Cover profile. Set for a baseline without schemata.
	NestedCover []string
}

// Backstop is the -test.timeout given to a test binary whose run is
// limited to d: twice that, plus a minute, so the binary ends itself even
// if the tool that watches it was killed, but never before the tool's own
// limit decides.
func Backstop(d time.Duration) time.Duration { return 2*d + time.Minute }

const maxOutput = 64 << 10

// Run runs a compiled test binary under test2json and parses its
// events. A timeout kills the process group and marks the run timed out.
func Run(ctx context.Context, o Options) (*Result, error) {
	argv, err := o.argv()
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Timeout > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeout(runCtx, o.Timeout)
		defer stop()
	}
	var watch *watchdog
	if o.TestTimeout != nil {
		watch = newWatchdog(o.TestTimeout, cancel)
		defer watch.stop()
	}
	env, goflags, nested, err := o.environment()
	if err != nil {
		return nil, err
	}
	cmd := Command(runCtx, o.Dir, env, argv...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// the command line shows the environment the tool chose
	shown := append([]string(nil), o.Env...)
	if o.Overlay != "" || nested != nil {
		shown = append(shown, "GOFLAGS="+goflags)
	}
	res := &Result{Command: CommandLine(o.Dir, append(shown, argv...)), Tests: map[string]*TestOutcome{}}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testbin: start %s: %w", o.Binary, err)
	}
	pkgOut := parseEvents(stdout, res, watch)
	waitErr := cmd.Wait()
	res.Elapsed = time.Since(start)
	res.Output = Limit(pkgOut.String()+stderr.String(), maxOutput)
	if runCtx.Err() != nil && ctx.Err() == nil {
		res.TimedOut = true
		if watch != nil {
			res.TimedOutTest = watch.expired()
		}
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if nested != nil {
		if err := nested.collect(ctx, o.Cover); err != nil {
			return res, err
		}
	}
	defer func() { logProcess(o, res.Elapsed, res.ExitCode, res.TimedOut) }()
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		res.Signal = SignalOf(exitErr)
	case res.TimedOut:
		res.ExitCode = -1
	default:
		return res, fmt.Errorf("testbin: run %s: %w", o.Binary, waitErr)
	}
	return res, nil
}

// argv is the command line of a run: the test binary under test2json,
// with o's flags.
func (o Options) argv() ([]string, error) {
	t2j, err := test2json()
	if err != nil {
		return nil, err
	}
	argv := []string{t2j, "-t", "-p", o.Package, o.Binary, "-test.v=test2json", "-test.paniconexit0"}
	if o.Run != "" {
		argv = append(argv, "-test.run", o.Run)
	}
	if o.Failfast {
		argv = append(argv, "-test.failfast")
	}
	if o.Cover != "" {
		argv = append(argv, "-test.coverprofile", o.Cover)
	}
	if o.Timeout > 0 {
		argv = append(argv, "-test.timeout", Backstop(o.Timeout).String())
	}
	return argv, nil
}

type event struct {
	Action  string
	Test    string
	Elapsed float64
	Output  string
}

// parseEvents reads test2json events into res; it returns the output that
// belongs to no top-level test.
func parseEvents(r io.Reader, res *Result, watch *watchdog) *strings.Builder {
	var pkgOut strings.Builder
	outputs := map[string]*strings.Builder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			pkgOut.WriteString(sc.Text() + "\n")
			continue
		}
		top, _, sub := strings.Cut(ev.Test, "/")
		if ev.Test == "" {
			if ev.Action == "output" && pkgOut.Len() < maxOutput {
				pkgOut.WriteString(ev.Output)
			}
			continue
		}
		t := res.Tests[top]
		if t == nil {
			t = &TestOutcome{Action: "run"}
			res.Tests[top] = t
			outputs[top] = &strings.Builder{}
		}
		switch ev.Action {
		case "output":
			if outputs[top].Len() < maxOutput {
				outputs[top].WriteString(ev.Output)
			}
		case "pass", "fail", "skip":
			if sub && ev.Action == "fail" {
				t.FailedSubtests = innermost(t.FailedSubtests, ev.Test)
			}
			if sub {
				t.RunningSubtests = slices.DeleteFunc(t.RunningSubtests, func(s string) bool { return s == ev.Test })
			}
			if !sub {
				t.Action = ev.Action
				t.Elapsed = time.Duration(ev.Elapsed * float64(time.Second))
				watch.end(top)
			}
		case "run", "cont":
			if !sub {
				watch.start(top)
			} else if ev.Action == "run" {
				t.RunningSubtests = append(t.RunningSubtests, ev.Test)
			}
		case "pause":
			if !sub {
				watch.end(top)
			}
		}
	}
	for name, b := range outputs {
		res.Tests[name].Output = Limit(b.String(), maxOutput)
	}
	return &pkgOut
}

// innermost adds a failed subtest to failed, the innermost failures so
// far: test2json reports a parent's failure after its children's, so a
// name that prefixes one already there is a parent and is left out.
func innermost(failed []string, name string) []string {
	for _, f := range failed {
		if strings.HasPrefix(f, name+"/") {
			return failed
		}
	}
	return append(failed, name)
}

// Limit cuts s to n bytes, marking the cut.
func Limit(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n[... output truncated]\n"
}

// SkipMessage extracts the reason a skipped test gave.
func SkipMessage(output string) string {
	var lines []string
	for _, line := range strings.Split(output, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "=== ") || strings.HasPrefix(trimmed, "--- SKIP") {
			continue
		}
		// "    file_test.go:12: message"
		if _, msg, ok := strings.Cut(trimmed, ".go:"); ok {
			if _, text, ok := strings.Cut(msg, ": "); ok {
				trimmed = text
			}
		}
		lines = append(lines, trimmed)
	}
	if len(lines) == 0 {
		return "skipped"
	}
	return strings.Join(lines, " ")
}

// SignalOf names the signal that ended a process ("SIGKILL"), or "" when
// it exited by itself.
func SignalOf(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return ""
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	switch sig := ws.Signal(); sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	default:
		return sig.String()
	}
}

// ExitCode returns the exit status carried by a command's error, or -1.
func ExitCode(err error) int {
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Overlay is go build's -overlay file format.
type Overlay struct {
	Replace map[string]string
}

// WriteOverlay writes an overlay file at path that maps each original path
// to the file that replaces it, on top of the overlay the user's GOFLAGS
// names (-overlay=FILE), if any: a -overlay on a go command's line
// replaces the one in GOFLAGS, so the tool's builds, and the go commands
// its test processes run (which get this file through GOFLAGS), would
// otherwise lose the user's. Where both replace a file, replace wins.
func WriteOverlay(path string, replace map[string]string) error {
	user, err := userOverlay()
	if err != nil {
		return err
	}
	return writeOverlay(path, user, replace)
}

func writeOverlay(path string, user, replace map[string]string) error {
	merged := make(map[string]string, len(user)+len(replace))
	for from, to := range user {
		merged[from] = to
	}
	for from, to := range replace {
		merged[from] = to
	}
	data, err := json.Marshal(Overlay{Replace: merged})
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("testbin: write overlay: %w", err)
	}
	return nil
}

// watchdog ends a run whose running test passes its limit.
type watchdog struct {
	limit    func(string) time.Duration
	cancel   context.CancelFunc
	mu       sync.Mutex
	running  map[string]time.Time // test -> deadline
	overdue  string
	done     chan struct{}
	stopOnce sync.Once
}

func newWatchdog(limit func(string) time.Duration, cancel context.CancelFunc) *watchdog {
	w := &watchdog{limit: limit, cancel: cancel, running: map[string]time.Time{}, done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *watchdog) loop() {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case now := <-tick.C:
			w.mu.Lock()
			for name, deadline := range w.running {
				if now.After(deadline) && w.overdue == "" {
					w.overdue = name
					w.cancel()
				}
			}
			w.mu.Unlock()
		}
	}
}

func (w *watchdog) start(test string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.running[test] = time.Now().Add(w.limit(test))
	w.mu.Unlock()
}

func (w *watchdog) end(test string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	delete(w.running, test)
	w.mu.Unlock()
}

func (w *watchdog) expired() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.overdue
}

func (w *watchdog) stop() { w.stopOnce.Do(func() { close(w.done) }) }
