package incremental

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gathermut/mutate/mutant"
)

// formatVersion changes when the meaning of a key changes: older files
// are then read as empty.
const formatVersion = 2

// Entry is one stored verdict: what it depends on, by name (see depsOf),
// and the digest of their values when it was stored.
type Entry struct {
	ID      string        `json:"id"`      // the mutant's id when stored (for people reading the file)
	Package string        `json:"package"` // the mutated package ("" for kernel mutants)
	Deps    []string      `json:"deps"`
	Digest  string        `json:"digest"`
	Result  mutant.Result `json:"result"`
}

// Cache is the incremental cache file: verdicts by mutant identity, and
// the node sets their dependencies name.
type Cache struct {
	Path    string              `json:"-"`
	Version int                 `json:"version"`
	Entries map[string]*Entry   `json:"entries"`
	Sets    map[string][]string `json:"sets"`

	vals  *values // the values of the graph last used
	graph *Graph
}

// Open reads the cache file at path; a file that does not exist is an
// empty cache. A file that does not read (another format version, a
// truncated write) is an empty cache too, and the error says why.
func Open(path string) (*Cache, error) {
	c := &Cache{Path: path, Version: formatVersion, Entries: map[string]*Entry{}, Sets: map[string][]string{}}
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
	if read.Sets != nil {
		c.Sets = read.Sets
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

// valuesOf returns the memo of g's dependency values.
func (c *Cache) valuesOf(g *Graph) *values {
	if c.graph != g || c.vals == nil {
		c.graph, c.vals = g, g.values(c.Sets)
	}
	return c.vals
}

// Lookup returns the stored verdict on m when everything it depends on is
// unchanged, marked Reused.
func (c *Cache) Lookup(g *Graph, m mutant.Mutant, extra ...string) (mutant.Result, bool) {
	id := g.Identity(m)
	e := c.Entries[id]
	if e == nil {
		return mutant.Result{}, false
	}
	digest, ok := c.valuesOf(g).digest(id, e.Deps, extra)
	if !ok || digest != e.Digest {
		return mutant.Result{}, false
	}
	r := e.Result
	r.Reused = true
	return r, true
}

// Store records a judged outcome (see Cacheable) with what it depends on
// (depsOf, from the evidence the run gathered: nil for none); false when
// it is not stored.
func (c *Cache) Store(g *Graph, o mutant.Outcome, ev *Evidence, extra ...string) bool {
	if !Cacheable(o) {
		return false
	}
	id := g.Identity(o.Mutant)
	if o.Result.Reused {
		return c.Entries[id] != nil // its entry stands
	}
	d, ok := g.depsOf(o.Mutant, o.Result, ev)
	if !ok {
		return false
	}
	for sid, keys := range d.sets {
		c.Sets[sid] = keys
	}
	names := make([]string, 0, len(d.names))
	for n := range d.names {
		names = append(names, n)
	}
	sort.Strings(names)
	digest, ok := c.valuesOf(g).digest(id, names, extra)
	if !ok {
		return false
	}
	e := &Entry{ID: o.Mutant.ID, Package: o.Mutant.Package, Deps: names, Digest: digest, Result: o.Result}
	e.Result.Reused = false
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
	c.dropUnusedSets()
	c.Version = formatVersion
	if err := writeGzipJSON(c.Path, c); err != nil {
		return fmt.Errorf("incremental: write %s: %w", c.Path, err)
	}
	return nil
}

// writeGzipJSON writes v as gzip'd JSON to path, atomically (a temp file
// renamed), making its directory.
func writeGzipJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".incremental-*")
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
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// dropUnusedSets forgets the node sets no entry names.
func (c *Cache) dropUnusedSets() {
	used := map[string]bool{}
	for _, e := range c.Entries {
		for _, name := range e.Deps {
			kind, arg, _ := strings.Cut(name, ":")
			switch kind {
			case "x", "b":
				used[arg] = true
			case "s":
				set, _, _ := strings.Cut(arg, ":")
				used[set] = true
			}
		}
	}
	for id := range c.Sets {
		if !used[id] {
			delete(c.Sets, id)
		}
	}
}
