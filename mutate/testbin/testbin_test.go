package testbin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
	res := &Result{Tests: map[string]*TestOutcome{}}
	pkgOut := parseEvents(strings.NewReader(strings.Join(lines, "\n")+"\n"), res, nil)
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

func TestWriteOverlay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "o.json")
	if err := WriteOverlay(path, map[string]string{"/mod/a/b.go": "/tmp/x/b.go"}); err != nil {
		t.Fatal(err)
	}
	var ov Overlay
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	if len(ov.Replace) != 1 || ov.Replace["/mod/a/b.go"] != "/tmp/x/b.go" {
		t.Errorf("overlay %s", data)
	}
}

// TestTestTimeout: a test that runs past its own limit ends the run as
// timed out, naming the test, long before the run's limit; the binary
// gets -test.timeout as a backstop.
func TestTestTimeout(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module h\n\ngo 1.26\n",
		"h_test.go": `package h

import "testing"

func TestQuick(t *testing.T) {}

func TestHang(t *testing.T) {
	for {
	}
}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "h.test")
	if _, out, err := Go(context.Background(), dir, "test", "-c", "-o", bin, "."); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	res, err := Run(context.Background(), Options{
		Binary: bin, Dir: dir, Package: "h",
		Timeout:     10 * time.Minute,
		TestTimeout: func(string) time.Duration { return 200 * time.Millisecond },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.TimedOutTest != "TestHang" || res.Tests["TestQuick"].Action != "pass" {
		t.Errorf("timed out %v (test %q), tests %+v", res.TimedOut, res.TimedOutTest, res.Tests)
	}
	if !strings.Contains(res.Command, "-test.timeout 21m0s") {
		t.Errorf("no -test.timeout backstop in %s", res.Command)
	}
}
