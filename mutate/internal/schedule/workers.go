package schedule

import (
	"context"
	"sync"
)

// The workers of a run. -j bounds two things: the child processes at once
// (slots, taken around every process) and the mutants in progress (turns
// of the worker pool, below). A mutant's judging may have to wait for work
// another worker is doing: an importer's baseline or schema binary,
// which the first mutant that needs it makes (future in schema.go). A
// worker that waited there would leave its turn unused for as long as
// that baseline runs (a command's end-to-end tests: minutes), so a worker
// about to wait on another's work gives its turn back while it waits
// (lend): another worker takes the next mutant in that time, and
// the waiter takes a turn again before it goes on. The mutants that the
// mutated package's own tests kill are so judged while the importers'
// baselines run, instead of queueing behind them.

// workerPool runs work on indexes from next with n turns: at most n items are
// being worked on at once, not counting those waiting for work another
// item is doing (lend).
type workerPool struct {
	turns chan struct{}
	next  func() (int, bool)
	work  func(ctx context.Context, i int)

	wg      sync.WaitGroup
	mu      sync.Mutex
	idle    bool // next said no item is left
	workers int  // goroutines running loop
	lent    int  // turns given back by waiting workers
}

// runWorkers works through next's items with n turns and returns when every
// item is done.
func runWorkers(ctx context.Context, n int, next func() (int, bool), work func(ctx context.Context, i int)) {
	p := &workerPool{turns: make(chan struct{}, max(n, 1)), next: next, work: work}
	ctx = context.WithValue(ctx, workerPoolKey{}, p)
	p.mu.Lock()
	for range max(n, 1) {
		p.spawnLocked(ctx)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

type workerPoolKey struct{}

func (p *workerPool) spawnLocked(ctx context.Context) {
	p.workers++
	p.wg.Add(1)
	go p.loop(ctx)
}

// loop takes a turn, then an item, works on it and gives the turn back,
// until no item is left or more workers run than the turns not lent
// (a waiter that came back made one too many).
func (p *workerPool) loop(ctx context.Context) {
	defer p.wg.Done()
	for {
		p.turns <- struct{}{}
		p.mu.Lock()
		surplus := p.workers-p.lent > cap(p.turns)
		if surplus || p.idle {
			p.workers--
			p.mu.Unlock()
			<-p.turns
			return
		}
		p.mu.Unlock()
		i, ok := p.next()
		if !ok {
			p.mu.Lock()
			p.idle = true
			p.workers--
			p.mu.Unlock()
			<-p.turns
			return
		}
		p.work(ctx, i)
		<-p.turns
	}
}

// lend runs wait, which blocks on work another worker is doing, with the
// caller's turn given back meanwhile (a new worker takes it while items
// are left); the caller has a turn again when lend returns. Outside a
// workerPool (ctx carries none) it just runs wait.
func lend(ctx context.Context, wait func()) {
	p, _ := ctx.Value(workerPoolKey{}).(*workerPool)
	if p == nil {
		wait()
		return
	}
	p.mu.Lock()
	p.lent++
	if !p.idle {
		p.spawnLocked(ctx)
	}
	p.mu.Unlock()
	<-p.turns
	wait()
	p.turns <- struct{}{}
	p.mu.Lock()
	p.lent--
	p.mu.Unlock()
}
