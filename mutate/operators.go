package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"gathermut/mutate/config"
	"gathermut/mutate/cxx"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/goasm"
	"gathermut/mutate/internal/lab"
	"gathermut/mutate/operator"
)

// operatorLine is one operator as "mutate operators" lists it.
type operatorLine struct {
	name, doc, example string
	optIn              bool
}

// operatorFamily is the operators of one kind of source (its language),
// with the package that makes them and when they run. Every family is
// selectable by name: --operators and the project file's operators list
// take Go, assembly and kernel names alike (operator.GoOperatorNames,
// AsmOperatorNames, KernelOperatorNames pick each family's own; a
// kernel operator may share its name with the Go one it mirrors, and the
// name then selects both).
type operatorFamily struct {
	title string // "Go (package operator)"
	lang  string // the --lang name of its kind of code: go, asm, kernel
	when  string // when its operators apply
	ops   []operatorLine
	// selected reports which of its operators a list of names selects
	// (nil names: the default set)
	selected func(names []string) (map[string]bool, error)
}

// operatorFamilies lists every family the tool has: the Go operators
// (package operator), the Go assembly ones (package goasm) and the GPU
// kernel's device-code ones (package cxx).
func operatorFamilies() []operatorFamily {
	var goOps, asmOps, kernelOps []operatorLine
	for _, op := range operator.Operators {
		goOps = append(goOps, operatorLine{name: op.Name, doc: op.Doc, example: op.Example, optIn: op.OptIn})
	}
	for _, op := range goasm.Operators {
		asmOps = append(asmOps, operatorLine{name: op.Name, doc: op.Doc, example: op.Example})
	}
	for _, op := range cxx.Operators {
		kernelOps = append(kernelOps, operatorLine{name: op.Name, doc: op.Doc, example: op.Example})
	}
	return []operatorFamily{
		{title: "Go (package operator)", lang: "go", when: "on every Go file of the packages", ops: goOps, selected: selectedGo},
		{title: "Go assembly (package goasm)", lang: "asm", when: "on the packages' assembly files this GOARCH builds", ops: asmOps,
			selected: func(names []string) (map[string]bool, error) {
				return namedOrAll(asmOps, operator.AsmOperatorNames(names)), nil
			}},
		{title: "GPU kernel device code, HIP/CUDA C++ (package cxx)", lang: "kernel", when: "on the device functions of the kernel a catalog's kernel recipe names",
			ops: kernelOps, selected: func(names []string) (map[string]bool, error) {
				return namedOrAll(kernelOps, operator.KernelOperatorNames(names)), nil
			}},
	}
}

// selectedGo is the Go operators names select (the Go ones among them).
func selectedGo(names []string) (map[string]bool, error) {
	goNames, err := operator.GoOperatorNames(names)
	if err != nil {
		return nil, err
	}
	on := map[string]bool{}
	if goNames != nil && len(goNames) == 0 {
		return on, nil // only other languages' operators named
	}
	ops, err := operator.SelectOperators(goNames)
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		on[op.Name] = true
	}
	return on, nil
}

// namedOrAll is a family's selection from its own names: nil selects
// every operator of the family (no list, or "default" or "all" in it).
func namedOrAll(ops []operatorLine, named []string) map[string]bool {
	on := map[string]bool{}
	for _, op := range ops {
		on[op.name] = named == nil || slices.Contains(named, op.name)
	}
	return on
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
	sel := "the default set"
	if len(names) > 0 {
		sel = strings.Join(names, ",")
	}
	fmt.Fprintf(stdout, "operators here: %s (%s)\n", sel, origin)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	n := 0
	for _, f := range operatorFamilies() {
		on, err := f.selected(names)
		if err != nil {
			return exitcode.Fail(exitcode.Config, "%v", err)
		}
		if f.lang == "kernel" && (herr != nil || here.Config.Catalog == "") {
			continue // kernel code is reached only through a catalog's kernel recipe
		}
		mutated := herr != nil || here.Config.Mutates(f.lang)
		fmt.Fprintf(tw, "\n%s, %s (--lang %s):\n", f.title, f.when, f.lang)
		for _, op := range f.ops {
			set, runs := "default", "on"
			if op.optIn {
				set = "opt-in"
			}
			if !on[op.name] || !mutated {
				runs = "off"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s (%s)\n", op.name, set, runs, op.doc, op.example)
			n++
		}
	}
	if err := tw.Flush(); err != nil {
		return &exitcode.Exit{Code: exitcode.OK, Reason: fmt.Sprintf("operators listed (stdout closed: %v)", err)}
	}
	return &exitcode.Exit{Code: exitcode.OK, Reason: fmt.Sprintf("%d operators listed", n)}
}
