package operator

import (
	"strings"
	"testing"
)

// discardSrc has, per function, returns whose other results a caller may
// or may not look at.
const discardSrc = `package p

import (
	"errors"
	"fmt"
)

type myErr struct{ code int }

func (e *myErr) Error() string { return "my" }

type valErr struct{}

func (valErr) Error() string { return "val" }

var log []int

var _, _ = fmt.Sprint, errors.Is // the imports stay used when a mutant drops a call

func record(n int) int { log = append(log, n); return n }

func check() error { return nil }

func concrete(n int) (int, error) {
	if n < 0 {
		return 7, &myErr{}
	}
	return n, nil
}

func value() (int, error) { return 7, valErr{} }

func errorf() (int, error) { return 7, fmt.Errorf("x") }

func errorsNew() (int, bool, error) { return 7, true, errors.New("x") }

func negative() (int, error) { return -1, &myErr{} }

func guarded() (int, error) {
	if err := check(); err != nil {
		return 7, err
	}
	return 0, nil
}

func guardedAnd(ok bool) (int, error) {
	err := check()
	if ok && err != nil {
		return 7, err
	}
	return 0, nil
}

func reassigned() (int, error) {
	err := check()
	if err != nil {
		err = check()
		return 7, err
	}
	return 0, nil
}

func elseBranch() (int, error) {
	err := check()
	if err != nil {
		log = nil
	} else {
		return 7, err
	}
	return 0, nil
}

func maybeNil() (int, error) { return 7, check() }

func nilErr() (int, error) { return 7, nil }

func notError() (int, string) { return 7, "x" }

func effectful() (int, error) { return record(7), &myErr{} }

func pure(s string) (int64, error) { return int64(len(s) + 7), &myErr{} }

func errField() (int, error) { return 0, &myErr{code: 7} }

func closure() func() (int, error) {
	return func() (int, error) { return 7, &myErr{} }
}

var errSentinel = errors.New("sentinel")

var errMoved = fmt.Errorf("moved")

func init() { errMoved = check() }

var errOther = check()

func sentinel() (int, error) { return 7, errSentinel }

func moved() (int, error) { return 7, errMoved }

func other() (int, error) { return 7, errOther }
`

func TestDiscardedResults(t *testing.T) {
	got := mutantsOf(t, discardSrc, "const-int", "zero-return", "unary-minus", "arith")
	for _, c := range []struct {
		mutant string
		made   bool // false: the result is discarded, no mutant
	}{
		// a concrete error type, fmt.Errorf, errors.New: certainly non-nil
		{"const-int concrete: 7 -> 8", false},
		{"zero-return concrete: 7 -> 0", false},
		{"zero-return concrete: &myErr{} -> nil", true},
		{"zero-return concrete: n -> 0", true},
		{"const-int value: 7 -> 8", false},
		{"const-int errorf: 7 -> 8", false},
		{"zero-return errorf: fmt.Errorf(\"x\") -> nil", true},
		{"const-int errorsNew: 7 -> 8", false},
		{"zero-return errorsNew: true -> false", false},
		{"unary-minus negative: -1 -> 1", false},
		// a variable under "if v != nil" that the body leaves alone
		{"const-int guarded: 7 -> 8", false},
		{"const-int guardedAnd: 7 -> 8", false},
		{"const-int reassigned: 7 -> 8", true},
		{"const-int elseBranch: 7 -> 8", true},
		// the error may be nil, or there is no error result
		{"const-int maybeNil: 7 -> 8", true},
		{"const-int nilErr: 7 -> 8", true},
		{"const-int notError: 7 -> 8", true},
		// a call with effects is kept; conversions and len are not calls
		{"const-int effectful: 7 -> 8", true},
		{"const-int pure: 7 -> 8", false},
		{"arith pure: len(s) + 7 -> len(s) - 7", false},
		// the error itself is mutated as before
		{"const-int errField: 7 -> 8", true},
		// function literals follow their own signature
		{"const-int closure: 7 -> 8", false},
		{"zero-return closure: &myErr{} -> nil", true},
		// a package-level sentinel from errors.New or fmt.Errorf, never
		// assigned; not one assigned elsewhere, nor one of another origin
		{"const-int sentinel: 7 -> 8", false},
		{"zero-return sentinel: errSentinel -> nil", true},
		{"const-int moved: 7 -> 8", true},
		{"const-int other: 7 -> 8", true},
	} {
		if made := count(got, c.mutant) == 1; made != c.made {
			t.Errorf("%q made: %v, want %v", c.mutant, made, c.made)
		}
	}
	if t.Failed() {
		t.Logf("mutants:\n%s", strings.Join(got, "\n"))
	}
}
