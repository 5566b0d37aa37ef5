package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
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
// survivor no test covers.
const kernFixture = "testdata/kernfixture"

var wantLine = regexp.MustCompile(`// want (.*)$`)

// kernelWants reads the expected verdicts by line of kernel.hip: the
// line's default, and per operator.
func kernelWants(t *testing.T, dir string) map[int]map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "kern", "kernel.hip"))
	if err != nil {
		t.Fatal(err)
	}
	wants := map[int]map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		m := wantLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		w := map[string]string{}
		for j, part := range strings.Split(m[1], ",") {
			part = strings.TrimSpace(part)
			if op, v, ok := strings.Cut(part, "="); ok {
				w[op] = v
			} else if j == 0 {
				w[""] = part
			}
		}
		wants[i+1] = w
	}
	return wants
}

// verdictWord is how a kernel.hip want names an outcome.
func verdictWord(o mutant.Outcome) string {
	if o.Result.Status == mutant.Survived && o.Result.Why == "not covered by any test" {
		return "not-covered"
	}
	return string(o.Result.Status)
}

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

// TestKernelFixture runs the kernel fixture's kernel mutants on the host
// emulation, in the kernel schema and each built on its own: every mutant
// gets the verdict its line wants, both ways, and is reported judged by
// the emulation.
func TestKernelFixture(t *testing.T) {
	if _, err := osexec.LookPath("c++"); err != nil {
		t.Skip("no c++: the kernel fixture's emulation cannot be built")
	}
	dir := copyKernFixture(t)
	wants := kernelWants(t, dir)
	verdicts := map[string]map[string]string{}
	for _, mode := range [][]string{nil, {"--no-schemata"}} {
		reports := t.TempDir()
		args := append([]string{"all", "--report-dir", reports}, fastFlags...)
		res := runMutate(t, dir, nil, append(args, mode...)...)
		if res.code != exitcode.Survivors {
			t.Fatalf("%v: exit %d, want %d (the weakly tested function's survivors)\n%s%s", mode, res.code, exitcode.Survivors, res.stdout, res.stderr)
		}
		_, outcomes := readReport(t, filepath.Join(reports, "mutation.json"))
		name := strings.Join(mode, " ")
		verdicts[name] = map[string]string{}
		kernels := 0
		for id, o := range outcomes {
			if o.Mutant.Kind != mutant.Kernel {
				continue
			}
			kernels++
			verdicts[name][id] = verdictWord(o)
			w := wants[o.Mutant.Pos.Line]
			if w == nil {
				t.Errorf("%s: kernel mutant %s on a line with no want", name, id)
				continue
			}
			want, ok := w[o.Mutant.Operator]
			if !ok {
				want = w[""]
			}
			if got := verdictWord(o); got != want {
				t.Errorf("%s: %s: %s (%s), want %s", name, id, got, o.Result.Why, want)
			}
			if o.Result.Status != mutant.Survived || o.Result.Why != "not covered by any test" {
				if o.Result.Backend != "kernel-emulation" {
					t.Errorf("%s: %s judged by %q, want kernel-emulation", name, id, o.Result.Backend)
				}
			}
		}
		if kernels == 0 {
			t.Fatalf("%s: no kernel mutant in the report", name)
		}
		if !strings.Contains(res.stdout, "kernel-emulation") {
			t.Errorf("%s: the summary has no per-backend score:\n%s", name, res.stdout)
		}
	}
	schema, own := verdicts[""], verdicts["--no-schemata"]
	if len(schema) != len(own) {
		t.Errorf("%d kernel mutants in the schema run, %d built on their own", len(schema), len(own))
	}
	for id, v := range schema {
		if own[id] != v {
			t.Errorf("%s: %s in the schema, %s built on its own", id, v, own[id])
		}
	}
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
	path := "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(pathWithTool(), "PATH=")
	res := runMutate(t, dir, []string{path}, append([]string{"all", "--report-dir", reports}, fastFlags...)...)
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
