package schedule

import (
	"slices"
	"sort"

	"gathermut/mutate/incremental"
	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
)

// Function probes (incremental runs). For --incremental to reuse a verdict
// by what its tests ran, not by what they could reach, the schema counts
// which functions run: the render puts a probe (a hit, like a mutant's
// coverage probe) at the start of every function body of the module's
// production code, function literals included, each standing for its
// top-level declaration (incremental.Graph.Probes). Packages without
// mutants are rendered for their probes alone. The hits file then tells,
// per test of a baseline and per mutant's test process, which
// declarations ran. Runs without --incremental render no probes.

// probeBase numbers probe entries apart from the mutants (whose numbers
// count from 1): the schema switches nothing on them.
const probeBase = 1 << 24

// probeGraph is the incremental run's graph when it wants probes, else nil.
func (sr *schemaRun) probeGraph() *incremental.Graph {
	if sr.s.incr == nil {
		return nil
	}
	return sr.s.incr.graph
}

// probePackages lists the packages that have probes but no mutant of the
// run: they are rendered for the probes alone.
func (sr *schemaRun) probePackages() []string {
	g := sr.probeGraph()
	if g == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range g.Probes() {
		if _, mutated := sr.byPkg[p.Package]; !mutated && !seen[p.Package] && sr.s.prog.Dir(p.Package) != "" {
			seen[p.Package] = true
			out = append(out, p.Package)
		}
	}
	sort.Strings(out)
	return out
}

// probeEntries are the schema entries of a package's probes; the files
// they are in are read into sources.
func (sr *schemaRun) probeEntries(path string, sources map[string][]byte) ([]schema.Entry, error) {
	g := sr.probeGraph()
	if g == nil {
		return nil, nil
	}
	var out []schema.Entry
	for i, p := range g.Probes() {
		if p.Package != path {
			continue
		}
		if err := readSource(sources, sr.s.root, p.File); err != nil {
			return nil, err
		}
		out = append(out, schema.Entry{N: probeBase + i, File: p.File, Site: &mutant.Site{Probe: p.At}})
	}
	return out, nil
}

// noteProbes records which hits site each rendered probe counts in.
func (sr *schemaRun) noteProbes(r *render, sp *schema.Package) {
	g := sr.probeGraph()
	if g == nil || sp == nil {
		return
	}
	probes := g.Probes()
	if r.probeNode == nil {
		r.probeNode = map[int]int32{}
	}
	for n, sites := range sp.Cover {
		if n < probeBase || n-probeBase >= len(probes) {
			continue
		}
		for _, s := range sites {
			r.probeNode[s] = probes[n-probeBase].Node
		}
	}
}

// ranNodes are the declarations whose probes a hits file shows.
func (r *render) ranNodes(hits []byte) []int32 {
	if r == nil || r.probeNode == nil {
		return nil
	}
	out := []int32{}
	for s, n := range r.probeNode {
		if s < len(hits) && hits[s] != 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// probed are the declarations whose every run the render's probes count:
// functions whose body's start has a probe (a variable whose initializer
// holds a function literal is not one: its initializer runs unprobed).
func (r *render) probed(g *incremental.Graph) map[int32]bool {
	out := map[int32]bool{}
	for _, n := range r.probeNode {
		if g.EntryProbed(n) {
			out[n] = true
		}
	}
	return out
}
