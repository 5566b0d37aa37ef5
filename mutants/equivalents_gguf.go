package mutants

import "gathermut/mutate/catalog"

// equivalentsGGUF are the generic mutants of package gguf that cannot change
// behaviour, each with the reason.
func equivalentsGGUF() []catalog.Equivalent {
	return nil
}
