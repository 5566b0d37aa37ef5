package config

import (
	"fmt"
	"strings"
)

// CommandLine renders the configuration as the command that runs it from
// the module root: the tool as the run was started (Tool; "mutate" when
// none was recorded), the command, its id glob and the packages the
// command line named, then the flags that differ from the defaults and
// the --dir the tool needs (ToolDir). A report keeps this one rendering
// (report.Meta.CommandLine).
func (c Config) CommandLine() string {
	tool := c.Tool
	if tool == "" {
		tool = "mutate"
	}
	if c.Command == NoCommand {
		return tool
	}
	def := Default()
	args := []string{tool, c.Command.String()}
	if c.Select != "" {
		args = append(args, ShellWord(c.Select))
	}
	if c.Given.Packages {
		for _, p := range c.Patterns {
			args = append(args, ShellWord(p))
		}
	}
	flag := func(cond bool, s string) {
		if cond {
			args = append(args, s)
		}
	}
	flag(c.Name != "", "--name "+ShellWord(c.Name))
	flag(c.Set != "", "--set "+ShellWord(c.Set))
	flag(c.OnlyCatalog, "--only-catalog")
	flag(c.Given.Catalog, "--catalog="+ShellWord(c.Catalog))
	flag(c.Given.Operators && len(c.Operators) > 0, "--operators "+ShellWord(strings.Join(c.Operators, ",")))
	for _, g := range c.Given.Exclude {
		flag(true, "--exclude "+ShellWord(g))
	}
	flag(c.Given.Threshold, "--threshold "+strings.TrimSuffix(c.Threshold.String(), "%"))
	flag(c.InDiff != "", "--in-diff "+ShellWord(c.InDiff))
	flag(c.Shard.N > 0, "--shard "+c.Shard.String())
	flag(c.StrictTimeouts, "--strict-timeouts")
	flag(c.TimeoutFactor != def.TimeoutFactor, fmt.Sprintf("--timeout-factor %g", c.TimeoutFactor))
	flag(c.TimeoutFloor != def.TimeoutFloor, "--timeout-floor "+c.TimeoutFloor.String())
	flag(!c.Schemata, "--no-schemata")
	flag(c.Jobs > 0, fmt.Sprintf("-j %d", c.Jobs))
	flag(c.ToolDir != "", "--dir "+ShellWord(c.ToolDir))
	return strings.Join(args, " ")
}

// ShellWord quotes s for a POSIX shell when it needs it.
func ShellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'$|&;()<>*?[]{}\\`!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
