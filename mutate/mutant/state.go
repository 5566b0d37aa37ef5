package mutant

import (
	"fmt"
	"strings"
)

// State is what discovery decided about a mutant before any test: whether
// the tests judge it, and if not, why not. A mutant is in exactly one
// state; Mutant.Note says why for every state but Runnable.
type State uint8

const (
	// Runnable: made and type-checked; building and testing it decide
	// its verdict.
	Runnable State = iota
	// Invalid: it could not be made (a catalog entry that does not
	// resolve, names a malformed killer, or changes nothing). Reported as
	// an error.
	Invalid
	// Equivalent: declared equivalent (a //gathermut:equivalent comment or
	// a catalog Equivalent). Reported as ignored, never type-checked.
	Equivalent
	// Unbuildable: go test would not build it: it does not type-check,
	// or fails the go vet checks go test runs (the note then starts with
	// operator.VetPrefix). Reported as unviable, outside the score.
	Unbuildable
)

var stateNames = [...]string{Runnable: "runnable", Invalid: "invalid", Equivalent: "equivalent", Unbuildable: "unbuildable"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// MarshalText writes the state's name.
func (s State) MarshalText() ([]byte, error) {
	if int(s) >= len(stateNames) {
		return nil, fmt.Errorf("mutant: no state %d", uint8(s))
	}
	return []byte(stateNames[s]), nil
}

// UnmarshalText reads a state's name.
func (s *State) UnmarshalText(text []byte) error {
	for i, name := range stateNames {
		if string(text) == name {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("mutant: unknown state %q (want one of %s)", text, strings.Join(stateNames[:], ", "))
}

// Runs reports whether tests judge m: its state is Runnable.
func (m Mutant) Runs() bool { return m.State == Runnable }

// Decide sets m's state and the note that says why; a mutant already
// decided keeps its first state (an equivalent is not type-checked, so it
// is never found unviable).
func (m *Mutant) Decide(s State, note string) {
	if m.State == Runnable {
		m.State, m.Note = s, note
	}
}
