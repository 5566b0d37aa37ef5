package lab

import (
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// raceModule's Add holds its lock around the increment; its test adds
// from four goroutines and checks nothing else, so moving the increment
// out of the lock (unlock-early) changes no result: only the race
// detector sees it.
var raceModule = map[string]string{
	"go.mod": "module racy\n\ngo 1.26\n",
	"counter/counter.go": `// Package counter counts under a lock.
package counter

import "sync"

// C is a counter.
type C struct {
	mu sync.Mutex
	n  int
}

// Add adds one.
func (c *C) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}
`,
	"counter/counter_test.go": `package counter

import (
	"sync"
	"testing"
)

func TestConcurrent(t *testing.T) {
	var c C
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				c.Add()
			}
		}()
	}
	wg.Wait()
}
`,
}

// TestPipelineRace: a mutant that survives its tests is judged again
// under the race detector in the packages the project file's "race"
// names, and killed there (its reason says so); without "race" it
// survives.
func TestPipelineRace(t *testing.T) {
	dir := writeModule(t, raceModule)
	for _, c := range []struct {
		name string
		race []string
		want mutant.Status
	}{{"race named", []string{"./counter"}, mutant.Killed}, {"no race", nil, mutant.Survived}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Jobs, cfg.Operators, cfg.Race = 2, []string{"unlock-early"}, c.race
			res := runPipeline(t, dir, cfg)
			if len(res.outcomes) != 1 {
				t.Fatalf("exit %d, %d mutants\n%s", res.code, len(res.outcomes), res.stderr)
			}
			for id, o := range res.outcomes {
				if o.Result.Status != c.want {
					t.Errorf("%s: %s (%s), want %s", id, o.Result.Status, o.Result.Why, c.want)
				}
				if c.want == mutant.Killed && !strings.Contains(o.Result.Why, "race detector") {
					t.Errorf("%s: the reason %q does not say -race killed it", id, o.Result.Why)
				}
			}
			if wantCode := map[mutant.Status]exitcode.Code{mutant.Killed: exitcode.OK, mutant.Survived: exitcode.Survivors}[c.want]; res.code != wantCode {
				t.Errorf("exit %d, want %d", res.code, wantCode)
			}
		})
	}
}
