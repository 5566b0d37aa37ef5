package discover

import (
	"sort"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
)

// Expected work of one mutant, in units of one test process, from what
// discovery knows (every shard computes the same split, with no baseline):
// decided without running anything, a test process of a schema binary, a
// build of its own (about ten test processes on the row: issue 12's
// measurements put a build at 0.7-1.3 s and a test run at 0.01-0.1 s), a
// rebuild of the kernel library.
const (
	costStatic  = 0
	costSchema  = 1
	costOverlay = 10
	costKernel  = 30
)

// expectedCost is a mutant's expected work (see the constants).
func expectedCost(m mutant.Mutant) int {
	switch {
	case !m.Runs():
		return costStatic
	case m.Kind == mutant.Kernel:
		return costKernel
	case m.Schema.Switched():
		return costSchema
	}
	return costOverlay
}

// shardOf returns the mutants of shard s of ms (sorted by id): the split
// balances expected work, not counts. Mutants go, most expensive first
// (ties by id), to the shard with the least work so far (ties to the
// lowest index): every shard gets within one mutant's cost of the others,
// and mutants decided without running anything spread evenly too. The
// result keeps ms's order. The split does not depend on --no-schemata
// (whether a mutant can be switched is known at discovery either way), so
// shards of one run may differ in it.
func shardOf(ms []mutant.Mutant, s config.Shard) []mutant.Mutant {
	if s.N <= 1 {
		return ms
	}
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	cost := make([]int, len(ms))
	for i, m := range ms {
		cost[i] = expectedCost(m)
	}
	sort.SliceStable(order, func(a, b int) bool { return cost[order[a]] > cost[order[b]] })
	work := make([]int, s.N)
	count := make([]int, s.N)
	mine := make([]bool, len(ms))
	for _, i := range order {
		best := 0
		for k := 1; k < s.N; k++ {
			if work[k] < work[best] || work[k] == work[best] && count[k] < count[best] {
				best = k
			}
		}
		work[best] += cost[i]
		count[best]++
		mine[i] = best == s.K
	}
	var out []mutant.Mutant
	for i, m := range ms {
		if mine[i] {
			out = append(out, m)
		}
	}
	return out
}
