package progress

import (
	"fmt"
	"strings"

	"gathermut/mutate/mutant"
)

// verboseLine is the line -v prints for a mutant as its verdict comes: the
// verdict, the id, and for a kill the test that killed it (the first, and
// how many more), otherwise why. A survivor no test covers is "not
// covered", apart from the survivors the tests ran and missed.
func verboseLine(o mutant.Outcome) string {
	r := o.Result
	if r.Status == mutant.Survived && r.Why == mutant.NotCovered {
		return "not covered: " + o.Mutant.ID
	}
	line := fmt.Sprintf("%s: %s", r.Status, o.Mutant.ID)
	switch {
	case r.Status == mutant.Killed && r.Why == "" && len(r.KilledBy) > 0:
		line += " by " + r.KilledBy[0]
		if n := len(r.KilledBy) - 1; n > 0 {
			line += fmt.Sprintf(" (and %d more)", n)
		}
	case r.Why != "":
		line += " " + r.Why
	}
	return strings.TrimSpace(line)
}
