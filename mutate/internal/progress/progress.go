package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"gathermut/mutate/mutant"
)

// Line shows how a phase goes: judged/total, killed, survived, not
// covered, timed out, judged per minute, elapsed, ETA (or a phase's
// counter: "baseline: tests run 3/12"). On a terminal it is one
// self-overwriting line, redrawn as outcomes come. Elsewhere (a CI log, a
// file) the heartbeat prints its state as a line of its own whenever
// nothing was printed for a while, and Finish prints the last state.
// Mutants an interrupt leaves unjudged are not counted as done: after
// Ctrl-C the line says "interrupted: N of M judged" and gives no ETA.
type Line struct {
	mu          sync.Mutex
	w           io.Writer
	tty         bool
	Verbose     bool // print each verdict as it comes (-v)
	total       int
	done        int // judged
	counts      map[mutant.Status]int
	notCovered  int // survivors no test covers (also in counts[Survived])
	start       time.Time
	lastDraw    time.Time
	interrupted time.Time // when the interrupt came; zero without one
	finished    time.Time

	// the counter of a phase before the mutants (phase)
	phaseName             string
	phaseDone, phaseTotal int

	beat *Heartbeat // the heartbeat of w, when w is one

	// tail counts the tail tests running now (Running), by name: a
	// test that copies the module and runs go test on it holds a worker
	// for a minute, and the line says so.
	tail map[string]int
}

// New starts the progress of total mutants (0: a phase's counter) on
// w; on a Heartbeat, the heartbeat prints its line while it lasts.
func New(w io.Writer, total int, start time.Time) *Line {
	p := &Line{w: w, total: total, start: start, counts: map[mutant.Status]int{}}
	p.tty = isTerminal(w)
	if hb, ok := w.(*Heartbeat); ok {
		p.beat = hb
		hb.follow(p)
	}
	return p
}

// isTerminal reports whether w is a terminal (a heartbeat: whether the
// stream it writes to is one).
func isTerminal(w io.Writer) bool {
	if hb, ok := w.(*Heartbeat); ok {
		return hb.tty
	}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return true
		}
	}
	return false
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
		if o.Result.Status == mutant.Survived && o.Result.Why == mutant.NotCovered {
			p.notCovered++
		}
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

// Running says that a worker runs a tail test (one that costs seconds,
// such as a whole-suite nested test) until the returned func is called:
// the line names it meanwhile.
func (p *Line) Running(test string) func() {
	p.mu.Lock()
	if p.tail == nil {
		p.tail = map[string]int{}
	}
	p.tail[test]++
	p.draw(true)
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.tail[test]--; p.tail[test] <= 0 {
			delete(p.tail, test)
		}
		p.mu.Unlock()
	}
}

// waitingOn names the tail tests running now; p.mu held.
func (p *Line) waitingOn() string {
	if len(p.tail) == 0 {
		return ""
	}
	var names []string
	for name, n := range p.tail {
		if n > 1 {
			name = fmt.Sprintf("%s ×%d", name, n)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return "  running " + strings.Join(names, ", ")
}

// draw redraws the line on a terminal, at most every 100 ms unless
// forced; p.mu held.
func (p *Line) draw(force bool) {
	last := p.done == p.total
	if !p.tty || (!force && !last && time.Since(p.lastDraw) < 100*time.Millisecond) {
		return
	}
	p.lastDraw = time.Now()
	fmt.Fprint(p.w, "\r\033[K"+p.line())
}

// line is the progress's state in words; p.mu held.
func (p *Line) line() string {
	if p.total == 0 && p.phaseName != "" {
		return fmt.Sprintf("%s %d/%d  elapsed %s", p.phaseName, p.phaseDone, p.phaseTotal, time.Since(p.start).Round(time.Second))
	}
	elapsed := p.judging()
	rate := ""
	if m := elapsed.Minutes(); p.done > 0 && elapsed >= 5*time.Second {
		rate = fmt.Sprintf("  %.1f/min", float64(p.done)/m)
	}
	counts := fmt.Sprintf("killed %d  survived %d  not covered %d  timed out %d%s  elapsed %s", p.counts[mutant.Killed],
		p.counts[mutant.Survived]-p.notCovered, p.notCovered, p.counts[mutant.TimedOut], rate, elapsed.Round(time.Second))
	if !p.interrupted.IsZero() {
		return fmt.Sprintf("interrupted: %d of %d judged  %s  (stopping)", p.done, p.total, counts)
	}
	eta := "?"
	if p.done > 0 {
		eta = (time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	return fmt.Sprintf("%d/%d judged  %s  ETA %s%s", p.done, p.total, counts, eta, p.waitingOn())
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

// Phase records the counter of a phase before the mutants run
// (discovery, baseline) and redraws it on a terminal.
func (p *Line) Phase(name string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phaseName, p.phaseDone, p.phaseTotal = name, done, total
	if !p.tty || (time.Since(p.lastDraw) < 100*time.Millisecond && done < total) {
		return
	}
	p.lastDraw = time.Now()
	fmt.Fprint(p.w, "\r\033[K"+p.line())
}

// Finish ends the line; the last state stays on the screen, and
// elsewhere is printed once as a line of its own.
func (p *Line) Finish() {
	if p.beat != nil {
		p.beat.unfollow(p)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished.IsZero() {
		p.finished = time.Now()
	}
	switch {
	case p.tty:
		if p.total > 0 {
			p.draw(true)
		}
		fmt.Fprintln(p.w)
	case p.total > 0 || p.phaseName != "":
		fmt.Fprintln(p.w, "mutate: "+p.line())
	}
}

// DefaultHeartbeat is how long a run stays silent, when stderr is not a
// terminal, before it prints where it is (GATHERMUT_PROGRESS_EVERY
// changes it).
const DefaultHeartbeat = 10 * time.Second

// Heartbeat is the run's stderr. When that is not a terminal (a CI log,
// a file, a pipe), a run can go minutes without a line: a schema build, a
// baseline, slow mutants. The heartbeat notes when anything was last
// written and, after every period of silence, writes where the run is: the
// line of the progress it follows (New registers each), else what
// the run is doing and for how long. On a terminal it only passes writes
// through: the progress line redraws itself there.
type Heartbeat struct {
	w     io.Writer
	tty   bool
	every time.Duration
	step  time.Duration // how often run ticks: a line is due a step early, so no silence outlasts every
	now   func() time.Time

	mu       sync.Mutex
	start    time.Time // of the run
	last     time.Time // the last write
	activity string    // what the run is doing, for the line without a progress
	since    time.Time // when activity began
	active   *Line     // the progress whose line to print, or nil

	stopOnce sync.Once
	done     chan struct{}
}

// NewHeartbeat wraps w; every is the longest silence (0: DefaultHeartbeat).
func NewHeartbeat(w io.Writer, every time.Duration) *Heartbeat {
	if every <= 0 {
		every = DefaultHeartbeat
	}
	now := time.Now()
	return &Heartbeat{w: w, tty: isTerminal(w), every: every, step: min(time.Second, every/10+time.Millisecond), now: time.Now,
		start: now, last: now, since: now, done: make(chan struct{})}
}

// HeartbeatEvery reads GATHERMUT_PROGRESS_EVERY (a duration such as 30s);
// unset or invalid: DefaultHeartbeat.
func HeartbeatEvery() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("GATHERMUT_PROGRESS_EVERY")); err == nil && d > 0 {
		return d
	}
	return DefaultHeartbeat
}

// Write passes p on and notes the time.
func (h *Heartbeat) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.now()
	return h.w.Write(p)
}

// Run ticks until Stop, when the stream is not a terminal.
func (h *Heartbeat) Run() {
	if h.tty {
		return
	}
	go func() {
		t := time.NewTicker(h.step)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-t.C:
				h.tick()
			}
		}
	}()
}

// Stop ends the ticking.
func (h *Heartbeat) Stop() { h.stopOnce.Do(func() { close(h.done) }) }

// Doing names what the run does from now on.
func (h *Heartbeat) Doing(activity string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.activity, h.since = activity, h.now()
}

func (h *Heartbeat) follow(p *Line) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.active = p
}

func (h *Heartbeat) unfollow(p *Line) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.active == p {
		h.active = nil
	}
}

// tick writes where the run is when nothing was written for h.every (less
// the tick's step: the next tick would come after it).
func (h *Heartbeat) tick() {
	h.mu.Lock()
	now := h.now()
	if h.tty || now.Sub(h.last) < h.every-h.step {
		h.mu.Unlock()
		return
	}
	active, activity, since, start := h.active, h.activity, h.since, h.start
	h.mu.Unlock()
	var line string
	if active != nil {
		active.mu.Lock()
		line = active.line()
		active.mu.Unlock()
	} else {
		if activity == "" {
			activity = "working"
		}
		line = fmt.Sprintf("%s (%s; %s in all)", activity, roundDuration(now.Sub(since)), roundDuration(now.Sub(start)))
	}
	fmt.Fprintln(h, "mutate: "+strings.TrimSpace(line))
}

func roundDuration(d time.Duration) time.Duration { return d.Round(time.Second) }
