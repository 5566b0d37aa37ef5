package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/exitcode"
)

// tableRows returns the rows "| code | text |" of a Markdown file whose
// first cell is a number, by code.
func tableRows(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([0-9]+) \| (.*) \|$`)
	rows := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("%s: code %s has two rows", path, m[1])
		}
		rows[m[1]] = m[2]
	}
	return rows
}

// TestExitCodesDocumented: the README and the book's page of exit codes
// list exactly package exitcode's codes: the README in one sentence, each
// code with its short name (the one --help gives) in numeric order,
// docs/mutate/exit-codes.md in a table, each code with its whole
// documentation, and the order in which codes win.
func TestExitCodesDocumented(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(raw)), " ")
	page := tableRows(t, "mutate/exit-codes.md")
	codes := exitcode.Codes()
	var short []string
	for _, c := range codes {
		n := fmt.Sprint(int(c))
		short = append(short, n+" "+c.String())
		if got := page[n]; got != c.Doc() {
			t.Errorf("docs/mutate/exit-codes.md: exit code %s reads %q, want %q", n, got, c.Doc())
		}
	}
	if want := "Exit status: " + strings.Join(short, ", ") + "."; !strings.Contains(readme, want) {
		t.Errorf("README.md does not say %q", want)
	}
	if len(page) != len(codes) {
		t.Errorf("docs/mutate/exit-codes.md lists %d codes, package exitcode %d", len(page), len(codes))
	}
	var order []string
	for _, c := range exitcode.Priority() {
		order = append(order, fmt.Sprint(int(c)))
	}
	raw, err = os.ReadFile("mutate/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(raw)), " ")
	if want := "the first in the order " + strings.Join(order, ", ") + " wins"; !strings.Contains(text, want) {
		t.Errorf("docs/mutate/exit-codes.md does not say %q", want)
	}
}

// TestBookReachedFromReadme: every page of the tool's book, docs/mutate/,
// is linked from the front page and from the book's own index.
func TestBookReachedFromReadme(t *testing.T) {
	pages, err := filepath.Glob("mutate/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/mutate: %v", err)
	}
	links := func(path string) []string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range linkRE.FindAllStringSubmatch(string(raw), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			out = append(out, target)
		}
		return out
	}
	front, index := links("../README.md"), links("mutate/README.md")
	for _, p := range pages {
		name := filepath.Base(p)
		if !slices.Contains(front, "docs/mutate/"+name) {
			t.Errorf("README.md does not link docs/mutate/%s", name)
		}
		if name != "README.md" && !slices.Contains(index, name) {
			t.Errorf("docs/mutate/README.md does not link %s", name)
		}
	}
}
