// Package clamp is written as a module without a go line (go 1.16) is: no generics, no
// min or max, no clear, interface{} rather than any. The schema build
// and the test wrapper must compile at this language version.
package clamp

// Limit bounds Clamp.
const Limit = 10

// Clamp returns n within [0, Limit].
func Clamp(n int) int {
	if n > Limit {
		return Limit
	}
	if n < 0 {
		n = 0
	}
	return n
}

// Sum adds xs.
func Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

// Pick returns a when ok, else b.
func Pick(ok bool, a, b interface{}) interface{} {
	if ok {
		return a
	}
	return b
}
