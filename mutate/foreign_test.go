package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/report/schematest"
	"gathermut/mutate/tree"
)

// The foreign fixture (testdata/foreign) is a small module written the way
// modules found in the wild are, not the way this repository is: a file
// that is not gofmt-clean, a lookup table, a generic type, a build-tagged
// pair of files, no project file and no catalog. The tool must run on it
// with no flags at all.

const foreignFixture = "testdata/foreign"

// unformattedSuffix marks a fixture Go file kept out of gofmt's and go's
// sight in the repository because it is deliberately not gofmt-clean:
// copyTree writes it back under its .go name.
const unformattedSuffix = ".go.txt"

// copyTree copies a directory into a fresh temp dir, naming each
// *.go.txt file *.go there.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if base, ok := strings.CutSuffix(target, unformattedSuffix); ok && !d.IsDir() {
			target = base + ".go"
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// reportsLine finds the JSON report's path in the line a run ends its
// stdout with: "reports: <json>, <md>, <html>".
func reportsLine(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^reports: (\S+\.json), \S+\.md, \S+\.html$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no reports line in stdout:\n%s", stdout)
	}
	return m[1]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestForeignModuleNoFlags(t *testing.T) {
	dir := copyTree(t, foreignFixture)
	wants := readWants(t, dir)
	before, err := tree.HashTree(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	gofmtClean := runIn(t, dir, "gofmt", "-l", "checksum/checksum.go")
	if strings.TrimSpace(gofmtClean) != "checksum/checksum.go" {
		t.Fatalf("checksum/checksum.go is meant to be not gofmt-clean (gofmt -l: %q)", gofmtClean)
	}

	res := runTool(t, dir, nil, "all")
	if res.code != exitcode.Survivors {
		t.Fatalf("mutate all: exit %d, want %d (two equivalent survivors)\nstdout:\n%s\nstderr:\n%s", res.code, exitcode.Survivors, res.stdout, res.stderr)
	}
	const wantFirst = "mutate: module example.com/foreign: packages ./... (defaults for a module without .gathermut.json)"
	if got := firstLine(res.stderr); got != wantFirst {
		t.Errorf("first line %q, want %q", got, wantFirst)
	}
	after, err := tree.HashTree(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.Hash != before.Hash {
		t.Errorf("the run changed the module: %v", before.Changed(after))
	}
	// the reports are outside the module, in its folder of the user cache
	jsonPath := reportsLine(t, res.stdout)
	if _, err := os.Stat(filepath.Join(dir, "reports")); !os.IsNotExist(err) {
		t.Errorf("the run made reports/ in the module (%v)", err)
	}
	if cache := os.Getenv("GATHERMUT_CACHE"); !strings.HasPrefix(jsonPath, filepath.Join(cache, "reports", "example.com_foreign-")) {
		t.Errorf("reports at %s, want them in a folder of the module under %s/reports", jsonPath, cache)
	}
	r, outcomes := readReport(t, jsonPath)
	checkVerdicts(t, wants, outcomes)

	checkForeignMutants(t, outcomes)
	sources := checkLocationsOnDisk(t, dir, r)
	if len(sources) != 3 {
		t.Errorf("mutants in %d files, want 3", len(sources))
	}

	// every diff (the report's and diff's) names the lines on disk: its
	// context and removed lines are there at the stated line, and git
	// applies it without an offset
	diffs := runTool(t, dir, nil, "diff", "*")
	if diffs.code != exitcode.OK {
		t.Fatalf("diff '*': exit %d\n%s", diffs.code, diffs.stderr)
	}
	patches := splitPatches(diffs.stdout)
	if len(patches) != len(outcomes) {
		t.Errorf("diff printed %d patches for %d mutants", len(patches), len(outcomes))
	}
	offFormat := 0
	for id, p := range patches {
		if o, ok := outcomes[id]; !ok || o.Mutant.Diff != p {
			t.Errorf("%s: diff's patch differs from the report's", id)
		}
		checkHunkAt(t, id, p, sources)
		if strings.Contains(p, "checksum/checksum.go") {
			offFormat++
		}
	}
	if offFormat < 10 {
		t.Errorf("only %d patches of the non-gofmt file", offFormat)
	}
	gitApply(t, dir, patches)
	if after, _ := tree.HashTree(dir, nil); after.Hash != before.Hash {
		t.Errorf("git apply --check changed the module")
	}
}

// checkForeignMutants: no mutant in a file the build excludes, in a
// //gathermut:ignore declaration or in the weights table, and some in
// every other file and function.
func checkForeignMutants(t *testing.T, outcomes map[string]mutant.Outcome) {
	t.Helper()
	seen := map[string]bool{}
	for id, o := range outcomes {
		m := o.Mutant
		seen[m.File] = true
		seen[m.Func] = true
		switch {
		case m.File == "stack/limit_tiny.go":
			t.Errorf("%s: a mutant of a file the build excludes", id)
		case m.Func == "Dump":
			t.Errorf("%s: a mutant of a //gathermut:ignore declaration", id)
		case m.File == "checksum/checksum.go" && (m.Pos.Line == 12 || m.Pos.Line == 13):
			t.Errorf("%s: a default mutant in the weights table", id)
		}
	}
	for _, want := range []string{"stack/limit_default.go", "(*Stack).Pop", "Max", "checksum/checksum.go", "Sum"} {
		if !seen[want] {
			t.Errorf("no mutant in %s", want)
		}
	}
}

// checkLocationsOnDisk: JSON locations are positions in the file on disk:
// the bytes there are the mutant's original text, and its edit touches
// them. It returns the files' bytes.
func checkLocationsOnDisk(t *testing.T, dir string, r *report.Report) map[string][]byte {
	t.Helper()
	sources := map[string][]byte{}
	for path, f := range r.Files {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		sources[path] = src
		for _, jm := range f.Mutants {
			m := jm.Gathermut.Mutant
			start, end := offsetOf(src, jm.Location.Start), offsetOf(src, jm.Location.End)
			if start < 0 || end < start || string(src[start:end]) != m.Original {
				t.Errorf("%s: location %v-%v holds %q on disk, want the mutated %q", jm.ID, jm.Location.Start, jm.Location.End, safeSlice(src, start, end), m.Original)
				continue
			}
			if m.Edit != nil && (m.Edit.End < start || m.Edit.Start > end) {
				t.Errorf("%s: the edit [%d, %d) is outside the location [%d, %d)", jm.ID, m.Edit.Start, m.Edit.End, start, end)
			}
		}
	}
	return sources
}

func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := osexec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// offsetOf turns a 1-based line and byte column into a file offset; -1
// when the position is not in src.
func offsetOf(src []byte, p mutant.Position) int {
	off := 0
	for line := 1; line < p.Line; line++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	off += p.Column - 1
	if p.Line < 1 || p.Column < 1 || off > len(src) {
		return -1
	}
	return off
}

func safeSlice(src []byte, a, b int) string {
	if a < 0 || b < a || b > len(src) {
		return "<outside the file>"
	}
	return string(src[a:b])
}

// splitPatches cuts diff's output ("# id" then a patch) by id.
func splitPatches(out string) map[string]string {
	patches := map[string]string{}
	var id string
	var sb strings.Builder
	flush := func() {
		if id != "" {
			patches[id] = sb.String()
		}
		sb.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			flush()
			id = strings.TrimSpace(rest)
			continue
		}
		sb.WriteString(line)
	}
	flush()
	return patches
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$`)

// checkHunkAt checks that a one-hunk patch's context and removed lines are
// the file's lines from the hunk's start line on, as an offset-free apply
// needs.
func checkHunkAt(t *testing.T, id, patch string, sources map[string][]byte) {
	t.Helper()
	header := regexp.MustCompile(`(?m)^--- a/(.*)$`).FindStringSubmatch(patch)
	h := hunkHeader.FindStringSubmatchIndex(patch)
	if header == nil || h == nil {
		t.Errorf("%s: not a unified diff:\n%s", id, patch)
		return
	}
	src, ok := sources[header[1]]
	if !ok {
		t.Errorf("%s: diff of %s, which has no mutants in the report", id, header[1])
		return
	}
	start, _ := strconv.Atoi(patch[h[2]:h[3]])
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	at := start - 1
	for _, l := range strings.Split(strings.TrimSuffix(patch[h[1]+1:], "\n"), "\n") {
		if l == "" || l[0] == '+' {
			continue
		}
		if at >= len(lines) || lines[at] != l[1:] {
			t.Errorf("%s: hunk line %q is not line %d of %s (%q)\n%s", id, l[1:], at+1, header[1], lineAt(lines, at), patch)
			return
		}
		at++
	}
}

func lineAt(lines []string, i int) string {
	if i < 0 || i >= len(lines) {
		return "<no such line>"
	}
	return lines[i]
}

// gitApply checks every patch with git apply, which must apply it at the
// stated lines (git reports "offset" when it had to look elsewhere).
func gitApply(t *testing.T, dir string, patches map[string]string) {
	t.Helper()
	if _, err := osexec.LookPath("git"); err != nil {
		t.Logf("no git: the hunk positions were checked without it")
		return
	}
	n := 0
	for id, p := range patches {
		n++
		file := filepath.Join(t.TempDir(), fmt.Sprintf("p%d.patch", n))
		if err := os.WriteFile(file, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := osexec.Command("git", "apply", "--check", "-v", file)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("offset")) || bytes.Contains(out, []byte("fuzz")) {
			t.Errorf("%s: git apply --check: %v\n%s\n%s", id, err, out, p)
		}
	}
}

// TestForeignThresholdAndVerbose: --threshold turns a run with survivors
// into a pass when its score reaches the threshold (95.6% here: 43 of 45
// scored), states it in the reports, and -v names each killer.
func TestForeignThresholdAndVerbose(t *testing.T) {
	dir := copyTree(t, foreignFixture)
	res := runTool(t, dir, nil, "all", "--threshold", "95", "-v")
	if res.code != exitcode.OK {
		t.Fatalf("--threshold 95: exit %d, want 0\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "score 95.6% (threshold 95%: met)") || !strings.Contains(lastLine(res.stderr), "2 mutants survived, within the threshold") {
		t.Errorf("the summary does not state the threshold:\n%s%s", res.stdout, res.stderr)
	}
	killers := regexp.MustCompile(`(?m)^killed: \S+ by example\.com/foreign/(stack|checksum)\.Test\w+`).FindAllString(res.stderr, -1)
	if len(killers) != 43 {
		t.Errorf("-v named the killer of %d of 43 killed mutants:\n%s", len(killers), res.stderr)
	}
	jsonPath := reportsLine(t, res.stdout)
	r, _ := readReport(t, jsonPath)
	if !r.Gathermut.Config.Threshold.Given || r.Gathermut.Config.Threshold.Percent != 95 {
		t.Errorf("JSON threshold %+v", r.Gathermut.Config.Threshold)
	}
	md, _ := os.ReadFile(strings.TrimSuffix(jsonPath, ".json") + ".md")
	if !bytes.Contains(md, []byte("| 95.6% | 95% (met) |")) {
		t.Errorf("markdown does not state the threshold")
	}

	// the same run with the findings as SARIF and as GitHub annotations:
	// one result and one annotation per survivor, at its place
	sarif := filepath.Join(t.TempDir(), "out", "findings.sarif")
	res = runTool(t, dir, nil, "all", "--threshold", "96", "--sarif", sarif, "--annotations", "github")
	if res.code != exitcode.Survivors || !strings.HasPrefix(lastLine(res.stderr), "exit 1: score 95.56% is below the threshold 96% (2 mutants survived)") {
		t.Errorf("--threshold 96: exit %d, last line %q", res.code, lastLine(res.stderr))
	}
	data, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	if err := schematest.ValidateSARIF(data); err != nil {
		t.Error(err)
	}
	if n := bytes.Count(data, []byte(`"ruleId":`)); n != 2 {
		t.Errorf("%d SARIF results, want one per survivor (2)", n)
	}
	annotations := regexp.MustCompile(`(?m)^::warning file=(stack|checksum)/\w+\.go,line=\d+,col=\d+,.*::Mutant (survived|not covered).* Rerun: `).FindAllString(res.stdout, -1)
	if len(annotations) != 2 {
		t.Errorf("%d GitHub annotations, want 2:\n%s", len(annotations), res.stdout)
	}
}

// TestForeignProjectFile: a .gathermut.json gives the module's settings
// (here an exclusion glob and a threshold), the first line says they came
// from it, a package named exactly is mutated whole, and the opt-in
// const-table operator reaches the table.
func TestForeignProjectFile(t *testing.T) {
	dir := copyTree(t, foreignFixture)
	files := func(res runResult) map[string]int {
		n := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
			if f := strings.Split(line, "\t"); len(f) > 2 {
				file, _, _ := strings.Cut(f[2], ":")
				n[f[1]+" "+file]++
			}
		}
		return n
	}
	plain := files(runTool(t, dir, nil, "list"))
	if plain["const-int stack/limit_default.go"] != 2 || plain["const-table checksum/checksum.go"] != 0 {
		t.Fatalf("list without a project file: %v", plain)
	}
	project := `{"comment": "generated limits are not worth mutating", "exclude": ["stack/limit_*.go"], "threshold": 90}`
	if err := os.WriteFile(filepath.Join(dir, ".gathermut.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, dir, nil, "list")
	want := "mutate: module example.com/foreign: packages ./...; excluding stack/limit_*.go; threshold 90% (settings of this module's .gathermut.json)"
	if got := firstLine(res.stderr); res.code != exitcode.OK || got != want {
		t.Errorf("first line %q (exit %d), want %q", got, res.code, want)
	}
	if n := files(res); n["const-int stack/limit_default.go"] != 0 || n["zero-return stack/limit_default.go"] != 0 || n["const-int stack/stack.go"] == 0 {
		t.Errorf("the exclusion glob did not take out exactly stack/limit_*.go: %v", n)
	}
	if !strings.Contains(res.stderr, "no generic mutants in 1 file by exclude globs, 1 declaration by //gathermut:ignore") {
		t.Errorf("list does not say what was left out:\n%s", res.stderr)
	}
	// a package named exactly is mutated whole; a --exclude adds to the file's
	res = runTool(t, dir, nil, "list", "./stack", "--exclude", "checksum")
	if n := files(res); n["const-int stack/limit_default.go"] != 2 || !strings.Contains(firstLine(res.stderr), "excluding stack/limit_*.go checksum outside the packages named exactly") {
		t.Errorf("./stack named exactly: %v\n%s", n, res.stderr)
	}
	res = runTool(t, dir, nil, "list", "--exclude", "checksum")
	if n := files(res); n["const-int checksum/checksum.go"] != 0 || n["const-int stack/stack.go"] == 0 {
		t.Errorf("--exclude checksum: %v", n)
	}
	// the opt-in operator, by name or with all
	res = runTool(t, dir, nil, "list", "--operators", "all")
	if n := files(res); n["const-table checksum/checksum.go"] != 32 {
		t.Errorf("--operators all: %d const-table mutants in the 16-weight table, want 32", n["const-table checksum/checksum.go"])
	}
	// a project file with a mistake is a configuration error naming it
	if err := os.WriteFile(filepath.Join(dir, ".gathermut.json"), []byte(`{"exclude": ["./stack"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res = runTool(t, dir, nil, "list")
	if res.code != exitcode.Config || !strings.Contains(res.stderr, ".gathermut.json: exclude: glob \"./stack\"") {
		t.Errorf("bad project file: exit %d\n%s", res.code, res.stderr)
	}
}
