package selection

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"gathermut/mutate/internal/cache"
)

// cacheKind is the kind of the killer map's entries in package cache.
const cacheKind = "killers"

// MaxPredicted is how many killers Predict gives at most.
const MaxPredicted = 3

// formatVersion is the stored map's format; another one is not read.
const formatVersion = 1

// Key is what the map knows of a mutant: its identity and where it lives.
type Key struct {
	ID, Package, File, Func string
}

// entry is one mutant's killers, with where it lives (for the
// function, file and package counts of a map read back).
type entry struct {
	Package string `json:"package"`
	File    string `json:"file"`
	Func    string `json:"func"`
	Killers []Ref  `json:"killers"`
}

// stored is the map as the cache keeps it.
type stored struct {
	Version int              `json:"version"`
	Module  string           `json:"module"`
	Mutants map[string]entry `json:"mutants"`
}

// Map is a module's killer map: safe for concurrent use.
type Map struct {
	mu      sync.Mutex
	key     string // the cache key; "" for a map that is never saved
	module  string
	mutants map[string]entry
	// counts of killed mutants per killer, by function, file and package
	byFunc, byFile, byPkg map[string]map[Ref]int
	// subs are the first-level subtest names each test ("pkg.TestX")
	// was seen to kill with (subjectOf)
	subs  map[string]map[string]bool
	dirty bool
}

// New returns an empty map that Save does not store.
func New() *Map {
	return &Map{mutants: map[string]entry{}, byFunc: map[string]map[Ref]int{},
		byFile: map[string]map[Ref]int{}, byPkg: map[string]map[Ref]int{}, subs: map[string]map[string]bool{}}
}

// Open reads the killer map of the module at root (module is its path),
// or starts an empty one when there is none (or the cache dir is
// unusable: Save then stores nothing).
func Open(module, root string) *Map {
	m := New()
	m.module = module
	sum := sha256.Sum256([]byte(module + "\x00" + root))
	m.key = hex.EncodeToString(sum[:12])
	var s stored
	if cache.Read(cacheKind, m.key, &s) && s.Version == formatVersion && s.Module == module {
		for id, e := range s.Mutants {
			m.setLocked(id, e)
		}
	}
	return m
}

// Len is how many mutants the map holds.
func (m *Map) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.mutants)
}

// Save stores the map when it changed since it was opened.
func (m *Map) Save() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.key == "" || !m.dirty {
		return nil
	}
	if err := cache.Write(cacheKind, m.key, stored{Version: formatVersion, Module: m.module, Mutants: m.mutants}); err != nil {
		return err
	}
	m.dirty = false
	return nil
}

// Learn records the tests (or subtests) that killed a mutant, at most
// MaxPredicted of them; they replace what the map held for it.
func (m *Map) Learn(k Key, killers []Ref) {
	if len(killers) == 0 {
		return
	}
	var names []Ref
	for _, r := range killers {
		if !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	if len(names) > MaxPredicted {
		names = names[:MaxPredicted]
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.mutants[k.ID]; ok {
		if slices.Equal(old.Killers, names) {
			return
		}
		m.countLocked(old, -1)
	}
	m.setLocked(k.ID, entry{Package: k.Package, File: k.File, Func: k.Func, Killers: names})
	m.dirty = true
}

func (m *Map) setLocked(id string, e entry) {
	m.mutants[id] = e
	m.countLocked(e, 1)
}

// countLocked adds d to the counts of e's killers at each level.
func (m *Map) countLocked(e entry, d int) {
	levels := []struct {
		counts map[string]map[Ref]int
		key    string
	}{
		{m.byFunc, funcKey(e.Package, e.File, e.Func)},
		{m.byFile, e.Package + "\x00" + e.File},
		{m.byPkg, e.Package},
	}
	for _, l := range levels {
		if l.counts[l.key] == nil {
			l.counts[l.key] = map[Ref]int{}
		}
		for _, k := range e.Killers {
			if first, _, _ := strings.Cut(k.Sub, "/"); first != "" && d > 0 {
				t := k.Package + "." + k.Test
				if m.subs[t] == nil {
					m.subs[t] = map[string]bool{}
				}
				m.subs[t][first] = true
			}
			l.counts[l.key][k] += d
			if l.counts[l.key][k] <= 0 {
				delete(l.counts[l.key], k)
			}
		}
	}
}

func funcKey(pkg, file, fn string) string { return pkg + "\x00" + file + "\x00" + fn }

// Predict returns the tests most likely to kill a mutant, at most
// MaxPredicted: its own killers when the map has it (own), else the
// killers of most mutants of its function, or where its function has
// none its file's, or else its package's. One level only: a coarser
// level's whole test (a table test that failed for a crash) would
// swallow a finer level's subtests in one process.
func (m *Map) Predict(k Key) (refs []Ref, own bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.mutants[k.ID]; ok {
		return slices.Clone(e.Killers), true
	}
	if counts := m.byFunc[funcKey(k.Package, k.File, k.Func)]; len(counts) > 0 {
		return appendTop(nil, counts), false
	}
	for _, counts := range []map[Ref]int{
		m.byFile[k.Package+"\x00"+k.File],
		m.byPkg[k.Package],
	} {
		if len(counts) > 0 {
			return m.subjectOf(k.Func, appendTop(nil, counts)), false
		}
	}
	return nil, false
}

// subjectOf points a prediction from the mutant's file or package at the
// mutant's own subject: a subtest ref whose test is known to have a
// first-level subtest named within the mutant's function name
// ("Q6_K" in "CodecQ6_K::chunk", the longest such name) becomes that
// subtest, whole. Table-driven tests name their cases after what they
// check, and a function is often named after the case it serves (a
// codec's decoder): another codec's case would not see the mutant. A
// prediction from the mutant's function is left as it is.
func (m *Map) subjectOf(fn string, refs []Ref) []Ref {
	var out []Ref
	for _, r := range refs {
		if r.Sub != "" {
			best := ""
			for name := range m.subs[r.Package+"."+r.Test] {
				if len(name) > len(best) && len(name) >= 3 && strings.Contains(fn, name) {
					best = name
				}
			}
			if best != "" {
				r.Sub = best
			}
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// appendTop appends counts' refs, most counted first (ties by name), that
// names lacks, until it has MaxPredicted.
func appendTop(names []Ref, counts map[Ref]int) []Ref {
	var refs []Ref
	for r := range counts {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, func(a, b Ref) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a.String(), b.String())
	})
	for _, r := range refs {
		if len(names) >= MaxPredicted {
			break
		}
		if !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	return names
}
