package exitcode

import (
	"fmt"
	"strings"
)

// Code is an exit status of the mutate command.
type Code int

// The exit statuses.
const (
	OK          Code = 0   // nothing survived; every catalog mutant was killed by an expected test
	Survivors   Code = 1   // a mutant survived (the score is below --threshold, when set)
	Usage       Code = 2   // bad command line
	Baseline    Code = 3   // the unmutated tests fail
	Timeouts    Code = 4   // a generic mutant timed out, with --strict-timeouts
	Catalog     Code = 5   // a catalog mutant was not killed by its expected test
	Errors      Code = 6   // a mutant could not be judged
	TreeChanged Code = 7   // the source tree differs after the run
	Config      Code = 8   // the module, catalog or a suppression comment is invalid
	Interrupted Code = 130 // interrupted (Ctrl-C); the partial report is written
)

type entry struct {
	code  Code
	short string // for the usage line
	doc   []string
}

// table lists every code in numeric order with its documentation.
var table = []entry{
	{OK, "ok", []string{
		"nothing survived (or, with --threshold P, the score is at least P) and",
		"every catalog mutant was killed by an expected test (mutants that did",
		"not run are listed, and do not fail the run)"}},
	{Survivors, "survivors", []string{"a mutant survived (with --threshold P: the score is below P)"}},
	{Usage, "usage", []string{"usage error"}},
	{Baseline, "baseline failing", []string{"the baseline is failing (a test fails or hangs without any mutant)"}},
	{Timeouts, "timeouts (--strict-timeouts)", []string{
		"a generic mutant timed out, with --strict-timeouts (by default a",
		"timeout counts as detected, as in the score: the tests hung",
		"instead of passing; a catalog mutant that times out is exit 5)"}},
	{Catalog, "catalog mutant not killed by its expected test", []string{"a catalog mutant was not killed by its expected test"}},
	{Errors, "errors", []string{"a mutant could not be judged (error)"}},
	{TreeChanged, "source tree changed", []string{"the source tree changed during the run"}},
	{Config, "invalid configuration", []string{
		"invalid configuration: the module does not load, the catalog does",
		"not read, a suppression comment has no reason"}},
	{Interrupted, "interrupted", []string{"interrupted"}},
}

// priority is the order in which codes win when several apply.
var priority = []Code{TreeChanged, Baseline, Interrupted, Catalog, Survivors, Timeouts, Errors}

// Priority returns the codes that can describe a finished run, most
// important first: when several apply, the first wins.
func Priority() []Code { return append([]Code(nil), priority...) }

// Codes returns every code in numeric order.
func Codes() []Code {
	out := make([]Code, len(table))
	for i, e := range table {
		out[i] = e.code
	}
	return out
}

func (c Code) entry() (entry, bool) {
	for _, e := range table {
		if e.code == c {
			return e, true
		}
	}
	return entry{}, false
}

// String names the code as the usage line does ("survivors").
func (c Code) String() string {
	if e, ok := c.entry(); ok {
		return e.short
	}
	return fmt.Sprintf("exit code %d", int(c))
}

// Doc is the code's documentation, one sentence that may span lines.
func (c Code) Doc() string {
	e, _ := c.entry()
	return strings.Join(e.doc, " ")
}

// UsageText renders the exit statuses for the usage message.
func UsageText() string {
	var parts []string
	for _, e := range table {
		parts = append(parts, fmt.Sprintf("%d %s", e.code, e.short))
	}
	return wrap("exit status: "+strings.Join(parts, ", ")+".", 90) //gathermut:equivalent(const-int) UsageText has no input, and widths 89 and 91 break its text where 90 does
}

// DocText renders the exit statuses for a package doc comment, without the
// comment markers: a tab-indented table, then the priority rule.
func DocText() string {
	var b strings.Builder
	for _, e := range table {
		for i, line := range e.doc {
			if i == 0 {
				fmt.Fprintf(&b, "\t%-4d %s\n", e.code, line)
			} else {
				fmt.Fprintf(&b, "\t     %s\n", line)
			}
		}
	}
	var order []string
	for _, c := range priority {
		order = append(order, fmt.Sprint(int(c)))
	}
	b.WriteString("\n")
	//gathermut:equivalent(const-int) DocText has no input, and widths 71 and 73 break this sentence where 72 does
	b.WriteString(wrap("When several apply, the first in the order "+strings.Join(order, ", ")+" wins; the one-line reason lists them all.", 72))
	return b.String()
}

// wrap breaks text into lines of at most width characters, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && line+1+len(w) > width {
			b.WriteString("\n")
			line = 0
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	b.WriteString("\n")
	return b.String()
}
