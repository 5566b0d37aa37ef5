package kernel

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/cxx"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// fixtureRecipe is the kernel fixture's recipe (mutate/testdata/
// kernfixture): a C++ kernel built by c++ as the host emulation.
func fixtureRecipe() *catalog.Kernel {
	return &catalog.Kernel{
		Sources:        []string{"kern/*.hip", "kern/*.h"},
		Entry:          "kern/kernel.hip",
		Build:          []string{"kernfixture-gpu-cc-never-installed", "{src}", "{out}"},
		LibEnv:         "FIXTURE_KERN_GPU",
		Package:        "kernfixture/kern",
		Tools:          []string{"kernfixture-gpu-cc-never-installed"},
		Emulation:      []string{"c++", "-x", "c++", "-O1", "-o", "{out}", "{src}/kern/kernel.hip"},
		EmulationTools: []string{"c++"},
		EmulationEnv:   "FIXTURE_KERN",
	}
}

const fixtureRoot = "../testdata/kernfixture"

func needCxx(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no c++ on PATH: the emulation cannot be built")
	}
}

// run runs a built emulation (the fixture's kernel is a program).
func run(t *testing.T, lib string, args ...string) string {
	t.Helper()
	out, err := exec.Command(lib, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", lib, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestEnvNames(t *testing.T) {
	for _, c := range []struct {
		b    Backend
		tool string
		want string
	}{
		{Emulation, "/usr/bin/hipcc", cxx.Emulation.Name},
		{GPU, "/opt/rocm/bin/hipcc", cxx.HIPCC.Name},
		{GPU, "/usr/local/cuda/bin/nvcc", cxx.NVCC.Name},
		{GPU, "nvcc", cxx.NVCC.Name},
	} {
		if got := c.b.Env(c.tool); got != c.want {
			t.Errorf("%s.Env(%s) = %q, want %q", c.b, c.tool, got, c.want)
		}
	}
}

// TestBuildAndSchema: the fixture's kernel read and parsed, built as is
// and with one mutant made, and as a schema of all its mutants that runs
// each one when GATHERMUT_MUTANT names it (and the original with none).
func TestBuildAndSchema(t *testing.T) {
	needCxx(t)
	ctx := context.Background()
	k := fixtureRecipe()
	s, err := Read(fixtureRoot, k)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for f := range s.Files {
		files = append(files, f)
	}
	sort.Strings(files)
	if strings.Join(files, " ") != "kern/compat.h kern/kernel.hip" || len(s.Units) != 3 {
		t.Fatalf("files %v, %d build environments", files, len(s.Units))
	}
	dir := t.TempDir()
	checkPlainBuilds(t, ctx, s, dir)
	scale, nums := runnableKernelMutants(t, k)
	mlib, out, err := s.BuildMutant(ctx, Emulation, filepath.Join(dir, "mutant"), scale)
	if err != nil {
		t.Fatalf("mutant build: %v\n%s", err, out)
	}
	if got := run(t, mlib.Path, "scale", "42", "7"); got != "6" {
		t.Errorf("scale with x / f: %s", got)
	}
	if _, _, err := s.BuildMutant(ctx, Emulation, dir, &mutant.Mutant{File: "kern/none.hip"}); err == nil {
		t.Errorf("a mutant of a file outside the sources built")
	}
	checkSchema(t, ctx, s, dir, scale, nums)
	checkOddRecipes(t, ctx, s, dir, scale, nums)
}

// checkPlainBuilds: the unmutated kernel built on the emulation; no GPU
// build without its compiler; no replacement outside the sources.
func checkPlainBuilds(t *testing.T, ctx context.Context, s *Sources, dir string) {
	t.Helper()
	lib, out, err := s.Build(ctx, Emulation, filepath.Join(dir, "plain"), nil)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if got := run(t, lib.Path, "scale", "6", "7"); got != "42" || lib.Backend != Emulation || lib.Rounds != 1 || !strings.HasPrefix(lib.Command, "(cd "+fixtureRoot+" && c++ -x c++ -O1 -o ") {
		t.Errorf("the unmutated kernel: %s; %+v", got, lib)
	}
	if _, _, err := s.Build(ctx, GPU, filepath.Join(dir, "gpu"), nil); err == nil {
		t.Errorf("the GPU build of a compiler that does not exist succeeded")
	}
	if _, _, err := s.Build(ctx, Emulation, filepath.Join(dir, "x"), map[string][]byte{"kern/other.hip": nil}); err == nil || !strings.Contains(err.Error(), "kern/other.hip is not among the recipe's sources") {
		t.Errorf("a replacement outside the sources: %v", err)
	}
}

// runnableKernelMutants numbers the fixture kernel's runnable mutants and
// finds scale's x * f -> x / f among them.
func runnableKernelMutants(t *testing.T, k *catalog.Kernel) (*mutant.Mutant, []Numbered) {
	t.Helper()
	ms, err := operator.GenerateKernel(fixtureRoot, k, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var scale *mutant.Mutant
	var nums []Numbered
	for i := range ms {
		m := &ms[i]
		if !m.Runs() {
			continue
		}
		nums = append(nums, Numbered{Num: len(nums) + 1, Mutant: m})
		if m.Func == "scale" && m.Replacement == "x / f" {
			scale = m
		}
	}
	if scale == nil || len(nums) < 5 {
		t.Fatalf("%d kernel mutants, none of scale's x * f -> x / f", len(nums))
	}
	return scale, nums
}

// checkSchema: a schema of all the mutants runs scale's when
// GATHERMUT_MUTANT names it, and the original kernel with 0.
func checkSchema(t *testing.T, ctx context.Context, s *Sources, dir string, scale *mutant.Mutant, nums []Numbered) {
	t.Helper()
	sch, dropped, out, err := s.BuildSchema(ctx, Emulation, cxx.Emulation.Name, filepath.Join(dir, "schema"), nums, 3)
	if err != nil {
		t.Fatalf("schema: %v\n%s", err, out)
	}
	if sch.Rounds != 1 || len(sch.Switched)+len(dropped) != len(nums) || len(sch.Switched) < len(nums)/2 || sch.Sites == 0 {
		t.Errorf("schema: %d rounds, %d switched, %d dropped %v, %d sites", sch.Rounds, len(sch.Switched), len(dropped), dropped, sch.Sites)
	}
	runWith := func(n string) string {
		cmd := exec.Command(sch.Path, "scale", "42", "7")
		cmd.Env = append(os.Environ(), "GATHERMUT_MUTANT="+n)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("schema with mutant %s: %v\n%s", n, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, n := range nums {
		if n.Mutant == scale {
			if !sch.Switched[n.Num] {
				t.Fatalf("scale's mutant not switched: %v", dropped[n.Num])
			}
			if got := runWith(itoa(n.Num)); got != "6" {
				t.Errorf("the schema with scale's mutant: %s", got)
			}
		}
	}
	if got := runWith("0"); got != "294" {
		t.Errorf("the schema without a mutant: %s", got)
	}
}

// checkOddRecipes: a recipe without an Entry (nothing parsed, every
// mutant dropped, the unmutated kernel built), a mutant without an edit,
// a schema whose build fails outside any mutant, no emulation command.
func checkOddRecipes(t *testing.T, ctx context.Context, s *Sources, dir string, scale *mutant.Mutant, nums []Numbered) {
	t.Helper()
	noEntry := fixtureRecipe()
	noEntry.Entry = ""
	s2, err := Read(fixtureRoot, noEntry)
	if err != nil || s2.Units != nil {
		t.Fatalf("no entry: %v, units %v", err, s2.Units)
	}
	if _, why := s2.SiteFor(cxx.Emulation.Name, scale); !strings.Contains(why, "names no Entry file") {
		t.Errorf("SiteFor without an entry: %q", why)
	}
	lib2, dropped2, _, err := s2.BuildSchema(ctx, Emulation, cxx.Emulation.Name, filepath.Join(dir, "noentry"), nums[:2], 3)
	if err != nil || len(dropped2) != 2 || len(lib2.Switched) != 0 || run(t, lib2.Path, "scale", "2", "3") != "6" {
		t.Errorf("no entry: %v, dropped %v", err, dropped2)
	}
	if _, why := s.SiteFor(cxx.Emulation.Name, &mutant.Mutant{File: "kern/kernel.hip"}); why != "no edit" {
		t.Errorf("SiteFor without an edit: %q", why)
	}
	broken := fixtureRecipe()
	broken.Emulation = []string{"c++", "-x", "c++", "-DBROKEN=(", "-o", "{out}", "{src}/kern/nosuch.hip"}
	s3, _ := Read(fixtureRoot, broken)
	if _, _, _, err := s3.BuildSchema(ctx, Emulation, cxx.Emulation.Name, filepath.Join(dir, "broken"), nums[:1], 2); err == nil {
		t.Errorf("a schema whose build fails outside any mutant built")
	}
	none := fixtureRecipe()
	none.Emulation = nil
	s4, _ := Read(fixtureRoot, none)
	if _, _, err := s4.Build(ctx, Emulation, filepath.Join(dir, "none"), nil); err == nil || !strings.Contains(err.Error(), "no emulation build command") {
		t.Errorf("no emulation command: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestBlame(t *testing.T) {
	src := []byte("line one\nint a = f(x);\nint b = g(y);\n")
	sch := &cxx.Schema{Files: map[string]*cxx.Rendered{"kern/k.hip": {Src: src, Regions: []cxx.Region{
		{Start: 17, End: 21, Mutants: []int{1}}, // f(x) on line 2
		{Start: 31, End: 35, Mutants: []int{2}}, // g(y) on line 3
	}}}}
	for _, c := range []struct {
		out  string
		want []int
	}{
		{"k.hip:2:9: error: bad\n", []int{1}},
		{"/tmp/x/src/kern/k.hip:3:9: fatal error: worse\n", []int{2}},
		{"k.hip(3): error: nvcc has no column\n", []int{2}},
		{"k.hip:1:1: error: outside\n", nil},
		{"other.hip:2:9: error: another file\n", nil},
		{"k.hip:9:1: error: past the end\n", nil},
		{"k.hip:2:9: warning: not an error\n", nil},
		{"In file included from k.hip:2:9: error: here\n", []int{1}},
	} {
		got := blame(c.out, sch)
		var nums []int
		for n := range got {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		if len(nums) != len(c.want) || (len(nums) > 0 && nums[0] != c.want[0]) {
			t.Errorf("blame(%q) = %v, want %v", c.out, nums, c.want)
		}
	}
	for _, c := range []struct {
		line, col, want int
	}{{1, 1, 0}, {1, 0, 0}, {2, 1, 9}, {2, 5, 13}, {3, 0, 23}, {4, 1, 37}, {5, 1, -1}, {4, 2, -1}} {
		if got := offsetOf(src, c.line, c.col); got != c.want {
			t.Errorf("offsetOf(%d, %d) = %d, want %d", c.line, c.col, got, c.want)
		}
	}
	for out, want := range map[string]string{
		"In file x\nk.hip:2: error: e1\nk.hip:3: error: e2\n": "k.hip:2: error: e1",
		"  warning only\nmore\n":                              "warning only",
		"":                                                    "(no output)",
	} {
		if got := firstErrorLine(out); got != want {
			t.Errorf("firstErrorLine(%q) = %q, want %q", out, got, want)
		}
	}
}
