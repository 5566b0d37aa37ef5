package cache

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Version is the tool's version, named in every report's framework block;
// a cache key starts with it and the running binary's hash (Tool).
const Version = "0.2.0"

var (
	toolOnce sync.Once
	toolID   string
)

// Tool identifies the running binary (Version and the sha256 of the
// executable), so a rebuilt tool never reads what an older one cached.
// When the executable cannot be read it is Version alone.
func Tool() string {
	toolOnce.Do(func() {
		toolID = Version
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
			toolID += "-" + hex.EncodeToString(h.Sum(nil)[:12])
		}
	})
	return toolID
}

// Dir is where the caches live: $GATHERMUT_CACHE, else gathermut in the
// user cache dir; "" when there is none.
func Dir() string {
	if d := os.Getenv("GATHERMUT_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gathermut")
}

func entryPath(kind, key string) string {
	dir := Dir()
	if dir == "" || len(key) < 2 {
		return ""
	}
	return filepath.Join(dir, kind, key[:2], key+".json.gz")
}

// Read decodes the entry of a kind ("discovery", "baseline") under key
// into v; false when there is none or it does not decode.
func Read(kind, key string, v any) bool {
	path := entryPath(kind, key)
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

// Write stores v under key, atomically (a temp file renamed into place);
// a failure only costs the next run its speed.
func Write(kind, key string, v any) error {
	path := entryPath(kind, key)
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

// HashFiles returns the sha256 of each module-relative file it can read.
func HashFiles(root string, rels []string) map[string]string {
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
