package tree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// sourceExts are the file kinds a build can read: Go, assembly, C and
// C++, HIP/CUDA kernels, shell build scripts, syso objects.
var sourceExts = []string{".go", ".s", ".c", ".h", ".cc", ".cpp", ".hpp", ".hip", ".cu", ".cuh", ".sh", ".syso"}

// IsSourceFile applies the tree-hash rule to a module-relative path: a
// source kind (sourceExts), go.mod, go.sum, or any file under a testdata
// directory. Reports, logs and build outputs are not sources, so writing
// reports into the tree does not change its hash.
func IsSourceFile(rel string) bool {
	rel = filepath.ToSlash(rel) //gathermut:equivalent(remove-stmt) the identity where the separator is '/', as on every platform the tool runs on (it needs Unix process groups and mmap)
	base := filepath.Base(rel)
	if base == "go.mod" || base == "go.sum" {
		return true
	}
	if slices.Contains(strings.Split(rel, "/")[:strings.Count(rel, "/")], "testdata") {
		return true
	}
	return slices.Contains(sourceExts, filepath.Ext(rel))
}

// Tree is the hash of a source tree: one sha256 per source file and one
// over all of them.
type Tree struct {
	Hash  string
	Files map[string]string // module-relative path -> sha256
}

// HashTree hashes every source file under root (IsSourceFile), plus the
// module-relative paths in extra (kernel sources a catalog may rewrite).
// Directories named .git, or starting with "." or "_" (which go ignores),
// are skipped.
func HashTree(root string, extra []string) (Tree, error) {
	t := Tree{Files: map[string]string{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		//gathermut:equivalent(branch-if) unreachable: WalkDir gives paths under root, which Rel always relates
		if err != nil {
			return err //gathermut:equivalent(zero-return) unreachable (see above)
		}
		if IsSourceFile(rel) {
			return t.add(root, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return Tree{}, fmt.Errorf("tree: hash tree %s: %w", root, err)
	}
	return t.With(root, extra)
}

// With returns t plus the module-relative files in extra it does not hold
// yet (kernel sources of any extension), with the overall hash redone.
func (t Tree) With(root string, extra []string) (Tree, error) {
	out := Tree{Files: make(map[string]string, len(t.Files)+len(extra))} //gathermut:equivalent(arith) a size hint: the map holds what is added either way
	for p, h := range t.Files {
		out.Files[p] = h
	}
	for _, rel := range extra {
		if _, done := out.Files[rel]; !done {
			if err := out.add(root, rel); err != nil {
				return Tree{}, fmt.Errorf("tree: hash tree %s: %w", root, err)
			}
		}
	}
	out.Hash = out.sum()
	return out, nil
}

// sum is the hash over every file's path and hash, in path order.
func (t Tree) sum() string {
	paths := make([]string, 0, len(t.Files))
	for p := range t.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%s\n", p, t.Files[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (t *Tree) add(root, rel string) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	defer f.Close() //gathermut:equivalent(remove-stmt) without it the file is closed by its finalizer: nothing a caller sees changes
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	t.Files[rel] = hex.EncodeToString(h.Sum(nil))
	return nil
}

// Changed lists the files whose hash differs between t and after (added,
// removed or modified), sorted.
func (t Tree) Changed(after Tree) []string {
	var out []string
	for p, h := range t.Files {
		if after.Files[p] != h {
			out = append(out, p)
		}
	}
	for p := range after.Files {
		if _, ok := t.Files[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
