package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"gathermut/mutate/mutant"
)

// Line prints one self-overwriting line on stderr, only when stderr is
// a terminal: judged/total, killed, survived, timed out, judged per
// minute, elapsed, ETA. Mutants an interrupt leaves unjudged are not
// counted as done: after Ctrl-C the line says "interrupted: N of M
// judged" and gives no ETA.
type Line struct {
	mu          sync.Mutex
	w           io.Writer
	tty         bool
	Verbose     bool // print each verdict as it comes (-v)
	total       int
	done        int // judged
	counts      map[mutant.Status]int
	start       time.Time
	lastDraw    time.Time
	interrupted time.Time // when the interrupt came; zero without one
	finished    time.Time
}

func New(w io.Writer, total int, start time.Time) *Line {
	p := &Line{w: w, total: total, start: start, counts: map[mutant.Status]int{}}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// Update records one outcome.
func (p *Line) Update(o mutant.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o.Result.Status == mutant.Interrupted {
		if p.interrupted.IsZero() {
			p.interrupted = time.Now()
		}
	} else {
		p.done++
		p.counts[o.Result.Status]++
		if p.Verbose {
			if p.tty {
				fmt.Fprint(p.w, "\r\033[K")
			}
			fmt.Fprintln(p.w, verboseLine(o))
		}
	}
	p.draw(false)
}

// Watch redraws the line as soon as ctx is cancelled, before the running
// mutants stop; the returned func stops watching.
func (p *Line) Watch(ctx context.Context) func() {
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			p.mu.Lock()
			if p.interrupted.IsZero() {
				p.interrupted = time.Now()
			}
			p.draw(true)
			p.mu.Unlock()
		case <-stop:
		}
	}()
	return func() { close(stop) }
}

// draw redraws the line, at most every 100 ms unless forced; p.mu held.
func (p *Line) draw(force bool) {
	last := p.done == p.total
	if !p.tty || (!force && !last && time.Since(p.lastDraw) < 100*time.Millisecond) {
		return
	}
	p.lastDraw = time.Now()
	elapsed := p.judging()
	rate := ""
	if m := elapsed.Minutes(); p.done > 0 && elapsed >= 5*time.Second {
		rate = fmt.Sprintf("  %.1f/min", float64(p.done)/m)
	}
	counts := fmt.Sprintf("killed %d  survived %d  timed out %d%s  elapsed %s", p.counts[mutant.Killed], p.counts[mutant.Survived],
		p.counts[mutant.TimedOut], rate, elapsed.Round(time.Second))
	if !p.interrupted.IsZero() {
		fmt.Fprintf(p.w, "\r\033[Kinterrupted: %d of %d judged  %s  (stopping)", p.done, p.total, counts)
		return
	}
	eta := "?"
	if p.done > 0 {
		eta = (time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K%d/%d judged  %s  ETA %s", p.done, p.total, counts, eta)
}

// judging is the time spent judging: from the start to the interrupt, or
// to now (to the finish once finished).
func (p *Line) judging() time.Duration {
	switch {
	case !p.interrupted.IsZero():
		return p.interrupted.Sub(p.start)
	case !p.finished.IsZero():
		return p.finished.Sub(p.start)
	}
	return time.Since(p.start)
}

// JudgingTime is the mutant phase's time for the rate: judged mutants
// over it is mutants per minute.
func (p *Line) JudgingTime() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.judging()
}

// Phase redraws a counter of a phase before the mutants run (discovery,
// baseline), on a terminal only.
func (p *Line) Phase(name string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty || (time.Since(p.lastDraw) < 100*time.Millisecond && done < total) {
		return
	}
	p.lastDraw = time.Now()
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d  elapsed %s", name, done, total, time.Since(p.start).Round(time.Second))
}

// Finish ends the line; the last state stays on the screen.
func (p *Line) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished.IsZero() {
		p.finished = time.Now()
	}
	if p.tty {
		if p.total > 0 {
			p.draw(true)
		}
		fmt.Fprintln(p.w)
	}
}
