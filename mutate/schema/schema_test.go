package schema_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/schema"
)

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, out)
	}
}

const mainTemplate = `package main

import (
	"fmt"
	"os"
	"time"
%s)

type result struct{ name, text string }

func main() {
	timeout, _ := time.ParseDuration(os.Getenv("SAMPLE_TIMEOUT"))
	funcs := []result{
%s	}
	done := make(chan result, len(funcs))
	for _, r := range funcs {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{r.name, fmt.Sprint("panic: ", p)}
				}
			}()
			done <- result{r.name, run(r.text)}
		}()
	}
	got := map[string]string{}
	deadline := time.After(timeout)
wait:
	for range funcs {
		select {
		case r := <-done:
			got[r.name] = r.text
		case <-deadline:
			break wait
		}
	}
	for _, r := range funcs {
		text, ok := got[r.name]
		if !ok {
			text = "hang"
		}
		fmt.Println(r.name, text)
	}
}
`

// TestSchemaBehavesLikeEachMutant: for the switched mutants of a package
// full of the cases schemata must get right, the schema binary run with
// that mutant active prints what the package built with the mutant alone
// prints, and with none active what the original prints; the hits file
// records the sites the run reached.
func TestSchemaBehavesLikeEachMutant(t *testing.T) {
	sample, err := os.ReadFile("testdata/sample.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if d := os.Getenv("GATHERMUT_SCHEMA_TEST_DIR"); d != "" {
		dir = d
	}
	write(t, filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.26\n"))
	write(t, filepath.Join(dir, "p", "p.go"), sample)
	prog, err := load.Load(dir, "./p")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := operator.Generate(prog, operator.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sc := sampleSchema(t, ms)
	pkg, sites, err := schema.Render(schema.DefaultNames, map[string][]byte{"p/p.go": sample}, sc.entries, 0)
	if err != nil {
		t.Fatal(err)
	}
	buildSchemaBinary(t, dir, pkg, sites)
	want := runStandalone(t, dir, sample, sc.switched)
	runSchema := func(n int, hits string, hangs bool) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(dir, "schema.bin"))
		timeout := "30s"
		if hangs {
			timeout = "1s" // the mutant loops forever alone too
		}
		cmd.Env = append(os.Environ(), fmt.Sprintf("GATHERMUT_MUTANT=%d", n), "SAMPLE_TIMEOUT="+timeout)
		if hits != "" {
			cmd.Env = append(cmd.Env, "GATHERMUT_HITS="+hits)
		}
		// a goroutine that loops forever does not keep the process:
		// main has printed and returned
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("schema binary with mutant %d: %v", n, err)
		}
		_, text, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
		return text
	}
	hits := filepath.Join(dir, "hits")
	write(t, hits, make([]byte, sites))
	if got := runSchema(0, hits, false); got != want["orig"] {
		t.Errorf("no mutant active:\n%s\nwant the original's:\n%s", got, want["orig"])
	}
	reached, _ := os.ReadFile(hits)
	hit := 0
	for _, b := range reached {
		if b != 0 {
			hit++
		}
	}
	if hit == 0 || hit == len(reached) {
		t.Errorf("%d of %d sites hit: the hits file does not record the run", hit, len(reached))
	}
	killed := 0
	for i, m := range sc.switched {
		w := want[fmt.Sprintf("v%d", i)]
		got := runSchema(sc.number[m.ID], "", w == "hang")
		if got != w {
			t.Errorf("%s (%s %s -> %s, site %s/%s):\nschema:     %s\nstandalone: %s", m.ID, m.Operator, m.Original, m.Replacement, m.Schema.Kind, m.Schema.Form, got, w)
		}
		if got != want["orig"] {
			killed++
		}
	}
	if killed < len(sc.switched)/2 {
		t.Errorf("only %d of %d mutants change the transcript: the comparison is too weak", killed, len(sc.switched))
	}
	t.Logf("%d mutants, %d switched (%v), %d sites", len(sc.entries), len(sc.switched), sc.kinds, sites)
}

// sampleCase is the sample's schema: its entries, each mutant's number,
// the switched mutants the test compares and how many sites of each kind.
type sampleCase struct {
	entries  []schema.Entry
	switched []mutant.Mutant
	number   map[string]int
	kinds    map[string]int
}

// sampleSchema makes the schema entries of the sample's mutants, and
// checks that the sample exercises every kind of site.
func sampleSchema(t *testing.T, ms []mutant.Mutant) sampleCase {
	t.Helper()
	sc := sampleCase{number: map[string]int{}, kinds: map[string]int{}}
	for _, m := range ms {
		if m.State == mutant.Unbuildable || m.State == mutant.Equivalent {
			continue
		}
		n := len(sc.entries) + 1
		if m.Schema.Kind == mutant.UsesSite {
			for _, u := range m.Schema.Uses {
				sc.entries = append(sc.entries, schema.Entry{N: n, File: u.File, Site: &mutant.Site{Kind: mutant.ExprSite, Start: u.Start, End: u.End, Type: u.Type, Text: u.Text, Probe: -1}})
			}
			sc.number[m.ID] = n
		} else {
			sc.entries = append(sc.entries, schema.Entry{N: n, File: m.File, Site: m.Schema})
		}
		if m.Schema.Switched() {
			sc.kinds[string(m.Schema.Kind)+"/"+m.Schema.Form]++
			// every site that is not an expression, and every third
			// expression (the same construct, many times): enough to
			// compare, and the test stays quick
			if m.Schema.Kind != mutant.ExprSite || sc.kinds["expr/"]%3 == 1 {
				sc.switched = append(sc.switched, m)
			}
		} else {
			sc.kinds["fallback"]++
		}
	}
	for _, k := range []string{"expr/", "stmt/list", "stmt/func", "stmt/else", "block/", "const/", "uses/", "fallback"} {
		if sc.kinds[k] == 0 {
			t.Errorf("no %s site among %v: the sample does not exercise it", k, sc.kinds)
		}
	}
	for i, e := range sc.entries {
		for _, m := range ms {
			if m.Schema == e.Site {
				sc.number[m.ID] = i + 1
			}
		}
	}
	return sc
}

// buildSchemaBinary writes the rendered schema and its support file in
// place of the package through an overlay and builds the sample program
// on it: dir/schema.bin.
func buildSchemaBinary(t *testing.T, dir string, pkg *schema.Package, sites int) {
	t.Helper()
	rendered := filepath.Join(dir, "schema", "p.go")
	write(t, rendered, pkg.Files["p/p.go"].Source)
	write(t, filepath.Join(dir, "schema", "support.go"), schema.Support("p", schema.DefaultNames, sites))
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(dir, "p", "p.go"):            rendered,
		filepath.Join(dir, "p", "zz_gathermut.go"): filepath.Join(dir, "schema", "support.go"),
	}})
	write(t, filepath.Join(dir, "overlay.json"), overlay)
	write(t, filepath.Join(dir, "cmd", "schema", "main.go"), []byte(fmt.Sprintf(mainTemplate, "\t\"m/p\"\n", "\t\t{\"x\", \"p\"},\n")+runFunc([]string{"p"})))
	goBuild(t, dir, "-overlay", "overlay.json", "-o", "schema.bin", "./cmd/schema")
}

// runStandalone builds every switched mutant as a package of its own,
// with the original, into one program, runs it and returns what each
// printed: "orig", then "v0", "v1", ... in the order of switched.
func runStandalone(t *testing.T, dir string, sample []byte, switched []mutant.Mutant) map[string]string {
	t.Helper()
	var imports, calls strings.Builder
	imports.WriteString("\t\"m/p\"\n")
	calls.WriteString("\t\t{\"orig\", \"p\"},\n")
	pkgs := []string{"p"}
	for i, m := range switched {
		src, err := m.Apply(sample)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, fmt.Sprintf("v%d", i), "p.go"), src)
		fmt.Fprintf(&imports, "\tv%d \"m/v%d\"\n", i, i)
		fmt.Fprintf(&calls, "\t\t{\"v%d\", \"v%d\"},\n", i, i)
		pkgs = append(pkgs, fmt.Sprintf("v%d", i))
	}
	write(t, filepath.Join(dir, "cmd", "standalone", "main.go"), []byte(fmt.Sprintf(mainTemplate, imports.String(), calls.String())+runFunc(pkgs)))
	goBuild(t, dir, "-o", "standalone.bin", "./cmd/standalone")
	standalone := exec.Command(filepath.Join(dir, "standalone.bin"))
	standalone.Env = append(os.Environ(), "SAMPLE_TIMEOUT=10s")
	out, err := standalone.Output()
	if err != nil {
		t.Fatalf("standalone: %v", err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, text, _ := strings.Cut(line, " ")
		want[name] = text
	}
	return want
}

// runFunc is the sample program's dispatch from a package name to its Run.
func runFunc(pkgs []string) string {
	var b strings.Builder
	b.WriteString("\nfunc run(pkg string) string {\n\tswitch pkg {\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\tcase %q:\n\t\treturn %s.Run()\n", p, p)
	}
	b.WriteString("\t}\n\treturn \"\"\n}\n")
	return b.String()
}
