package mutant

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestParseTestID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want TestID
		ok   bool
	}{
		{"gathermut/gguf.TestOpen", TestID{"gathermut/gguf", "TestOpen"}, true},
		{"example.com/m/v2.TestX", TestID{"example.com/m/v2", "TestX"}, true},
		{"TestOpen", TestID{}, false},
		{"gguf.", TestID{}, false},
		{".TestX", TestID{}, false},
		{"p.TestX/sub", TestID{}, false},
	} {
		got, err := ParseTestID(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		if c.ok && got.String() != c.in {
			t.Errorf("%q: written back as %q", c.in, got.String())
		}
	}
	ids, err := ParseTestIDs([]string{"p.TestA", "bad", "q.TestB"})
	if err == nil || !slices.Equal(TestIDStrings(ids), []string{"p.TestA", "q.TestB"}) {
		t.Errorf("ParseTestIDs: %v, %v", ids, err)
	}
}

// TestMutantJSON: a mutant's typed state and expected killers keep their
// JSON forms (the discovery cache, the incremental cache and the reports
// read them back), and a bad value is an error, not a silent zero.
func TestMutantJSON(t *testing.T) {
	m := Mutant{ID: "c", Kind: Go, Expected: []TestID{{"p", "TestK"}}, State: Unbuildable, Note: "undefined: x"}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Mutant
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.State != Unbuildable || back.Note != m.Note || !slices.Equal(back.Expected, m.Expected) {
		t.Errorf("round trip: %s -> %+v", data, back)
	}
	for _, bad := range []string{`{"state": "broken"}`, `{"expected": ["TestK"]}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	runnable, _ := json.Marshal(Mutant{ID: "g"})
	if string(runnable) != `{"id":"g","kind":"","package":"","file":"","func":"","pos":{"line":0,"column":0},"end":{"line":0,"column":0},"inBody":false,"bodyStart":{"line":0,"column":0},"bodyEnd":{"line":0,"column":0},"original":"","replacement":"","diff":""}` {
		t.Errorf("a runnable mutant writes a state: %s", runnable)
	}
}

func TestDecideKeepsTheFirstState(t *testing.T) {
	var m Mutant
	if !m.Runs() {
		t.Fatal("a new mutant does not run")
	}
	m.Decide(Equivalent, "no input tells it apart")
	m.Decide(Unbuildable, "undefined: x")
	if m.State != Equivalent || m.Note != "no input tells it apart" || m.Runs() {
		t.Errorf("%s %q", m.State, m.Note)
	}
}
