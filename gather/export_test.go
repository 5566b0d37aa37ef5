package gather

// Hooks for the package's external tests (package gather_test), which use
// package gathertest and so cannot live in this package.

// GatherInRanges runs a CPU provider's gather, validated by prepareRows
// like the provider's own, in exactly workers row ranges whatever the
// request's size.
func GatherInRanges(p Provider, out, table, ids *Tensor, workers int) error {
	j, err := prepareRows(p, out, table, ids)
	if j == nil {
		return err
	}
	rows := (*rowJob).quantRows
	if j.codec == nil {
		rows = (*rowJob).floatRows
	}
	runRanges(splitRows(j.rows, workers), func(lo, hi int) { rows(j, lo, hi) })
	return nil
}

// WorkersFor is workersFor.
var WorkersFor = workersFor
