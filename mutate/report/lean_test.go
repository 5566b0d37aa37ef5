package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
	"gathermut/mutate/report"
	"gathermut/mutate/report/schematest"
)

// leanOutcomes is dirty() with what a real run has besides: edits whose
// diffs the source gives back, and schema and overlay commands.
func leanOutcomes(src string) []mutant.Outcome {
	all := dirty()
	at := strings.Index(src, "a + b")
	for i := range all {
		m := &all[i].Mutant
		if m.Kind != mutant.Go {
			continue
		}
		e := mutant.Edit{Start: at + 2, End: at + 3, Text: "-"}
		m.Edit = &e
		m.Diff = mutant.EditDiff(m.File, []byte(src), e)
		if i%2 == 0 {
			all[i].Result.Commands = []string{
				"(cd . && go test -c -o $TMP/schema/r1/gathermut_p.test -overlay $TMP/schema/r1/overlay.json gathermut/p)",
				"(cd p && GATHERMUT_MUTANT=" + string(rune('1'+i)) + " go tool test2json -t -p gathermut/p $TMP/schema/r1/gathermut_p.test -test.run '^(TestA)$')",
			}
		}
	}
	all[2].Mutant.Diff += "an odd diff no edit gives\n" // kept as it is
	all[5].Mutant.Diff = ""                             // stays empty
	return all
}

// TestLeanJSON: the JSON file is lean (no indentation, short test ids,
// commands as templates, diffs as edits, no rerun command) and Read gives
// back exactly the report that was written: every outcome, test id and
// rerun command.
func TestLeanJSON(t *testing.T) {
	const src = "package p\n\n// F adds.\nfunc F(a, b int) int {\n\treturn a + b\n}\n"
	r := report.Build(dirtyMeta("lean"), leanOutcomes(src), report.Inputs{Sources: map[string]string{"p/p.go": src}, Tests: testLocs})
	r.Decide(outcome.Conditions{})
	dir := t.TempDir()
	jsonPath, _, err := report.Write(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := schematest.ValidateFile(jsonPath, paths.Root, paths.Temp, paths.Home); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(jsonPath)
	if bytes.Count(data, []byte("\n")) != 1 {
		t.Errorf("the JSON is indented")
	}
	for _, s := range []string{`"rerun"`, `"killedBy":["gathermut`, `"coveredBy":["gathermut`, `GATHERMUT_MUTANT=1 `, `"file":"p/p.go"`, `\u003c`} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the lean JSON holds %s", s)
		}
	}
	if !bytes.Contains(data, []byte(`an odd diff no edit gives\n"`)) {
		t.Errorf("a diff no edit gives back was dropped")
	}
	back, err := report.Read(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	sameReport(t, r, back)
}

func sameReport(t *testing.T, want, got *report.Report) {
	t.Helper()
	a, err := want.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	b, err := got.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d outcomes read back, want %d", len(b), len(a))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Errorf("outcome %s read back as\n%+v\nwant\n%+v", a[i].Mutant.ID, b[i], a[i])
		}
	}
	if !reflect.DeepEqual(want.TestFiles, got.TestFiles) {
		t.Errorf("testFiles read back differ")
	}
	for p, f := range want.Files {
		for i, m := range f.Mutants {
			g := got.Files[p].Mutants[i]
			if g.Gathermut.Rerun != m.Gathermut.Rerun || !reflect.DeepEqual(g.KilledBy, m.KilledBy) || !reflect.DeepEqual(g.CoveredBy, m.CoveredBy) || g.StatusReason != m.StatusReason {
				t.Errorf("%s: read back rerun %q killedBy %v coveredBy %v, want %q %v %v", m.ID, g.Gathermut.Rerun, g.KilledBy, g.CoveredBy, m.Gathermut.Rerun, m.KilledBy, m.CoveredBy)
			}
		}
	}
	if w, g := want.Gathermut, got.Gathermut; w.Name != g.Name || !reflect.DeepEqual(w.Summary, g.Summary) || len(g.Tests) != 0 || len(g.Commands) != 0 {
		t.Errorf("run data read back: %+v", g)
	}
}

// TestLeanReadsCommittedReport: a committed report of the row reads,
// writes lean (no larger: smaller when it was written before the lean
// form, the same size when it is lean already) and reads back the same.
func TestLeanReadsCommittedReport(t *testing.T) {
	const committed = "../../reports/gather-row-gpu.json"
	old, err := report.Read(committed)
	if err != nil {
		t.Skipf("no committed report: %v", err)
	}
	dir := t.TempDir()
	jsonPath, _, err := report.Write(dir, old)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(committed)
	after, _ := os.Stat(jsonPath)
	if after.Size() > before.Size() {
		t.Errorf("lean %d bytes, committed %d", after.Size(), before.Size())
	}
	if err := schematest.ValidateFile(jsonPath); err != nil {
		t.Fatal(err)
	}
	back, err := report.Read(filepath.Clean(jsonPath))
	if err != nil {
		t.Fatal(err)
	}
	sameReport(t, old, back)
	var raw map[string]json.RawMessage
	data, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
}
