package schedule

import (
	"testing"
	"time"

	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

// TestTimeoutVerdict: a timeout that held alone is "timed out
// (confirmed)"; a process that finished alone is "slow, then" what that
// run decided, with where it first timed out; a verdict without a rerun
// is left as it is.
func TestTimeoutVerdict(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mutant.Result
		slow string
		want string
	}{
		{"confirmed", mutant.Result{Status: mutant.TimedOut, Timeout: mutant.TimeoutConfirmed, Why: "timed out: m/p after 1s"}, "",
			"timed out (confirmed): m/p after 1s; run again alone with twice the time, it timed out again"},
		{"slow, survived", mutant.Result{Status: mutant.Survived, Timeout: mutant.TimeoutSlow, Why: "every selected test passed (1 ran)"}, "m/p after 1s",
			"slow, then survived: m/p after 1s timed out among other processes, then finished alone with twice the time; every selected test passed (1 ran)"},
		{"slow, killed", mutant.Result{Status: mutant.Killed, Timeout: mutant.TimeoutSlow, KilledBy: []string{"m/p.TestA"}}, "m/p after 2s",
			"slow, then killed: m/p after 2s timed out among other processes, then finished alone with twice the time; killed by m/p.TestA"},
		{"no rerun", mutant.Result{Status: mutant.TimedOut, Why: "timed out: m/p after 1s"}, "", "timed out: m/p after 1s"},
	} {
		if got := timeoutVerdict(c.in, c.slow).Why; got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestFloorFor: the floor is five times the start-up, never under 200ms.
func TestFloorFor(t *testing.T) {
	for _, c := range []struct{ startup, want time.Duration }{
		{0, 200 * time.Millisecond},
		{30 * time.Millisecond, 200 * time.Millisecond},
		{100 * time.Millisecond, 500 * time.Millisecond},
		{time.Second, 5 * time.Second},
	} {
		if got := floorFor(c.startup); got != c.want {
			t.Errorf("floorFor(%s) = %s, want %s", c.startup, got, c.want)
		}
	}
}

// TestHoldConfirm: a confirmation holds one process slot, so others run
// beside it, and every GPU slot it is given (a GPU test alone on the
// GPU), and gives them all back.
func TestHoldConfirm(t *testing.T) {
	for _, c := range []struct {
		name    string
		gpu     slots
		wantGPU int
	}{{"a CPU test", nil, 0}, {"a GPU test", newSlots(2), 2}} {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{slots: newSlots(3)}
			release, err := r.holdConfirm(t.Context(), c.gpu)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.slots) != 1 || len(c.gpu) != c.wantGPU {
				t.Errorf("held %d of 3 slots (want 1) and %d GPU slots (want %d)", len(r.slots), len(c.gpu), c.wantGPU)
			}
			release()
			if len(r.slots) != 0 || len(c.gpu) != 0 {
				t.Errorf("after the release %d slots and %d GPU slots still held", len(r.slots), len(c.gpu))
			}
		})
	}
}

// TestSearchStops: cheap hangs do not end the search for a killing test
// until they took hangBudget together; costly ones end it after maxHung;
// hungCap ends it whatever they cost.
func TestSearchStops(t *testing.T) {
	hangs := func(n int, each time.Duration) []hungRun {
		out := make([]hungRun, n)
		for i := range out {
			out[i].first = &testbin.Result{Elapsed: each}
		}
		return out
	}
	for _, c := range []struct {
		name string
		hung []hungRun
		want bool
	}{
		{"three costly", hangs(3, 2*time.Second), false},
		{"four cheap", hangs(4, 250*time.Millisecond), false},
		{"eleven cheap", hangs(11, 250*time.Millisecond), false},
		{"twelve cheap reach the budget", hangs(12, 250*time.Millisecond), true},
		{"four costly", hangs(4, time.Second), true},
		{"the cap", hangs(hungCap, time.Millisecond), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := searchStops(c.hung); got != c.want {
				t.Errorf("searchStops(%d hangs) = %v, want %v", len(c.hung), got, c.want)
			}
		})
	}
}
