package main

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/config"
)

// TestRowProjectFile: this repository's .gathermut.json gives the row's
// defaults (its packages and catalog) and leaves out exactly the test
// support package gather/gathertest.
func TestRowProjectFile(t *testing.T) {
	p, err := config.ReadProject("..")
	if err != nil || p == nil {
		t.Fatalf("read ../%s: %v %v", config.ProjectFile, p, err)
	}
	if !slices.Equal(p.Packages, []string{"./gguf/...", "./gather/...", "./engine/...", "./hipkern/..."}) || p.Catalog == nil || *p.Catalog != "./mutants" {
		t.Errorf("packages %v, catalog %v: want the row's", p.Packages, p.Catalog)
	}
	var excluded []string
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, g := range p.Exclude {
			if config.MatchGlob(g, rel) {
				excluded = append(excluded, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(excluded) == 0 {
		t.Errorf("nothing of gather/gathertest is excluded")
	}
	for _, f := range excluded {
		if !strings.HasPrefix(f, "gather/gathertest/") {
			t.Errorf("%s is excluded; only gather/gathertest should be", f)
		}
	}
}
