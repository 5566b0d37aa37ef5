package report

import (
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/mutant"
)

// TestTitle: a report is named after the module it judged, with its name
// only when that is not the default; the row's reports keep their names.
func TestTitle(t *testing.T) {
	for _, c := range []struct {
		name string
		g    Meta
		want string
	}{
		{"a module's default report", Meta{Name: "mutation", Module: "github.com/rs/xid"}, "github.com/rs/xid"},
		{"a named report", Meta{Name: "nightly", Module: "github.com/rs/xid"}, "github.com/rs/xid (nightly)"},
		{"the row", Meta{Name: "gather-row", Module: "gathermut", Config: config.Config{Catalog: "./mutants"}}, "gather-row"},
		{"no module", Meta{Name: "mutation"}, "mutation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Title(c.g); got != c.want {
				t.Errorf("Title = %q, want %q", got, c.want)
			}
		})
	}
}

// TestForeignReportWords: a module's report without a catalog is titled
// after the module (markdown and HTML) and has no one-row table of
// backends; a run with two backends has the table.
func TestForeignReportWords(t *testing.T) {
	goOnly := []mutant.Outcome{mkOutcome("arith:p/p.go:3:9:aaaa", mutant.Killed, ""), mkOutcome("arith:p/p.go:3:9:bbbb", mutant.Survived, "")}
	asm := mkOutcome("asm-drop:p/p_amd64.s:3:2:cccc", mutant.Killed, "")
	asm.Mutant.File = "p/p_amd64.s"
	for _, c := range []struct {
		name     string
		outcomes []mutant.Outcome
		backends bool
	}{
		{"Go only", goOnly, false},
		{"Go and assembly", append(append([]mutant.Outcome(nil), goOnly...), asm), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Build(Meta{Name: "mutation", Module: "example.com/m", TreeBefore: "abc", TreeAfter: "abc", Jobs: 1}, c.outcomes, Inputs{})
			md := Markdown(r)
			if !strings.HasPrefix(md, "# Mutation report: example.com/m\n") {
				t.Errorf("markdown title: %.80q", md)
			}
			if got := strings.Contains(md, "## Scores by backend"); got != c.backends {
				t.Errorf("scores by backend: %v, want %v", got, c.backends)
			}
			page, err := HTML(r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(page), "<title>Mutation report: example.com/m</title>") {
				t.Errorf("HTML title is not the module's")
			}
		})
	}
}
