package goasm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// supportFile is the Go side of the fixture's schema: the running mutant
// (read from GATHERMUT_MUTANT while the package initializes, before
// main.go's initValue calls a routine: this file sorts first) and the hits,
// made in init (after the package variables: the routine called for
// initValue finds them still nil) and printed at the end.
const supportFile = `package main

import (
	"fmt"
	"os"
	"strconv"
)

var gmActive = func() int {
	n, _ := strconv.Atoi(os.Getenv("GATHERMUT_MUTANT"))
	return n
}()

var gmHits []byte

func init() {
	gmHits = make([]byte, %d)
	dumpHits = func() { fmt.Fprintf(os.Stderr, "hits %%v\n", gmHits) }
}
`

// goTool returns the go command on the PATH and its GOROOT; the test is
// skipped without one.
func goTool(t *testing.T) (gobin, root string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	return gobin, strings.TrimSpace(string(out))
}

// goBuild builds the fixture module in dir with the overlay (file ->
// replacement), returning the executable or the build's output.
func goBuild(t *testing.T, gobin, dir, out string, overlay map[string]string) (string, error) {
	args := []string{"build", "-o", out}
	if len(overlay) > 0 {
		b, err := json.Marshal(map[string]map[string]string{"Replace": overlay})
		if err != nil {
			t.Fatal(err)
		}
		ov := out + ".overlay.json"
		if err := os.WriteFile(ov, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-overlay", ov)
	}
	cmd := exec.Command(gobin, append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// runFixture runs a fixture executable with GATHERMUT_MUTANT=n and the
// arguments args, and returns its stdout with how it ended, and its
// stderr.
func runFixture(bin string, n int, args ...string) (string, string) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GATHERMUT_MUTANT=%d", n))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	end := "exit 0"
	if err := cmd.Run(); err != nil {
		end = err.Error()
	}
	return stdout.String() + "[" + end + "]", stderr.String()
}

// TestSchemaAgreesWithMutants builds the fixture module's schema once
// (go build -overlay: the rendered assembly and the support file) and
// every mutant on its own (a package with the mutated assembly), runs
// every mutant both ways and requires the same output; and checks the
// routines' hits.
func TestSchemaAgreesWithMutants(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the fixture is amd64 assembly, built and run here")
	}
	gobin, _ := goTool(t)
	fx := newSchemaFixture(t, gobin)

	orig := filepath.Join(fx.dir, "orig")
	if out, err := goBuild(t, gobin, fx.mod, orig, nil); err != nil {
		t.Fatalf("the fixture does not build: %v\n%s", err, out)
	}
	want, _ := runFixture(orig, 0)
	if !strings.HasSuffix(want, "[exit 0]") {
		t.Fatalf("the fixture fails: %s", want)
	}

	f, sm := fixtureSchemaMutants(t, fx.src)
	const firstSite = 3 // as if the Go schema's sites came first
	sch, err := Render(f, sm, Names{Active: "gmActive", Hits: "gmHits"}, firstSite)
	if err != nil {
		t.Fatal(err)
	}
	nsites := Sites(f, sm)
	schemaBin := fx.buildSchema(t, sch, firstSite+nsites)
	got, stderr := runFixture(schemaBin, 0)
	if got != want {
		t.Errorf("schema with no mutant on:\n%s\nwant\n%s", got, want)
	}
	if len(sch.SiteOf) != nsites {
		t.Errorf("%d routines with sites, Sites says %d", len(sch.SiteOf), nsites)
	}
	checkRoutineHits(t, stderr, sch, firstSite+nsites)

	changed := fx.compareAloneAndSwitched(t, sm, want, schemaBin)
	t.Logf("%d mutants in %d routines' sites: %d change the output", len(sm), nsites, changed)
}

// schemaFixture is testdata/schemafix copied into a module of its own:
// the go command, the test's directory, the module's directory, its
// assembly file's path and source.
type schemaFixture struct {
	gobin, dir, mod, asmPath string
	src                      []byte
}

// newSchemaFixture copies the fixture module into a temporary directory.
func newSchemaFixture(t *testing.T, gobin string) *schemaFixture {
	t.Helper()
	dir := t.TempDir()
	mod := filepath.Join(dir, "mod")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fix_amd64.s", "main.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "schemafix", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module asmfix\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asmPath := filepath.Join(mod, "fix_amd64.s")
	src, _ := os.ReadFile(asmPath)
	return &schemaFixture{gobin: gobin, dir: dir, mod: mod, asmPath: asmPath, src: src}
}

// fixtureSchemaMutants parses the fixture's assembly and makes its
// mutants, numbered from 1; every operator must have one.
func fixtureSchemaMutants(t *testing.T, src []byte) (*File, []SchemaMutant) {
	t.Helper()
	f, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mutants(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sm []SchemaMutant
	ops := map[string]bool{}
	for i, m := range ms {
		sm = append(sm, SchemaMutant{Num: i + 1, Mutant: m})
		ops[m.Operator] = true
	}
	for _, op := range Operators {
		if !ops[op.Name] {
			t.Errorf("the fixture has no %s mutant", op.Name)
		}
	}
	return f, sm
}

// buildSchema builds the module with the schema's assembly and the
// support file (sized for sites hits) overlaid, and returns the
// executable.
func (fx *schemaFixture) buildSchema(t *testing.T, sch *Schema, sites int) string {
	t.Helper()
	schemaAsm := filepath.Join(fx.dir, "schema.s")
	support := filepath.Join(fx.dir, "support.go")
	if err := os.WriteFile(schemaAsm, sch.Src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(support, []byte(fmt.Sprintf(supportFile, sites)), 0o644); err != nil {
		t.Fatal(err)
	}
	schemaBin := filepath.Join(fx.dir, "schema")
	if out, err := goBuild(t, fx.gobin, fx.mod, schemaBin, map[string]string{fx.asmPath: schemaAsm, filepath.Join(fx.mod, "0gathermut_schema.go"): support}); err != nil {
		t.Fatalf("the schema does not build: %v\n%s", err, out)
	}
	return schemaBin
}

// checkRoutineHits checks the hits an unmutated schema run printed on
// stderr: every routine that ran, not ·unused, and nothing before the
// routines' first site.
func checkRoutineHits(t *testing.T, stderr string, sch *Schema, sites int) {
	t.Helper()
	hits := strings.TrimSpace(stderr[strings.LastIndex(stderr, "hits ")+len("hits "):])
	wantHits := make([]string, sites)
	for i := range wantHits {
		wantHits[i] = "0"
	}
	for r, s := range sch.SiteOf {
		if r != "·unused" {
			wantHits[s] = "1"
		}
	}
	if w := "[" + strings.Join(wantHits, " ") + "]"; hits != w {
		t.Errorf("hits %s, want %s (sites %v)", hits, w, sch.SiteOf)
	}
}

// compareAloneAndSwitched runs every mutant built alone and requires the
// same outcome as the schema with it switched on. It returns how many
// change the output (want).
func (fx *schemaFixture) compareAloneAndSwitched(t *testing.T, sm []SchemaMutant, want, schemaBin string) int {
	t.Helper()
	alone := fx.buildAlone(t, sm)
	if got, _ := runFixture(alone, 0, "orig"); got != want {
		t.Fatalf("the unmutated fixture as a package of the alone binary:\n%s\nwant, as a program of its own:\n%s", got, want)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	changed := 0
	for _, m := range sm {
		wg.Add(1)
		sem <- true
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			got, _ := runFixture(alone, 0, fmt.Sprintf("m%d", m.Num))
			switched, _ := runFixture(schemaBin, m.Num)
			mu.Lock()
			defer mu.Unlock()
			if got != want {
				changed++
			}
			if got != switched {
				t.Errorf("%s: built alone\n%s\nswitched on in the schema\n%s", mutantDesc(m), got, switched)
			}
		}()
	}
	wg.Wait()
	return changed
}

// buildAlone builds every mutant alone in one go build, one link: a
// module with a package per mutant (m<Num>: the fixture's main.go and
// its mutated assembly, nothing switched) and the unmutated fixture
// (orig), and a main that runs the package its argument names. A build
// per mutant costs the go command's start and a link each, which made
// this the package's slowest test. Each package is the fixture program
// with main renamed Main and initValue's call made first thing in Main
// instead of while the package initializes: every package of the binary
// initializes at its start, and a mutant that faults in that call must
// fault in its own run alone (with nothing printed yet, as at init).
func (fx *schemaFixture) buildAlone(t *testing.T, sm []SchemaMutant) string {
	t.Helper()
	mainGo, err := os.ReadFile(filepath.Join(fx.mod, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(fx.dir, "alone")
	asmFiles := map[string][]byte{"orig": fx.src}
	for _, m := range sm {
		asmFiles[fmt.Sprintf("m%d", m.Num)] = []byte(string(fx.src[:m.Mutant.Start]) + m.Mutant.Text + string(fx.src[m.Mutant.End:]))
	}
	var dispatch strings.Builder
	dispatch.WriteString("package main\n\nimport (\n\t\"os\"\n\n")
	var cases strings.Builder
	for pkg, asm := range asmFiles {
		writeFile(t, filepath.Join(dir, pkg, "fix_amd64.s"), asm)
		writeFile(t, filepath.Join(dir, pkg, "main.go"), []byte(asPackage(t, string(mainGo), pkg)))
		fmt.Fprintf(&dispatch, "\t%q\n", "asmfix/"+pkg)
		fmt.Fprintf(&cases, "\tcase %q:\n\t\t%s.Main()\n", pkg, pkg)
	}
	fmt.Fprintf(&dispatch, ")\n\nfunc main() {\n\tswitch os.Args[1] {\n%s\tdefault:\n\t\tos.Exit(3)\n\t}\n}\n", cases.String())
	writeFile(t, filepath.Join(dir, "main.go"), []byte(dispatch.String()))
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module asmfix\n\ngo 1.22\n"))
	bin := filepath.Join(fx.dir, "alone.bin")
	if out, err := goBuild(t, fx.gobin, dir, bin, nil); err != nil {
		t.Fatalf("the mutants do not build alone (package m<N> is mutant N): %v\n%s", err, out)
	}
	return bin
}

// asPackage turns the fixture's main.go into package pkg of the alone
// binary (see buildAlone).
func asPackage(t *testing.T, src, pkg string) string {
	t.Helper()
	for _, r := range [][2]string{
		{"package main\n", "package " + pkg + "\n"},
		{"var initValue = mix(7)\n", "var initValue uint64\n"},
		{"func main() {\n", "func Main() {\n\tinitValue = mix(7)\n"},
	} {
		if strings.Count(src, r[0]) != 1 {
			t.Fatalf("testdata/schemafix/main.go: %q occurs %d times, want 1", r[0], strings.Count(src, r[0]))
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	return src
}

// writeFile writes data at path, making its folder.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mutantDesc names a mutant in a failure: its number, operator, line and
// change.
func mutantDesc(m SchemaMutant) string {
	return fmt.Sprintf("mutant %d (%s, line %d: %s -> %s)", m.Num, m.Mutant.Operator, m.Mutant.Line, m.Mutant.Original, m.Mutant.Replacement)
}

// TestRenderText: the dispatch at a routine's entry, the variants after
// its body (labels renamed, the mutant made), a DATA mutant's renamed copy
// of its symbol and the variant of its reader, and data inside a routine
// left out of the copies.
func TestRenderText(t *testing.T) {
	src := "TEXT ·f(SB), NOSPLIT, $0-8\n" +
		"loop:\n" +
		"\tADDQ tbl2<>(SB), AX\n" +
		"\tADDQ tbl<>(SB), AX\n" +
		"DATA in<>+0(SB)/8, $1\n" +
		"GLOBL in<>(SB), RODATA, $8\n" +
		"\tJNZ loop\n" +
		"\tRET\n" +
		"DATA tbl<>+0(SB)/8, $0x0f\n" +
		"GLOBL tbl<>(SB), RODATA, $8\n" +
		"DATA tbl2<>+0(SB)/8, $7\n" +
		"GLOBL tbl2<>(SB), RODATA, $8\n"
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mutants(f, Options{Operators: []string{"asm-branch", "asm-data"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[0].Operator != "asm-branch" || ms[1].Operator != "asm-data" || !strings.Contains(ms[1].Original, "tbl<>") {
		t.Fatalf("mutants %+v", ms)
	}
	sch, err := Render(f, []SchemaMutant{{7, ms[0]}, {9, ms[1]}}, Names{"gmActive", "gmHits"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := "TEXT ·f(SB), NOSPLIT, $0-8\n" +
		"\t// gathermut schema: coverage site 5, then the running mutant's variant\n" +
		"\tMOVQ ·gmHits(SB), R11\n\tTESTQ R11, R11\n\tJZ gm_nohits\n\tMOVB $1, 5(R11)\ngm_nohits:\n" +
		"\tMOVQ ·gmActive(SB), R11\n" +
		"\tCMPQ R11, $7\n\tJEQ gm_v7\n" +
		"\tCMPQ R11, $9\n\tJEQ gm_v9\n" +
		"loop:\n\tADDQ tbl2<>(SB), AX\n\tADDQ tbl<>(SB), AX\nDATA in<>+0(SB)/8, $1\nGLOBL in<>(SB), RODATA, $8\n\tJNZ loop\n\tRET\n" +
		"gm_v7:\n" +
		"loop_gm7:\n\tADDQ tbl2<>(SB), AX\n\tADDQ tbl<>(SB), AX\n\n\n\tJZ loop_gm7\n\tRET\n" +
		"gm_v9:\n" +
		"loop_gm9:\n\tADDQ tbl2<>(SB), AX\n\tADDQ tbl_gm9<>(SB), AX\n\n\n\tJNZ loop_gm9\n\tRET\n" +
		"DATA tbl<>+0(SB)/8, $0x0f\nGLOBL tbl<>(SB), RODATA, $8\nDATA tbl2<>+0(SB)/8, $7\nGLOBL tbl2<>(SB), RODATA, $8\n" +
		"\nDATA tbl_gm9<>+0(SB)/8, $0x10\nGLOBL tbl_gm9<>(SB), RODATA, $8\n"
	if string(sch.Src) != want {
		t.Errorf("rendered\n%s\nwant\n%s", sch.Src, want)
	}
	if fmt.Sprint(sch.SiteOf) != "map[·f:5]" || fmt.Sprint(sch.Routines) != "map[7:[·f] 9:[·f]]" {
		t.Errorf("SiteOf %v, Routines %v", sch.SiteOf, sch.Routines)
	}
	if n := Sites(f, []SchemaMutant{{7, ms[0]}, {9, ms[1]}}); n != 1 {
		t.Errorf("Sites = %d, want 1", n)
	}
	if _, err := Parse(sch.Src); err != nil {
		t.Errorf("the schema does not parse: %v", err)
	}
}

func TestRenderRefuses(t *testing.T) {
	mutantOf := func(src string, op string) (*File, []SchemaMutant) {
		f, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Mutants(f, Options{Operators: []string{op}})
		if err != nil || len(ms) == 0 {
			t.Fatalf("%q: %v mutants, %v", src, len(ms), err)
		}
		return f, []SchemaMutant{{1, ms[0]}}
	}
	names := Names{"gmActive", "gmHits"}
	tests := []struct {
		name, src, op string
		names         Names
		want          string
	}{
		{"falls through", "TEXT ·f(SB),0,$0\n\tADDQ $1, AX\n", "asm-const", names, "ends with ADDQ, not RET or JMP"},
		{"register ABI", "TEXT ·f<ABIInternal>(SB),0,$0\n\tADDQ $1, AX\n\tRET\n", "asm-const", names, "uses the register ABI"},
		{"names", "TEXT ·f(SB),0,$0\n\tADDQ $1, AX\n\tRET\n", "asm-const", Names{"gm.Active", "gmHits"}, "want two identifiers"},
		{"empty names", "TEXT ·f(SB),0,$0\n\tADDQ $1, AX\n\tRET\n", "asm-const", Names{}, "want two identifiers"},
	}
	for _, tt := range tests {
		f, muts := mutantOf(tt.src, tt.op)
		if _, err := Render(f, muts, tt.names, 0); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
	// a mutant outside every routine
	f, muts := mutantOf("TEXT ·f(SB),0,$0\n\tADDQ $1, AX\n\tRET\n", "asm-const")
	muts[0].Mutant.Routine = "·g"
	if _, err := Render(f, muts, names, 0); err == nil || !strings.Contains(err.Error(), "not in a routine") {
		t.Errorf("mutant of no routine: %v", err)
	}
}

// TestRealDecodersSchemaAssembles renders the schema of gather's AVX2
// decoders (every routine's mutants, sampled per class) and assembles it
// with go tool asm; and checks the sampling keeps every class of every
// routine.
func TestRealDecodersSchemaAssembles(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "gather", "decode_amd64.s"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Mutants(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sampled, err := Mutants(f, Options{PerClass: 3})
	if err != nil {
		t.Fatal(err)
	}
	classes := func(ms []Mutant) map[string]bool {
		c := map[string]bool{}
		for _, m := range ms {
			c[m.Routine+" "+m.Operator] = true
		}
		return c
	}
	ca, cs := classes(all), classes(sampled)
	if fmt.Sprint(ca) != fmt.Sprint(cs) {
		t.Errorf("sampling lost classes: %d routine-classes unsampled, %d sampled", len(ca), len(cs))
	}
	for _, r := range f.Routines {
		if !ca[r.Name+" asm-drop"] {
			t.Errorf("routine %s has no mutants", r.Name)
		}
	}
	var sm []SchemaMutant
	for i, m := range sampled {
		sm = append(sm, SchemaMutant{Num: i + 1, Mutant: m})
	}
	sch, err := Render(f, sm, Names{"gmActive", "gmHits"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sch.SiteOf) != len(f.Routines) {
		t.Errorf("%d routines with a site, %d routines", len(sch.SiteOf), len(f.Routines))
	}
	gobin, root := goTool(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "decode_amd64.s")
	if err := os.WriteFile(file, sch.Src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "tool", "asm", "-I", filepath.Join(root, "pkg", "include"), "-p", "gather", "-o", filepath.Join(dir, "x.o"), file)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the decoders' schema (%d mutants) does not assemble: %v\n%s", len(sm), err, out)
	}
}
