package schedule

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/internal/selection"
	"gathermut/mutate/mutant"
	"gathermut/mutate/testbin"
)

type verdict struct {
	failed   []string // "pkg.Test"
	ran      []string
	skipped  map[string]string // "pkg.Test" -> skip message
	timedOut string
	excerpt  strings.Builder
	exitCode int
	signal   string // the signal that ended a test process (a timeout's kill)
	// killers are the failed tests as the killer map learns them: each
	// failed test's innermost failed subtests, or the test itself when
	// none of its subtests failed (or it crashed).
	killers []selection.Ref
}

func (v *verdict) add(pkg string, run *testbin.Result) {
	if run.ExitCode != 0 && (v.exitCode == 0 || run.ExitCode > v.exitCode) {
		v.exitCode = run.ExitCode // -1 when a signal ended it
	}
	if run.Signal != "" {
		v.signal = run.Signal
	}
	var failedHere, running []string
	newKillers := len(v.killers)
	defer func() {
		added := v.killers[newKillers:]
		sort.Slice(added, func(i, j int) bool { return added[i].String() < added[j].String() })
	}()
	for name, t := range run.Tests {
		id := pkg + "." + name
		switch t.Action {
		case "fail":
			failedHere = append(failedHere, id)
			v.killers = append(v.killers, failedRefs(pkg, name, t.FailedSubtests)...)
			v.ran = append(v.ran, id)
			v.excerpt.WriteString(testbin.Limit(t.Output, 2<<10))
		case "pass":
			v.ran = append(v.ran, id)
		case "skip":
			v.skipped[id] = testbin.SkipMessage(t.Output)
		case "run":
			running = append(running, id)
		}
	}
	sort.Strings(failedHere)
	sort.Strings(running)
	if run.TimedOut {
		v.timedOut = fmt.Sprintf("%s after %s", pkg, run.Elapsed.Round(time.Millisecond))
		if run.TimedOutTest != "" {
			v.timedOut += ", " + pkg + "." + run.TimedOutTest + " past its own limit"
		} else if len(running) > 0 {
			v.timedOut += ", running " + strings.Join(running, ", ")
		}
		return
	}
	if run.ExitCode != 0 && len(failedHere) == 0 {
		// a crash: blame the tests that were running, else the binary
		if len(running) > 0 {
			failedHere = running
			v.ran = append(v.ran, running...)
			for _, id := range running {
				v.killers = append(v.killers, crashRef(pkg, strings.TrimPrefix(id, pkg+"."), run.Tests))
			}
		} else {
			failedHere = []string{pkg + " (test binary)"}
		}
		v.excerpt.WriteString(testbin.Limit(run.Output, 2<<10))
	}
	v.failed = append(v.failed, failedHere...)
}

// crashRef is the killer map's ref of a test that was running when its
// process crashed: the innermost subtest still running, else the test.
func crashRef(pkg, test string, tests map[string]*testbin.TestOutcome) selection.Ref {
	ref := selection.Ref{Package: pkg, Test: test}
	if t := tests[test]; t != nil {
		for _, s := range t.RunningSubtests {
			if r := selection.SubtestRef(pkg, s); len(r.Sub) > len(ref.Sub) {
				ref = r
			}
		}
	}
	return ref
}

// failedRefs are a failed test's refs for the killer map: its innermost
// failed subtests, else the test.
func failedRefs(pkg, test string, subtests []string) []selection.Ref {
	if len(subtests) == 0 {
		return []selection.Ref{{Package: pkg, Test: test}}
	}
	out := make([]selection.Ref, len(subtests))
	for i, s := range subtests {
		out[i] = selection.SubtestRef(pkg, s)
	}
	return out
}

func (v *verdict) result(res mutant.Result, m mutant.Mutant, expected map[string]bool) mutant.Result {
	sort.Strings(v.failed)
	res.ExitCode = v.exitCode
	res.Signal = v.signal
	res.TestsRun = len(v.ran)
	res.Excerpt = testbin.Limit(v.excerpt.String(), 4<<10)
	expectedRan := false
	for _, id := range v.ran {
		if expected[id] {
			expectedRan = true
		}
	}
	switch {
	case v.timedOut != "":
		res.Status, res.Why = mutant.TimedOut, "timed out: "+v.timedOut
		if v.signal != "" {
			res.Why += " (stopped with " + v.signal + ")"
		}
	case len(v.failed) > 0:
		res.Status, res.KilledBy = mutant.Killed, v.failed
		res.ExpectedKiller = anyIn(v.failed, expected)
		if m.Catalog != nil && !res.ExpectedKiller {
			res.Why = "killed by an unexpected test: " + strings.Join(v.failed, ", ") + "; expected " + strings.Join(mutant.TestIDStrings(m.Expected), ", ")
		}
	case m.Catalog != nil && !expectedRan && allSkipped(v.skipped, mutant.TestIDStrings(m.Expected)):
		res.Status, res.Why = mutant.NotRun, firstSkip(v.skipped, mutant.TestIDStrings(m.Expected))
	case m.Catalog != nil && !expectedRan:
		res.Status, res.Why = mutant.Error, "no expected killer ran ("+strings.Join(mutant.TestIDStrings(m.Expected), ", ")+"): no such test, or -run matched nothing"
	case len(v.ran) == 0 && len(v.skipped) > 0:
		res.Status, res.Why = mutant.NotRun, firstSkip(v.skipped, nil)
	case len(v.ran) == 0:
		res.Status, res.Why = mutant.Error, "no test ran under the selection (go test -run matched nothing)"
	default:
		res.Status = mutant.Survived
		res.Why = fmt.Sprintf("every selected test passed (%d ran)", len(v.ran))
		if m.Catalog != nil {
			res.Why = "the expected killers passed (" + strings.Join(mutant.TestIDStrings(m.Expected), ", ") + ")"
		}
	}
	return res
}

// expectedSet is a catalog mutant's expected killers as "pkgpath.TestName",
// the form test2json's results take.
func expectedSet(m mutant.Mutant) map[string]bool {
	set := map[string]bool{}
	for _, k := range m.Expected {
		set[k.String()] = true
	}
	return set
}

func allSkipped(skipped map[string]string, ids []string) bool {
	for _, id := range ids {
		if _, ok := skipped[id]; !ok {
			return false
		}
	}
	return len(ids) > 0
}

// firstSkip names the first skipped test and its message, preferring ids.
func firstSkip(skipped map[string]string, ids []string) string {
	for _, id := range ids {
		if msg, ok := skipped[id]; ok {
			return "skipped: " + id + ": " + msg
		}
	}
	var names []string
	for id := range skipped {
		names = append(names, id)
	}
	sort.Strings(names)
	return "skipped: " + names[0] + ": " + skipped[names[0]]
}

func anyIn(ids []string, set map[string]bool) bool {
	for _, id := range ids {
		if set[id] {
			return true
		}
	}
	return false
}

func prefixed(pkg string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pkg + "." + n
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
