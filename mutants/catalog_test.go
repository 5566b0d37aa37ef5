package mutants

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"gathermut/gather"
	"gathermut/mutate/catalog"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// rowPatterns are the packages the catalog targets.
var rowPatterns = []string{"./gguf/...", "./gather/...", "./engine/...", "./hipkern/..."}

var (
	progOnce sync.Once
	prog     *load.Program
	progErr  error
)

// rowProgram loads the row's packages once for the tests of this file.
func rowProgram(t *testing.T) *load.Program {
	t.Helper()
	progOnce.Do(func() { prog, progErr = load.Load("..", rowPatterns...) })
	if progErr != nil {
		t.Fatal(progErr)
	}
	return prog
}

// TestCatalogResolves resolves every entry against the current code: a
// target that is missing, matches more than once or rewrites nothing fails
// here, so a rename that orphans a mutant fails the catalog's build, not
// the review. Each Go mutant must also type-check.
func TestCatalogResolves(t *testing.T) {
	p := rowProgram(t)
	for _, e := range Catalog().Entries {
		t.Run(e.ID, func(t *testing.T) {
			m, err := operator.Resolve(p, e)
			if err != nil {
				t.Fatal(err)
			}
			if m.State == mutant.Unbuildable {
				t.Fatalf("does not type-check: %s", m.Note)
			}
			if strings.TrimSpace(m.Diff) == "" {
				t.Fatal("empty diff")
			}
		})
	}
}

// TestCatalogKillersExist checks that every expected killer is a top-level
// test of its package: a renamed test would otherwise turn its mutants into
// errors at run time.
func TestCatalogKillersExist(t *testing.T) {
	p := rowProgram(t)
	for _, e := range Catalog().Entries {
		if len(e.Killers) == 0 {
			t.Errorf("%s: no expected killer", e.ID)
		}
		for _, k := range e.Killers {
			i := strings.LastIndex(k, ".")
			if i < 0 || !slices.Contains(p.Tests(k[:i]), k[i+1:]) {
				t.Errorf("%s: expected killer %s is not a test of its package", e.ID, k)
			}
		}
		if strings.TrimSpace(e.Reason) == "" {
			t.Errorf("%s: no reason", e.ID)
		}
	}
}

// TestCatalogIDsUnique: ids are what reports, shards and reruns line up on.
func TestCatalogIDsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalog().Entries {
		if seen[e.ID] {
			t.Errorf("duplicate id %s", e.ID)
		}
		seen[e.ID] = true
	}
}

// admittedCodecs are the codecs gather admits (gather's own tests check
// that list against docs/row.md), so that an admitted codec without
// catalog entries is noticed.
func admittedCodecs() []string {
	var names []string
	for _, c := range gather.Admitted() {
		names = append(names, c.String())
	}
	return names
}

// gatherDir is package gather's directory.
const gatherDir = "../gather"

// codebookCodecs returns the admitted codecs whose Go decoder,
// decode<NAME> in package gather, reads one of the lookup tables of
// gather/codebooks.go (a grid or a non-linear value set): those get a
// third, codebook, corruption. It fails when a decoder is missing.
func codebookCodecs(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	tables := map[string]bool{}
	decoders := map[string]*ast.FuncDecl{}
	files, err := filepath.Glob(filepath.Join(gatherDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decoders[d.Name.Name] = d
				}
			case *ast.GenDecl:
				if filepath.Base(path) != "codebooks.go" {
					continue
				}
				for _, spec := range d.Specs {
					if vs, ok := spec.(*ast.ValueSpec); ok {
						for _, n := range vs.Names {
							tables[n.Name] = true
						}
					}
				}
			}
		}
	}
	if len(tables) == 0 {
		t.Fatal("gather/codebooks.go declares no tables")
	}
	var names []string
	for _, codec := range admittedCodecs() {
		fn, ok := decoders["decode"+codec]
		if !ok || fn.Body == nil {
			t.Errorf("%s: gather has no decoder decode%s", codec, codec)
			continue
		}
		reads := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && tables[id.Name] {
				reads = true
			}
			return !reads
		})
		if reads {
			names = append(names, codec)
		}
	}
	return names
}

// rowClasses is how many mutation classes docs/row.md lists
// (TestRowClassesDocumented keeps the two in step).
const rowClasses = 14

// TestRowClassesDocumented counts the numbered classes of docs/row.md's
// mutation evidence.
func TestRowClassesDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/row.md")
	if err != nil {
		t.Fatal(err)
	}
	_, evidence, ok := strings.Cut(string(data), "## Mutation evidence")
	if !ok {
		t.Fatal("docs/row.md has no Mutation evidence section")
	}
	evidence, _, _ = strings.Cut(evidence, "\n### ")
	n := 0
	for _, line := range strings.Split(evidence, "\n") {
		if i := strings.Index(line, ". "); i > 0 && strings.Trim(line[:i], "0123456789") == "" {
			n++
		}
	}
	if n != rowClasses {
		t.Errorf("docs/row.md lists %d classes, the catalog's test %d", n, rowClasses)
	}
}

// TestCatalogCoversEveryClass checks that every class of docs/row.md's mutation
// evidence is present, with the expansions the issue asks for.
func TestCatalogCoversEveryClass(t *testing.T) {
	entries := Catalog().Entries
	byID := map[string]catalog.Entry{}
	classes := map[int]int{}
	for _, e := range entries {
		byID[e.ID] = e
		classes[e.Class]++
	}
	for class := 1; class <= rowClasses; class++ {
		if classes[class] == 0 {
			t.Errorf("class %d has no entry", class)
		}
	}
	for class := range classes {
		if class < 1 || class > rowClasses {
			t.Errorf("class %d is not one of docs/row.md's %d", class, rowClasses)
		}
	}
	// Class 4: every admitted codec, scale and payload, plus the codebook
	// where it has one, in Go; one corruption per codec in the kernel.
	withCodebook := codebookCodecs(t)
	t.Logf("codecs whose decoder reads a codebook: %v", withCodebook)
	for _, codec := range admittedCodecs() {
		parts := []string{"scale", "payload"}
		if slices.Contains(withCodebook, codec) {
			parts = append(parts, "codebook")
		}
		for _, part := range parts {
			id := "decode-" + strings.ToLower(codec) + "-" + part
			if e, ok := byID[id]; !ok || e.Class != 4 || e.Target.Package != pkgGather || e.Target.Func != "decode"+codec {
				t.Errorf("class 4: no Go %s corruption of %s (%s)", part, codec, id)
			}
		}
		found := false
		for _, e := range entries {
			if e.Class == 4 && e.Operator == catalog.KernelText && strings.HasPrefix(e.ID, "kernel-decode-"+strings.ToLower(codec)+"-") {
				found = true
			}
		}
		if !found {
			t.Errorf("class 4: no kernel corruption of %s", codec)
		}
	}
	// Classes 1-3 are killed by the production reachability test.
	for _, e := range entries {
		if e.Class >= 1 && e.Class <= 3 {
			for _, k := range e.Killers {
				if !strings.HasPrefix(k, pkgEngine+".TestProductionReachability") {
					t.Errorf("%s (class %d) expects %s, not the production reachability test", e.ID, e.Class, k)
				}
			}
		}
	}
	// Class 1 covers the CPU and the HIP registration.
	for _, pkg := range []string{pkgGather, pkgHipkern} {
		if !slices.ContainsFunc(entries, func(e catalog.Entry) bool { return e.Class == 1 && e.Target.Package == pkg }) {
			t.Errorf("class 1 has no registration entry in %s", pkg)
		}
	}
	// Class 10: the Q8_K trait removed, and its geometry perturbed.
	want10 := map[string]string{"BlockElems": "255 128 512", "BlockBytes": "291 293"}
	got10 := map[string][]string{}
	removed := false
	for _, e := range entries {
		if e.Class != 10 {
			continue
		}
		switch e.Operator {
		case catalog.DeleteElement:
			removed = e.Target.Match == "TypeQ8_K"
		case catalog.ReplaceValue:
			got10[e.Target.Field] = append(got10[e.Target.Field], e.Replacement)
		}
	}
	if !removed {
		t.Error("class 10: no removal of the Q8_K trait")
	}
	for field, want := range want10 {
		if got := strings.Join(got10[field], " "); got != want {
			t.Errorf("class 10: %s perturbed to %q, want %q", field, got, want)
		}
	}
	// The kernel mechanics the issue lists.
	for _, id := range []string{"kernel-grid-stride-removed", "kernel-row-stride-in-elements", "kernel-ids-truncated-to-int32",
		"kernel-bf16-truncates", "kernel-error-record-not-written", "kernel-error-record-not-read", "kernel-device-binding-removed"} {
		if e, ok := byID[id]; !ok || e.Operator != catalog.KernelText {
			t.Errorf("no kernel entry %s", id)
		}
	}
}

// TestKernelRecipe checks the kernel entries' files are among the sources
// the recipe copies, and that the recipe names the build script that
// exists.
func TestKernelRecipe(t *testing.T) {
	c := Catalog()
	k := c.Kernel
	if k == nil {
		t.Fatal("no kernel recipe")
	}
	var sources []string
	for _, glob := range k.Sources {
		m, err := filepath.Glob(filepath.Join("..", glob))
		if err != nil || len(m) == 0 {
			t.Errorf("source glob %q matches nothing (%v)", glob, err)
		}
		for _, p := range m {
			sources = append(sources, filepath.ToSlash(strings.TrimPrefix(p, ".."+string(filepath.Separator))))
		}
	}
	for _, e := range c.Entries {
		if e.Operator == catalog.KernelText && !slices.Contains(sources, e.Target.File) {
			t.Errorf("%s rewrites %s, which the recipe does not copy", e.ID, e.Target.File)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "hipkern", "build.sh")); err != nil {
		t.Error(err)
	}
	if got := fmt.Sprint(k.Build); !strings.Contains(got, "{src}") || !strings.Contains(got, "{out}") {
		t.Errorf("build command %v does not use {src} and {out}", k.Build)
	}
}
