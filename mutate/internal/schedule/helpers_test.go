package schedule

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
)

// Unit tests of the schedule step's helpers (ported from wt-self's
// internal/lab helpers_test.go, c4515ea: the helpers moved here with the
// step that uses them).

func TestSmallHelpers(t *testing.T) {
	if got := sortedKeys(map[string]bool{"b": true, "a": false, "c": true}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("sortedKeys %v", got)
	}
	for in, want := range map[string]string{"  first\nsecond": "first", "": "", "one": "one"} {
		if got := firstLine(in); got != want {
			t.Errorf("firstLine(%q) = %q", in, got)
		}
	}
	for out, want := range map[string]string{
		"# m/p\np/p.go:3:9: undefined: x\nmore\n": "p/p.go:3:9: undefined: x",
		"a.s:4: bad instruction\n":                "a.s:4: bad instruction",
		"  no position at all  \n":                "no position at all",
	} {
		if got := compileError(out); got != want {
			t.Errorf("compileError(%q) = %q, want %q", out, got, want)
		}
	}
	src := []byte("ab\ncde\n\nf")
	for _, c := range []struct{ line, col, want int }{{1, 1, 0}, {1, 2, 1}, {2, 1, 3}, {2, 3, 5}, {3, 1, 7}, {4, 1, 8}, {4, 9, 9}, {9, 1, 9}} {
		if got := lineColOffset(src, c.line, c.col); got != c.want {
			t.Errorf("lineColOffset(%d, %d) = %d, want %d", c.line, c.col, got, c.want)
		}
	}
}

// TestBaselineInfo: what a report says of the baseline: packages, tests,
// the skipped ones with their reason, flaky and failing, seconds.
func TestBaselineInfo(t *testing.T) {
	b := &Baseline{Packages: map[string]*PackageBaseline{
		"m/a": {Path: "m/a", Names: []string{"TestA", "TestSkip"}, Tests: map[string]*TestBaseline{
			"TestA": {Status: BasePass}, "TestSkip": {Status: BaseSkip, Skip: "no GPU"}}},
		"m/b": {Path: "m/b", Names: []string{"TestB"}, Tests: map[string]*TestBaseline{"TestB": {Status: BaseSkip, Skip: "later"}}},
	}, Flaky: []string{"m/a.TestF (x)"}, Failing: []string{"m/b.TestR"}, Duration: 3e9}
	info := baselineInfo(b)
	if info.Packages != 2 || info.Tests != 3 || !slices.Equal(info.Skipped, []string{"m/a.TestSkip (no GPU)", "m/b.TestB (later)"}) ||
		!slices.Equal(info.Flaky, b.Flaky) || !slices.Equal(info.Failing, b.Failing) || info.Seconds != 3 {
		t.Errorf("baselineInfo %+v", info)
	}
	if !b.Red() || (&Baseline{}).Red() {
		t.Errorf("Red")
	}
}

// TestCountRunnable: only runnable Go mutants with an edit and a schema
// site go into a schema.
func TestCountRunnable(t *testing.T) {
	site := &mutant.Site{Kind: mutant.ExprSite}
	edit := &mutant.Edit{}
	ms := []mutant.Mutant{
		{Kind: mutant.Go, Edit: edit, Schema: site},
		{Kind: mutant.Go, Edit: edit, Schema: site, State: mutant.Unbuildable},
		{Kind: mutant.Go, Edit: edit, Schema: site, State: mutant.Equivalent},
		{Kind: mutant.Go, Edit: edit, Schema: site, State: mutant.Invalid},
		{Kind: mutant.Go, Schema: site},
		{Kind: mutant.Go, Edit: edit},
		{Kind: mutant.Kernel, Edit: edit, Schema: site},
		{Kind: mutant.Go, Edit: edit, Schema: &mutant.Site{Fallback: "in a type"}},
	}
	if n := countRunnable(ms); n != 2 {
		t.Errorf("countRunnable = %d, want 2 (the fallback one builds on its own)", n)
	}
}

// TestFindTool: the first of the tools on PATH, by its path.
func TestFindTool(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "rocminfo"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if p, ok := FindTool([]string{"none-such", "rocminfo"}); !ok || p != filepath.Join(bin, "rocminfo") {
		t.Errorf("FindTool: %q %v", p, ok)
	}
	if _, ok := FindTool([]string{"none-such"}); ok {
		t.Errorf("FindTool found a tool that is not there")
	}
}

// TestDropFor: a failed schema build's errors drop the switched mutants
// whose code they point into, by position in a rendered file or by the
// name of a constant made a variable.
func TestDropFor(t *testing.T) {
	src := []byte("package p\n\nfunc F() int {\n\treturn 1 + 2\n}\n")
	pkg := &schemaPkg{
		schema: &schema.Package{
			Files:  map[string]*schema.File{"p/p.go": {Source: src, Regions: []schema.Region{{Start: 33, End: 38, Mutants: []int{1}}, {Start: 24, End: 40, Mutants: []int{2}}}}},
			Consts: map[string][]int{"Limit": {3}},
		},
		files: map[string]string{"/r/p/p.go": "p/p.go", "/tmp/r1/p0/p.go": "p/p.go"},
	}
	r := &render{pkgs: map[string]*schemaPkg{"m/p": pkg}, switched: map[string]bool{"one": true, "two": true, "lim": true, "off": false},
		numbers: map[string]int{"one": 1, "two": 2, "lim": 3, "off": 4}}
	dropped := map[string]string{}
	out := "# m/p\n/tmp/r1/p0/p.go:4:11: invalid operation\np/p.go:4:2: also here\nq/q_test.go:7:14: array length Limit (variable of type int) must be constant\nno position\n"
	if n := r.dropFor(out, "/r", dropped); n != 3 {
		t.Errorf("dropped %d: %v", n, dropped)
	}
	want := map[string]string{
		"one": "the schema build rejected it: p/p.go: invalid operation",
		"two": "the schema build rejected it: p/p.go: also here",
		"lim": "the schema build rejected it: q_test.go:7: array length Limit (variable of type int) must be constant",
	}
	for id, why := range want {
		if dropped[id] != why {
			t.Errorf("%s: %q, want %q", id, dropped[id], why)
		}
	}
	if _, ok := dropped["off"]; ok {
		t.Errorf("a mutant not switched in the render was dropped")
	}
	if n := r.dropFor(out, "/r", dropped); n != 0 {
		t.Errorf("dropped again: %d", n)
	}
}

// tinyModule is a module of two packages: calc, and use, which imports
// it; each has one test.
var tinyModule = map[string]string{
	"go.mod":            "module tiny\n\ngo 1.26\n",
	"calc/calc.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fail()\n\t}\n}\n",
	"use/use.go":        "package use\n\nimport \"tiny/calc\"\n\n// Quad is 4x.\nfunc Quad(x int) int { return calc.Add(calc.Add(x, x), calc.Add(x, x)) }\n",
	"use/use_test.go":   "package use\n\nimport \"testing\"\n\nfunc TestQuad(t *testing.T) {\n\tif Quad(2) != 8 {\n\t\tt.Fail()\n\t}\n}\n",
}

// TestSteps orders a mutant's runs: its expected killers' packages alone
// first, then every observing package; a killer whose package cannot
// observe the mutant is an error. selection picks a step's tests from the
// baseline.
func TestSteps(t *testing.T) {
	dir := t.TempDir()
	for name, text := range tinyModule {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog, err := load.Load(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Prog: prog}
	m := mutant.Mutant{Package: "tiny/calc", Kind: mutant.Go, Expected: []mutant.TestID{{Package: "tiny/use", Name: "TestQuad"}, {Package: "tiny/calc", Name: "TestAdd"}}}
	steps, expected, _, ok := r.steps(m)
	if !ok || len(steps) != 4 || steps[0] != (step{path: "tiny/calc", killers: true}) || steps[1] != (step{path: "tiny/use", killers: true}) ||
		steps[2] != (step{path: "tiny/calc"}) || steps[3] != (step{path: "tiny/use"}) || !expected["tiny/use"]["TestQuad"] {
		t.Errorf("steps %+v, expected %v", steps, expected)
	}
	m.Expected = []mutant.TestID{{Package: "tiny/other", Name: "TestX"}}
	if _, _, res, ok := r.steps(m); ok || res.Status != mutant.Error || res.Why != "expected killer package tiny/other cannot observe tiny/calc (it does not import it)" {
		t.Errorf("a killer outside the observers: %+v", res)
	}
	if first := r.firstPackage(mutant.Mutant{Package: "tiny/use", Kind: mutant.Go}); first != "tiny/use" {
		t.Errorf("firstPackage %q", first)
	}
	if first := r.firstPackage(mutant.Mutant{Package: "tiny/use", Kind: mutant.Go, State: mutant.Unbuildable}); first != "" {
		t.Errorf("firstPackage of an unbuildable mutant %q", first)
	}
	if first := r.firstPackage(mutant.Mutant{Package: "tiny/use", Kind: mutant.Kernel}); first != "" {
		t.Errorf("firstPackage of a kernel mutant %q", first)
	}
	pb := &PackageBaseline{Path: "tiny/calc", Names: []string{"TestAdd", "TestFlaky", "TestSign"}, Tests: map[string]*TestBaseline{
		"TestAdd": {Name: "TestAdd", Status: BasePass}, "TestFlaky": {Name: "TestFlaky", Status: BaseFlaky}, "TestSign": {Name: "TestSign", Status: BaseSkip}}}
	killers := r.selection(pb, step{path: "tiny/calc", killers: true}, mutant.Mutant{}, map[string]bool{"TestAdd": true, "TestGone": true})
	if got := killers.names(); !slices.Equal(got, []string{"TestAdd", "TestGone"}) || killers.tests[1].Status != BaseGone {
		t.Errorf("killers %v", got)
	}
	if got := killers.runPattern(); got != "^(TestAdd|TestGone)$" {
		t.Errorf("runPattern %q", got)
	}
	others := r.selection(pb, step{path: "tiny/calc"}, mutant.Mutant{}, map[string]bool{"TestAdd": true})
	if got := others.names(); !slices.Equal(got, []string{"TestSign"}) {
		t.Errorf("the other covering tests %v (flaky left out, expected killers run apart)", got)
	}
}
