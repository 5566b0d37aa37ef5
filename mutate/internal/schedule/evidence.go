package schedule

import (
	"os"
	"sort"
	"sync"

	"gathermut/mutate/incremental"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// evidenceLog gathers, per mutant, the tests its processes ran and the
// declarations they entered (their probes' hits); a mutant with a process
// that counted nothing (a build of its own) is blind: its key is static.
type evidenceLog struct {
	mu    sync.Mutex
	ran   map[string]map[string]bool
	nodes map[string]map[int32]bool
	blind map[string]bool
}

func (e *evidenceLog) add(id string, ran []string, nodes []int32, counted bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ran == nil {
		e.ran, e.nodes, e.blind = map[string]map[string]bool{}, map[string]map[int32]bool{}, map[string]bool{}
	}
	if e.ran[id] == nil {
		e.ran[id], e.nodes[id] = map[string]bool{}, map[int32]bool{}
	}
	for _, t := range ran {
		e.ran[id][t] = true
	}
	for _, n := range nodes {
		e.nodes[id][n] = true
	}
	if !counted {
		e.blind[id] = true
	}
}

// watch lets an --incremental run's runner record what each mutant's test
// processes ran.
func (inc *incrementalRun) watch(r *Runner) {
	if inc != nil {
		r.evidence = inc.log
		inc.runner = r
	}
}

// evidenceHits makes the hits file of one test process of a mutant in
// an --incremental run, on a schema binary (rend): the file and the
// environment that names it; none otherwise.
func (r *Runner) evidenceHits(rend *render) (string, []string) {
	if r.evidence == nil || rend == nil || rend.probeNode == nil {
		return "", nil
	}
	f, err := os.CreateTemp(r.Opts.TempDir, "hits-*")
	if err != nil {
		return "", nil
	}
	defer f.Close()
	if err := f.Truncate(int64(rend.sites)); err != nil {
		os.Remove(f.Name())
		return "", nil
	}
	return f.Name(), []string{"GATHERMUT_HITS=" + f.Name()}
}

// noteEvidence records what one test process of a mutant ran.
func (r *Runner) noteEvidence(m mutant.Mutant, pkg string, run *testbin.Result, rend *render, hitsFile string) {
	if r.evidence == nil {
		return
	}
	var ran []string
	if run != nil {
		for name, t := range run.Tests {
			if t.Action != "skip" {
				ran = append(ran, pkg+"."+name)
			}
		}
	}
	if hitsFile == "" {
		r.evidence.add(m.ID, ran, nil, false)
		return
	}
	hits, err := os.ReadFile(hitsFile)
	os.Remove(hitsFile)
	r.evidence.add(m.ID, ran, rend.ranNodes(hits), err == nil)
}

// evidence is what the run saw of m, for its key: the tests its processes
// ran and what they entered (when every process counted it), what each
// test entered in its baseline, and the kernel's package and sources.
func (inc *incrementalRun) evidence(m mutant.Mutant) *incremental.Evidence {
	ev := &incremental.Evidence{KernelPackage: inc.kernelPkg, KernelFiles: inc.kernelFiles}
	if inc.runner == nil || inc.runner.Schema == nil {
		return ev
	}
	inc.shared(inc.runner.Schema)
	ev.Tests, ev.Probed = inc.baselines, inc.probed
	log := inc.log
	log.mu.Lock()
	defer log.mu.Unlock()
	if ran, ok := log.ran[m.ID]; ok && !log.blind[m.ID] {
		ev.Executed = []int32{}
		for n := range log.nodes[m.ID] {
			ev.Executed = append(ev.Executed, n)
		}
		for t := range ran {
			ev.Ran = append(ev.Ran, t)
		}
		sort.Strings(ev.Ran)
	}
	return ev
}

// shared collects, once, the evidence every mutant shares: what each test
// entered in its baseline (a baseline with probes: not one from the
// baseline cache, nor one run without the schema), and the declarations
// the main render probes.
func (inc *incrementalRun) shared(sr *schemaRun) {
	if inc.baselines != nil {
		return
	}
	inc.baselines = map[string][]int32{}
	for _, pb := range sr.collectBaseline().Packages {
		if pb.render == nil || pb.render.probeNode == nil || pb.plain {
			continue
		}
		for name, t := range pb.Tests {
			if t.hits != nil {
				inc.baselines[pb.Path+"."+name] = pb.render.ranNodes(t.hits)
			}
		}
	}
	if sr.main != nil {
		inc.probed = sr.main.probed(inc.graph)
	}
}
