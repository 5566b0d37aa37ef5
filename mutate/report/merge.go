package report

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
)

// Merge combines shard reports of the same tree into one. Mutants present
// in several reports must agree on their id; the first wins.
func Merge(name string, reports []*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("report: merge: no reports")
	}
	if err := checkShardSet(reports); err != nil {
		return nil, err
	}
	first := reports[0].Gathermut
	mg := &merging{
		meta: first, seen: map[string]bool{}, in: Inputs{Sources: map[string]string{}, Tests: map[string]TestLocation{}},
		flaky: map[string]bool{}, failing: map[string]bool{}, skipped: map[string]bool{},
	}
	meta := &mg.meta
	meta.Name = name
	meta.Shard = ""
	meta.Shards = nil
	meta.WallSeconds = 0
	meta.Timing = Timing{}
	meta.Modes = map[mutant.Mode]int{}
	meta.TreeChanged = nil
	meta.Incremental = nil
	meta.Baseline = BaselineInfo{Packages: first.Baseline.Packages, Tests: first.Baseline.Tests}
	for _, r := range reports {
		if err := mg.add(r, first); err != nil {
			return nil, err
		}
	}
	meta.Baseline.Flaky, meta.Baseline.Failing, meta.Baseline.Skipped = sortedSet(mg.flaky), sortedSet(mg.failing), sortedSet(mg.skipped)
	meta.WorkerSeconds, _ = ShardTimes(*meta)
	merged := Build(*meta, mg.outcomes, mg.in)
	merged.Decide(outcome.Conditions{
		TreeChanged:    merged.Gathermut.TreeChanged,
		BaselineRed:    len(merged.Gathermut.Baseline.Failing) > 0,
		BaselineNote:   strings.Join(merged.Gathermut.Baseline.Failing, ", "),
		Interrupted:    merged.Gathermut.Interrupted,
		StrictTimeouts: first.Config.StrictTimeouts,
	})
	return merged, nil
}

// merging is a merge in progress: the combined record, outcomes and
// inputs so far.
type merging struct {
	meta                    Meta
	seen                    map[string]bool
	outcomes                []mutant.Outcome
	in                      Inputs
	flaky, failing, skipped map[string]bool
}

// add takes in one report: its run's record, outcomes and inputs.
func (mg *merging) add(r *Report, first Meta) error {
	meta, g := &mg.meta, r.Gathermut
	if g.TreeBefore != first.TreeBefore {
		return fmt.Errorf("report: merge: %s ran on tree %s but %s on tree %s: not the same sources", g.Name, short(g.TreeBefore), first.Name, short(first.TreeBefore))
	}
	if g.TreeAfter != g.TreeBefore {
		meta.TreeAfter = g.TreeAfter
		meta.TreeChanged = append(meta.TreeChanged, g.TreeChanged...)
	}
	meta.Interrupted = meta.Interrupted || g.Interrupted
	meta.WallSeconds = max(meta.WallSeconds, g.WallSeconds)
	meta.Timing = mergeTiming(meta.Timing, g.Timing)
	for mode, n := range g.Modes {
		meta.Modes[mode] += n
	}
	meta.Baseline.Seconds = max(meta.Baseline.Seconds, g.Baseline.Seconds)
	meta.Baseline.Interrupted = meta.Baseline.Interrupted || g.Baseline.Interrupted
	addAll(mg.flaky, g.Baseline.Flaky)
	addAll(mg.failing, g.Baseline.Failing)
	addAll(mg.skipped, g.Baseline.Skipped)
	if g.Incremental != nil {
		if meta.Incremental == nil {
			meta.Incremental = &IncrementalInfo{Cache: g.Incremental.Cache}
		}
		meta.Incremental.Reused += g.Incremental.Reused
		meta.Incremental.Stored = max(meta.Incremental.Stored, g.Incremental.Stored)
	}
	// every part keeps its own flags: a merge of merges keeps the
	// parts' records, a shard report is one part
	if len(g.Shards) > 0 {
		meta.Shards = append(meta.Shards, g.Shards...)
	} else {
		meta.Shards = append(meta.Shards, ShardInfo{Name: g.Name, Shard: g.Shard, WallSeconds: g.WallSeconds, Timing: g.Timing,
			Interrupted: g.Interrupted, Machine: g.Machine, CommandLine: g.CommandLine})
	}
	os, err := r.Outcomes()
	if err != nil {
		return err
	}
	for _, o := range os {
		if !mg.seen[o.Mutant.ID] {
			mg.seen[o.Mutant.ID] = true
			mg.outcomes = append(mg.outcomes, o)
		}
	}
	rin := r.Inputs()
	for p, s := range rin.Sources {
		mg.in.Sources[p] = s
	}
	for id, loc := range rin.Tests {
		mg.in.Tests[id] = loc
	}
	return nil
}

func addAll(set map[string]bool, xs []string) {
	for _, x := range xs {
		set[x] = true
	}
}

func sortedSet(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkShardSet refuses a merge that would pass for a whole run but is
// not one: shards of different splits, a shard given twice or missing,
// shards mixed with unsharded reports, or runs of different packages,
// catalogs or flags.
func checkShardSet(reports []*Report) error {
	first := reports[0].Gathermut
	n := -1
	seen := map[int]string{}
	for _, r := range reports {
		g := r.Gathermut
		if strings.Join(g.Patterns, " ") != strings.Join(first.Patterns, " ") || g.Catalog != first.Catalog || g.Module != first.Module {
			return fmt.Errorf("report: merge: %s ran %s %v (catalog %q) but %s ran %s %v (catalog %q)", g.Name, g.Module, g.Patterns, g.Catalog, first.Name, first.Module, first.Patterns, first.Catalog)
		}
		if d := first.Config.Judging().Diff(g.Config.Judging()); len(d) > 0 {
			return fmt.Errorf("report: merge: %s and %s were judged differently (%s)", first.Name, g.Name, strings.Join(d, "; "))
		}
		if (g.Shard == "") != (first.Shard == "") {
			return fmt.Errorf("report: merge: %s and %s: shard reports mixed with an unsharded one", g.Name, first.Name)
		}
		if g.Shard == "" {
			continue
		}
		var k, m int
		if _, err := fmt.Sscanf(g.Shard, "%d/%d", &k, &m); err != nil || m < 1 || k < 0 || k >= m {
			return fmt.Errorf("report: merge: %s: shard %q is not k/n", g.Name, g.Shard)
		}
		if n >= 0 && m != n {
			return fmt.Errorf("report: merge: %s is shard %s but an earlier report is of %d shards", g.Name, g.Shard, n)
		}
		n = m
		if other, ok := seen[k]; ok {
			return fmt.Errorf("report: merge: shard %s given twice (%s and %s)", g.Shard, other, g.Name)
		}
		seen[k] = g.Name
	}
	for k := 0; k < n; k++ {
		if _, ok := seen[k]; !ok {
			return fmt.Errorf("report: merge: shard %d/%d is missing", k, n)
		}
	}
	return nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// mergeTiming keeps the longest wall time of each phase (the shards ran
// side by side) and sums what is summed over workers.
func mergeTiming(a, b Timing) Timing {
	return Timing{
		Discovery:      max(a.Discovery, b.Discovery),
		TypeCheck:      max(a.TypeCheck, b.TypeCheck),
		Baseline:       max(a.Baseline, b.Baseline),
		SchemaBuilds:   max(a.SchemaBuilds, b.SchemaBuilds),
		SchemaRounds:   max(a.SchemaRounds, b.SchemaRounds),
		Mutants:        max(a.Mutants, b.Mutants),
		FallbackBuilds: a.FallbackBuilds + b.FallbackBuilds,
		Builds:         a.Builds + b.Builds,
		TestProcesses:  a.TestProcesses + b.TestProcesses,
		Processes:      a.Processes + b.Processes,
	}
}
