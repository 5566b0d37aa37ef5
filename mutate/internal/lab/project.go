package lab

import (
	"fmt"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/operator"
)

// applyProject reads the module's project file, fills in the settings the
// command line left open and prints the run's first line: which packages,
// catalog, exclusions, operators and threshold apply, and where they came
// from.
func (l *lab) applyProject() error {
	proj, err := config.ReadProject(l.root)
	if err == nil && l.cfg.Set != "" {
		proj, err = proj.Select(l.cfg.Set)
	}
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	l.cfg.Apply(proj)
	// the Go operators among --operators (the assembly and kernel ones
	// are their generators'; a name no language knows is an error)
	goNames, err := operator.GoOperatorNames(l.cfg.Operators)
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	if goNames == nil || len(goNames) > 0 {
		if l.ops, err = operator.SelectOperators(goNames); err != nil {
			return exitcode.Fail(exitcode.Config, "%v", err)
		}
	}
	l.progressf("mutate: %s\n", describeSettings(l.module, l.cfg))
	return nil
}

// describeSettings is the first line of a run.
func describeSettings(module string, c config.Config) string {
	parts := []string{"packages " + strings.Join(c.Patterns, " ")}
	if c.Catalog == "" {
		parts = append(parts, "no catalog")
	} else {
		parts = append(parts, "catalog "+c.Catalog)
	}
	if len(c.Exclude) > 0 {
		ex := "excluding " + strings.Join(c.Exclude, " ")
		for _, p := range c.Patterns {
			if c.Given.Packages && !strings.Contains(p, "...") {
				ex += " outside the packages named exactly"
				break
			}
		}
		parts = append(parts, ex)
	}
	if len(c.Operators) > 0 {
		parts = append(parts, "operators "+strings.Join(c.Operators, ","))
	}
	if c.Threshold.Given {
		parts = append(parts, "threshold "+c.Threshold.String())
	}
	return fmt.Sprintf("module %s: %s (%s)", module, strings.Join(parts, "; "), c.Origin)
}
