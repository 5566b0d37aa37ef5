package mutants

import "gathermut/mutate/catalog"

// equivalentsGather are the generic mutants of package gather that cannot change
// behaviour, each with the reason.
func equivalentsGather() []catalog.Equivalent {
	return nil
}
