package gather

import (
	"fmt"
	"sync"
	"testing"

	"gathermut/gguf"
)

// concurrentCalls is what each goroutine of TestRegistryConcurrent does
// between two dispatches, in turn: every other method of the registry.
var concurrentCalls = []func(t *testing.T, r *Registry, name string){
	func(_ *testing.T, r *Registry, _ string) { r.ReadStats(OpEmbeddingQuant, GPU) },
	func(_ *testing.T, r *Registry, _ string) { r.ResetStats() },
	func(t *testing.T, r *Registry, name string) {
		if err := r.Register(OpEmbeddingQuant, GPU, fake{name: name}); err != nil {
			t.Error(err)
		}
	},
	func(_ *testing.T, r *Registry, _ string) {
		r.Providers(OpEmbeddingQuant, GPU)
		r.CanGather(GPU, gguf.TypeQ4_K)
	},
	func(_ *testing.T, r *Registry, _ string) { r.EnableStats(true) },
}

// TestRegistryConcurrent (races in shared state): goroutines dispatch,
// read, reset and switch the statistics, register providers and list them
// on one registry: each call paired with a dispatch, then all at once. Under go test -race any of these that
// touches the providers or the counts outside its lock is reported (a
// counter update moved out of statsMu, a reset or a registration done
// before the lock is taken). Without -race the last phase, dispatches
// alone, checks the counts exactly, and every registration must be listed.
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	mustReg(t, r, OpEmbeddingQuant, GPU, fake{name: "d", result: errFakeDecline})
	mustReg(t, r, OpEmbeddingQuant, GPU, fake{name: "s"})
	r.EnableStats(true)
	const goroutines, rounds = 4, 50
	var wg sync.WaitGroup
	// Pairs: one dispatch against one other call, 50 times each. Whichever
	// takes the lock second is ordered after the first only through the
	// lock, so a pair in the unlucky order is a race the detector sees.
	for k := range rounds * len(concurrentCalls) {
		wg.Go(func() {
			if err := r.Embedding(gpuArgs(gguf.TypeQ8_0)); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { concurrentCalls[k%len(concurrentCalls)](t, r, fmt.Sprintf("pair-%d", k)) })
		wg.Wait()
	}
	for g := range goroutines {
		wg.Go(func() {
			for k := range rounds {
				if err := r.Embedding(gpuArgs(gguf.TypeQ8_0)); err != nil {
					t.Error(err)
				}
				concurrentCalls[k%len(concurrentCalls)](t, r, fmt.Sprintf("late-%d-%d", g, k))
			}
		})
	}
	wg.Wait()
	if got, want := len(r.Providers(OpEmbeddingQuant, GPU)), 2+rounds+goroutines*rounds/len(concurrentCalls); got != want {
		t.Fatalf("%d providers after the concurrent registrations, want %d", got, want)
	}
	r.ResetStats()
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				if err := r.Embedding(gpuArgs(gguf.TypeQ8_0)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	n := int64(goroutines * rounds)
	if got, want := r.ReadStats(OpEmbeddingQuant, GPU), (Stats{Selections: n, Declines: n, Fallbacks: n, LastProvider: "s"}); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
}
