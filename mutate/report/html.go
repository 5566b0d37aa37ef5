package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"sort"
	"strings"

	"gathermut/mutate/internal/outcome"
	"gathermut/mutate/mutant"
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
%s<mutation-test-report-app title-postfix="%s"></mutation-test-report-app>
<script type="application/json" id="gathermut-report">`, htmlSummary(r), html.EscapeString(title))
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

// htmlSummary is what the viewer cannot show, above it: the scores by
// backend (Go, assembly, the kernel on the host emulation or a GPU) where
// a run had more than one, the mutants not run and why (Pending in the
// viewer), and the kernel mutants left to GPU runs (in no file of the
// report: a run without a GPU compiler leaves them out). "" when there is
// none of it, as for a Go module's run.
func htmlSummary(r *Report) string {
	outcomes, err := r.Outcomes()
	if err != nil {
		return ""
	}
	var b strings.Builder
	byBackend := map[string][]mutant.Outcome{}
	for _, o := range outcomes {
		k := backendKey(o)
		byBackend[k] = append(byBackend[k], o)
	}
	if len(byBackend) > 1 {
		keys := make([]string, 0, len(byBackend))
		for k := range byBackend {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("<table id=\"gathermut-backends\">\n<caption>Scores by backend</caption>\n<tr><th>Backend</th><th>Judged</th>")
		for _, t := range columnTitles() {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(t))
		}
		b.WriteString("<th>Score</th></tr>\n")
		for _, k := range keys {
			s := outcome.Summarize(byBackend[k])
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td>", html.EscapeString(k), s.Judged)
			for _, n := range columnCounts(s) {
				fmt.Fprintf(&b, "<td>%d</td>", n)
			}
			fmt.Fprintf(&b, "<td>%s</td></tr>\n", html.EscapeString(outcome.FormatScore(s)))
		}
		b.WriteString("</table>\n")
	}
	var notRun []mutant.Outcome
	for _, o := range outcomes {
		if o.Result.Status == mutant.NotRun {
			notRun = append(notRun, o)
		}
	}
	if len(notRun) > 0 {
		why := map[string]int{}
		var reasons []string
		for _, o := range notRun {
			if why[o.Result.Why] == 0 {
				reasons = append(reasons, o.Result.Why)
			}
			why[o.Result.Why]++
		}
		sort.SliceStable(reasons, func(i, j int) bool { return why[reasons[i]] > why[reasons[j]] })
		fmt.Fprintf(&b, "<p id=\"gathermut-not-run\"><b>Not run: %d</b> (Pending in the viewer, outside the score)", len(notRun))
		for i, w := range reasons {
			if i == 5 {
				fmt.Fprintf(&b, "; %d other reasons", len(reasons)-5)
				break
			}
			fmt.Fprintf(&b, "; %s: %d", html.EscapeString(truncate(w, 160)), why[w])
		}
		b.WriteString(".</p>\n")
	}
	if n := len(r.Gathermut.GPUOnly); n > 0 {
		fmt.Fprintf(&b, "<p id=\"gathermut-gpu-only\"><b>Left to GPU runs: %s</b> of code only a GPU compiler sees, in no file below: %s.</p>\n",
			plural(n, "kernel mutant", "kernel mutants"), html.EscapeString(truncate(strings.Join(r.Gathermut.GPUOnly, ", "), 400)))
	}
	if b.Len() == 0 {
		return ""
	}
	return "<section id=\"gathermut-summary\" style=\"font-family: sans-serif; font-size: 14px; margin: 1em 2em\">\n" +
		"<style>#gathermut-summary table { border-collapse: collapse } #gathermut-summary th, #gathermut-summary td { border: 1px solid #ccc; padding: 2px 8px; text-align: right } #gathermut-summary caption { text-align: left; font-weight: bold }</style>\n" +
		b.String() + "</section>\n"
}
