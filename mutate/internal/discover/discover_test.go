package discover

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gathermut/mutate/catalog"
	"gathermut/mutate/mutant"
	"gathermut/mutate/tree"
)

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		glob, id string
		want     bool
	}{
		{"arith:*", "arith:gguf/types.go:1:2:abcd", true},
		{"*:gguf/*", "arith:gguf/x/types.go:1:2:abcd", true},
		{"q8k-trait-removed", "q8k-trait-removed", true},
		{"q8k-trait", "q8k-trait-removed", false},
		{"a?c", "abc", true},
		{"a.c", "abc", false},
		{"q8k-trait-removed,arith:*", "arith:gguf/types.go:1:2:abcd", true},
		{"q8k-trait-removed,arith:*", "q8k-trait-removed", true},
		{"q8k-trait-removed,arith:*", "boundary:gguf/types.go:1:2:abcd", false},
		{"a,b", "a,b", false},
	} {
		if got := GlobRegexp(c.glob).MatchString(c.id); got != c.want {
			t.Errorf("%q ~ %q: %v", c.glob, c.id, got)
		}
	}
}

func TestParseDiff(t *testing.T) {
	diff := "diff --git a/p/p.go b/p/p.go\n--- a/p/p.go\n+++ b/p/p.go\n@@ -3 +3 @@\n-x\n+y\n@@ -10,0 +11,2 @@\n+a\n+b\n@@ -20,2 +22,0 @@\n-c\n-d\n" +
		"--- a/gone.go\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n"
	got, err := parseDiff([]byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := []lineRange{{3, 3}, {11, 12}, {23, 23}}
	if len(got) != 1 || len(got["p/p.go"]) != 3 {
		t.Fatalf("ranges %v", got)
	}
	for i, r := range want {
		if got["p/p.go"][i] != r {
			t.Errorf("range %d: %v, want %v", i, got["p/p.go"][i], r)
		}
	}
	if _, err := parseDiff([]byte("+++ b/x.go\n@@ -1 +z @@\n")); err == nil {
		t.Errorf("bad hunk accepted")
	}
}

// TestInChanged: a mutant is in the diff when any line of it lies in any
// line of a changed hunk, not only the hunk's first line.
func TestInChanged(t *testing.T) {
	ranges := []lineRange{{3, 3}, {11, 14}, {23, 23}}
	for _, c := range []struct {
		name       string
		from, to   int
		inTheDiffs bool
	}{
		{"on a one-line change", 3, 3, true},
		{"on the first line of a multi-line change", 11, 11, true},
		{"on a later line of a multi-line change", 13, 13, true},
		{"on the last line of a multi-line change", 14, 14, true},
		{"spanning from before a change into its later lines", 9, 12, true},
		{"spanning from a change's later line past its end", 14, 16, true},
		{"around a whole change", 10, 15, true},
		{"on the line after a change", 15, 15, false},
		{"on the line before a change", 10, 10, false},
		{"between changes", 16, 22, false},
		{"at a pure deletion's mark", 23, 23, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mutant.Mutant{File: "p/p.go", Pos: mutant.Position{Line: c.from, Column: 2}, End: mutant.Position{Line: c.to, Column: 9}}
			if got := inChanged(m, ranges); got != c.inTheDiffs {
				t.Errorf("lines %d-%d: in the diff %v, want %v", c.from, c.to, got, c.inTheDiffs)
			}
		})
	}
}

func TestCatalogImportPath(t *testing.T) {
	for _, c := range []struct{ flag, path, dir string }{
		{"./mutants", "m/mutants", "/r/mutants"},
		{"m/x/y", "m/x/y", "/r/x/y"},
		{"other/pkg", "other/pkg", ""},
	} {
		path, dir := catalogImportPath(c.flag, "/r", "m")
		if path != c.path || dir != c.dir {
			t.Errorf("%s: %s %s", c.flag, path, dir)
		}
	}
}

func TestValidateCatalog(t *testing.T) {
	ok := catalog.Entry{ID: "a", Operator: catalog.DeleteCall, Killers: []string{"p.T"}}
	for _, c := range []struct {
		cat  catalog.Catalog
		want string
	}{
		{catalog.Catalog{Entries: []catalog.Entry{ok}}, ""},
		{catalog.Catalog{Entries: []catalog.Entry{ok, ok}}, "used twice"},
		{catalog.Catalog{Entries: []catalog.Entry{{Operator: catalog.DeleteCall}}}, "no ID"},
		{catalog.Catalog{Entries: []catalog.Entry{{ID: "b"}}}, "no expected killer"},
		{catalog.Catalog{Entries: []catalog.Entry{{ID: "k", Operator: catalog.KernelText, Killers: []string{"p.T"}}}}, "no Kernel config"},
		{catalog.Catalog{Equivalents: []catalog.Equivalent{{Package: "p"}}}, "no Reason"},
		{catalog.Catalog{Equivalents: []catalog.Equivalent{{Reason: "r"}}}, "no Package"},
	} {
		err := validateCatalog(c.cat)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cat, err, c.want)
		}
	}
}

// Both ways of reading a catalog through an overlay give the same catalog,
// and neither writes to the tree.
func TestReadCatalogBothWays(t *testing.T) {
	root, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, fixture)
	tmp := t.TempDir()
	viaMain, err := catalogByMain(root, "fixture/mutants", tmp)
	if err != nil {
		t.Fatal(err)
	}
	viaTest, err := catalogByTest(root, "fixture/mutants", tmp)
	if err != nil {
		t.Fatal(err)
	}
	if string(viaMain) != string(viaTest) || !strings.Contains(string(viaMain), `"ID":"square-unregistered"`) {
		t.Errorf("catalog via main:\n%s\nvia test:\n%s", viaMain, viaTest)
	}
	cat, err := readCatalog(root, "fixture/mutants", tmp)
	if err != nil || len(cat.Entries) != 7 || cat.Kernel == nil || len(cat.Equivalents) != 1 {
		t.Errorf("catalog %+v, %v", cat, err)
	}
	if after := treeHash(t, fixture); after != before {
		t.Errorf("reading the catalog changed the tree")
	}
}

func TestWithoutCatalogTwins(t *testing.T) {
	entry := &catalog.Entry{ID: "c"}
	ms := []mutant.Mutant{
		{ID: "generic-twin", File: "p/p.go", ResultHash: "x"},
		{ID: "generic-other", File: "p/p.go", ResultHash: "y"},
		{ID: "catalog", File: "p/p.go", ResultHash: "x", Catalog: entry},
		{ID: "generic-other-file", File: "q/q.go", ResultHash: "x"},
		{ID: "catalog-invalid", File: "p/p.go", Catalog: entry},
		{ID: "generic-no-source", File: "p/p.go"},
	}
	var got []string
	for _, m := range WithoutCatalogTwins(ms) {
		got = append(got, m.ID)
	}
	want := []string{"generic-other", "catalog", "generic-other-file", "catalog-invalid", "generic-no-source"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("kept %v, want %v", got, want)
	}
}

func TestListPackages(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module lp\n\ngo 1.26\n",
		"good/good.go":    "package good\n\nfunc F() int { return 1 }\n",
		"broken/a.go":     "package broken\n",
		"broken/b.go":     "package other\n",
		"empty/README.md": "no Go here\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ListPackages(dir, []string{"./good/..."})
	if err != nil || strings.Join(got, ",") != "lp/good" {
		t.Errorf("./good/...: %v, %v; want [lp/good]", got, err)
	}
	for _, c := range []struct {
		patterns []string
		want     string
	}{
		{[]string{"./..."}, "packages that do not load: lp/broken"},
		{[]string{"./good/...", "./empty/..."}, `"./empty/..." matched no packages`},
	} {
		_, err := ListPackages(dir, c.patterns)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to contain %q", c.patterns, err, c.want)
		}
	}
}

const fixture = "../../testdata/fixture"

func treeHash(t *testing.T, dir string) string {
	t.Helper()
	tr, err := tree.HashTree(dir, []string{"target/kernel/scale.kern"})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Hash
}

func TestSelectFiles(t *testing.T) {
	for _, c := range []struct {
		sel      string
		generic  bool
		anyFile  bool
		yes, not []string
	}{
		{"q8k-trait-removed", false, true, nil, nil},
		{"q8k-trait-removed,scale-adds", false, true, nil, nil},
		{"arith:gguf/types.go:12:9:abcd", true, false, []string{"gguf/types.go"}, []string{"gguf/reader.go", "gguf/types.go.x"}},
		{"arith:gguf/*", true, false, []string{"gguf/types.go", "gguf/sub/x.go"}, []string{"gather/bf16.go"}},
		{"*:gather/bf16.go:*,*:gather/fp4.go:*", true, false, []string{"gather/bf16.go", "gather/fp4.go"}, []string{"gather/x/gather/bf16.go"}},
		{"*:gather/*", true, true, nil, nil},
		{"a*:gather/bf16.go:*", true, true, nil, nil},
		{"arith:gather/bf16.go:*,negate:gather/fp4.go:*,q8k", true, false, []string{"gather/bf16.go", "gather/fp4.go"}, []string{"gather/cpu.go"}},
		{"*", true, true, nil, nil},
		{"", true, true, nil, nil},
	} {
		files, generic := selectFiles(c.sel)
		if generic != c.generic || (files == nil) != c.anyFile {
			t.Errorf("%q: generic %v, file filter %v", c.sel, generic, files != nil)
			continue
		}
		for _, f := range c.yes {
			if !files(f) {
				t.Errorf("%q does not keep %s", c.sel, f)
			}
		}
		for _, f := range c.not {
			if files(f) {
				t.Errorf("%q keeps %s", c.sel, f)
			}
		}
	}
}

// TestGoShape: a file's shape leaves out comments, formatting and the
// bodies of its functions, and keeps everything a package's importers
// see; the catalog's package (whole) keeps its bodies too.
func TestGoShape(t *testing.T) {
	base := "package p\n\n// F is f.\nfunc F(x int) struct{ a int } {\n\treturn struct{ a int }{x}\n}\n\nvar V = func() int { return 1 }()\n\n//go:noinline\nfunc G() {}\n"
	for _, c := range []struct {
		name, old, repl string
		same            bool
	}{
		{"a comment", "// F is f.", "// F is f, documented.", true},
		{"formatting", "\treturn struct{ a int }{x}", "\treturn struct {\n\t\ta int\n\t}{x}", true},
		{"a body", "{x}\n}", "{x + 0}\n}", true},
		{"a result type", "func F(x int) struct{ a int }", "func F(x int) struct{ a, b int }", false},
		{"a parameter", "func F(x int)", "func F(x int64)", false},
		{"a variable's initializer", "return 1 }()", "return 2 }()", false},
		{"a directive", "//go:noinline", "//go:nosplit", false},
		{"a new function", "\n//go:noinline", "\nfunc H() {}\n\n//go:noinline", false},
	} {
		if !strings.Contains(base, c.old) {
			t.Fatalf("%s: no %q", c.name, c.old)
		}
		changed := strings.Replace(base, c.old, c.repl, 1)
		if same := string(goShape([]byte(base), false)) == string(goShape([]byte(changed), false)); same != c.same {
			t.Errorf("%s: same shape %v, want %v", c.name, same, c.same)
		}
		if c.name == "a body" && string(goShape([]byte(base), true)) == string(goShape([]byte(changed), true)) {
			t.Errorf("a body: the whole file's tokens (the catalog's) do not see it")
		}
	}
}

// TestFilesToRemake: after a change, a discovery from a tree of the same
// shape makes again every non-test Go file of a changed package, a
// changed assembly file, and the file of a kept mutant whose schema data
// points into a remade file or (a constant's uses, a variable's readers)
// may point into any package, when Go code outside its own changed.
func TestFilesToRemake(t *testing.T) {
	tr := tree.Tree{Files: map[string]string{"a/a.go": "1", "a/a2.go": "2", "b/b.go": "3", "b/b_test.go": "4", "b/b_amd64.s": "5", "c/c.go": "6"}}
	old := []mutant.Mutant{
		{ID: "uses", File: "a/a.go", Schema: &mutant.Site{Uses: []mutant.UseSite{{File: "a/a.go"}}}},
		{ID: "plain", File: "c/c.go", Schema: &mutant.Site{}},
		{ID: "reader", File: "c/c.go", Schema: &mutant.Site{Readers: []mutant.Probe{{File: "c/c.go"}}}},
	}
	x := &discoverer{Input: Input{Root: t.TempDir(), Module: "m"}}
	for _, c := range []struct {
		changed []string
		want    string
	}{
		{[]string{"b/b_test.go"}, ""},
		{[]string{"b/b_amd64.s"}, "b/b_amd64.s"},
		{[]string{"a/a2.go"}, "a/a.go a/a2.go c/c.go"},
		{[]string{"b/b.go"}, "a/a.go a/a2.go b/b.go c/c.go"},
		{[]string{"c/c.go"}, "a/a.go a/a2.go c/c.go"},
	} {
		changed := map[string]bool{}
		for _, f := range c.changed {
			changed[f] = true
		}
		var got []string
		for f := range x.filesToRemake(changed, tr, old) {
			got = append(got, f)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != c.want {
			t.Errorf("after %v: made again %v, want %s", c.changed, got, c.want)
		}
	}
}

// TestRemadeCatalogEntries: a catalog entry that names a package and a
// declaration, not a file (q8k-trait-removed names gguf's ggmlTraits), is
// made again with the file its mutant of the earlier discovery lay in; an
// entry whose mutant lay elsewhere is kept, not made again. (After a
// comment in gguf/reader.go the discovery lost every gguf catalog mutant:
// their old mutants went with the remade files, and no entry named one.)
func TestRemadeCatalogEntries(t *testing.T) {
	byDecl := catalog.Entry{ID: "by-decl", Operator: catalog.DeleteElement, Target: catalog.Target{Package: "m/a", Func: "table", Match: "x"}}
	byFile := catalog.Entry{ID: "by-file", Operator: catalog.DeleteElement, Target: catalog.Target{Package: "m/c", File: "c/c.go", Func: "f"}}
	elsewhere := catalog.Entry{ID: "elsewhere", Operator: catalog.DeleteElement, Target: catalog.Target{Package: "m/b", Func: "g"}}
	x := &discoverer{Input: Input{Root: t.TempDir(), Module: "m"}}
	x.cat = catalog.Catalog{Entries: []catalog.Entry{byDecl, byFile, elsewhere}}
	old := []mutant.Mutant{
		{ID: "by-decl", File: "a/a.go", Catalog: &byDecl},
		{ID: "by-file", File: "c/c.go", Catalog: &byFile},
		{ID: "elsewhere", File: "b/b.go", Catalog: &elsewhere},
	}
	for _, c := range []struct {
		redo []string
		want string
	}{
		{[]string{"a/a.go", "a/a2.go"}, "by-decl"},
		{[]string{"c/c.go"}, "by-file"},
		{[]string{"a/a2.go"}, ""},
		{nil, ""},
	} {
		redo := map[string]bool{}
		for _, f := range c.redo {
			redo[f] = true
		}
		entries, pkgs := x.remadePackages(redo, nil, old)
		var got []string
		for _, e := range entries {
			got = append(got, e.ID)
			if !pkgs[e.Target.Package] {
				t.Errorf("redo %v: entry %s made again without loading its package %s", c.redo, e.ID, e.Target.Package)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("redo %v: catalog entries made again %v, want %q", c.redo, got, c.want)
		}
	}
}
