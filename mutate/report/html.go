package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"strings"
)

// ViewerVersion is the mutation-testing-elements release whose browser
// bundle every HTML report embeds (viewer/README.md says where it comes
// from; viewer/LICENSE is its license).
const ViewerVersion = "3.9.0"

//go:embed viewer/mutation-test-elements.js
var viewerJS string

// HTML renders a report as one self-contained page: the
// mutation-testing-elements viewer's script and the report are both in
// it, so it opens from disk, with no server and no network. The report
// in the page is the schema's part of the JSON: each mutant's "gathermut"
// evidence, which the viewer does not show, stays in the JSON.
func HTML(r *Report) ([]byte, error) {
	view := *r
	view.Files = make(map[string]*FileResult, len(r.Files))
	for p, f := range r.Files {
		c := *f
		c.Mutants = make([]MutantResult, len(f.Mutants))
		for i, m := range f.Mutants {
			m.Gathermut = nil
			c.Mutants[i] = m
		}
		view.Files[p] = &c
	}
	view.Gathermut.Tests, view.Gathermut.Commands = nil, nil
	// json.Marshal writes <, > and & as \u003c, \u003e and \u0026, so the
	// data cannot end its script element or open a comment in it
	data, err := json.Marshal(&view)
	if err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	if strings.Contains(strings.ToLower(viewerJS), "</script") {
		return nil, fmt.Errorf("report: html: the embedded viewer holds </script and cannot be inlined")
	}
	title := "Mutation report: " + Title(r.Gathermut)
	var b bytes.Buffer
	b.Grow(len(viewerJS) + len(data) + 1024)
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gathermut mutate %s; mutation-testing-elements %s">
<title>%s</title>
<script>
`, html.EscapeString(r.Gathermut.Version), ViewerVersion, html.EscapeString(title))
	b.WriteString(viewerJS)
	fmt.Fprintf(&b, `
</script>
</head>
<body>
<mutation-test-report-app title-postfix="%s"></mutation-test-report-app>
<script type="application/json" id="gathermut-report">`, html.EscapeString(title))
	b.Write(data)
	b.WriteString(`</script>
<script>
document.querySelector("mutation-test-report-app").report = JSON.parse(document.getElementById("gathermut-report").textContent);
</script>
</body>
</html>
`)
	return b.Bytes(), nil
}
