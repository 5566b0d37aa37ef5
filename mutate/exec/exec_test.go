package exec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/mutant"
)

func TestIsSourceFile(t *testing.T) {
	for path, want := range map[string]bool{
		"gguf/types.go": true, "go.mod": true, "go.sum": true, "hipkern/gather.hip": true, "hipkern/build.sh": true,
		"testdata/golden.bin": true, "mutate/testdata/fixture/x.kern": true, "reports/mutation.json": false, "README.md": false,
		"notes.txt": false, "testdata": false,
	} {
		if got := IsSourceFile(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

func TestHashTree(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		path := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module m\n")
	write("a/a.go", "package a\n")
	write("a/k.kern", "kernel\n")
	write(".git/HEAD", "ref\n")
	a, err := HashTree(dir, []string{"a/k.kern"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) != 3 {
		t.Errorf("files %v", a.Files)
	}
	write("reports/mutation.md", "# report\n")
	write(".git/HEAD", "other\n")
	b, _ := HashTree(dir, []string{"a/k.kern"})
	if b.Hash != a.Hash {
		t.Errorf("a report or .git changed the tree hash")
	}
	write("a/k.kern", "kernel!\n")
	write("a/b.go", "package a\n")
	c, _ := HashTree(dir, []string{"a/k.kern"})
	if c.Hash == a.Hash {
		t.Errorf("hash did not change")
	}
	if got := strings.Join(a.Changed(c), ","); got != "a/b.go,a/k.kern" {
		t.Errorf("changed %s", got)
	}
}

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

func TestParseEvents(t *testing.T) {
	lines := []string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: boom\n"}`,
		`{"Action":"run","Package":"p","Test":"TestA/sub"}`,
		`{"Action":"pass","Package":"p","Test":"TestA/sub","Elapsed":0.01}`,
		`{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0.5}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: no GPU here\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB","Elapsed":0}`,
		`{"Action":"run","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Output":"panic: oops\n"}`,
		`not json`,
	}
	res := &BinaryRun{Tests: map[string]*TestOutcome{}}
	pkgOut := parseEvents(strings.NewReader(strings.Join(lines, "\n")+"\n"), res)
	if a := res.Tests["TestA"]; a.Action != "fail" || a.Elapsed != 500*time.Millisecond || !strings.Contains(a.Output, "boom") {
		t.Errorf("TestA %+v", a)
	}
	if res.Tests["TestB"].Action != "skip" || SkipMessage(res.Tests["TestB"].Output) != "no GPU here" {
		t.Errorf("TestB %+v", res.Tests["TestB"])
	}
	if res.Tests["TestC"].Action != "run" || len(res.Tests) != 3 {
		t.Errorf("tests %+v", res.Tests)
	}
	if !strings.Contains(pkgOut.String(), "panic: oops") || !strings.Contains(pkgOut.String(), "not json") {
		t.Errorf("package output %q", pkgOut.String())
	}
	if got := strings.Join(res.Failed(), ","); got != "TestA" {
		t.Errorf("failed %s", got)
	}
	if got := strings.Join(res.Ran(), ","); got != "TestA" {
		t.Errorf("ran %s", got)
	}
}

func TestVerdicts(t *testing.T) {
	run := func(tests map[string]string, exit int, timedOut bool) *BinaryRun {
		r := &BinaryRun{Tests: map[string]*TestOutcome{}, ExitCode: exit, TimedOut: timedOut}
		for name, action := range tests {
			r.Tests[name] = &TestOutcome{Action: action, Output: "    x_test.go:1: message of " + name + "\n"}
		}
		return r
	}
	for _, c := range []struct {
		name    string
		run     *BinaryRun
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
			m = mutant.Mutant{ID: "c", Expected: []string{"p.TestK"}, Catalog: catalogEntry()}
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

func TestWriteOverlay(t *testing.T) {
	dir := t.TempDir()
	path, err := writeOverlay(dir, "/mod", mutant.Mutant{File: "a/b.go", Source: []byte("package a\n")})
	if err != nil {
		t.Fatal(err)
	}
	var ov Overlay
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	mutated := ov.Replace["/mod/a/b.go"]
	if got, _ := os.ReadFile(mutated); len(ov.Replace) != 1 || string(got) != "package a\n" || filepath.Dir(mutated) != dir {
		t.Errorf("overlay %s: %q", data, got)
	}
}

func TestSplitTestIDAndTimeout(t *testing.T) {
	if pkg, name, err := SplitTestID("gathermut/gguf.TestOpen"); err != nil || pkg != "gathermut/gguf" || name != "TestOpen" {
		t.Errorf("split: %q %q %v", pkg, name, err)
	}
	for _, bad := range []string{"TestOpen", "gguf.", ".TestX", "p.TestX/sub"} {
		if _, _, err := SplitTestID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	tests := []*TestBaseline{{Elapsed: time.Second}, {Elapsed: 2 * time.Second}}
	if got := timeoutFor(tests, 3, 10*time.Second); got != 19*time.Second {
		t.Errorf("timeout %s", got)
	}
}
