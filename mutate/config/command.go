package config

import (
	"fmt"
	"strings"
)

// Command is the mutate command a configuration runs. Its name is how the
// command line and the reports write it.
type Command uint8

const (
	NoCommand    Command = iota // the zero Config: no command yet
	CmdAll                      // run every mutant, write reports
	CmdList                     // list the mutants
	CmdRun                      // run the mutants an id glob matches
	CmdDiff                     // print the mutants' diffs
	CmdMerge                    // combine shard reports
	CmdBench                    // time the tool against gremlins
	CmdOperators                // list the mutation operators
)

var commandNames = [...]string{NoCommand: "", CmdAll: "all", CmdList: "list", CmdRun: "run", CmdDiff: "diff", CmdMerge: "merge", CmdBench: "bench", CmdOperators: "operators"}

// ParseCommand reads a command's name.
func ParseCommand(name string) (Command, error) {
	for i, n := range commandNames {
		if n == name && n != "" {
			return Command(i), nil
		}
	}
	return NoCommand, fmt.Errorf("unknown command %q (want one of %s)", name, strings.Join(commandNames[1:], ", "))
}

func (c Command) String() string {
	if int(c) < len(commandNames) {
		return commandNames[c]
	}
	return fmt.Sprintf("Command(%d)", uint8(c))
}

// Selects reports whether the command takes a mutant id glob (run, diff).
func (c Command) Selects() bool { return c == CmdRun || c == CmdDiff }

// Judges reports whether the command runs mutants (all, run): it needs
// the module's test graph, the baselines, and writes reports.
func (c Command) Judges() bool { return c == CmdAll || c == CmdRun }

// MarshalText writes the command's name.
func (c Command) MarshalText() ([]byte, error) {
	if int(c) >= len(commandNames) {
		return nil, fmt.Errorf("config: no command %d", uint8(c))
	}
	return []byte(commandNames[c]), nil
}

// UnmarshalText reads a command's name ("" for none).
func (c *Command) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*c = NoCommand
		return nil
	}
	v, err := ParseCommand(string(text))
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	*c = v
	return nil
}
