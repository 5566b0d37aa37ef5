//go:build !tiny

package stack

// Limit is the most values a bounded stack holds in the default build.
func Limit() int { return 64 } // want killed
