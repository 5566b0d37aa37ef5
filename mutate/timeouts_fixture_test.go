package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// TestFixtureTimeouts: a test process that passes its limit among the
// others runs again alone with twice the time before its timeout counts.
// The spin mutants that loop forever time out again: "timed out
// (confirmed)". Answer's mutant that skips the cache only sleeps 4 s
// (SPIN_SLOW_MS; past the 3 s floor, as a sleep is never shorter, and
// within twice it, with 2 s to spare for its process's start on a busy
// machine): "slow, then survived", not a timeout. (Every wait of the
// test is a multiple of the floor: the smallest floor with that margin
// keeps it short.) The summary and the markdown count them apart. Without
// --timeout-floor the floor comes from the test binaries' start-up. A
// hang goes on to the mutant's other tests before it is confirmed, so
// the slow mutant may be slow in more than one process and run again
// for each: at least one rerun per mutant.
func TestFixtureTimeouts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tool on the fixture")
	}
	reports := t.TempDir()
	res := runTool(t, fixture, []string{"SPIN_SLOW_MS=4000"}, "all", "./spin", "--catalog=", "-j", "2", "--timeout-floor", "3s", "--report-dir", reports, "--name", "timeouts")
	if res.code != exitcode.Survivors {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	r, outcomes := readReport(t, filepath.Join(reports, "timeouts.json"))
	confirmed, slow := 0, 0
	for id, o := range outcomes {
		switch {
		case o.Mutant.File == "spin/slow.go" && o.Mutant.Operator == "branch-if":
			slow++
			if o.Result.Status != mutant.Survived || o.Result.Timeout != mutant.TimeoutSlow || !strings.HasPrefix(o.Result.Why, "slow, then survived: fixture/spin after ") {
				t.Errorf("the slow mutant %s: %s (timeout %q): %s", id, o.Result.Status, o.Result.Timeout, o.Result.Why)
			}
		case o.Result.Status == mutant.TimedOut:
			confirmed++
			if o.Mutant.File != "spin/spin.go" || o.Result.Timeout != mutant.TimeoutConfirmed || !strings.HasPrefix(o.Result.Why, "timed out (confirmed): ") {
				t.Errorf("the hanging mutant %s: timeout %q: %s", id, o.Result.Timeout, o.Result.Why)
			}
		case o.Result.Timeout != "":
			t.Errorf("%s: %s, timeout %q", id, o.Result.Status, o.Result.Timeout)
		}
	}
	g := r.Gathermut
	if slow != 1 || confirmed != 2 || g.Summary.Confirmed != 2 || g.Summary.Slow != 1 || g.Timing.Reruns < 3 || g.Timing.TimeoutFloor != 3 {
		t.Errorf("%d slow, %d confirmed; summary %d and %d; %d reruns, floor %v s", slow, confirmed, g.Summary.Slow, g.Summary.Confirmed, g.Timing.Reruns, g.Timing.TimeoutFloor)
	}
	if !strings.Contains(res.stdout, "2 timed out (2 confirmed), 1 slow (then killed or survived)") {
		t.Errorf("the summary does not keep them apart:\n%s", res.stdout)
	}
	md, err := os.ReadFile(filepath.Join(reports, "timeouts.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2 confirmed (timed out again alone, with twice the time)", "- **Slow** (timed out among other processes, then finished alone with twice the time; counted as killed or survived): 1"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("the markdown has no %q", s)
		}
	}
}
