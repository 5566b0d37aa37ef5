// Package stack has a generic type and a build-tagged pair of files: the
// tool must mutate the file the default build uses and leave the other.
package stack

import "cmp"

// Stack is a last-in, first-out stack of T.
type Stack[T any] struct {
	items []T
}

// Push adds v on top.
func (s *Stack[T]) Push(v T) {
	s.items = append(s.items, v) // want killed
}

// Pop removes and returns the top value; ok is false when s is empty.
func (s *Stack[T]) Pop() (v T, ok bool) {
	n := len(s.items)
	if n == 0 { // want killed
		// v is still zero here: zero-return's *new(T) is the same value
		return v, false // want survived
	}
	v = s.items[n-1]        // want killed
	s.items = s.items[:n-1] // want killed
	return v, true          // want killed
}

// Len is the number of values on s.
func (s *Stack[T]) Len() int { return len(s.items) } // want killed

// Max is the larger of a and b.
func Max[T cmp.Ordered](a, b T) T {
	// a >= b returns an equal value: boundary's mutant is equivalent
	if a > b { // want killed boundary=survived
		return a // want killed
	}
	return b // want killed
}
