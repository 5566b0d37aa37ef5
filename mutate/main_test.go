package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
)

// TestDocExitStatus: the exit statuses in the command's doc are the ones
// package exitcode renders, so the doc cannot drift from the codes.
func TestDocExitStatus(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(exitcode.DocText(), "\n"), "\n") {
		switch {
		case line == "":
			want.WriteString("//\n")
		case strings.HasPrefix(line, "\t"):
			want.WriteString("//" + line + "\n")
		default:
			want.WriteString("// " + line + "\n")
		}
	}
	if !strings.Contains(string(src), "// # Exit status\n//\n"+want.String()) {
		t.Errorf("mutate/doc.go's exit status section is not exitcode.DocText(); want:\n%s", want.String())
	}
	if !strings.HasSuffix(usage(config.Default()), exitcode.UsageText()) {
		t.Errorf("usage does not end with the exit statuses")
	}
}

func TestParse(t *testing.T) {
	var stderr bytes.Buffer
	cfg, _, err := parse([]string{"run", "arith:*", "./gguf/...", "-j", "3", "--shard", "1/4", "--operators", "arith, negate", "--timeout-floor", "3s", "--catalog="}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Command != config.CmdRun || cfg.Select != "arith:*" || strings.Join(cfg.Patterns, " ") != "./gguf/..." || cfg.Jobs != 3 ||
		cfg.Shard != (config.Shard{K: 1, N: 4}) || strings.Join(cfg.Operators, ",") != "arith,negate" || cfg.TimeoutFloor.String() != "3s" ||
		cfg.Catalog != "" || !cfg.CatalogExplicit {
		t.Errorf("config %+v", cfg)
	}
	for _, bad := range [][]string{{"all", "--shard", "3/3"}, {"all", "-j", "0"}, {"run"}, {"all", "--timeout-floor", "soon"}} {
		if _, _, err := parse(bad, &stderr); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestParseBenchSet: bench --set takes packages after its flags, as all
// does; without --set the bench's targets are fixed, and packages are a
// usage error (before anything is built).
func TestParseBenchSet(t *testing.T) {
	var stderr bytes.Buffer
	cfg, _, err := parse([]string{"bench", "--set", "mutate-self", "-j", "2", "./mutate/exitcode", "./mutate/tree"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Command != config.CmdBench || cfg.Set != "mutate-self" || cfg.Jobs != 2 || !cfg.Given.Packages || strings.Join(cfg.Patterns, " ") != "./mutate/exitcode ./mutate/tree" {
		t.Errorf("config %+v", cfg)
	}
	err = run([]string{"bench", "./mutate/exitcode"}, io.Discard, &stderr)
	var e *exitcode.Exit
	if !errors.As(err, &e) || e.Code != exitcode.Usage || !strings.Contains(err.Error(), "need --set") {
		t.Errorf("bench with packages and no --set: %v", err)
	}
}

// TestReportsIgnoredByGit: the reports of ad-hoc runs land in reports/,
// which git ignores except the committed, named reports of the row and
// of the tool's own run.
func TestReportsIgnoredByGit(t *testing.T) {
	if err := osexec.Command("git", "-C", "..", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not in a git checkout")
	}
	for path, ignored := range map[string]bool{
		"reports/mutation.json": true, "reports/mutation.md": true, "reports/run.json": true, "reports/mutation-shard-0-of-2.json": true,
		"reports/gather-row.json": false, "reports/gather-row.md": false, "reports/gather-row-gpu.json": false, "reports/gather-row-gpu.md": false,
		"reports/mutate-self.json": false, "reports/mutate-self.md": false, "reports/mutate-self-shard-0-of-2.json": true,
	} {
		err := osexec.Command("git", "-C", "..", "check-ignore", "-q", "--no-index", path).Run()
		if got := err == nil; got != ignored {
			t.Errorf("%s: ignored %v, want %v (%v)", path, got, ignored, err)
		}
	}
}

// TestFinalLine: every outcome ends with "exit N: reason" on one line.
func TestFinalLine(t *testing.T) {
	for _, c := range []struct {
		err  error
		code exitcode.Code
		want string
	}{
		{nil, exitcode.OK, ""},
		{exitcode.Fail(exitcode.Catalog, "catalog mutant q8k-trait-removed not killed by its expected test"), exitcode.Catalog, "exit 5: catalog mutant q8k-trait-removed not killed by its expected test\n"},
		{&exitcode.Exit{Code: exitcode.OK, Reason: "ok: 3 mutants judged"}, exitcode.OK, "exit 0: ok: 3 mutants judged\n"},
		{exitcode.Fail(exitcode.Baseline, "build failed:\nline 1\nline 2"), exitcode.Baseline, "mutate: build failed:\nline 1\nline 2\nexit 3: build failed:\n"},
		{errors.New("plain"), exitcode.Config, "exit 8: plain\n"},
	} {
		var buf bytes.Buffer
		if code := finalLine(&buf, c.err); code != c.code || buf.String() != c.want {
			t.Errorf("%v: code %d, printed %q; want %d, %q", c.err, code, buf.String(), c.code, c.want)
		}
	}
}
