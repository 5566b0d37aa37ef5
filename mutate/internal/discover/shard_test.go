package discover

import (
	"fmt"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
)

// shardMutants is a run whose id order interleaves cheap and expensive
// mutants the way paired mutants do: at each position one switched mutant
// (a test process) and one that needs its own build, plus a run of
// mutants decided without running anything.
func shardMutants() []mutant.Mutant {
	var ms []mutant.Mutant
	for i := 0; i < 20; i++ {
		ms = append(ms,
			mutant.Mutant{ID: fmt.Sprintf("a%02d-1", i), Kind: mutant.Go, Schema: &mutant.Site{Kind: mutant.ExprSite}},
			mutant.Mutant{ID: fmt.Sprintf("a%02d-2", i), Kind: mutant.Go, Schema: &mutant.Site{Fallback: "array length"}})
	}
	for i := 0; i < 10; i++ {
		ms = append(ms, mutant.Mutant{ID: fmt.Sprintf("b%02d", i), Kind: mutant.Go, State: mutant.Unbuildable, Note: "does not type-check"})
	}
	ms = append(ms, mutant.Mutant{ID: "k", Kind: mutant.Kernel})
	return ms
}

func TestShardsBalanceWork(t *testing.T) {
	ms := shardMutants()
	for _, n := range []int{2, 3, 4} {
		seen := map[string]int{}
		var works []int
		for k := 0; k < n; k++ {
			part := shardOf(ms, config.Shard{K: k, N: n})
			w := 0
			for i, m := range part {
				seen[m.ID]++
				w += expectedCost(m)
				if i > 0 && part[i-1].ID >= m.ID {
					t.Errorf("%d/%d: not in id order at %s", k, n, m.ID)
				}
			}
			works = append(works, w)
			// the same split every time
			if again := shardOf(ms, config.Shard{K: k, N: n}); len(again) != len(part) {
				t.Errorf("%d/%d: %d mutants, then %d", k, n, len(part), len(again))
			}
		}
		for _, m := range ms {
			if seen[m.ID] != 1 {
				t.Errorf("n=%d: %s is in %d shards", n, m.ID, seen[m.ID])
			}
		}
		lo, hi := works[0], works[0]
		for _, w := range works {
			lo, hi = min(lo, w), max(hi, w)
		}
		if hi-lo > costKernel {
			t.Errorf("n=%d: work per shard %v: spread %d over the largest mutant's cost", n, works, hi-lo)
		}
	}
	// what the old split by index gave: every build in one half
	old := []int{0, 0}
	for i, m := range ms {
		old[i%2] += expectedCost(m)
	}
	if old[1]-old[0] < 100 {
		t.Fatalf("the fixture does not show the lopsided split it is for (%v)", old)
	}
	halves := []int{0, 0}
	for k := range halves {
		for _, m := range shardOf(ms, config.Shard{K: k, N: 2}) {
			halves[k] += expectedCost(m)
		}
	}
	if d := halves[0] - halves[1]; d < -costKernel || d > costKernel {
		t.Errorf("halves %v", halves)
	}
	if got := shardOf(ms, config.Shard{}); len(got) != len(ms) {
		t.Errorf("no shard: %d of %d", len(got), len(ms))
	}
}
