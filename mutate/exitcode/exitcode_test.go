package exitcode

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	seen := map[Code]bool{}
	for _, c := range Codes() {
		if seen[c] {
			t.Errorf("code %d listed twice", c)
		}
		seen[c] = true
		if c.Doc() == "" || strings.HasPrefix(c.String(), "exit code") {
			t.Errorf("code %d has no name or doc", c)
		}
	}
	for _, c := range Priority() {
		if !seen[c] {
			t.Errorf("priority code %d is not in the table", c)
		}
	}
	if Code(99).String() != "exit code 99" {
		t.Errorf("unknown code: %q", Code(99).String())
	}
}

func TestRendered(t *testing.T) {
	u := UsageText()
	for _, s := range []string{"exit status: 0 ok, 1 survivors, 2 usage", "130 interrupted."} {
		if !strings.Contains(strings.ReplaceAll(u, "\n", " "), s) {
			t.Errorf("usage text lacks %q:\n%s", s, u)
		}
	}
	d := DocText()
	for _, s := range []string{"\t0    nothing survived", "\t130  interrupted\n", "first in the order 7, 3, 130, 5, 1, 4, 6 wins"} {
		if !strings.Contains(strings.ReplaceAll(d, "\n", " "), strings.ReplaceAll(s, "\n", " ")) {
			t.Errorf("doc text lacks %q:\n%s", s, d)
		}
	}
	for _, line := range strings.Split(u+d, "\n") {
		if len(line) > 92 {
			t.Errorf("line too long: %q", line)
		}
	}
}
