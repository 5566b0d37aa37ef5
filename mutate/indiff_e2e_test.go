package main

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFixtureInDiff runs the real command with --in-diff on a git copy of
// the fixture: after one line of strong.go changes, exactly the mutants on
// that line are listed, and a clean tree lists none.
func TestFixtureInDiff(t *testing.T) {
	if _, err := osexec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	dir := copyFixture(t)
	git := func(args ...string) {
		t.Helper()
		cmd := osexec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "fixture")

	list := func() []string {
		t.Helper()
		res := runTool(t, dir, nil, "list", "--in-diff", "HEAD", "./strong/...")
		if res.code != 0 {
			t.Fatalf("list --in-diff: exit %d: %s", res.code, res.stderr)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
		return lines
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("clean tree: %d mutants listed, want none: %v", len(got), got)
	}

	path := filepath.Join(dir, "strong", "strong.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const old = "\treturn total // want killed\n"
	if !strings.Contains(string(src), old) {
		t.Fatalf("fixture line %q not found", old)
	}
	lineNo := strings.Count(string(src[:strings.Index(string(src), old)]), "\n") + 1
	changed := strings.Replace(string(src), old, "\treturn total + 0 // want killed\n", 1)
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	got := list()
	if len(got) == 0 {
		t.Fatal("no mutant listed on the changed line")
	}
	for _, l := range got {
		fields := strings.Split(l, "\t")
		if len(fields) < 3 || !strings.HasPrefix(fields[2], "strong/strong.go:"+strconv.Itoa(lineNo)+":") {
			t.Errorf("listed a mutant off the changed line %d: %s", lineNo, l)
		}
	}
}
