package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/incremental"
	"gathermut/mutate/internal/cache"
	"gathermut/mutate/internal/discover"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
)

// incrementalRun is an --incremental run's cache and graph, and what the
// run saw its tests run (evidence.go).
type incrementalRun struct {
	graph  *incremental.Graph
	cache  *incremental.Cache
	salt   []string // the kernel compiler found, for kernel mutants' keys
	reused int
	log    *evidenceLog
	runner *Runner
	// kernelPkg and kernelFiles are the package whose tests judge kernel
	// mutants and the kernel's sources (dependencies of their verdicts).
	kernelPkg   string
	kernelFiles []string
	// baselines and probed are the evidence every mutant shares: what
	// each test ran in its baseline, and the declarations probed.
	baselines map[string][]int32
	probed    map[int32]bool
}

// incrementalPath is the cache file: the one given, or one per module
// root in the user cache dir.
func (s *scheduler) incrementalPath() string {
	if s.cfg.Incremental != config.IncrementalDefault {
		p, err := filepath.Abs(s.cfg.Incremental)
		if err != nil {
			return s.cfg.Incremental
		}
		return p
	}
	dir := cache.Dir()
	if dir == "" {
		dir = filepath.Join(s.root, ".gathermut")
	}
	sum := sha256.Sum256([]byte(s.root))
	return filepath.Join(dir, "incremental", hex.EncodeToString(sum[:8])+".json.gz")
}

// openIncremental splits the mutants into those whose stored verdict
// still holds (returned as outcomes, marked reused) and those to run. On
// any failure to read the module or the cache it says so and runs
// everything.
func (s *scheduler) openIncremental(ms []mutant.Mutant) (*incrementalRun, []mutant.Outcome, []mutant.Mutant) {
	start := time.Now()
	path := s.incrementalPath()
	store, err := incremental.Open(path)
	if err != nil {
		fmt.Fprintf(s.Stderr, "mutate: %v\n", err)
	}
	edges := ""
	if dir := cache.Dir(); dir != "" && !s.cfg.NoCache {
		edges = filepath.Join(dir, "incremental-graph")
	}
	g, err := incremental.BuildCached(s.root, s.prog.Module, load.Env(), s.incrementalSalt(s.Machine), edges)
	if err != nil {
		fmt.Fprintf(s.Stderr, "mutate: --incremental: %v: every mutant runs\n", err)
		return nil, nil, ms
	}
	inc := &incrementalRun{graph: g, cache: store, salt: s.kernelSalt(), log: &evidenceLog{}}
	if k := s.Discovery.Catalog.Kernel; k != nil {
		inc.kernelPkg, inc.kernelFiles = k.Package, discover.KernelFiles(s.root, s.Discovery.Catalog)
	}
	var reused []mutant.Outcome
	var run []mutant.Mutant
	for _, m := range ms {
		if m.Runs() {
			if r, ok := store.Lookup(g, m, inc.extra(m)...); ok {
				reused = append(reused, mutant.Outcome{Mutant: m, Result: r})
				continue
			}
		}
		run = append(run, m)
	}
	inc.reused = len(reused)
	s.progressf("mutate: --incremental: %d of %d verdicts reused from %s, %d mutants to judge (%.1f s)\n",
		len(reused), len(ms), s.Paths.Clean(path), len(run), time.Since(start).Seconds())
	return inc, reused, run
}

// extra is what a mutant's key holds besides the module and its
// dependencies: for a kernel mutant the compiler found.
func (inc *incrementalRun) extra(m mutant.Mutant) []string {
	if m.Kind == mutant.Kernel {
		return inc.salt
	}
	return nil
}

// store records this run's verdicts and writes the cache file. A whole
// run forgets what its packages no longer have; an interrupted one keeps
// everything it did not get to.
func (s *scheduler) storeIncremental(inc *incrementalRun, outcomes []mutant.Outcome, interrupted bool) *report.IncrementalInfo {
	keep := map[string]bool{}
	packages := map[string]bool{}
	for _, o := range outcomes {
		if o.Result.Status == mutant.Interrupted {
			continue
		}
		o.Result = cleanForCache(o.Result, s.Paths)
		if inc.cache.Store(inc.graph, o, inc.evidence(o.Mutant), inc.extra(o.Mutant)...) {
			keep[inc.graph.Identity(o.Mutant)] = true
		}
		packages[o.Mutant.Package] = true
	}
	if !interrupted && s.cfg.Select == "" && s.cfg.Shard.N == 0 && s.cfg.InDiff == "" {
		inc.cache.Forget(packages, keep)
	}
	info := &report.IncrementalInfo{Cache: inc.cache.Path, Reused: inc.reused, Stored: len(inc.cache.Entries)}
	if err := inc.cache.Save(); err != nil {
		fmt.Fprintf(s.Stderr, "mutate: %v\n", err)
	}
	return info
}

// cleanForCache replaces this run's paths (its temp dir above all) in
// what is stored, so that a reused verdict names no temp dir of an
// earlier run.
func cleanForCache(r mutant.Result, p report.Paths) mutant.Result {
	r.Why = p.Clean(r.Why)
	r.Excerpt = p.Clean(r.Excerpt)
	r.Commands = p.CleanAll(append([]string(nil), r.Commands...))
	return r
}

// incrementalSalt is what every verdict depends on besides the module:
// the tool, Go, the platform, the judging flags, the GPUs found and the
// GATHERMUT_ environment the tests may read.
func (s *scheduler) incrementalSalt(machine report.Machine) string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GATHERMUT_") && !strings.HasPrefix(kv, "GATHERMUT_CACHE=") && !strings.HasPrefix(kv, "GATHERMUT_KEEP_TMP=") {
			env = append(env, kv)
		}
	}
	sort.Strings(env)
	var gpus []string
	for _, g := range machine.GPUs {
		gpus = append(gpus, g.Name+"/"+g.Arch)
	}
	return fmt.Sprintf("%s\x00%s\x00%s/%s\x00%+v\x00%s\x00%s", cache.Tool(), s.GoVersion, runtime.GOOS, runtime.GOARCH,
		s.cfg.Judging(), strings.Join(gpus, ","), strings.Join(env, "\x00"))
}

// kernelSalt is what a kernel mutant's verdict depends on besides the
// kernel sources (in its dependencies, without their comments) and Go
// code: which compiler is on PATH.
func (s *scheduler) kernelSalt() []string {
	k := s.Discovery.Catalog.Kernel
	if k == nil {
		return nil
	}
	tool, _ := FindTool(k.Tools)
	return []string{"compiler=" + tool}
}
