package selection

import (
	"cmp"
	"slices"
	"time"
)

// Cost tiers of a mutant's covering tests of one package, by baseline
// time. go test runs the tests of one process in source order whatever
// -test.run says, and -test.failfast stops at the first failure, so a
// killed mutant pays for every test before its killer in that order. A
// package's selection therefore runs in processes of rising cost, each
// only if the ones before did not decide the mutant: the tiny tests
// (below TinyTest), then the other quick ones (below SlowTest), then each
// slow test alone, quickest first. A process costs about as much as a
// tiny test (10-30 ms on the row), little next to a quick or slow one.
//
// Tests of TailTest or more (a test that copies the module and runs go
// test on it costs tens of seconds) are the tail: they run after every
// other covering test of every package the mutant reaches, quickest
// first, so a cheaper test of an importer decides first where it can.
const (
	TinyTest = 25 * time.Millisecond
	SlowTest = 250 * time.Millisecond
	TailTest = 3 * time.Second
)

// Tiers splits one package's selection into the processes it runs in,
// in order, and its tail (see TailTest); empty tiers are left out, and
// ties among slow tests keep the selection's order, so the split depends
// only on the baseline. together keeps the whole selection in one
// process (a catalog mutant's expected killers must all run).
func Tiers[T any](tests []T, elapsed func(T) time.Duration, together bool) (tiers [][]T, tail []T) {
	if together {
		if len(tests) == 0 {
			return nil, nil
		}
		return [][]T{tests}, nil
	}
	var tiny, quick, slow []T
	for _, t := range tests {
		switch e := elapsed(t); {
		case e < TinyTest:
			tiny = append(tiny, t)
		case e < SlowTest:
			quick = append(quick, t)
		case e < TailTest:
			slow = append(slow, t)
		default:
			tail = append(tail, t)
		}
	}
	byTime := func(a, b T) int { return cmp.Compare(elapsed(a), elapsed(b)) }
	slices.SortStableFunc(slow, byTime)
	slices.SortStableFunc(tail, byTime)
	for _, g := range [][]T{tiny, quick} {
		if len(g) > 0 {
			tiers = append(tiers, g)
		}
	}
	for _, t := range slow {
		tiers = append(tiers, []T{t})
	}
	return tiers, tail
}
