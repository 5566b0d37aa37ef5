package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// The kernel fixture (testdata/kernfixture) is a module whose "kernel" is a
// C++ file of device functions with a host main, built by its catalog's
// recipe as a host emulation with c++; its Go tests run the built program.
// Each line of kernel.hip says the verdicts its kernel mutants must get:
// "// want <verdict>[, <operator>=<verdict>...]", not-covered meaning a
// survivor no test covers. internal/lab's TestPipelineKernel checks those
// verdicts, in the kernel schema and each mutant built on its own.
const kernFixture = "testdata/kernfixture"

// copyKernFixture copies the kernel fixture and points its replace at this
// module.
func copyKernFixture(t *testing.T) string {
	t.Helper()
	dst := copyTree(t, kernFixture)
	abs, _ := filepath.Abs("..")
	gomod := filepath.Join(dst, "go.mod")
	data, _ := os.ReadFile(gomod)
	data = bytes.ReplaceAll(data, []byte("=> ../../.."), []byte("=> "+abs))
	if err := os.WriteFile(gomod, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestKernelFixtureGPUCompilerWithoutGPU: a GPU compiler on PATH (hipcc
// installed for compile checks, as on this project's CPU machines) does
// not make a GPU backend on a machine without a GPU: the kernel's tests
// would run only their parts that need no device, and a catalog mutant
// whose killer needs one would be "not run". The kernel mutants are
// judged on the emulation, and the run says why the GPU was passed over.
func TestKernelFixtureGPUCompilerWithoutGPU(t *testing.T) {
	if _, err := osexec.LookPath("c++"); err != nil {
		t.Skip("no c++: the kernel fixture's emulation cannot be built")
	}
	if _, err := osexec.LookPath("nvidia-smi"); err == nil {
		t.Skip("nvidia-smi is here: this machine may have a GPU")
	}
	if out, err := osexec.Command("rocminfo").Output(); err == nil && strings.Contains(string(out), "gfx") {
		t.Skip("rocminfo lists a GPU agent")
	}
	dir := copyKernFixture(t)
	bin := t.TempDir()
	// The fixture's "GPU compiler": it builds the kernel as c++ does, so
	// a probe on it would find a library whose tests run.
	script := "#!/bin/sh\nexec c++ -x c++ -O1 -o \"$2\" \"$1/kern/kernel.hip\"\n"
	if err := os.WriteFile(filepath.Join(bin, "kernfixture-gpu-cc-never-installed"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	reports := t.TempDir()
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	// the kernel mutants alone: the Go ones are judged as anywhere else
	res := runTool(t, dir, []string{path}, append([]string{"all", "--lang", "kernel", "--report-dir", reports}, fastFlags...)...)
	if res.code != exitcode.Survivors {
		t.Fatalf("exit %d, want %d\n%s%s", res.code, exitcode.Survivors, res.stdout, res.stderr)
	}
	_, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
	judged := 0
	for id, o := range outcomes {
		if o.Mutant.Kind != mutant.Kernel || o.Result.Why == "not covered by any test" {
			continue
		}
		judged++
		if o.Result.Backend != "kernel-emulation" || o.Result.Status == mutant.NotRun {
			t.Errorf("%s: %s by %q (%s), want a verdict of the emulation", id, o.Result.Status, o.Result.Backend, o.Result.Why)
		}
	}
	if judged == 0 {
		t.Fatal("no kernel mutant judged")
	}
}
