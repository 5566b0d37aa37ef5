package main

import (
	"strings"
	"testing"
	"time"

	"gathermut/mutate/mutant"
)

// TestPackageTimes: the bench's table of where a set's time went sums
// each package's judging time and verdicts, costliest first.
func TestPackageTimes(t *testing.T) {
	o := func(pkg string, st mutant.Status, why string, secs float64) mutant.Outcome {
		return mutant.Outcome{Mutant: mutant.Mutant{Package: pkg, Kind: mutant.Go}, Result: mutant.Result{Status: st, Why: why, Duration: time.Duration(secs * float64(time.Second))}}
	}
	outcomes := []mutant.Outcome{
		o("m/a", mutant.Killed, "", 2), o("m/a", mutant.Survived, "every selected test passed (1 ran)", 3), o("m/a", mutant.Survived, "not covered by any test", 0),
		o("m/b", mutant.TimedOut, "timed out", 10), o("m/b", mutant.Unviable, "does not compile", 1),
		{Mutant: mutant.Mutant{Kind: mutant.Kernel}, Result: mutant.Result{Status: mutant.NotRun, Why: "no compiler"}},
	}
	rows, total := packageTimes(outcomes)
	if total != 16 || len(rows) != 3 {
		t.Fatalf("total %v, rows %+v", total, rows)
	}
	if r := rows[0]; r.pkg != "m/b" || r.mutants != 2 || r.to != 1 || r.seconds != 11 || r.tested != 2 {
		t.Errorf("first row %+v", r)
	}
	if r := rows[1]; r.pkg != "m/a" || r.mutants != 3 || r.killed != 1 || r.survived != 2 || r.tested != 2 || r.seconds != 5 {
		t.Errorf("second row %+v", r)
	}
	if r := rows[2]; r.pkg != "(kernel)" || r.mutants != 1 || r.tested != 0 {
		t.Errorf("third row %+v", r)
	}
	var b strings.Builder
	if err := printPackageTimes(&b, outcomes); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(b.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	for i, want := range []string{
		"package mutants tested killed survived timed out score mutant s share s/tested",
		"m/b 2 2 0 0 1 100.0% 11.0 68.8% 5.50",
		"m/a 3 2 1 2 0 33.3% 5.0 31.2% 2.50",
		"(kernel) 1 0 0 0 0 - 0.0 0.0% -",
	} {
		if i >= len(lines) || lines[i] != want {
			t.Errorf("table line %d is not %q:\n%s", i, want, b.String())
		}
	}
}
