package lab

import (
	"bytes"
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
		{"terminal", true, false, []string{"\r\033[K4/4  killed 2  survived 1  timed out 1  elapsed ", "ETA 0s", "\r\033[K1/4  killed 1  survived 0"}, []string{": m1 why"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := newProgress(&buf, len(outcomes), time.Now())
			if p.tty {
				t.Fatal("a bytes.Buffer taken for a terminal")
			}
			p.tty, p.verbose = c.tty, c.verbose
			for i, st := range outcomes {
				p.lastDraw = time.Time{} // draw every update
				p.update(mutant.Outcome{Mutant: mutant.Mutant{ID: "m" + string(rune('0'+i))}, Result: mutant.Result{Status: st, Why: "why"}})
			}
			p.finish()
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
