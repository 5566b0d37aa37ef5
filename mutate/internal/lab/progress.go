package lab

import (
	"fmt"
	"io"
	"os"
	"time"

	"gathermut/mutate/mutant"
)

// progress prints one self-overwriting line on stderr, only when stderr is
// a terminal: done/total, killed, survived, elapsed, ETA.
type progress struct {
	w        io.Writer
	tty      bool
	verbose  bool
	total    int
	done     int
	counts   map[mutant.Status]int
	start    time.Time
	lastDraw time.Time
}

func newProgress(w io.Writer, total int, start time.Time) *progress {
	p := &progress{w: w, total: total, start: start, counts: map[mutant.Status]int{}}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(o mutant.Outcome) {
	p.done++
	p.counts[o.Result.Status]++
	if p.verbose {
		if p.tty {
			fmt.Fprint(p.w, "\r\033[K")
		}
		fmt.Fprintln(p.w, verboseLine(o))
	}
	if !p.tty || (time.Since(p.lastDraw) < 100*time.Millisecond && p.done < p.total) {
		return
	}
	p.lastDraw = time.Now()
	elapsed := time.Since(p.start)
	eta := "?"
	if p.done > 0 {
		eta = (time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K%d/%d  killed %d  survived %d  timed out %d  elapsed %s  ETA %s",
		p.done, p.total, p.counts[mutant.Killed], p.counts[mutant.Survived], p.counts[mutant.TimedOut], elapsed.Round(time.Second), eta)
}

// phase redraws a counter of a phase before the mutants run (discovery,
// baseline), on a terminal only.
func (p *progress) phase(name string, done, total int) {
	if !p.tty || (time.Since(p.lastDraw) < 100*time.Millisecond && done < total) {
		return
	}
	p.lastDraw = time.Now()
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d  elapsed %s", name, done, total, time.Since(p.start).Round(time.Second))
}

func (p *progress) finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
