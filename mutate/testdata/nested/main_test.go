package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommand builds the command with go build and runs the binary, then
// runs it once more through go run. It calls no function of the package
// itself. With NESTED_FIXTURE_LOG set, it appends one line per go command
// to that file: whether the command compiled the package or took it from
// the build cache, and how long it took.
func TestCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tally")
	var stderr bytes.Buffer
	start := time.Now()
	build := exec.Command("go", "build", "-x", "-o", bin, ".")
	build.Stderr = &stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v\n%s", err, stderr.String())
	}
	record("build", stderr.String(), time.Since(start))
	for _, c := range []struct {
		args []string
		out  string
		code int
	}{
		{[]string{"3", "4", "-2"}, "sum 5\n", 0},
		{nil, "sum 0\n", 0},
		{[]string{"1", "x"}, "tally: strconv.Atoi: parsing \"x\": invalid syntax\n", 2},
	} {
		cmd := exec.Command(bin, c.args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatalf("tally %v: %v", c.args, err)
		}
		if code := cmd.ProcessState.ExitCode(); out.String() != c.out || code != c.code {
			t.Errorf("tally %v: %q, exit %d; want %q, exit %d", c.args, out.String(), code, c.out, c.code)
		}
	}
	stderr.Reset()
	start = time.Now()
	run := exec.Command("go", "run", "-x", ".", "10", "20")
	run.Stderr = &stderr
	out, err := run.Output()
	record("run", stderr.String(), time.Since(start))
	if err != nil || string(out) != "sum 30\n" {
		t.Errorf("go run . 10 20: %q, %v\n%s", out, err, stderr.String())
	}
}

// record logs one go command: compiled=true when its -x trace compiled
// package main.
func record(what, trace string, took time.Duration) {
	path := os.Getenv("NESTED_FIXTURE_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s compiled=%v seconds=%.3f\n", what, strings.Contains(trace, " -p main "), took.Seconds())
}
