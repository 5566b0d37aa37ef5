package main

import (
	"path/filepath"
	"strings"
	"testing"

	"gathermut/mutate/catalog"
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
		if got := globRegexp(c.glob).MatchString(c.id); got != c.want {
			t.Errorf("%q ~ %q: %v", c.glob, c.id, got)
		}
	}
}

func TestParseShard(t *testing.T) {
	if k, n, err := parseShard("1/3"); err != nil || k != 1 || n != 3 {
		t.Errorf("1/3: %d %d %v", k, n, err)
	}
	if _, n, err := parseShard(""); err != nil || n != 0 {
		t.Errorf("empty: %v", err)
	}
	for _, bad := range []string{"3/3", "-1/3", "1/0", "1", "a/b"} {
		if _, _, err := parseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
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
