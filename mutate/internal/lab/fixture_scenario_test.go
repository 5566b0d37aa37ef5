package lab

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report/schematest"
)

// copyRepoFixture copies one of the command's fixture modules
// (mutate/testdata/<name>) into a temp dir and points its replace of
// gathermut (the catalog package) at this checkout.
func copyRepoFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(strings.TrimSuffix(target, ".txt"), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod := filepath.Join(dst, "go.mod")
	data, _ := os.ReadFile(gomod)
	data = bytes.ReplaceAll(data, []byte("=> ../../.."), []byte("=> "+repo))
	if err := os.WriteFile(gomod, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPipelineCatalog runs the fixture's catalog alone: every Go entry is
// killed by its expected test, the kernel entry whose compiler does not
// exist is not run (and says why, in the report and plainly on stdout),
// exit 0 with a reason that claims nothing of the entry that did not run,
// and the report is valid; a second run of the same tree takes its
// discovery and baselines from the caches.
func TestPipelineCatalog(t *testing.T) {
	dir := copyRepoFixture(t, "fixture")
	repo, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	cache := t.TempDir()
	var runs []pipelineRun
	for i := range 2 {
		cfg := config.Default()
		cfg.Jobs, cfg.OnlyCatalog, cfg.Command = 2, true, config.CmdAll
		res := runPipelineWith(t, dir, cfg, cache)
		runs = append(runs, res)
		if res.code != exitcode.OK || len(res.outcomes) != 7 {
			t.Fatalf("run %d: exit %d (%s), %d mutants\n%s%s", i, res.code, res.reason, len(res.outcomes), res.stdout, res.stderr)
		}
		if want := "ok: 7 mutants judged, none survived; the 6 catalog mutants that ran were killed by their expected tests (1 not run)"; !strings.HasPrefix(res.reason, want) {
			t.Errorf("run %d: reason %q, want it to start with %q", i, res.reason, want)
		}
		if !strings.Contains(res.stdout, "not run (1): no compiler (none of fixture-kernel-cc-never-installed on PATH): kernel-scale") {
			t.Errorf("run %d: stdout does not say what did not run:\n%s", i, res.stdout)
		}
		if err := schematest.ValidateFile(filepath.Join(res.reportDir, "mutation.json"), dir, repo); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
		for id, o := range res.outcomes {
			switch {
			case id == "kernel-scale":
				if o.Result.Status != mutant.NotRun || !strings.HasPrefix(o.Result.Why, "no compiler (none of fixture-kernel-cc-never-installed on PATH)") {
					t.Errorf("run %d: %s: %s (%s)", i, id, o.Result.Status, o.Result.Why)
				}
			case o.Result.Status != mutant.Killed || !o.Result.ExpectedKiller || o.Mutant.Catalog == nil:
				t.Errorf("run %d: %s: %s by %v (expected %v)", i, id, o.Result.Status, o.Result.KilledBy, o.Mutant.Expected)
			}
		}
	}
	if !strings.Contains(runs[1].stderr, "from the baseline cache") || !strings.Contains(runs[1].stderr, "from the discovery cache") {
		t.Errorf("the second run did not use the caches:\n%s", runs[1].stderr)
	}
	s := runs[0].report.Gathermut.Summary
	if s.CatalogTotal != 7 || s.CatalogJudged != 6 || len(s.CatalogFailures) != 0 {
		t.Errorf("catalog summary %+v", s)
	}
}

// TestPipelineKernel runs the kernel fixture: its kernel mutants are
// judged on the host emulation (c++), in the kernel schema and each built
// on its own, with the verdicts written on kernel.hip's lines.
func TestPipelineKernel(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no c++: the kernel fixture's emulation cannot be built")
	}
	dir := copyRepoFixture(t, "kernfixture")
	src, err := os.ReadFile(filepath.Join(dir, "kern", "kernel.hip"))
	if err != nil {
		t.Fatal(err)
	}
	wants := map[int]map[string]string{}
	for i, line := range strings.Split(string(src), "\n") {
		_, rest, ok := strings.Cut(line, "// want ")
		if !ok {
			continue
		}
		w := map[string]string{}
		for j, part := range strings.Split(rest, ",") {
			part = strings.TrimSpace(part)
			if op, v, ok := strings.Cut(part, "="); ok {
				w[op] = v
			} else if j == 0 {
				w[""] = part
			}
		}
		wants[i+1] = w
	}
	verdicts := map[bool]map[string]string{}
	for _, schemata := range []bool{true, false} {
		cfg := config.Default()
		cfg.Jobs, cfg.Schemata = 2, schemata
		if !schemata {
			// the Go mutants built on their own are compared with the
			// schema's on smaller modules (TestPipelineTiny): here the
			// kernel mutants, each built on its own
			cfg.Languages = []string{"kernel"}
		}
		res := runPipeline(t, dir, cfg)
		if res.code != exitcode.Survivors {
			t.Fatalf("schemata %v: exit %d (%s)\n%s%s", schemata, res.code, res.reason, res.stdout, res.stderr)
		}
		verdicts[schemata] = map[string]string{}
		kernels := 0
		for id, o := range res.outcomes {
			if o.Mutant.Kind != mutant.Kernel {
				continue
			}
			kernels++
			w := wants[o.Mutant.Pos.Line]
			want, ok := w[o.Mutant.Operator]
			if !ok {
				want = w[""]
			}
			got := string(o.Result.Status)
			if o.Result.Status == mutant.Survived && o.Result.Why == "not covered by any test" {
				got = "not-covered"
			}
			verdicts[schemata][id] = got
			if got != want {
				t.Errorf("schemata %v: %s: %s (%s), want %s", schemata, id, got, o.Result.Why, want)
			}
			if got != "not-covered" && (o.Result.Backend != "kernel-emulation" || o.Result.Mode != mutant.ModeKernel) {
				t.Errorf("schemata %v: %s judged by %q in mode %s", schemata, id, o.Result.Backend, o.Result.Mode)
			}
		}
		if kernels < 6 || !strings.Contains(res.stdout, "by backend: ") || !strings.Contains(res.stdout, "kernel-emulation") {
			t.Errorf("schemata %v: %d kernel mutants; summary:\n%s", schemata, kernels, res.stdout)
		}
	}
	if len(verdicts[true]) != len(verdicts[false]) {
		t.Errorf("%d kernel mutants in the schema run, %d built on their own", len(verdicts[true]), len(verdicts[false]))
	}
	for id, v := range verdicts[true] {
		if verdicts[false][id] != v {
			t.Errorf("%s: %s in the schema, %s built on its own", id, v, verdicts[false][id])
		}
	}
}

// TestPipelineAssembly: a package's assembly routine gets asm mutants,
// switched per routine in the schema binary and built on their own
// without schemata, with the same verdicts.
func TestPipelineAssembly(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the test's routine is amd64 assembly")
	}
	files := map[string]string{
		"go.mod": "module asm\n\ngo 1.26\n",
		"s/s.go": "// Package s adds in assembly.\npackage s\n\n// Add returns a+b.\nfunc Add(a, b int64) int64\n",
		"s/add_amd64.s": "#include \"textflag.h\"\n\n// func Add(a, b int64) int64\nTEXT ·Add(SB), NOSPLIT, $0-24\n" +
			"\tMOVQ a+0(FP), AX\n\tMOVQ b+8(FP), BX\n\tADDQ BX, AX\n\tMOVQ AX, ret+16(FP)\n\tRET\n",
		"s/s_test.go": "package s\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 40) != 42 || Add(-5, 3) != -2 {\n\t\tt.Error(\"Add\")\n\t}\n}\n",
	}
	dir := writeModule(t, files)
	verdicts := map[string]map[string]mutant.Status{}
	for _, schemata := range []bool{true, false} {
		cfg := config.Default()
		cfg.Jobs, cfg.Schemata = 2, schemata
		res := runPipeline(t, dir, cfg)
		if res.code != exitcode.OK && res.code != exitcode.Survivors {
			t.Fatalf("schemata %v: exit %d (%s)\n%s%s", schemata, res.code, res.reason, res.stdout, res.stderr)
		}
		name := strconv.FormatBool(schemata)
		verdicts[name] = map[string]mutant.Status{}
		asm := 0
		for id, o := range res.outcomes {
			verdicts[name][id] = o.Result.Status
			if !o.Mutant.Assembly() {
				continue
			}
			asm++
			if o.Result.Status == mutant.Killed && (o.Result.Backend != "asm-amd64" || (schemata && o.Result.Mode != mutant.ModeSchema)) {
				t.Errorf("schemata %v: %s: backend %q, mode %s", schemata, id, o.Result.Backend, o.Result.Mode)
			}
		}
		if asm < 3 {
			t.Errorf("schemata %v: %d assembly mutants", schemata, asm)
		}
	}
	for id, v := range verdicts["true"] {
		if verdicts["false"][id] != v {
			t.Errorf("%s: %s with schemata, %s without", id, v, verdicts["false"][id])
		}
	}
}

// TestPipelineProjectAndInDiff: the project file's settings apply (its
// exclusion, a //gathermut:ignore declaration and a //gathermut:equivalent
// line are left out or ignored, its threshold decides the exit), a named
// set replaces them, and --in-diff keeps only the mutants on lines changed
// since a git commit.
func TestPipelineProjectAndInDiff(t *testing.T) {
	files := map[string]string{}
	for k, v := range tinyModule {
		files[k] = v
	}
	files["calc/calc.go"] = strings.Replace(files["calc/calc.go"], "// Unused is called by no test.\nfunc Unused", "// Unused is called by no test.\n//\n//gathermut:ignore nothing calls it\nfunc Unused", 1)
	files["calc/calc.go"] = strings.Replace(files["calc/calc.go"], "return a + b } // want killed", "return a + b } //gathermut:equivalent(zero-return) for the test", 1)
	files["calc/gen.go"] = "package calc\n\n// Gen is left out by the project file.\nfunc Gen() int { return 1 + 2 }\n"
	files[".gathermut.json"] = `{"packages": ["./calc"], "exclude": ["calc/gen.go"], "threshold": 50,
		"sets": {"use-only": {"packages": ["./use"], "operators": ["zero-return"]}}}`
	dir := writeModule(t, files)
	cfg := config.Default()
	cfg.Jobs = 2
	res := runPipeline(t, dir, cfg)
	if res.code != exitcode.OK || !strings.Contains(res.stderr, "packages ./calc; excluding calc/gen.go; threshold 50% (settings of this module's .gathermut.json)") ||
		!strings.Contains(res.stderr, "no generic mutants in 1 file by exclude globs, 1 declaration by //gathermut:ignore") {
		t.Fatalf("exit %d (%s)\n%s", res.code, res.reason, res.stderr)
	}
	for id, o := range res.outcomes {
		switch {
		case o.Mutant.File == "calc/gen.go" || o.Mutant.Func == "Unused" || o.Mutant.Package != "tiny/calc":
			t.Errorf("%s: mutated although left out", id)
		case o.Mutant.Func == "Add" && o.Mutant.Operator == "zero-return":
			if o.Result.Status != mutant.Ignored || o.Result.Why != "equivalent: for the test" {
				t.Errorf("%s: %s (%s)", id, o.Result.Status, o.Result.Why)
			}
		}
	}
	cfg = config.Default()
	cfg.Jobs, cfg.Set, cfg.Command = 2, "use-only", config.CmdList
	res = runPipeline(t, dir, cfg)
	if res.code != exitcode.OK || !strings.Contains(res.stderr, "packages ./use; operators zero-return (settings of set use-only in this module's .gathermut.json)") {
		t.Errorf("set: exit %d (%s)\n%s%s", res.code, res.reason, res.stdout, res.stderr)
	}
	cfg.Set = "none"
	if res = runPipeline(t, dir, cfg); res.code != exitcode.Config || !strings.Contains(res.reason, "no such set") {
		t.Errorf("an unknown set: exit %d (%s)", res.code, res.reason)
	}

	// --in-diff: commit, change Sign, and judge only the changed lines
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	path := filepath.Join(dir, "calc", "calc.go")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(data, []byte(`return "non-negative"`), []byte(`return "non-negative" + ""`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg = config.Default()
	cfg.Jobs, cfg.InDiff = 2, "HEAD"
	res = runPipeline(t, dir, cfg)
	if res.code != exitcode.OK || len(res.outcomes) == 0 {
		t.Fatalf("in-diff: exit %d (%s), %d mutants\n%s", res.code, res.reason, len(res.outcomes), res.stderr)
	}
	for id, o := range res.outcomes {
		if o.Mutant.File != "calc/calc.go" || o.Mutant.Pos.Line != 12 {
			t.Errorf("in-diff: %s is not on the changed line", id)
		}
	}
	cfg.InDiff = "no-such-ref"
	if res = runPipeline(t, dir, cfg); res.code != exitcode.Config || !strings.Contains(res.reason, "bad revision 'no-such-ref'") {
		t.Errorf("in-diff of a ref that does not exist: exit %d (%s)", res.code, res.reason)
	}
}
