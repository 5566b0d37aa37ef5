package schedule

import (
	"strings"
	"testing"
)

// TestDescribeFailure: a schema build's error names the file by what it
// is to the user, never by the temp path the tool wrote it at.
func TestDescribeFailure(t *testing.T) {
	const root = "/home/u/mod"
	r := &render{origin: map[string]string{
		"/tmp/gathermut-1/schema/r1/t0/gathermut_wrap_test.go": wrapOrigin(root, root+"/p/gathermut_wrap_test.go", "example.com/m/p"),
		"/tmp/gathermut-1/schema/r1/t0/p_test.go":              wrapOrigin(root, root+"/p/p_test.go", "example.com/m/p"),
		"/tmp/gathermut-1/schema/r1/p0/p.go":                   "p/p.go (as mutate rewrote it to switch its mutants)",
	}}
	for _, c := range []struct {
		name, out, want string
	}{
		{"the test wrapper, by a path relative to the module",
			"# example.com/m/p\n../../../tmp/gathermut-1/schema/r1/t0/gathermut_wrap_test.go:73:2: clear requires go1.21 or later (-lang was set to go1.16; check go.mod)\n",
			"the test wrapper mutate adds to the tests of package example.com/m/p (gathermut_wrap_test.go), line 73: clear requires go1.21 or later (-lang was set to go1.16; check go.mod)"},
		{"a test file with its tests renamed",
			"/tmp/gathermut-1/schema/r1/t0/p_test.go:3:1: x redeclared",
			"p/p_test.go (as mutate rewrote it to wrap its tests), line 3: x redeclared"},
		{"a rendered file",
			"/tmp/gathermut-1/schema/r1/p0/p.go:9:5: undefined: y",
			"p/p.go (as mutate rewrote it to switch its mutants), line 9: undefined: y"},
		{"a file of the module",
			"q/q_test.go:12:4: cannot use v (variable of type int) as constant",
			"q/q_test.go, line 12: cannot use v (variable of type int) as constant"},
		{"a file elsewhere",
			"/elsewhere/x.go:1:1: bad",
			"x.go, line 1: bad"},
		{"no position", "go: updates to go.mod needed\n", "go: updates to go.mod needed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := r.describeFailure(c.out, root)
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if strings.Contains(got, "/tmp/") || strings.Contains(got, "schema/r1") {
				t.Errorf("a temp path in %q", got)
			}
		})
	}
}
