package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// runTool runs the command in this test process, as the built tool would
// run it in dir: the same entry point as main (run, then finalLine's last
// line on stderr and its exit code), os.Args[0] "mutate" (a binary on
// PATH, as runMutate starts it, so the reports' rerun commands read
// "mutate run <id>"), the working directory dir and the variables of env
// (NAME=value) set for the run alone. What a run changes in the process
// (TMPDIR and GOTMPDIR point into its own temp dir) is put back after it,
// so runs follow one another in a test; t.Setenv keeps the test from
// running in parallel with others.
func runTool(t *testing.T, dir string, env []string, args ...string) runResult {
	t.Helper()
	restore := map[string]*string{}
	keep := func(name string) {
		if _, done := restore[name]; done {
			return
		}
		t.Setenv(name, os.Getenv(name)) // marks the test serial, restores at its end
		if v, ok := os.LookupEnv(name); ok {
			restore[name] = &v
		} else {
			restore[name] = nil
		}
	}
	for _, name := range []string{"TMPDIR", "GOTMPDIR", "GATHERMUT_CACHE"} {
		keep(name)
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		keep(name)
		os.Setenv(name, value)
	}
	defer func() {
		for name, v := range restore {
			if v == nil {
				os.Unsetenv(name)
			} else {
				os.Setenv(name, *v)
			}
		}
	}()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	arg0 := os.Args[0]
	os.Args[0] = "mutate"
	defer func() { os.Args[0] = arg0 }()
	var stdout, stderr bytes.Buffer
	code := finalLine(&stderr, run(args, &stdout, &stderr))
	return runResult{code, stdout.String(), stderr.String()}
}
