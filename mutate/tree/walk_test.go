package tree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func sum(data string) string {
	h := sha256.Sum256([]byte(data))
	return hex.EncodeToString(h[:])
}

// TestHashTreeWalk: which files a tree hash holds, and its overall hash
// computed independently: directories starting with "." or "_" are
// skipped (each prefix on its own), the root is walked whatever its name,
// and a file that is not regular (a dangling symlink) is not read.
func TestHashTreeWalk(t *testing.T) {
	root := filepath.Join(t.TempDir(), "_root.d")
	files := map[string]string{
		"go.mod":       "module m\n",
		"a/a.go":       "package a\n",
		".hidden/h.go": "package h\n",
		"_skip/s.go":   "package s\n",
		"a/.dot/d.go":  "package d\n",
		"a/_u/u.go":    "package u\n",
		"a/notes.txt":  "not a source\n",
		"x.kern":       "kernel\n",
	}
	for rel, data := range files {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "gone.go"), filepath.Join(root, "a", "link.go")); err != nil {
		t.Fatal(err)
	}
	got, err := HashTree(root, []string{"x.kern"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"go.mod": sum(files["go.mod"]), "a/a.go": sum(files["a/a.go"]), "x.kern": sum(files["x.kern"])}
	if len(got.Files) != len(want) {
		t.Errorf("files %v, want %v", got.Files, want)
	}
	var paths []string
	for p, h := range want {
		if got.Files[p] != h {
			t.Errorf("%s: %q, want %q", p, got.Files[p], h)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%s\n", p, want[p])
	}
	if hash := hex.EncodeToString(h.Sum(nil)); got.Hash != hash {
		t.Errorf("tree hash %s, want %s", got.Hash, hash)
	}
	// With adds what it does not hold, and only that
	more, err := got.With(root, []string{"a/notes.txt", "x.kern"})
	if err != nil {
		t.Fatal(err)
	}
	if len(more.Files) != 4 || more.Files["a/notes.txt"] != sum(files["a/notes.txt"]) || len(got.Files) != 3 || more.Hash == got.Hash {
		t.Errorf("With: %v (from %v)", more.Files, got.Files)
	}
}

// TestHashTreeErrors: what cannot be read is an error naming the tree.
func TestHashTreeErrors(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir.kern"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		root  string
		extra []string
	}{
		{"no such root", filepath.Join(root, "missing"), nil},
		{"no such extra file", root, []string{"gone.kern"}},
		{"an extra directory", root, []string{"dir.kern"}},
	} {
		tr, err := HashTree(c.root, c.extra)
		if err == nil || !strings.Contains(err.Error(), "tree: hash tree "+c.root) || tr.Hash != "" || tr.Files != nil {
			t.Errorf("%s: %+v, %v", c.name, tr, err)
		}
	}
}
