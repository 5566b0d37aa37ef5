package discover

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/internal/cache"
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
// --no-cache ignores it. A tree that differs from a cached one only
// inside function bodies, in comments, tests or formatting reuses the
// mutants of its unchanged packages (reuse.go).

// discoveryEntry is one cached discovery.
type discoveryEntry struct {
	Key     string            `json:"key"`
	Catalog catalog.Catalog   `json:"catalog"`
	CatPath string            `json:"catPath"`
	Kernel  map[string]string `json:"kernel"` // kernel source -> sha256
	Generic []string          `json:"generic"`
	Judged  []string          `json:"judged"` // the files the report's tree hash covers
	Mutants []mutant.Mutant   `json:"mutants"`
}

// discoveryKey hashes what a discovery depends on.
func (x *discoverer) key(tr tree.Tree) string {
	h := sha256.New()
	fmt.Fprintf(h, "discovery\x00%s\x00%s\x00%s\x00", cache.Tool(), x.Root, tr.Hash)
	fmt.Fprintf(h, "%s\x00%q\x00%v\x00%v\x00%s\x00", strings.Join(x.cfg.Patterns, " "), x.cfg.Catalog, x.cfg.CatalogExplicit, x.cfg.OnlyCatalog, strings.Join(x.cfg.Operators, ","))
	fmt.Fprintf(h, "exclude\x00%s\x00%v\x00", strings.Join(x.cfg.Exclude, ","), x.cfg.Given.Packages)
	fmt.Fprintf(h, "lang\x00%s\x00", strings.Join(x.cfg.Languages, ","))
	return hex.EncodeToString(h.Sum(nil))
}

// fromCache returns the cached discovery of this tree and these flags, or
// nil when there is none (or --no-cache, or a kernel source changed).
func (x *discoverer) fromCache(tr tree.Tree, start time.Time) (*Discovery, error) {
	if x.cfg.NoCache {
		return nil, nil
	}
	key := x.key(tr)
	var entry discoveryEntry
	if !cache.Read("discovery", key, &entry) || entry.Key != key || !sameHashes(entry.Kernel, cache.HashFiles(x.Root, mapKeys(entry.Kernel))) {
		return nil, nil
	}
	x.cat, x.catPath = entry.Catalog, entry.CatPath
	d := &Discovery{Mutants: entry.Mutants, Generic: entry.Generic, Judged: entry.Judged}
	x.progressf("mutate: %d mutants of tree %s from the discovery cache (%.1f s)\n", len(d.Mutants), tr.Subset(d.Judged).Hash[:12], time.Since(start).Seconds())
	return d, nil
}

// store writes a whole discovery to the cache.
func (x *discoverer) store(tr tree.Tree, d *Discovery) {
	kernel := KernelFiles(x.Root, x.cat)
	key := x.key(tr)
	entry := discoveryEntry{Key: key, Catalog: x.cat, CatPath: x.catPath, Kernel: cache.HashFiles(x.Root, kernel), Generic: d.Generic, Judged: d.Judged, Mutants: d.Mutants}
	if err := cache.Write("discovery", key, entry); err != nil {
		fmt.Fprintf(x.Stderr, "mutate: discovery cache not written: %v\n", err)
		return
	}
	x.storeShape(tr, key)
}

func sameHashes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
