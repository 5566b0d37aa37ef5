package lab

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"gathermut/mutate/catalog"
	"gathermut/mutate/mutant"
	"gathermut/mutate/tree"
)

// The discovery cache keeps what the discover step made, keyed by
// everything it depends on: the tool binary, the module root, the hash of
// the source tree and the flags that choose mutants (packages, catalog,
// operators). A hit skips reading the catalog, type-checking and
// generating: list, diff and run answer from it. Only whole discoveries
// are written (not the file subsets run and diff make without it), and a
// kernel source (any extension) that changed since invalidates the entry.
// The cache lives in the user cache dir (os.UserCacheDir()/gathermut);
// --no-cache ignores it.

// discoveryEntry is one cached discovery.
type discoveryEntry struct {
	Key     string            `json:"key"`
	Catalog catalog.Catalog   `json:"catalog"`
	CatPath string            `json:"catPath"`
	Kernel  map[string]string `json:"kernel"` // kernel source -> sha256
	Generic []string          `json:"generic"`
	Mutants []mutant.Mutant   `json:"mutants"`
}

var (
	toolHashOnce sync.Once
	toolHash     string
)

// toolVersion identifies the running binary, so a rebuilt tool never reads
// what an older one cached.
func toolVersion() string {
	toolHashOnce.Do(func() {
		toolHash = Version
		exe, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			toolHash += "-" + hex.EncodeToString(h.Sum(nil)[:12])
		}
	})
	return toolHash
}

// cacheDir is where cache entries go, or "" when there is none.
func cacheDir() string {
	if d := os.Getenv("GATHERMUT_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gathermut")
}

// discoveryKey hashes what a discovery depends on.
func (l *lab) discoveryKey(tr tree.Tree) string {
	h := sha256.New()
	fmt.Fprintf(h, "discovery\x00%s\x00%s\x00%s\x00", toolVersion(), l.root, tr.Hash)
	fmt.Fprintf(h, "%s\x00%q\x00%v\x00%v\x00%s\x00", strings.Join(l.cfg.Patterns, " "), l.cfg.Catalog, l.cfg.CatalogExplicit, l.cfg.OnlyCatalog, strings.Join(l.cfg.Operators, ","))
	fmt.Fprintf(h, "exclude\x00%s\x00%v\x00", strings.Join(l.cfg.Exclude, ","), l.cfg.Given.Packages)
	fmt.Fprintf(h, "lang\x00%s\x00", strings.Join(l.cfg.Languages, ","))
	return hex.EncodeToString(h.Sum(nil))
}

func cachePath(kind, key string) string {
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, kind, key[:2], key+".json.gz")
}

// readCache decodes a cache entry into v; false when there is none or it
// does not decode.
func readCache(kind, key string, v any) bool {
	path := cachePath(kind, key)
	if path == "" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	return json.NewDecoder(zr).Decode(v) == nil
}

// writeCache stores v; a failure only costs the next run its speed.
func writeCache(kind, key string, v any) error {
	path := cachePath(kind, key)
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(tmp)
	err = json.NewEncoder(zw).Encode(v)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// hashFiles returns the sha256 of each module-relative file.
func hashFiles(root string, rels []string) map[string]string {
	out := map[string]string{}
	for _, rel := range rels {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
	}
	return out
}
