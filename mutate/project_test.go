package main

import (
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/config"
)

// TestRowProjectFile: this repository's .gathermut.json gives the row's
// defaults (its packages and catalog) and leaves out exactly the test
// support packages: gather/gathertest and hipkern's test path; its set
// mutate-self is the tool's own job.
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
	support := []string{"gather/gathertest/", "hipkern/internal/emulation/", "hipkern/internal/probe/", "hipkern/hipkerntest/"}
	for _, dir := range support {
		if !slices.ContainsFunc(excluded, func(f string) bool { return strings.HasPrefix(f, dir) }) {
			t.Errorf("nothing of %s is excluded", dir)
		}
	}
	for _, f := range excluded {
		if !slices.ContainsFunc(support, func(dir string) bool { return strings.HasPrefix(f, dir) }) {
			t.Errorf("%s is excluded; only the test support packages %q should be", f, support)
		}
	}

	// the tool's own job: every package of mutate, no catalog, the
	// schema validator (test support) and the bench command left out
	self, err := p.Select("mutate-self")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(self.Packages, []string{"./mutate/..."}) || self.Catalog == nil || *self.Catalog != "" ||
		!slices.Equal(self.Exclude, []string{"mutate/report/schematest", "mutate/bench.go"}) || self.Threshold == nil || *self.Threshold != 90 {
		t.Errorf("set mutate-self: %+v", self)
	}
	if len(p.Sets) != 1 {
		t.Errorf("sets %v: want mutate-self only", p.Sets)
	}
}

// TestRowTreeHash: the row's report hash covers what a run judges. On a
// copy of this repository (its tracked files), a change to the mutation
// tool's own fixtures and tests leaves the hash that mutate list prints
// (and a report records) as it was; a change to .gathermut.json, which
// decides what is mutated, changes it. --only-catalog (what CI runs)
// keeps the three listings short.
func TestRowTreeHash(t *testing.T) {
	out, err := osexec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree, not yet committed
			}
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	treeLine := regexp.MustCompile(`; tree ([0-9a-f]{12}) \((\d+) files judged\)`)
	hash := func() string {
		t.Helper()
		res := runTool(t, dir, nil, "list", "--only-catalog", "--no-cache")
		m := treeLine.FindStringSubmatch(res.stderr)
		if res.code != 0 || m == nil {
			t.Fatalf("mutate list: exit %d, no tree line:\n%s", res.code, res.stderr)
		}
		return m[1]
	}
	appendTo := func(rel, text string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(rel))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(data, text...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := hash()
	appendTo("mutate/testdata/fixture/strong/strong.go", "\n// a fixture edit\n")
	appendTo("mutate/fixture_test.go", "\n// a tool test edit\n")
	appendTo("README.md", "\na documentation edit\n")
	if got := hash(); got != before {
		t.Errorf("editing the tool's fixtures and the docs changed the row's hash: %s -> %s", before, got)
	}
	project := filepath.Join(dir, config.ProjectFile)
	data, err := os.ReadFile(project)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"comment": "`, `"comment": "edited. `, 1)
	if edited == string(data) {
		t.Fatalf("%s has no comment to edit", config.ProjectFile)
	}
	if err := os.WriteFile(project, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := hash(); got == before {
		t.Errorf("editing %s left the row's hash at %s", config.ProjectFile, got)
	}
}
