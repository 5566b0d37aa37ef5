package incremental

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
)

// TestCacheable: only verdicts the tests or the compiler gave are
// stored: killed, survived, timed out, unviable after a build, and not
// run when its tests ran and skipped; none a discovery decided without
// running anything, and no error or interrupted mutant.
func TestCacheable(t *testing.T) {
	for _, c := range []struct {
		status   mutant.Status
		state    mutant.State
		commands []string
		want     bool
	}{
		{mutant.Killed, mutant.Runnable, nil, true},
		{mutant.Survived, mutant.Runnable, nil, true},
		{mutant.TimedOut, mutant.Runnable, nil, true},
		{mutant.Unviable, mutant.Runnable, nil, true},
		{mutant.Unviable, mutant.Unbuildable, nil, false},
		{mutant.Killed, mutant.Equivalent, nil, false},
		{mutant.Survived, mutant.Invalid, nil, false},
		{mutant.NotRun, mutant.Runnable, []string{"go test -run X ./p"}, true},
		{mutant.NotRun, mutant.Runnable, nil, false},
		{mutant.NotRun, mutant.Unbuildable, []string{"go test ./p"}, false},
		{mutant.Error, mutant.Runnable, []string{"go test ./p"}, false},
		{mutant.Interrupted, mutant.Runnable, []string{"go test ./p"}, false},
		{mutant.Ignored, mutant.Equivalent, nil, false},
	} {
		o := mutant.Outcome{Mutant: mutant.Mutant{ID: "m", State: c.state}, Result: mutant.Result{Status: c.status, Commands: c.commands}}
		if got := Cacheable(o); got != c.want {
			t.Errorf("Cacheable(%s, %s, %d commands) = %v, want %v", c.status, c.state, len(c.commands), got, c.want)
		}
	}
}

func gzipFile(t *testing.T, path, text string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpenFiles: a cache file that is missing is an empty cache without
// an error; one that does not read (not gzip, not JSON, another format,
// a directory) is an empty cache and an error that names the file; an
// empty but valid one can be stored into.
func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	os.WriteFile(path("plain"), []byte("not gzip"), 0o644)
	gzipFile(t, path("notjson"), "{")
	gzipFile(t, path("v1"), `{"version":1,"entries":{"a":{"id":"x"}}}`)
	gzipFile(t, path("v3"), `{"version":3}`)
	gzipFile(t, path("bare"), `{"version":2}`)
	gzipFile(t, path("full"), `{"version":2,"entries":{"a":{"id":"x","deps":["n:m.f"]}},"sets":{"s1":["m.f"]}}`)
	os.Mkdir(path("adir"), 0o755)
	for _, c := range []struct {
		name    string
		errWith string // "" for no error
		entries int
		sets    int
	}{
		{"missing", "", 0, 0},
		{"plain", "plain", 0, 0},
		{"notjson", "notjson", 0, 0},
		{"v1", "format 1, this tool writes 2", 0, 0},
		{"v3", "format 3", 0, 0},
		{"adir", "adir", 0, 0},
		{"bare", "", 0, 0},
		{"full", "", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache, err := Open(path(c.name))
			if c.errWith == "" && err != nil || c.errWith != "" && (err == nil || !strings.Contains(err.Error(), c.errWith)) {
				t.Errorf("Open: error %v, want one with %q", err, c.errWith)
			}
			if cache == nil || cache.Entries == nil || cache.Sets == nil || cache.Path != path(c.name) || cache.Version != formatVersion {
				t.Fatalf("Open: %+v, want an empty cache at its path", cache)
			}
			if len(cache.Entries) != c.entries || len(cache.Sets) != c.sets {
				t.Errorf("Open: %d entries, %d sets, want %d and %d", len(cache.Entries), len(cache.Sets), c.entries, c.sets)
			}
			cache.Entries["new"] = &Entry{ID: "new"} // every cache can be stored into
			cache.Sets["new"] = []string{"m.g"}
		})
	}
}

// TestForget: after a whole run of some packages, their entries it did
// not judge are dropped; the judged ones and other packages' stay.
func TestForget(t *testing.T) {
	c := &Cache{Entries: map[string]*Entry{
		"p1": {Package: "m/p"}, "p2": {Package: "m/p"}, "q1": {Package: "m/q"}, "k1": {Package: ""}, "r1": {Package: "m/r"},
	}}
	c.Forget(map[string]bool{"m/p": true, "": true, "m/r": false}, map[string]bool{"p2": true, "q1": true})
	var got []string
	for id := range c.Entries {
		got = append(got, id)
	}
	slices.Sort(got)
	if want := []string{"p2", "q1", "r1"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
}

// TestDropUnusedSets: a saved file keeps the node sets an entry names
// (x: and b: name a set, s: a set and a test) and drops the rest.
func TestDropUnusedSets(t *testing.T) {
	c := &Cache{
		Entries: map[string]*Entry{
			"a": {Deps: []string{"n:m.f", "x:s1", "t:m.TestA", "s:s2:m.TestA", "s:-:m.TestB"}},
			"b": {Deps: []string{"b:s3", "c:m.f", "f:k.s", "p:m"}},
		},
		Sets: map[string][]string{"s1": {"m.f"}, "s2": {"m.g"}, "s3": {"m.h"}, "s4": {"m.f"}, "m.f": {"m.f"}, "m": {"m.f"}, "m.TestA": {}},
	}
	c.dropUnusedSets()
	var got []string
	for id := range c.Sets {
		got = append(got, id)
	}
	slices.Sort(got)
	if want := []string{"s1", "s2", "s3"}; !slices.Equal(got, want) {
		t.Errorf("kept sets %v, want %v", got, want)
	}
}

// TestWriteGzipJSON: the file is written whole where asked (its
// directory made), replacing what was there; a value that does not
// encode or a path that cannot be replaced is an error and leaves no
// temporary file behind.
func TestWriteGzipJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "c.json.gz")
	for _, v := range []any{map[string]int{"x": 1}, map[string]int{"y": 2}} {
		if err := writeGzipJSON(path, v); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(zr)
	f.Close()
	if b.String() != "{\"y\":2}\n" {
		t.Errorf("the file holds %q", b.String())
	}
	if err := writeGzipJSON(filepath.Join(dir, "bad.json.gz"), map[string]any{"c": make(chan int)}); err == nil {
		t.Error("a value that does not encode was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json.gz")); err == nil {
		t.Error("a value that does not encode left a file")
	}
	occupied := filepath.Join(dir, "occupied")
	os.MkdirAll(filepath.Join(occupied, "x"), 0o755)
	if err := writeGzipJSON(occupied, 1); err == nil {
		t.Error("a directory was replaced by the file")
	}
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	if err := writeGzipJSON(filepath.Join(blocker, "c.json.gz"), 1); err == nil {
		t.Error("a file under a file was written")
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".incremental-") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	c := &Cache{Path: filepath.Join(blocker, "cache.json.gz"), Entries: map[string]*Entry{}, Sets: map[string][]string{}}
	if err := c.Save(); err == nil || !strings.Contains(err.Error(), c.Path) {
		t.Errorf("Save under a file: %v, want an error naming the path", err)
	}
}
