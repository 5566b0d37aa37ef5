//go:build tiny

package stack

// Limit is the most values a bounded stack holds in a tiny build. The
// default build does not compile this file, so the tool makes no mutant
// of it.
func Limit() int { return 4 * 2 }
