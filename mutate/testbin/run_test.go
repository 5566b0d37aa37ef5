package testbin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// kinds is a test package with a test of every outcome, and parallel
// tests (which pause and continue).
const kinds = `package k

import (
	"os"
	"testing"
)

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) { t.Error("it failed") }

func TestSkip(t *testing.T) { t.Skip("no device here") }

func TestPar1(t *testing.T) { t.Parallel() }

func TestPar2(t *testing.T) { t.Parallel() }

func TestSub(t *testing.T) {
	t.Run("inner", func(t *testing.T) {})
}

func TestEnv(t *testing.T) {
	for _, v := range []string{"GATHERMUT_MUTANT", "GATHERMUT_HITS", "K_EXTRA"} {
		t.Logf("%s=%q", v, os.Getenv(v))
	}
	if os.Getenv("K_CRASH") != "" {
		os.Exit(3)
	}
}
`

// buildKinds builds kinds' test binary once per test.
func buildKinds(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = t.TempDir()
	for name, src := range map[string]string{"go.mod": "module k\n\ngo 1.26\n", "k_test.go": kinds} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin = filepath.Join(dir, "k.test")
	cmdline, out, err := Go(context.Background(), dir, "test", "-c", "-cover", "-o", bin, ".")
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, out)
	}
	if cmdline != "(cd "+dir+" && go test -c -cover -o "+bin+" .)" {
		t.Errorf("command line %q", cmdline)
	}
	return dir, bin
}

// TestRunOutcomes: each top-level test's outcome, its output and time;
// Failed and Ran; the selection and failfast flags; the environment a
// test process gets (the extra variables, not the tool's own inherited
// ones); a crash's exit code.
func TestRunOutcomes(t *testing.T) {
	dir, bin := buildKinds(t)
	t.Setenv("GATHERMUT_MUTANT", "7")
	t.Setenv("GATHERMUT_HITS", "/outer/hits")
	ctx := context.Background()
	res, err := Run(ctx, Options{Binary: bin, Dir: dir, Package: "k", Timeout: 10 * time.Minute, Env: []string{"K_EXTRA=x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"TestPass": "pass", "TestFail": "fail", "TestSkip": "skip", "TestPar1": "pass", "TestPar2": "pass", "TestSub": "pass", "TestEnv": "pass"}
	if len(res.Tests) != len(want) {
		t.Errorf("tests %v", res.Tests)
	}
	for name, action := range want {
		if got := res.Tests[name]; got == nil || got.Action != action {
			t.Errorf("%s: %+v, want %s", name, got, action)
		}
	}
	if !strings.Contains(res.Tests["TestFail"].Output, "it failed") || SkipMessage(res.Tests["TestSkip"].Output) != "no device here" {
		t.Errorf("outputs %q %q", res.Tests["TestFail"].Output, res.Tests["TestSkip"].Output)
	}
	env := res.Tests["TestEnv"].Output
	for _, s := range []string{`GATHERMUT_MUTANT=""`, `GATHERMUT_HITS=""`, `K_EXTRA="x"`} {
		if !strings.Contains(env, s) {
			t.Errorf("the test process's environment lacks %s:\n%s", s, env)
		}
	}
	if res.ExitCode != 1 || res.Signal != "" || res.TimedOut || res.Elapsed <= 0 {
		t.Errorf("exit %d, signal %q, timed out %v, elapsed %v", res.ExitCode, res.Signal, res.TimedOut, res.Elapsed)
	}
	if got := res.Failed(); !slices.Equal(got, []string{"TestFail"}) {
		t.Errorf("Failed %v", got)
	}
	if got := res.Ran(); !slices.Equal(got, []string{"TestEnv", "TestPar1", "TestPar2", "TestPass", "TestSub", "TestFail"}) {
		t.Errorf("Ran %v", got)
	}
	if !strings.HasPrefix(res.Command, "(cd "+dir+" && K_EXTRA=x ") || !strings.Contains(res.Command, " -test.timeout 21m0s") || strings.Contains(res.Command, "-test.run") {
		t.Errorf("command %s", res.Command)
	}

	// a selection, failfast and coverage flags
	res, err = Run(ctx, Options{Binary: bin, Dir: dir, Package: "k", Run: "^(TestFail|TestSkip)$", Failfast: true, Cover: filepath.Join(dir, "c.out")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 1 || res.Tests["TestSkip"] != nil || res.Tests["TestFail"].Action != "fail" {
		t.Errorf("failfast: %v", res.Tests)
	}
	for _, s := range []string{"-test.run '^(TestFail|TestSkip)$'", "-test.failfast", "-test.coverprofile " + filepath.Join(dir, "c.out")} {
		if !strings.Contains(res.Command, s) {
			t.Errorf("command lacks %q: %s", s, res.Command)
		}
	}
	if strings.Contains(res.Command, "-test.timeout") {
		t.Errorf("a run without a limit has a backstop: %s", res.Command)
	}

	// a test that exits: test2json fails it
	res, err = Run(ctx, Options{Binary: bin, Dir: dir, Package: "k", Run: "^TestEnv$", Env: []string{"K_CRASH=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 1 || res.Tests["TestEnv"].Action != "fail" || !slices.Equal(res.Failed(), []string{"TestEnv"}) {
		t.Errorf("an exiting test: exit %d, %+v", res.ExitCode, res.Tests["TestEnv"])
	}

	// a binary that does not exist: test2json runs and fails; a cancelled
	// context
	if res, err := Run(ctx, Options{Binary: filepath.Join(dir, "missing.test"), Dir: dir, Package: "k"}); err != nil || res.ExitCode == 0 || len(res.Tests) != 0 {
		t.Errorf("a missing binary: %v, %+v", err, res)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cctx, Options{Binary: bin, Dir: dir, Package: "k"}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v", err)
	}
}

// TestRunLimit: a run past its whole limit is killed and timed out, with
// no test named when none ran past its own limit.
func TestRunLimit(t *testing.T) {
	dir := t.TempDir()
	src := "package h\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Minute) }\n"
	for name, data := range map[string]string{"go.mod": "module h\n\ngo 1.26\n", "h_test.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "h.test")
	if _, out, err := Go(context.Background(), dir, "test", "-c", "-o", bin, "."); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	res, err := Run(context.Background(), Options{Binary: bin, Dir: dir, Package: "h", Timeout: 300 * time.Millisecond,
		TestTimeout: func(string) time.Duration { return time.Hour }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.TimedOutTest != "" || res.ExitCode != -1 || res.Signal != "SIGKILL" || res.Tests["TestSlow"].Action != "run" {
		t.Errorf("timed out %v (%q), exit %d, signal %q, %+v", res.TimedOut, res.TimedOutTest, res.ExitCode, res.Signal, res.Tests["TestSlow"])
	}
}

func TestHelpers(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"go", "test", "-run", "^(A|B)$"}, "(cd /d && go test -run '^(A|B)$')"},
		{[]string{"echo", "", "a b", "it's", "x=$y", "a\tb", "p;q", "<>", "*?[]", `"q"`, "(x)", "a|b", "a&b"}, `(cd /d && echo '' 'a b' 'it'\''s' 'x=$y' 'a	b' 'p;q' '<>' '*?[]' '"q"' '(x)' 'a|b' 'a&b')`},
		{[]string{"plain", "-x=1", "/a/b"}, "(cd /d && plain -x=1 /a/b)"},
	} {
		if got := CommandLine("/d", c.argv); got != c.want {
			t.Errorf("CommandLine(%q) = %s, want %s", c.argv, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"=== RUN   TestX\n    x_test.go:12: no GPU\n--- SKIP: TestX (0.00s)\n": "no GPU",
		"    x_test.go:3: first\n    x_test.go:4: second\n":                    "first second",
		"--- SKIP: TestX (0.00s)\n":                                            "skipped",
		"plain reason\n":                                                       "plain reason",
		"":                                                                     "skipped",
		"    noline.go: odd\n":                                                 "noline.go: odd",
	} {
		if got := SkipMessage(in); got != want {
			t.Errorf("SkipMessage(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Limit("abcdef", 6); got != "abcdef" {
		t.Errorf("Limit at the size: %q", got)
	}
	if got := Limit("abcdef", 3); got != "abc\n[... output truncated]\n" {
		t.Errorf("Limit: %q", got)
	}
	if Backstop(time.Second) != time.Minute+2*time.Second {
		t.Errorf("Backstop %v", Backstop(time.Second))
	}
	if ExitCode(errors.New("x")) != -1 || ExitCode(nil) != -1 {
		t.Errorf("ExitCode of a plain error")
	}
	for sig, name := range map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
		syscall.SIGQUIT: "SIGQUIT", syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR1: "user defined signal 1"} {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if got := SignalOf(err); got != name || ExitCode(err) != -1 {
			t.Errorf("%v: SignalOf %q (exit %d), want %q", sig, got, ExitCode(err), name)
		}
	}
	err := exec.Command("sh", "-c", "exit 4").Run()
	if SignalOf(err) != "" || ExitCode(err) != 4 || SignalOf(errors.New("x")) != "" {
		t.Errorf("a plain exit: %q %d", SignalOf(err), ExitCode(err))
	}
}
