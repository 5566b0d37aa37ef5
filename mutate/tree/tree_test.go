package tree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsSourceFile(t *testing.T) {
	for path, want := range map[string]bool{
		"gguf/types.go": true, "go.mod": true, "go.sum": true, "hipkern/gather.hip": true, "hipkern/build.sh": true,
		"testdata/golden.bin": true, "mutate/testdata/fixture/x.kern": true, "reports/mutation.json": false, "README.md": false,
		"notes.txt": false, "testdata": false,
	} {
		if got := IsSourceFile(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

func TestHashTree(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		path := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module m\n")
	write("a/a.go", "package a\n")
	write("a/k.kern", "kernel\n")
	write(".git/HEAD", "ref\n")
	a, err := HashTree(dir, []string{"a/k.kern"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) != 3 {
		t.Errorf("files %v", a.Files)
	}
	write("reports/mutation.md", "# report\n")
	write(".git/HEAD", "other\n")
	b, _ := HashTree(dir, []string{"a/k.kern"})
	if b.Hash != a.Hash {
		t.Errorf("a report or .git changed the tree hash")
	}
	write("a/k.kern", "kernel!\n")
	write("a/b.go", "package a\n")
	c, _ := HashTree(dir, []string{"a/k.kern"})
	if c.Hash == a.Hash {
		t.Errorf("hash did not change")
	}
	if got := strings.Join(a.Changed(c), ","); got != "a/b.go,a/k.kern" {
		t.Errorf("changed %s", got)
	}
}
