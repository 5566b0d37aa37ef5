package schedule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/internal/selection"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

func TestReadProfileAndCovers(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "c.out")
	data := "mode: set\nm/p/p.go:3.20,4.12 1 1\nm/p/p.go:4.12,6.3 1 0\nm/p/p.go:7.2,7.10 1 1\nm/p/p.go:9.20,11.2 1 0\n"
	if err := os.WriteFile(profile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, err := readProfile(profile, "m")
	if err != nil {
		t.Fatal(err)
	}
	tb := &TestBaseline{blocks: blocks}
	at := func(l1, c1, l2, c2 int) mutant.Mutant {
		return mutant.Mutant{File: "p/p.go", InBody: true, Pos: mutant.Position{Line: l1, Column: c1}, End: mutant.Position{Line: l2, Column: c2},
			BodyStart: mutant.Position{Line: 3, Column: 20}, BodyEnd: mutant.Position{Line: 8, Column: 2}}
	}
	for _, c := range []struct {
		name string
		m    mutant.Mutant
		want bool
	}{
		{"executed block", at(4, 5, 4, 10), true},
		{"unexecuted block", at(5, 3, 5, 9), false},
		{"gap in an executed body", at(6, 5, 6, 8), true},
		{"package level", mutant.Mutant{File: "p/p.go"}, true},
		{"other file", mutant.Mutant{File: "q/q.go", InBody: true, Pos: mutant.Position{Line: 4, Column: 5}, End: mutant.Position{Line: 4, Column: 6}}, false},
	} {
		if got := tb.Covers(c.m); got != c.want {
			t.Errorf("%s: covers %v, want %v", c.name, got, c.want)
		}
	}
	gap := at(10, 1, 10, 4)
	gap.BodyStart, gap.BodyEnd = mutant.Position{Line: 9, Column: 20}, mutant.Position{Line: 11, Column: 2}
	if tb.Covers(gap) {
		t.Errorf("a position in an unexecuted function counts as covered")
	}
	if _, err := readProfile(profile+"x", "m"); err != nil {
		t.Errorf("missing profile: %v", err)
	}
	os.WriteFile(profile, []byte("mode: set\nbroken line\n"), 0o644)
	if _, err := readProfile(profile, "m"); err == nil {
		t.Errorf("bad profile accepted")
	}
}

func TestVerdicts(t *testing.T) {
	run := func(tests map[string]string, exit int, timedOut bool) *testbin.Result {
		r := &testbin.Result{Tests: map[string]*testbin.TestOutcome{}, ExitCode: exit, TimedOut: timedOut}
		for name, action := range tests {
			r.Tests[name] = &testbin.TestOutcome{Action: action, Output: "    x_test.go:1: message of " + name + "\n"}
		}
		return r
	}
	for _, c := range []struct {
		name    string
		run     *testbin.Result
		catalog bool
		status  mutant.Status
		why     string
	}{
		{"killed", run(map[string]string{"TestA": "fail"}, 1, false), false, mutant.Killed, ""},
		{"survived", run(map[string]string{"TestA": "pass"}, 0, false), false, mutant.Survived, "every selected test passed (1 ran)"},
		{"no test ran", run(map[string]string{}, 0, false), false, mutant.Error, "no test ran"},
		{"all skipped", run(map[string]string{"TestA": "skip"}, 0, false), false, mutant.NotRun, "skipped: p.TestA: message of TestA"},
		{"skip and pass", run(map[string]string{"TestA": "skip", "TestB": "pass"}, 0, false), false, mutant.Survived, ""},
		{"timeout", run(map[string]string{"TestA": "run"}, -1, true), false, mutant.TimedOut, "running p.TestA"},
		{"crash in a test", run(map[string]string{"TestA": "run"}, 2, false), false, mutant.Killed, ""},
		{"crash before tests", run(map[string]string{}, 1, false), false, mutant.Killed, ""},
		{"catalog expected", run(map[string]string{"TestK": "fail"}, 1, false), true, mutant.Killed, ""},
		{"catalog unexpected", run(map[string]string{"TestK": "pass", "TestA": "fail"}, 1, false), true, mutant.Killed, "killed by an unexpected test: p.TestA"},
		{"catalog killer absent", run(map[string]string{"TestA": "pass"}, 0, false), true, mutant.Error, "no expected killer ran"},
		{"catalog killer skipped", run(map[string]string{"TestK": "skip"}, 0, false), true, mutant.NotRun, "skipped: p.TestK"},
		{"catalog survived", run(map[string]string{"TestK": "pass"}, 0, false), true, mutant.Survived, "the expected killers passed"},
	} {
		m := mutant.Mutant{ID: "g"}
		expected := map[string]bool{}
		if c.catalog {
			m = mutant.Mutant{ID: "c", Expected: []mutant.TestID{{Package: "p", Name: "TestK"}}, Catalog: catalogEntry()}
			expected["p.TestK"] = true
		}
		v := verdict{skipped: map[string]string{}}
		v.add("p", c.run)
		res := v.result(mutant.Result{}, m, expected)
		if res.Status != c.status || !strings.Contains(res.Why, c.why) {
			t.Errorf("%s: %s %q, want %s %q", c.name, res.Status, res.Why, c.status, c.why)
		}
		if c.name == "catalog expected" && !res.ExpectedKiller {
			t.Errorf("%s: not marked as killed by the expected test", c.name)
		}
		if c.name == "crash before tests" && (len(res.KilledBy) != 1 || res.KilledBy[0] != "p (test binary)") {
			t.Errorf("%s: killed by %v", c.name, res.KilledBy)
		}
	}
}

func catalogEntry() *catalog.Entry { return &catalog.Entry{ID: "c", Killers: []string{"p.TestK"}} }

func TestTimeoutFor(t *testing.T) {
	tests := []*TestBaseline{{Elapsed: time.Second}, {Elapsed: 2 * time.Second}}
	if got := timeoutFor(tests, 3, 10*time.Second); got != 39*time.Second {
		t.Errorf("timeout %s", got)
	}
}

// TestCrashRef: a crashed test's killer is its innermost running
// subtest, else the test.
func TestCrashRef(t *testing.T) {
	tests := map[string]*testbin.TestOutcome{
		"TestT": {Action: "run", RunningSubtests: []string{"TestT/Q4_K", "TestT/Q4_K/w1"}},
		"TestU": {Action: "run"},
	}
	for _, c := range []struct {
		test string
		want selection.Ref
	}{
		{"TestT", selection.Ref{Package: "m/p", Test: "TestT", Sub: "Q4_K/w1"}},
		{"TestU", selection.Ref{Package: "m/p", Test: "TestU"}},
		{"TestGone", selection.Ref{Package: "m/p", Test: "TestGone"}},
	} {
		t.Run(c.test, func(t *testing.T) {
			if got := crashRef("m/p", c.test, tests); got != c.want {
				t.Errorf("crashRef = %+v, want %+v", got, c.want)
			}
		})
	}
}
