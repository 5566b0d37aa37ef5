package progress

import (
	"bytes"
	"context"
	"fmt"
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
		// not a terminal: no redrawing, one line with the final state
		{"pipe", false, false, []string{"mutate: 4/4 judged  killed 2  survived 1  not covered 0  timed out 1  elapsed "}, []string{"\r", "1/4", "why"}},
		{"pipe verbose", false, true, []string{"survived: m1 why\n", "mutate: 4/4 judged"}, []string{"\r"}},
		{"terminal", true, false, []string{"\r\033[K4/4 judged  killed 2  survived 1  not covered 0  timed out 1  elapsed ", "ETA 0s", "\r\033[K1/4 judged  killed 1  survived 0"}, []string{": m1 why"}},
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
	if !strings.Contains(last, "interrupted: 3 of 10 judged  killed 2  survived 1  not covered 0") || strings.Contains(last, "ETA") {
		t.Errorf("last line after the interrupt: %q", last)
	}
	if strings.Contains(out, "10/10") {
		t.Errorf("unjudged mutants counted as done: %q", out)
	}
	if j := p.JudgingTime(); j <= 0 || j > time.Since(p.start) {
		t.Errorf("judging time %s", j)
	}
}

// TestHeartbeat: when stderr is not a terminal, every silence of the
// heartbeat's period gets a line: what the run is doing (and for how
// long), or the state of the progress it follows; a write resets the
// silence; on a terminal it prints nothing of its own.
func TestHeartbeat(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := NewHeartbeat(&buf, 10*time.Second)
	if h.step != time.Second {
		t.Errorf("a 10 s heartbeat ticks every %v, want 1s", h.step)
	}
	h.now = func() time.Time { return now }
	h.start, h.last, h.since = now, now, now
	h.step = 0 // ticks exactly when the test says
	lines := func() []string { return strings.Split(strings.TrimSpace(buf.String()), "\n") }
	at := func(d time.Duration) { now = now.Add(d); h.tick() }

	h.Doing("finding the mutants")
	at(9 * time.Second)
	if buf.Len() != 0 {
		t.Fatalf("a line after 9 s of silence: %q", buf.String())
	}
	at(time.Second)
	if got := lines(); len(got) != 1 || got[0] != "mutate: finding the mutants (10s; 10s in all)" {
		t.Fatalf("after 10 s: %q", got)
	}
	at(5 * time.Second)
	fmt.Fprintln(h, "mutate: 12 mutants in 15.0 s") // a line of the run resets the silence
	at(9 * time.Second)
	if n := len(lines()); n != 2 {
		t.Errorf("%d lines 9 s after the run's own line, want 2", n)
	}
	h.Doing("building the test binaries and running the baseline")
	at(time.Second)
	if got := lines(); len(got) != 3 || got[2] != "mutate: building the test binaries and running the baseline (1s; 25s in all)" {
		t.Errorf("after 10 s more: %q", got)
	}

	// a progress: its line, as often as the silence lasts
	p := New(h, 3, time.Now())
	if p.tty || p.beat != h {
		t.Fatalf("progress on a heartbeat: tty %v, following %v", p.tty, p.beat == h)
	}
	p.Update(mutant.Outcome{Result: mutant.Result{Status: mutant.Killed}})
	p.Update(mutant.Outcome{Result: mutant.Result{Status: mutant.Survived, Why: "not covered by any test"}})
	for i := 0; i < 3; i++ {
		at(10 * time.Second)
	}
	got := lines()
	if len(got) != 6 {
		t.Fatalf("%d lines after 30 s of a progress, want 6: %q", len(got), got)
	}
	for _, l := range got[3:] {
		if !strings.HasPrefix(l, "mutate: 2/3 judged  killed 1  survived 0  not covered 1  timed out 0") {
			t.Errorf("progress heartbeat %q", l)
		}
	}
	p.Update(mutant.Outcome{Result: mutant.Result{Status: mutant.Killed}})
	p.Finish()
	if got := lines(); !strings.HasPrefix(got[len(got)-1], "mutate: 3/3 judged  killed 2") {
		t.Errorf("finish: %q", got[len(got)-1])
	}
	at(10 * time.Second) // the progress is done: back to the activity
	if got := lines(); !strings.HasPrefix(got[len(got)-1], "mutate: building the test binaries") {
		t.Errorf("after the progress finished: %q", got[len(got)-1])
	}

	// a terminal: nothing of its own
	buf.Reset()
	h.tty = true
	at(time.Minute)
	if buf.Len() != 0 {
		t.Errorf("on a terminal: %q", buf.String())
	}
}

// TestHeartbeatEvery: GATHERMUT_PROGRESS_EVERY sets the period; a bad or
// missing value leaves the default.
func TestHeartbeatEvery(t *testing.T) {
	for in, want := range map[string]time.Duration{"": DefaultHeartbeat, "2s": 2 * time.Second, "soon": DefaultHeartbeat, "-1s": DefaultHeartbeat, "500ms": 500 * time.Millisecond} {
		t.Setenv("GATHERMUT_PROGRESS_EVERY", in)
		if got := HeartbeatEvery(); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}
