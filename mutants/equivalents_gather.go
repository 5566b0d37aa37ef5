package mutants

import "gathermut/mutate/catalog"

// equivalentsGather are the generic mutants of package gather that cannot
// change behaviour, each with the reason. There are none: the decoders take
// whole runs of blocks and step through them by their own geometry, so no
// statement of theirs is a mere bounds-check hint (the per-block reslices of
// the former one-block decoders were).
func equivalentsGather() []catalog.Equivalent {
	return nil
}
