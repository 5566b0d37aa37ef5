package progress

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/mutant"
)

func TestProgress(t *testing.T) {
	outcomes := []mutant.Status{mutant.Killed, mutant.Survived, mutant.Killed, mutant.TimedOut}
	for _, c := range []struct {
		name          string
		tty, verbose  bool
		want, notWant []string
	}{
		{"pipe", false, false, nil, []string{"killed"}},
		{"pipe verbose", false, true, []string{"survived: m1 why\n"}, []string{"\r", "ETA"}},
		{"terminal", true, false, []string{"\r\033[K4/4 judged  killed 2  survived 1  timed out 1  elapsed ", "ETA 0s", "\r\033[K1/4 judged  killed 1  survived 0"}, []string{": m1 why"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := New(&buf, len(outcomes), time.Now())
			if p.tty {
				t.Fatal("a bytes.Buffer taken for a terminal")
			}
			p.tty, p.Verbose = c.tty, c.verbose
			for i, st := range outcomes {
				p.lastDraw = time.Time{} // draw every update
				p.Update(mutant.Outcome{Mutant: mutant.Mutant{ID: "m" + string(rune('0'+i))}, Result: mutant.Result{Status: st, Why: "why"}})
			}
			p.Finish()
			out := buf.String()
			for _, s := range c.want {
				if !strings.Contains(out, s) {
					t.Errorf("output %q lacks %q", out, s)
				}
			}
			for _, s := range c.notWant {
				if strings.Contains(out, s) {
					t.Errorf("output %q has %q", out, s)
				}
			}
		})
	}
}

// TestProgressInterrupted: after an interrupt the line counts what was
// judged, says so, and gives no ETA; the unjudged mutants the runner
// reports afterwards do not move the count.
func TestProgressInterrupted(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, 10, time.Now())
	p.tty = true
	ctx, cancel := context.WithCancel(context.Background())
	stop := p.Watch(ctx)
	for _, st := range []mutant.Status{mutant.Killed, mutant.Survived, mutant.Killed} {
		p.Update(mutant.Outcome{Result: mutant.Result{Status: st}})
	}
	cancel()
	for i := 0; i < 7; i++ {
		p.Update(mutant.Outcome{Result: mutant.Result{Status: mutant.Interrupted, Why: "interrupted before it ran"}})
	}
	stop()
	p.Finish()
	out := buf.String()
	last := out[strings.LastIndex(out, "\r"):]
	if !strings.Contains(last, "interrupted: 3 of 10 judged  killed 2  survived 1") || strings.Contains(last, "ETA") {
		t.Errorf("last line after the interrupt: %q", last)
	}
	if strings.Contains(out, "10/10") {
		t.Errorf("unjudged mutants counted as done: %q", out)
	}
	if j := p.JudgingTime(); j <= 0 || j > time.Since(p.start) {
		t.Errorf("judging time %s", j)
	}
}
