package mutants

import "gathermut/mutate/catalog"

// equivalentsHipkern are the generic mutants of package hipkern that cannot change
// behaviour, each with the reason.
func equivalentsHipkern() []catalog.Equivalent {
	return nil
}
