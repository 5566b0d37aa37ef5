package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"gathermut/mutate/internal/cache"
	"gathermut/mutate/kernel"
)

// The kernel baseline runs the kernel package's tests each alone on the
// kernel schema library, with the library's hits (which sites each test
// ran): 38 processes on the row, a quarter of a second run's baseline
// time. Like a Go schema baseline (schema.go, cacheBaseline) a green one
// is cached (kind kernelBaselineKind) under the tool, the module's root,
// the judged tree, the backend and the library's inputs (Library.Inputs:
// which mutants it switches and where their sites are), so a second run of the same tree
// reads it back; a baseline with a failing test is never cached, and
// --no-cache neither reads nor writes.
const kernelBaselineKind = "kernel-baseline"

// kernelBaselineEntry is a cached kernel baseline: each test's status,
// time and the sites it ran.
type kernelBaselineEntry struct {
	Key   string           `json:"key"`
	Sites int              `json:"sites"`
	Tests []cachedTest     `json:"tests"`
	Hits  map[string][]int `json:"hits"` // test -> the sites it ran
	Flaky []string         `json:"flaky,omitempty"`
}

// kernelBaselineKey is the cache key of a backend's baseline on lib, ""
// when there is none (--no-cache, no tree, a library not built through
// the cache).
func (r *Runner) kernelBaselineKey(bs *backendState, lib *kernel.Library) string {
	if r.Opts.NoCache || r.Tree == "" || lib == nil || lib.Inputs == "" {
		return ""
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%s", kernelBaselineKind, cache.Tool(), r.Prog.Root, r.Tree, bs.backend, lib.Sites, lib.Inputs))
	return hex.EncodeToString(sum[:])
}

// cachedKernelBaseline returns the baseline cached under key, or nil.
func (r *Runner) cachedKernelBaseline(key string, lib *kernel.Library) *PackageBaseline {
	var e kernelBaselineEntry
	if key == "" || !cache.Read(kernelBaselineKind, key, &e) || e.Key != key || e.Sites != lib.Sites {
		return nil
	}
	k := r.Opts.Kernel
	pb := &PackageBaseline{Path: k.Package, Dir: r.Prog.Dir(k.Package), Tests: map[string]*TestBaseline{}, Flaky: e.Flaky}
	for _, t := range e.Tests {
		hits := make([]byte, lib.Sites)
		for _, s := range e.Hits[t.Name] {
			if s < 0 || s >= len(hits) {
				return nil
			}
			hits[s] = 1
		}
		pb.Tests[t.Name] = &TestBaseline{Name: t.Name, Status: t.Status, Elapsed: t.Elapsed, Skip: t.Skip, hits: hits}
		pb.Names = append(pb.Names, t.Name)
	}
	sort.Strings(pb.Names)
	return pb
}

// cacheKernelBaseline stores a green kernel baseline under key.
func (r *Runner) cacheKernelBaseline(key string, lib *kernel.Library, pb *PackageBaseline) {
	if key == "" || len(pb.Failing) > 0 {
		return
	}
	e := kernelBaselineEntry{Key: key, Sites: lib.Sites, Hits: map[string][]int{}, Flaky: pb.Flaky}
	for _, name := range pb.Names {
		t := pb.Tests[name]
		e.Tests = append(e.Tests, cachedTest{Name: name, Status: t.Status, Elapsed: t.Elapsed, Skip: t.Skip})
		for s, hit := range t.hits {
			if hit != 0 {
				e.Hits[name] = append(e.Hits[name], s)
			}
		}
	}
	_ = cache.Write(kernelBaselineKind, key, e)
}
