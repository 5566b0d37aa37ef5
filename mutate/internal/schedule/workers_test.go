package schedule

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// counter hands out 0..n-1 once each, as the run's queue does.
func counter(n int) func() (int, bool) {
	var mu sync.Mutex
	i := 0
	return func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if i == n {
			return 0, false
		}
		i++
		return i - 1, true
	}
}

// finish runs the pool and fails the test when it has not returned after
// a minute: every case below deadlocks when a waiting worker keeps its
// turn, so the limit only turns a hang into a failure.
func finish(t *testing.T, n, items int, work func(ctx context.Context, i int)) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		runWorkers(context.Background(), n, counter(items), work)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the workers did not finish: a worker waiting on another's work kept its turn")
	}
}

func TestWorkersLendWhileWaiting(t *testing.T) {
	cases := []struct {
		name  string
		jobs  int
		items int
	}{
		{"one job", 1, 2},
		{"two jobs", 2, 3},
		{"many items", 1, 50},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// item 0 waits for the last item, which can run only on a
			// turn item 0 (and, with more jobs, items 1..jobs-1) lent
			last := make(chan struct{})
			ran := make([]atomic.Int32, c.items)
			finish(t, c.jobs, c.items, func(ctx context.Context, i int) {
				ran[i].Add(1)
				switch {
				case i == c.items-1:
					close(last)
				case i < c.jobs:
					lend(ctx, func() { <-last })
				}
			})
			for i := range ran {
				if got := ran[i].Load(); got != 1 {
					t.Errorf("item %d ran %d times, want 1", i, got)
				}
			}
		})
	}
}

func TestWorkersBoundActive(t *testing.T) {
	// however many wait, no more than jobs items work at once outside
	// lend
	const jobs, items = 3, 40
	var active, peak atomic.Int32
	enter := func() {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				return
			}
		}
	}
	release := make(chan struct{})
	var once sync.Once
	finish(t, jobs, items, func(ctx context.Context, i int) {
		enter()
		defer active.Add(-1)
		if i%2 == 0 && i < items-1 {
			active.Add(-1)
			lend(ctx, func() { <-release })
			enter()
			return
		}
		if i == items-1 {
			once.Do(func() { close(release) })
		}
	})
	if p := peak.Load(); p > jobs {
		t.Errorf("%d items worked at once outside lend, want at most %d", p, jobs)
	}
	if a := active.Load(); a != 0 {
		t.Errorf("%d items still counted active after the pool returned", a)
	}
}

func TestFutureLendsToOthers(t *testing.T) {
	// item 0 makes the future and cannot finish before item 2 ran; item
	// 1 asks for the same future while item 0 makes it: with two jobs,
	// item 2 runs only on the turn item 1 lends while it waits
	var f future[int]
	started := make(chan struct{})
	unblock := make(chan struct{})
	var got atomic.Int32
	finish(t, 2, 3, func(ctx context.Context, i int) {
		switch i {
		case 0:
			v, _ := f.get(ctx, func() (int, error) {
				close(started)
				<-unblock
				return 7, nil
			})
			got.Add(int32(v))
		case 1:
			<-started
			v, _ := f.get(ctx, func() (int, error) { return -100, nil })
			got.Add(int32(v))
		case 2:
			close(unblock)
		}
	})
	if g := got.Load(); g != 14 {
		t.Errorf("the two gets added %d, want 14 (7 each, made once)", g)
	}
}

func TestLendOutsidePool(t *testing.T) {
	ran := false
	lend(context.Background(), func() { ran = true })
	if !ran {
		t.Error("lend outside a pool did not run its wait")
	}
}

// TestConfirmationWaitsForTheQueue: a timeout's confirmation (which then
// holds every slot) waits until every item has been taken, lending its
// worker's turn meanwhile, so the other items go on without it; with one
// job, a confirmation that kept its turn would never see the queue drain.
func TestConfirmationWaitsForTheQueue(t *testing.T) {
	for _, jobs := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d jobs", jobs), func(t *testing.T) {
			const items = 6
			r := &Runner{}
			var taken atomic.Int32
			var takenAtConfirm int32
			inner := counter(items)
			next := r.trackDrain(func() (int, bool) {
				i, ok := inner()
				if ok {
					taken.Add(1)
				}
				return i, ok
			}, func() bool { return taken.Load() == items })
			done := make(chan struct{})
			go func() {
				runWorkers(context.Background(), jobs, next, func(ctx context.Context, i int) {
					if i == 0 {
						r.awaitDrained(ctx)
						takenAtConfirm = taken.Load()
					}
				})
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("the confirmation kept its worker's turn: the queue never drained")
			}
			if takenAtConfirm != items {
				t.Errorf("the confirmation ran when %d of %d items were taken, want all", takenAtConfirm, items)
			}
		})
	}
}
