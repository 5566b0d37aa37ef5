package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// nestedFixture is a module whose only test builds its command with go
// build (and go run) and runs the binary: no test calls its code in
// process.
const nestedFixture = "testdata/nested"

// nestedBuild is one go command the fixture's test ran, from its log.
type nestedBuild struct {
	what     string // build or run
	compiled bool   // it compiled package main (not from the build cache)
	seconds  float64
}

func readNestedLog(t *testing.T, path string) []nestedBuild {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the fixture's test logged no go command: %v", err)
	}
	defer f.Close()
	var out []nestedBuild
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			t.Fatalf("log line %q", sc.Text())
		}
		secs, err := strconv.ParseFloat(strings.TrimPrefix(fields[2], "seconds="), 64)
		if err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, nestedBuild{what: fields[0], compiled: fields[1] == "compiled=true", seconds: secs})
	}
	return out
}

// nestedWithoutSchemata picks the mutants the run without schemata judges:
// those of the line the test's output shows (killed by the binary the
// test builds, or unviable) and of the uncalled function (not covered,
// though the binary's -cover counters are read): each kind once, not
// every mutant a second time.
const nestedWithoutSchemata = "*:main.go:23:*,*:main.go:29:*"

// TestNestedBuildFixture: a mutant in a command whose test only builds
// and runs it is judged against the mutant, with schemata and without:
// the test's go build and go run get the overlay of the test binary they
// run in (GOFLAGS), the built binary inherits the schema switch and counts
// its coverage in the test's hits file (without schemata: its -cover
// counters are added to the test's profile). Every mutant gets the
// verdict written on its line, the same in both modes (without schemata,
// on the mutants of nestedWithoutSchemata); the uncalled function's
// mutants survive as not covered. With schemata, every process builds the
// same overlay, so the nested builds after the baseline's come from the
// build cache (it logs whether each compiled package main).
func TestNestedBuildFixture(t *testing.T) {
	wants := readWants(t, nestedFixture)
	reports := t.TempDir()
	logs := t.TempDir()
	modes := map[string][]string{"schema": {"all"}, "overlay": {"run", nestedWithoutSchemata, "--no-schemata"}}
	outcomes := map[string]map[string]mutant.Outcome{}
	for _, name := range []string{"schema", "overlay"} {
		// a generous floor: a nested build of a mutant compiles, and
		// the machine may be busy; no mutant here hangs
		args := append(modes[name], "--report-dir", reports, "--name", name, "-j", "2", "--timeout-floor", "60s")
		res := runTool(t, nestedFixture, []string{"NESTED_FIXTURE_LOG=" + filepath.Join(logs, name+".log")}, args...)
		if res.code != exitcode.Survivors {
			t.Fatalf("%s run: exit %d, want %d (the uncalled function's survivors)\n%s%s", name, res.code, exitcode.Survivors, res.stdout, res.stderr)
		}
		_, outcomes[name] = readReport(t, filepath.Join(reports, name+".json"))
		checkVerdicts(t, wants, outcomes[name])
	}
	killed := map[string]int{}
	for id, s := range outcomes["schema"] {
		if s.Result.Status == mutant.Killed {
			killed[string(s.Result.Mode)]++
		}
		if s.Result.Status == mutant.Survived && s.Result.Why != "not covered by any test" {
			t.Errorf("%s survived: %s; want not covered", id, s.Result.Why)
		}
	}
	overlayKilled := 0
	for id, o := range outcomes["overlay"] {
		if s := outcomes["schema"][id]; s.Result.Status != o.Result.Status {
			t.Errorf("%s: %s with schemata, %s without", id, s.Result.Status, o.Result.Status)
		}
		if o.Result.Status == mutant.Killed && o.Result.Mode == mutant.ModeOverlay {
			overlayKilled++
		}
	}
	if killed[string(mutant.ModeSchema)] < 5 || overlayKilled == 0 || len(outcomes["overlay"]) < 3 {
		t.Errorf("killed by mode %v with schemata, %d of %d without: want most killed in the schema binary, and some without", killed, overlayKilled, len(outcomes["overlay"]))
	}

	// the cost of the nested builds, and the build cache with schemata
	for name := range modes {
		builds := readNestedLog(t, filepath.Join(logs, name+".log"))
		compiled, sum := 0, map[string]float64{}
		count := map[string]int{}
		for _, b := range builds {
			if b.compiled {
				compiled++
			}
			sum[b.what] += b.seconds
			count[b.what]++
		}
		t.Logf("%s: %d nested go commands, %d compiled package main; go build %.2f s and go run %.2f s on average",
			name, len(builds), compiled, sum["build"]/float64(max(count["build"], 1)), sum["run"]/float64(max(count["run"], 1)))
		// with schemata the two baseline processes (the test alone and
		// with the others, at once) may each compile; every later one
		// takes package main from the build cache
		if name == "schema" && (compiled > 4 || len(builds) < 10) {
			t.Errorf("schema run: %d of %d nested go commands compiled package main; want the cache to serve all after the baseline's", compiled, len(builds))
		}
	}
}
