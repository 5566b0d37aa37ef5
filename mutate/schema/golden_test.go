package schema_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestSchemaGolden")

// TestSchemaGolden pins, for every mutant of the sample, how Classify
// switches it (or why not, and where its probe and readers are), the
// schema Render makes of them all (the rendered file, its regions, each
// mutant's coverage sites and the constants made variables) and the
// support file: testdata/golden/. TestSchemaBehavesLikeEachMutant shows
// that such a schema behaves like each mutant; this test, which builds
// nothing, catches any change to what is rendered in seconds. After a
// deliberate change, go test ./mutate/schema -run TestSchemaGolden -update
// rewrites the files, and TestSchemaBehavesLikeEachMutant must still pass.
func TestSchemaGolden(t *testing.T) {
	for _, c := range []struct{ sample, suffix string }{{"sample.go.txt", ""}, {"sample2.go.txt", "2"}} {
		goldenSample(t, c.sample, c.suffix)
	}
}

// TestSchemaGoldenBuilds: the schema of the second sample (which
// TestSchemaBehavesLikeEachMutant does not run) compiles with go vet's
// checks, with its support file.
func TestSchemaGoldenBuilds(t *testing.T) {
	dir, rendered, support := goldenSample(t, "sample2.go.txt", "2")
	write(t, filepath.Join(dir, "schema", "p.go"), rendered)
	write(t, filepath.Join(dir, "schema", "support.go"), support)
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(dir, "p", "p.go"):            filepath.Join(dir, "schema", "p.go"),
		filepath.Join(dir, "p", "zz_gathermut.go"): filepath.Join(dir, "schema", "support.go"),
	}})
	write(t, filepath.Join(dir, "overlay.json"), overlay)
	cmd := exec.Command("go", "vet", "-overlay", "overlay.json", "./p")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the schema: %v\n%s", err, out)
	}
}

// goldenSample classifies and renders one sample's mutants and compares
// the results with the golden files named with suffix; it returns the
// sample's module dir, the rendered file and the support file.
func goldenSample(t *testing.T, name, suffix string) (string, []byte, []byte) {
	t.Helper()
	sample, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.26\n"))
	write(t, filepath.Join(dir, "p", "p.go"), sample)
	prog, err := load.Load(dir, "./p")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := operator.Generate(prog, operator.Config{Operators: operator.Operators}) // every operator, opt-ins (const-tune) included
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })

	var sites strings.Builder
	var entries []schema.Entry
	for _, m := range ms {
		if !m.Runs() {
			continue
		}
		s := m.Schema
		readers, _ := json.Marshal(s.Readers)
		fmt.Fprintf(&sites, "%s\n\tkind=%q form=%q range=[%d,%d) type=%q probe=%d readers=%s\n", m.ID, s.Kind, s.Form, s.Start, s.End, s.Type, s.Probe, readers)
		if s.Fallback != "" {
			fmt.Fprintf(&sites, "\tfallback: %s\n", s.Fallback)
		}
		if s.Kind == mutant.ConstSite {
			fmt.Fprintf(&sites, "\tconst %s value=[%d,%d) block=%v\n", s.Name, s.ValueStart, s.ValueEnd, s.Block)
		}
		if s.Text != "" {
			fmt.Fprintf(&sites, "\ttext: %q\n", s.Text)
		}
		for _, u := range s.Uses {
			fmt.Fprintf(&sites, "\tuse %s [%d,%d) type=%q text=%q\n", u.File, u.Start, u.End, u.Type, u.Text)
		}
		n := len(entries) + 1
		if s.Kind == mutant.UsesSite {
			for _, u := range s.Uses {
				entries = append(entries, schema.Entry{N: n, File: u.File, Site: &mutant.Site{Kind: mutant.ExprSite, Start: u.Start, End: u.End, Type: u.Type, Text: u.Text, Probe: -1}})
			}
			continue
		}
		entries = append(entries, schema.Entry{N: n, File: m.File, Site: s, NoCover: s.Readers != nil})
		for _, r := range s.Readers {
			entries = append(entries, schema.Entry{N: n, File: r.File, Site: &mutant.Site{Probe: r.At}})
		}
	}
	pkg, next, err := schema.Render(schema.DefaultNames, map[string][]byte{"p/p.go": sample}, entries, 5)
	if err != nil {
		t.Fatal(err)
	}
	f := pkg.Files["p/p.go"]
	meta := renderSummary(pkg, f, next)
	golden(t, "sites"+suffix+".txt", []byte(sites.String()))
	golden(t, "p"+suffix+".go.txt", f.Source)
	golden(t, "render"+suffix+".txt", []byte(meta))
	support := schema.Support("p", schema.Names{Active: "xActive", Hits: "xHits", Prefix: "x"}, next)
	if suffix == "" {
		golden(t, "support.go.txt", support)
	}
	if len(pkg.Files) != 1 {
		t.Errorf("rendered files %d, want 1", len(pkg.Files))
	}
	return dir, f.Source, schema.Support("p", schema.DefaultNames, next)
}

// renderSummary writes what a render holds beside the file: its site
// count, the regions of the file, the cover sites and the constants.
func renderSummary(pkg *schema.Package, f *schema.File, next int) string {
	var meta strings.Builder
	fmt.Fprintf(&meta, "sites from 5 to %d\n", next)
	for _, r := range f.Regions {
		fmt.Fprintf(&meta, "region [%d,%d) %v\n", r.Start, r.End, r.Mutants)
	}
	var nums []int
	for n := range pkg.Cover {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		fmt.Fprintf(&meta, "cover %d %v\n", n, pkg.Cover[n])
	}
	var consts []string
	for c := range pkg.Consts {
		consts = append(consts, c)
	}
	sort.Strings(consts)
	for _, c := range consts {
		fmt.Fprintf(&meta, "const %s %v\n", c, pkg.Consts[c])
	}
	return meta.String()
}

// golden compares got with testdata/golden/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("%s differs from the golden file at line %d:\ngot:  %q\nwant: %q", name, i+1, g, w)
				return
			}
		}
	}
}
