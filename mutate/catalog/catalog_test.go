package catalog

import (
	"encoding/json"
	"strings"
	"testing"
)

// The mutate command reads catalogs as JSON; these field names are the
// contract with modules that declare their own catalog types.
func TestJSONShape(t *testing.T) {
	c := Catalog{
		Entries:     []Entry{{ID: "x", Class: 1, Operator: DeleteCall, Target: Target{Package: "p", Func: "F", Match: "f"}, Killers: []string{"p.TestF"}, Reason: "r"}},
		Equivalents: []Equivalent{{Package: "p", Reason: "r"}},
		Kernel:      &Kernel{Sources: []string{"k/*.hip"}, Build: []string{"sh", "{src}", "{out}"}, LibEnv: "LIB", Package: "p", Tools: []string{"hipcc"}},
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"Entries"`, `"ID":"x"`, `"Class":1`, `"Operator":"delete-call"`, `"Target":{"Package":"p","File":"","Func":"F","Match":"f","Field":""}`,
		`"Replacement"`, `"Killers":["p.TestF"]`, `"Equivalents"`, `"Original"`, `"Kernel":{"Sources"`, `"LibEnv":"LIB"`, `"Tools":["hipcc"]`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON has no %s: %s", key, data)
		}
	}
	var back Catalog
	if err := json.Unmarshal(data, &back); err != nil || back.Entries[0].Target.Func != "F" || back.Kernel.Build[2] != "{out}" {
		t.Errorf("round trip: %+v %v", back, err)
	}
	for op, want := range map[Operator]string{DeleteCall: "delete-call", DeleteElement: "delete-element", ReplaceValue: "replace-value", ReplaceExpr: "replace-expr", KernelText: "kernel-text"} {
		if string(op) != want {
			t.Errorf("%s != %s", op, want)
		}
	}
}
