package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"gathermut/mutate/internal/cache"
)

// The kernel schema library is kept across runs (package cache, kind
// "kernel-lib"), as baselines are: a schema build with the same inputs
// takes the library from there instead of compiling (the emulation's c++
// build of the row's kernel takes half a minute on one core). The key is
// the tool's identity, the backend, the build command, the compiler it
// names (path, size and modification time) and every source file as the
// build sees it (the schema's rendered files in place), so a change to
// any of them builds again. A library read back is written where Build
// would have put it.
const libCacheKind = "kernel-lib"

// libEntry is a cached library: its bytes and the build's output.
type libEntry struct {
	Lib     []byte `json:"lib"`
	Output  string `json:"output"`
	Command string `json:"command"`
}

// buildKey is the cache key of a build of backend with replace in place.
func (s *Sources) buildKey(backend Backend, replace map[string][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", cache.Tool(), backend)
	tmpl := s.Recipe.Build
	if backend == Emulation {
		tmpl = s.Recipe.Emulation
	}
	fmt.Fprintf(h, "%s\x00", strings.Join(tmpl, "\x01"))
	if len(tmpl) > 0 {
		if path, err := exec.LookPath(filepath.Join(s.Root, tmpl[0])); err == nil {
			tmpl = append([]string{path}, tmpl[1:]...)
		}
		for _, a := range tmpl {
			if path, err := exec.LookPath(a); err == nil {
				if st, err := os.Stat(path); err == nil {
					fmt.Fprintf(h, "%s %d %d\x00", path, st.Size(), st.ModTime().UnixNano())
				}
			}
		}
	}
	var rels []string
	for rel := range s.Files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		data := s.Files[rel]
		if r, ok := replace[rel]; ok {
			data = r
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "%s %x\x00", rel, sum)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// buildCached is Build through the cache when s.Cache is set: a library
// built before with the same inputs is written to where Build puts it;
// one built now is stored.
func (s *Sources) buildCached(ctx context.Context, backend Backend, dir string, replace map[string][]byte) (*Library, string, error) {
	if !s.Cache {
		return s.Build(ctx, backend, dir, replace)
	}
	key := s.buildKey(backend, replace)
	var e libEntry
	if cache.Read(libCacheKind, key, &e) && len(e.Lib) > 0 {
		lib := filepath.Join(dir, "out", "libkernel.so")
		if err := os.MkdirAll(filepath.Dir(lib), 0o755); err == nil {
			if err := os.WriteFile(lib, e.Lib, 0o755); err == nil {
				return &Library{Path: lib, Backend: backend, Command: e.Command, Rounds: 1, Cached: true, Inputs: key}, e.Output, nil
			}
		}
	}
	lib, out, err := s.Build(ctx, backend, dir, replace)
	if err != nil {
		return lib, out, err
	}
	lib.Inputs = key
	if data, rerr := os.ReadFile(lib.Path); rerr == nil {
		// a failure to store only costs the next run the build
		_ = cache.Write(libCacheKind, key, libEntry{Lib: data, Output: out, Command: lib.Command})
	}
	return lib, out, nil
}
