package cxx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaSwitchPerPass: in a kernel schema (the hooks hipkern/compat.h
// gives the code this package renders) built for a GPU, host code
// (the launcher: gm_gather, gm_run) reads the mutant switch and writes its
// hits in host memory, device code in the device's. Host code that named
// the __constant__ switch read its host shadow, which nothing writes: on
// the H200 the launcher's catalog mutants were never switched on. hipcc
// preprocesses compat.h once per pass, with the macros each pass defines.
func TestSchemaSwitchPerPass(t *testing.T) {
	hipcc, err := exec.LookPath("hipcc")
	if err != nil {
		t.Skip("cxx: hipcc not found on PATH: the per-pass check of the schema switch not run (install hipcc libamdhip64-dev)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "entry.hip")
	abs, err := filepath.Abs(filepath.Join("..", "..", "hipkern", "compat.h"))
	if err != nil {
		t.Fatal(err)
	}
	text := "#define GATHERMUT_SCHEMA 1\n#define GATHERMUT_SITES 8\n#include \"" + abs + "\"\nint gm_probe_on = GATHERMUT_ON(7);\nint gm_probe_hit = GATHERMUT_HIT(5);\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pass     string
		on, hit  string
		notOn    string
		passFlag string
	}{
		{"host", "gathermut_host_active == (7)", "gathermut_host_hits[(5)] = 1", "(gathermut_active == (7))", "--cuda-host-only"},
		{"device", "(gathermut_active == (7))", "(gathermut_hits[(5)] = 1)", "gathermut_host_active == (7)", "--cuda-device-only"},
	} {
		cmd := exec.Command(hipcc, "--offload-arch=gfx1100", "-nogpulib", c.passFlag, "-E", src)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
		s := string(out)
		for _, want := range []string{c.on, c.hit} {
			if !strings.Contains(s, want) {
				t.Errorf("%s pass: the schema hooks do not expand to %q", c.pass, want)
			}
		}
		if strings.Contains(s, "gm_probe_on = "+c.notOn) {
			t.Errorf("%s pass: GATHERMUT_ON reads the other side's switch (%s)", c.pass, c.notOn)
		}
	}
}
