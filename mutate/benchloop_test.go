package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchLoopEdits: the changes bench loop makes to its copy of the
// module still apply to this tree (each file holds its text), so the
// bench stays runnable; a text a file no longer has is a clear error.
func TestBenchLoopEdits(t *testing.T) {
	dir := t.TempDir()
	for _, e := range append(append([][3]string(nil), commentEdits...), functionEdits...) {
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(e[0])))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(e[0]))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, edits := range [][][3]string{commentEdits, functionEdits} {
		if err := editFiles(dir, edits); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range append(append([][3]string(nil), commentEdits...), functionEdits...) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e[0])))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), e[2]) {
			t.Errorf("%s: the edit to %q is not there", e[0], e[2])
		}
	}
	err := editFiles(dir, [][3]string{{"gather/legacy.go", "no such text", "x"}})
	if err == nil || !strings.Contains(err.Error(), "no longer has") {
		t.Errorf("an edit whose text is gone: %v", err)
	}
}
