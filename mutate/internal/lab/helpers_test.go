package lab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// Unit tests of the lab's helpers (ported from wt-self's
// internal/lab/helpers_test.go, c4515ea, to the helpers that stayed in
// package lab; the others moved with their step: discover, schedule).

func TestSmallHelpers(t *testing.T) {
	for in, want := range map[string]string{
		"a  b\n\tc":             "a b c",
		strings.Repeat("x", 60): strings.Repeat("x", 60),
		strings.Repeat("y", 61): strings.Repeat("y", 57) + "...",
		"":                      "",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if plural(1, "mutant", "mutants") != "1 mutant" || plural(0, "mutant", "mutants") != "0 mutants" || plural(2, "diff", "diffs") != "2 diffs" {
		t.Errorf("plural")
	}
}

// TestListNote: list's note says the state decided before any test, and
// why, on one line.
func TestListNote(t *testing.T) {
	for _, c := range []struct {
		m    mutant.Mutant
		want string
	}{
		{mutant.Mutant{}, ""},
		{mutant.Mutant{State: mutant.Runnable, Note: "unused"}, ""},
		{mutant.Mutant{State: mutant.Invalid, Note: "no match"}, "\t[error: no match]"},
		{mutant.Mutant{State: mutant.Equivalent, Note: "same"}, "\t[ignored: same]"},
		{mutant.Mutant{State: mutant.Unbuildable, Note: "a\n  b"}, "\t[unviable: a b]"},
	} {
		if got := listNote(c.m); got != c.want {
			t.Errorf("listNote(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}

// TestDescribeSettings: the run's first line names every setting that
// applies and where they came from.
func TestDescribeSettings(t *testing.T) {
	c := config.Default()
	c.Patterns, c.Origin = []string{"./a/...", "./b"}, "origin"
	if got := describeSettings("m", c); got != "module m: packages ./a/... ./b (origin)" {
		t.Errorf("plain: %q", got)
	}
	c.Catalog, c.Exclude, c.Operators, c.Threshold = "./cat", []string{"a/gen", "*_x.go"}, []string{"arith", "negate"}, config.Threshold{Percent: 80, Given: true}
	if got := describeSettings("m", c); got != "module m: packages ./a/... ./b; catalog ./cat; excluding a/gen *_x.go; operators arith,negate; threshold 80% (origin)" {
		t.Errorf("full: %q", got)
	}
	c.Given.Packages = true
	if got := describeSettings("m", c); !strings.Contains(got, "excluding a/gen *_x.go outside the packages named exactly;") {
		t.Errorf("a package named exactly: %q", got)
	}
	c.Patterns = []string{"./a/..."}
	if got := describeSettings("m", c); strings.Contains(got, "outside the packages named exactly") {
		t.Errorf("only patterns with ...: %q", got)
	}
	c.Patterns, c.Exclude = []string{"./a", "./b"}, []string{"gen"}
	if got := describeSettings("m", c); !strings.Contains(got, "; excluding gen outside the packages named exactly; operators") {
		t.Errorf("one exclusion, two packages named exactly: %q", got)
	}
}

// TestBackendLine: a score per backend, only when a run had any but Go.
func TestBackendLine(t *testing.T) {
	o := func(kind mutant.Kind, file, backend string, st mutant.Status) mutant.Outcome {
		return mutant.Outcome{Mutant: mutant.Mutant{Kind: kind, File: file}, Result: mutant.Result{Status: st, Backend: backend}}
	}
	if got := backendLine(nil); got != "" {
		t.Errorf("no outcomes: %q", got)
	}
	goOnly := []mutant.Outcome{o(mutant.Go, "p.go", "", mutant.Killed)}
	if got := backendLine(goOnly); got != "" {
		t.Errorf("Go only: %q", got)
	}
	mixed := append(goOnly, o(mutant.Go, "p.go", "", mutant.Survived), o(mutant.Go, "a_amd64.s", "", mutant.Killed),
		o(mutant.Kernel, "k.hip", "kernel-emulation", mutant.Killed), o(mutant.Kernel, "k.hip", "", mutant.NotRun))
	want := "by backend: asm-amd64 100.0% (1 mutants, 0 not run); go 50.0% (2 mutants, 0 not run); kernel no score (1 mutants, 1 not run); kernel-emulation 100.0% (1 mutants, 0 not run)"
	if got := backendLine(mixed); got != want {
		t.Errorf("mixed:\n%s\nwant\n%s", got, want)
	}
}

// TestDetectGPUs: nvidia-smi's and rocminfo's output, read from fakes on
// PATH.
func TestDetectGPUs(t *testing.T) {
	bin := t.TempDir()
	fake := func(name, script string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	if g := nvidiaGPUs(); g != nil {
		t.Errorf("no nvidia-smi: %v", g)
	}
	if g := amdGPUs(); g != nil {
		t.Errorf("no rocminfo: %v", g)
	}
	m := describeMachine()
	if len(m.GPUs) != 0 || m.GPUNote != "no nvidia-smi or rocminfo GPU found" || m.Cores < 1 || m.OS == "" {
		t.Errorf("machine without GPUs: %+v", m)
	}
	fake("nvidia-smi", "echo 'NVIDIA H200, 9.0'\necho ''\necho 'NVIDIA A100, 8.0'\n")
	// PATH holds only the fakes: printf is the shell's own
	fake("rocminfo", "printf '%s\\n' 'Agent 1' '  Name:                    AMD Ryzen' '  Marketing Name:          AMD Ryzen 9' 'Agent 2' "+
		"'  Name:                    gfx1100' '  Marketing Name:          Radeon RX 7900 XTX' '  Uuid: x' 'Agent 3' '  Name:  gfx90a' 'no colon here' '  Marketing Name:   MI210'\n")
	want := []report.GPU{{Name: "NVIDIA H200", Arch: "sm_90"}, {Name: "NVIDIA A100", Arch: "sm_80"}, {Name: "Radeon RX 7900 XTX", Arch: "gfx1100"}, {Name: "MI210", Arch: "gfx90a"}}
	m = describeMachine()
	if !slices.Equal(m.GPUs, want) || m.GPUNote != "" {
		t.Errorf("GPUs %+v, note %q; want %+v", m.GPUs, m.GPUNote, want)
	}
	fake("nvidia-smi", "exit 1\n")
	fake("rocminfo", "exit 1\n")
	if g := append(nvidiaGPUs(), amdGPUs()...); len(g) != 0 {
		t.Errorf("failing tools: %v", g)
	}
}
