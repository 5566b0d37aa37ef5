package mutant

import (
	"fmt"
	"strings"
)

// TestID names one top-level test: its package's import path and its
// name. It is written "pkgpath.TestName" (in the catalog, JSON and
// reports) and parsed once, where a catalog entry becomes a mutant.
type TestID struct {
	Package string
	Name    string
}

func (t TestID) String() string { return t.Package + "." + t.Name }

// ParseTestID reads "pkgpath.TestName": the name follows the last dot and
// holds no slash.
func ParseTestID(id string) (TestID, error) {
	i := strings.LastIndex(id, ".")
	if i <= 0 || i == len(id)-1 || strings.Contains(id[i+1:], "/") {
		return TestID{}, fmt.Errorf("test %q is not of the form pkgpath.TestName", id)
	}
	return TestID{Package: id[:i], Name: id[i+1:]}, nil
}

// ParseTestIDs parses every id; the error names the first that does not
// parse, and the result holds those that do.
func ParseTestIDs(ids []string) ([]TestID, error) {
	out := make([]TestID, 0, len(ids))
	var first error
	for _, id := range ids {
		t, err := ParseTestID(id)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		out = append(out, t)
	}
	return out, first
}

// TestIDStrings writes each id as "pkgpath.TestName".
func TestIDStrings(ids []TestID) []string {
	out := make([]string, len(ids))
	for i, t := range ids {
		out[i] = t.String()
	}
	return out
}

// MarshalText writes "pkgpath.TestName".
func (t TestID) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses "pkgpath.TestName".
func (t *TestID) UnmarshalText(text []byte) error {
	v, err := ParseTestID(string(text))
	if err != nil {
		return fmt.Errorf("mutant: %w", err)
	}
	*t = v
	return nil
}
