package mutants

import "gathermut/mutate/catalog"

// equivalentsEngine are the generic mutants of package engine that cannot change
// behaviour, each with the reason.
func equivalentsEngine() []catalog.Equivalent {
	return nil
}
