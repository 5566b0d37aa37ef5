package progress

import (
	"testing"

	"gathermut/mutate/mutant"
)

func TestVerboseLine(t *testing.T) {
	for _, c := range []struct {
		r    mutant.Result
		want string
	}{
		{mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestA"}}, "killed: id by m/p.TestA"},
		{mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestA", "m/p.TestB", "m/q.TestC"}}, "killed: id by m/p.TestA (and 2 more)"},
		{mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestB"}, Why: "killed by an unexpected test: m/p.TestB; expected m/p.TestA"},
			"killed: id killed by an unexpected test: m/p.TestB; expected m/p.TestA"},
		{mutant.Result{Status: mutant.Survived, Why: "every selected test passed (2 ran)"}, "survived: id every selected test passed (2 ran)"},
		{mutant.Result{Status: mutant.Unviable}, "unviable: id"},
		{mutant.Result{Status: mutant.Survived, Why: "not covered by any test"}, "not covered: id"},
	} {
		if got := verboseLine(mutant.Outcome{Mutant: mutant.Mutant{ID: "id"}, Result: c.r}); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
