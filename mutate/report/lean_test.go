package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// keptExcerpt reports whether the JSON keeps o's test output: a
// survivor's, an error's, an unviable mutant's build error, every
// catalog mutant's (its evidence).
func keptExcerpt(o mutant.Outcome) bool {
	switch o.Result.Status {
	case mutant.Survived, mutant.Error, mutant.Unviable:
		return true
	}
	return o.Mutant.Catalog != nil || o.Result.CatalogFailure(o.Mutant)
}

// TestLeanKeepsExcerptsOfFindings: the JSON keeps the test output of
// what a reviewer acts on, not of every killed mutant (most of the row's
// report before), whose failure line stays in its status reason.
func TestLeanKeepsExcerptsOfFindings(t *testing.T) {
	const src = "package p\n\n// F adds.\nfunc F(a, b int) int {\n\treturn a + b\n}\n"
	all := leanOutcomes(src)
	for i := range all {
		all[i].Result.Excerpt = "--- FAIL: TestA (0.00s)\n    p_test.go:9: got 1, want 3 (" + all[i].Mutant.ID + ")\n"
	}
	r := report.Build(dirtyMeta("lean"), all, report.Inputs{Sources: map[string]string{"p/p.go": src}, Tests: testLocs})
	r.Decide(outcome.Conditions{})
	jsonPath, _, err := report.Write(t.TempDir(), r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.Read(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Outcomes()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, o := range got {
		kinds[string(o.Result.Status)+fmt.Sprint(keptExcerpt(o))] = true
		t.Run(o.Mutant.ID, func(t *testing.T) {
			if want := keptExcerpt(o); (o.Result.Excerpt != "") != want {
				t.Errorf("%s: excerpt %q, want kept %v", o.Result.Status, o.Result.Excerpt, want)
			}
		})
	}
	if !kinds["killedfalse"] || !kinds["survivedtrue"] {
		t.Errorf("the fixture lacks a killed or a surviving mutant: %v", kinds)
	}
	for _, f := range back.Files {
		for _, m := range f.Mutants {
			if m.Status == "Killed" && m.Gathermut.Mutant.Catalog == nil && !strings.Contains(m.StatusReason, "got 1, want 3") {
				t.Errorf("%s: status reason %q lost the failure line", m.ID, m.StatusReason)
			}
		}
	}
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
		if !keptExcerpt(a[i]) {
			a[i].Result.Excerpt = "" // the JSON keeps the output of findings only
		}
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
