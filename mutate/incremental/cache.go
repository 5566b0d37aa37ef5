package incremental

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gathermut/mutate/mutant"
)

// formatVersion changes when the meaning of a key changes: older files
// are then read as empty.
const formatVersion = 1

// Entry is one stored verdict.
type Entry struct {
	ID       string        `json:"id"`      // the mutant's id when stored (for people reading the file)
	Package  string        `json:"package"` // the mutated package ("" for kernel mutants)
	Kind     string        `json:"kind"`    // "all" (Key) or "killed" (KilledKey)
	Key      string        `json:"key"`
	KilledBy []string      `json:"killedBy,omitempty"`
	Result   mutant.Result `json:"result"`
}

// Cache is the incremental cache file: verdicts by mutant identity.
type Cache struct {
	Path    string            `json:"-"`
	Version int               `json:"version"`
	Entries map[string]*Entry `json:"entries"`
}

// Open reads the cache file at path; a file that does not exist is an
// empty cache. A file that does not read (another format version, a
// truncated write) is an empty cache too, and the error says why.
func Open(path string) (*Cache, error) {
	c := &Cache{Path: path, Version: formatVersion, Entries: map[string]*Entry{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("incremental: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return c, fmt.Errorf("incremental: %s: %w", path, err)
	}
	var read Cache
	if err := json.NewDecoder(zr).Decode(&read); err != nil {
		return c, fmt.Errorf("incremental: %s: %w", path, err)
	}
	if read.Version != formatVersion {
		return c, fmt.Errorf("incremental: %s: format %d, this tool writes %d: starting afresh", path, read.Version, formatVersion)
	}
	if read.Entries != nil {
		c.Entries = read.Entries
	}
	return c, nil
}

// Cacheable reports whether a verdict may be stored: one the tests gave
// (killed, survived, timed out, not run because every selected test
// skipped: the GPUs and the environment are in the key) or the compiler
// (unviable after a build). Verdicts decided without running anything
// are cheap to decide again, and errors and interrupted mutants are not
// verdicts on the code.
func Cacheable(o mutant.Outcome) bool {
	decided := !o.Mutant.Runs()
	switch o.Result.Status {
	case mutant.Killed, mutant.Survived, mutant.TimedOut, mutant.Unviable:
		return !decided
	case mutant.NotRun:
		return !decided && len(o.Result.Commands) > 0 // its tests ran, and skipped
	}
	return false
}

// Lookup returns the stored verdict on m when what it depends on is
// unchanged, marked Reused.
func (c *Cache) Lookup(g *Graph, m mutant.Mutant, extra ...string) (mutant.Result, bool) {
	e := c.Entries[g.Identity(m)]
	if e == nil {
		return mutant.Result{}, false
	}
	var key string
	var ok bool
	if e.Kind == "killed" {
		key, ok = g.KilledKey(m, e.KilledBy, extra...)
	} else {
		key, ok = g.Key(m, extra...)
	}
	if !ok || key != e.Key {
		return mutant.Result{}, false
	}
	r := e.Result
	r.Reused = true
	return r, true
}

// Store records a judged outcome (see Cacheable); a kill is keyed by its
// killers only, so that a test added elsewhere does not undo it.
func (c *Cache) Store(g *Graph, o mutant.Outcome, extra ...string) bool {
	if !Cacheable(o) {
		return false
	}
	id := g.Identity(o.Mutant)
	if o.Result.Reused {
		return c.Entries[id] != nil // its entry stands
	}
	e := &Entry{ID: o.Mutant.ID, Package: o.Mutant.Package, Result: o.Result}
	e.Result.Reused = false
	if o.Result.Status == mutant.Killed {
		if key, ok := g.KilledKey(o.Mutant, o.Result.KilledBy, extra...); ok {
			e.Kind, e.Key, e.KilledBy = "killed", key, o.Result.KilledBy
		}
	}
	if e.Key == "" {
		key, ok := g.Key(o.Mutant, extra...)
		if !ok {
			return false
		}
		e.Kind, e.Key = "all", key
	}
	c.Entries[id] = e
	return true
}

// Forget drops the entries of the given packages whose identity is not
// in keep: after a whole run of those packages, what it did not judge no
// longer exists.
func (c *Cache) Forget(packages map[string]bool, keep map[string]bool) {
	for id, e := range c.Entries {
		if packages[e.Package] && !keep[id] {
			delete(c.Entries, id)
		}
	}
}

// Save writes the cache file atomically.
func (c *Cache) Save() error {
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return fmt.Errorf("incremental: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), ".incremental-*")
	if err != nil {
		return fmt.Errorf("incremental: %w", err)
	}
	zw := gzip.NewWriter(tmp)
	c.Version = formatVersion
	err = json.NewEncoder(zw).Encode(c)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.Path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("incremental: write %s: %w", c.Path, err)
	}
	return nil
}
