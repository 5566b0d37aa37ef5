package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/report/schematest"
)

// sarifLog is the part of a SARIF log the tests read.
type sarifLog struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID              string `json:"ruleId"`
			RuleIndex           int    `json:"ruleIndex"`
			Level               string `json:"level"`
			Message             struct{ Text string }
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Properties          map[string]any    `json:"properties"`
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					Region           struct {
						StartLine, StartColumn, EndLine, EndColumn int
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, data []byte) sarifLog {
	t.Helper()
	if err := schematest.ValidateSARIF(data); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{paths.Root, paths.Temp, paths.Home, paths.GoRoot} {
		if bytes.Contains(data, []byte(p)) {
			t.Errorf("the SARIF log names %s", p)
		}
	}
	var l sarifLog
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSARIF: the findings of a run with every verdict become one SARIF
// result each (a catalog mutant killed only by an unexpected test, a
// survivor, one no test covers, an error), valid against the official
// SARIF 2.1.0 schema, with the operator or catalog id as ruleId, the
// mutant's place, and the same findings as GitHub annotations.
func TestSARIF(t *testing.T) {
	r := report.Build(dirtyMeta("sarif"), dirty(), report.Inputs{Sources: map[string]string{"p/p.go": "package p\n\nfunc F(a, b int) int {\n\treturn a + b\n}\n"}, Tests: testLocs})
	r.Decide(report.Conditions{})
	data, err := report.SARIF(r)
	if err != nil {
		t.Fatal(err)
	}
	l := readSARIF(t, data)
	if l.Version != "2.1.0" || len(l.Runs) != 1 {
		t.Fatalf("version %q, %d runs", l.Version, len(l.Runs))
	}
	run := l.Runs[0]
	want := map[string]string{ // mutant id -> level
		"cat-entry":             "error",
		"arith:p/p.go:3:9:bbbb": "warning",
		"arith:p/p.go:3:9:cccc": "warning",
		"arith:p/p.go:3:9:gggg": "error",
	}
	if len(run.Results) != len(want) {
		t.Errorf("%d results, want %d", len(run.Results), len(want))
	}
	fps := map[string]bool{}
	for _, res := range run.Results {
		id, _ := res.Properties["mutantId"].(string)
		level, ok := want[id]
		if !ok || res.Level != level {
			t.Errorf("result for %q level %s (want one of %v)", id, res.Level, want)
		}
		wantRule := "arith"
		if id == "cat-entry" {
			wantRule = "cat-entry"
		}
		if res.RuleID != wantRule || run.Tool.Driver.Rules[res.RuleIndex].ID != wantRule {
			t.Errorf("%s: ruleId %s, rule %d", id, res.RuleID, res.RuleIndex)
		}
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI != "p/p.go" ||
			res.Locations[0].PhysicalLocation.Region.StartLine != 3 || res.Locations[0].PhysicalLocation.Region.EndColumn != 14 {
			t.Errorf("%s: locations %+v", id, res.Locations)
		}
		fp := res.PartialFingerprints[report.FingerprintKey]
		if fp == "" || (fps[fp] && id != "arith:p/p.go:3:9:bbbb" && id != "arith:p/p.go:3:9:cccc" && id != "arith:p/p.go:3:9:gggg") {
			t.Errorf("%s: fingerprint %q", id, fp)
		}
		fps[fp] = true
		if rerun, _ := res.Properties["rerun"].(string); !strings.HasPrefix(rerun, "go run ./mutate run ") || !strings.Contains(res.Message.Text, rerun) {
			t.Errorf("%s: rerun %q, message %q", id, rerun, res.Message.Text)
		}
	}

	var ann bytes.Buffer
	if err := report.GitHubAnnotations(&ann, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(ann.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d annotations, want %d:\n%s", len(lines), len(want), ann.String())
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "::warning file=p/p.go,line=3,col=9,endLine=3,endColumn=14,title=mutant ") &&
			!strings.HasPrefix(line, "::error file=p/p.go,line=3,col=9,endLine=3,endColumn=14,title=mutant ") {
			t.Errorf("annotation %q", line)
		}
		if strings.Count(line, "::") != 2 {
			t.Errorf("annotation with an unescaped :: %q", line)
		}
	}
	if !strings.Contains(ann.String(), "title=mutant cat-entry catalog mutant not killed by its expected test::Catalog mutant cat-entry") {
		t.Errorf("the catalog finding's annotation:\n%s", ann.String())
	}
}

// TestSARIFFingerprintStable: a survivor keeps its fingerprint when code
// above it moves it down (its id, which holds the line, changes), and
// two identical changes in one function keep apart.
func TestSARIFFingerprintStable(t *testing.T) {
	const before = "package p\n\nfunc F(a, b int) int {\n\tx := a + b\n\treturn x + (a + b)\n}\n"
	const after = "package p\n\n// F adds.\n// More words.\nfunc F(a, b int) int {\n\tx := a + b\n\treturn x + (a + b)\n}\n"
	survivor := func(line, col int) mutant.Outcome {
		o := gen("", mutant.Survived, "every selected test passed (1 ran)")
		o.Mutant.Pos, o.Mutant.End = mutant.Position{Line: line, Column: col}, mutant.Position{Line: line, Column: col + 5}
		o.Mutant.BodyStart = mutant.Position{Line: line - 1, Column: 22}
		if col == 14 {
			o.Mutant.BodyStart.Line = line - 2
		}
		o.Mutant.ID = mutant.MakeID("arith", "p/p.go", o.Mutant.Pos, "a - b")
		return o
	}
	prints := func(src string, first int) map[string]string {
		r := report.Build(dirtyMeta("fp"), []mutant.Outcome{survivor(first, 7), survivor(first+1, 14)}, report.Inputs{Sources: map[string]string{"p/p.go": src}})
		data, err := report.SARIF(r)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, res := range readSARIF(t, data).Runs[0].Results {
			out[res.PartialFingerprints[report.FingerprintKey]] = res.Properties["mutantId"].(string)
		}
		return out
	}
	a, b := prints(before, 4), prints(after, 6)
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("fingerprints not distinct: %v, %v", a, b)
	}
	for fp, id := range a {
		if b[fp] == "" || b[fp] == id {
			t.Errorf("mutant %s: fingerprint %s not found after the move (%v)", id, fp, b)
		}
	}
}

// TestWriteExtras: --sarif writes the log where it is asked to, and
// --annotations github prints the annotations; a bad format is refused
// by the configuration.
func TestWriteExtras(t *testing.T) {
	r := report.Build(dirtyMeta("x"), dirty(), report.Inputs{})
	r.Decide(report.Conditions{})
	cfg := config.Default()
	cfg.SARIF = filepath.Join(t.TempDir(), "sub", "x.sarif")
	cfg.Annotations = config.AnnotationsGitHub
	var out bytes.Buffer
	if err := report.WriteExtras(cfg, r, &out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cfg.SARIF)
	if err != nil {
		t.Fatal(err)
	}
	if l := readSARIF(t, data); len(l.Runs[0].Results) != 4 {
		t.Errorf("%d results", len(l.Runs[0].Results))
	}
	if n := strings.Count(out.String(), "\n::"); n != 3 || !strings.HasPrefix(out.String(), "::") {
		t.Errorf("annotations:\n%s", out.String())
	}
	cfg.Annotations = "gitlab"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "gitlab") {
		t.Errorf("--annotations gitlab: %v", err)
	}
}
