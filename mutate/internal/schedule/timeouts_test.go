package schedule

import (
	"testing"
	"time"

	"gathermut/mutate/mutant"
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

// TestHoldAll: a rerun alone holds every process slot and every GPU slot
// it is given, so no other test process can start beside it, and gives
// them all back.
func TestHoldAll(t *testing.T) {
	r := &Runner{slots: newSlots(3)}
	gpu := newSlots(2)
	release, err := r.holdAll(t.Context(), gpu)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.slots) != 3 || len(gpu) != 2 {
		t.Errorf("held %d of 3 slots and %d of 2 GPU slots", len(r.slots), len(gpu))
	}
	release()
	if len(r.slots) != 0 || len(gpu) != 0 {
		t.Errorf("after the release %d slots and %d GPU slots still held", len(r.slots), len(gpu))
	}
}
