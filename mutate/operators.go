package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/lab"
	"gathermut/mutate/operator"
)

// operatorLine is one operator as "mutate operators" lists it.
type operatorLine struct {
	name, doc, example string
	optIn              bool
}

// operatorFamily is the operators of one kind of source, with the
// package that makes them and when they run.
type operatorFamily struct {
	title string // "Go (package operator)"
	when  string // when its operators apply
	ops   []operatorLine
	// selectable: --operators and the project file choose among them
	selectable bool
}

// operatorFamilies lists every family the tool has. The assembly and
// kernel families (packages goasm and cxx) join here with their own
// Operators tables.
func operatorFamilies() []operatorFamily {
	var goOps []operatorLine
	for _, op := range operator.Operators {
		goOps = append(goOps, operatorLine{name: op.Name, doc: op.Doc, example: op.Example, optIn: op.OptIn})
	}
	return []operatorFamily{
		{title: "Go (package operator)", when: "on every Go file of the packages", ops: goOps, selectable: true},
	}
}

// operatorsCmd lists the operators, one line each: name, set (default or
// opt-in), whether it runs in the module here, what it does and an
// example; the first line says which selection is in force and where it
// comes from.
func operatorsCmd(cfg config.Config, stdout io.Writer) error {
	here, herr := lab.ModuleHere(cfg)
	var names []string
	origin := "no module here: the default set"
	if herr == nil {
		names = here.Config.Operators
		origin = "module " + here.Module + ": " + here.Config.Origin
	}
	selected, err := operator.SelectOperators(names)
	if err != nil {
		return lab.Fail(exitcode.Config, "%v", err)
	}
	on := map[string]bool{}
	for _, op := range selected {
		on[op.Name] = true
	}
	sel := "the default set"
	if len(names) > 0 {
		sel = strings.Join(names, ",")
	}
	fmt.Fprintf(stdout, "operators here: %s (%s)\n", sel, origin)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, f := range operatorFamilies() {
		fmt.Fprintf(tw, "\n%s, %s:\n", f.title, f.when)
		for _, op := range f.ops {
			set, runs := "default", "on"
			if op.optIn {
				set = "opt-in"
			}
			if f.selectable && !on[op.name] {
				runs = "off"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s (%s)\n", op.name, set, runs, op.doc, op.example)
		}
	}
	if err := tw.Flush(); err != nil {
		return lab.Fail(exitcode.OK, "operators listed (stdout closed: %v)", err)
	}
	n := 0
	for _, f := range operatorFamilies() {
		n += len(f.ops)
	}
	return &lab.Exit{Code: exitcode.OK, Reason: fmt.Sprintf("%d operators listed", n)}
}
