package selection

import (
	"regexp"
	"strings"
)

// Ref names a test of a package, or one of its subtests: Sub is the
// subtest's path below the test ("Q4_K", "Q4_K/w1"), "" for the whole
// test.
type Ref struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Sub     string `json:"sub,omitempty"`
}

// String is "pkg.TestX" or "pkg.TestX/Sub", the form of the tool's
// verdicts.
func (r Ref) String() string {
	s := r.Package + "." + r.Test
	if r.Sub != "" {
		s += "/" + r.Sub
	}
	return s
}

// SubtestRef is the Ref of a subtest of package pkg by its full name as
// test2json gives it ("TestX/Q4_K/w1").
func SubtestRef(pkg, name string) Ref {
	test, sub, _ := strings.Cut(name, "/")
	return Ref{Package: pkg, Test: test, Sub: sub}
}

// Pattern is the -test.run pattern of one package's refs: each whole
// test, and each subtest under its test, as alternatives (go test splits
// a pattern at its top-level | into alternatives, each matched level by
// level at its slashes). A whole test covers its own subtests.
func Pattern(refs []Ref) string {
	whole := map[string]bool{}
	for _, r := range refs {
		if r.Sub == "" {
			whole[r.Test] = true
		}
	}
	var alts []string
	seen := map[string]bool{}
	for _, r := range refs {
		if r.Sub != "" && whole[r.Test] {
			continue
		}
		alt := "^" + regexp.QuoteMeta(r.Test) + "$"
		if r.Sub != "" {
			for _, level := range strings.Split(r.Sub, "/") {
				alt += "/^" + regexp.QuoteMeta(level) + "$"
			}
		}
		if !seen[alt] {
			seen[alt] = true
			alts = append(alts, alt)
		}
	}
	return strings.Join(alts, "|")
}
