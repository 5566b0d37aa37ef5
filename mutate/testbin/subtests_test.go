package testbin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// subtestEvents are test2json events of a table-driven test: a nested
// subtest fails (its parents fail after it), a sibling passes, another
// top-level subtest fails on its own.
const subtestEvents = `{"Action":"run","Test":"TestTable"}
{"Action":"run","Test":"TestTable/Q4_K"}
{"Action":"run","Test":"TestTable/Q4_K/w1"}
{"Action":"fail","Test":"TestTable/Q4_K/w1","Elapsed":0.01}
{"Action":"fail","Test":"TestTable/Q4_K","Elapsed":0.01}
{"Action":"run","Test":"TestTable/Q8_0"}
{"Action":"pass","Test":"TestTable/Q8_0","Elapsed":0.01}
{"Action":"run","Test":"TestTable/IQ2_S"}
{"Action":"fail","Test":"TestTable/IQ2_S","Elapsed":0.01}
{"Action":"fail","Test":"TestTable","Elapsed":0.03}
{"Action":"run","Test":"TestPlain"}
{"Action":"fail","Test":"TestPlain","Elapsed":0.01}
`

// TestFailedSubtests: a test's innermost failing subtests are recorded
// by their full names, parents left out; a test without subtests has
// none.
func TestFailedSubtests(t *testing.T) {
	res := &Result{Tests: map[string]*TestOutcome{}}
	parseEvents(strings.NewReader(subtestEvents), res, nil)
	cases := []struct {
		test string
		want []string
	}{
		{"TestTable", []string{"TestTable/Q4_K/w1", "TestTable/IQ2_S"}},
		{"TestPlain", nil},
	}
	for _, c := range cases {
		t.Run(c.test, func(t *testing.T) {
			got := res.Tests[c.test]
			if got == nil || got.Action != "fail" {
				t.Fatalf("outcome %+v", got)
			}
			if !slices.Equal(got.FailedSubtests, c.want) {
				t.Errorf("failed subtests %q, want %q", got.FailedSubtests, c.want)
			}
		})
	}
}

// TestProcessLog: with ProcessLogVar set, a run appends its line.
func TestProcessLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "procs.jsonl")
	t.Setenv(ProcessLogVar, path)
	processLog.once = sync.Once{}
	processLog.f = nil
	defer func() { processLog.once, processLog.f = sync.Once{}, nil }()
	logProcess(Options{Package: "m/p", Run: "^TestX$"}, 1500*time.Millisecond, 1, true)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"package":"m/p","run":"^TestX$","seconds":1.5,"exit":1,"timedOut":true}` + "\n"
	if string(data) != want {
		t.Errorf("log %q, want %q", data, want)
	}
}

// crashEvents: a subtest ends, another (nested) is running when the
// output stops.
const crashEvents = `{"Action":"run","Test":"TestCrash"}
{"Action":"run","Test":"TestCrash/Q8_0"}
{"Action":"pass","Test":"TestCrash/Q8_0","Elapsed":0.01}
{"Action":"run","Test":"TestCrash/Q4_K"}
{"Action":"run","Test":"TestCrash/Q4_K/w1"}
{"Action":"output","Test":"TestCrash/Q4_K/w1","Output":"panic: boom\n"}
`

// TestRunningSubtests: the subtests running when a process's output
// stops are recorded; ended ones are not.
func TestRunningSubtests(t *testing.T) {
	res := &Result{Tests: map[string]*TestOutcome{}}
	parseEvents(strings.NewReader(crashEvents), res, nil)
	got := res.Tests["TestCrash"]
	if want := []string{"TestCrash/Q4_K", "TestCrash/Q4_K/w1"}; got == nil || got.Action != "run" || !slices.Equal(got.RunningSubtests, want) {
		t.Errorf("outcome %+v, want running %q", got, want)
	}
}
