package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	for _, name := range []string{"all", "list", "run", "diff", "merge", "bench"} {
		c, err := ParseCommand(name)
		if err != nil || c.String() != name {
			t.Errorf("%s: %v %v", name, c, err)
		}
		if c.Selects() != (name == "run" || name == "diff") || c.Judges() != (name == "all" || name == "run") {
			t.Errorf("%s: selects %v, judges %v", name, c.Selects(), c.Judges())
		}
	}
	for _, bad := range []string{"", "ALL", "help", "lists"} {
		if c, err := ParseCommand(bad); err == nil {
			t.Errorf("%q parsed as %v", bad, c)
		}
	}
	// the report's config keeps the command's name, and reads it back
	data, err := json.Marshal(Config{Command: CmdRun})
	if err != nil || !strings.Contains(string(data), `"command":"run"`) {
		t.Fatalf("%s %v", data, err)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil || back.Command != CmdRun {
		t.Errorf("round trip: %v %v", back.Command, err)
	}
	if err := json.Unmarshal([]byte(`{"command":"rerun"}`), &back); err == nil {
		t.Errorf("an unknown command read back")
	}
}

func TestCommandLine(t *testing.T) {
	c := Default()
	c.Command, c.Select, c.Jobs = CmdRun, "arith:*", 3
	c.Patterns, c.Given.Packages = []string{"./gguf/..."}, true
	c.Shard = Shard{K: 1, N: 4}
	c.Schemata = false
	if got, want := c.CommandLine(), "mutate run 'arith:*' ./gguf/... --shard 1/4 --no-schemata -j 3"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
	c = Default()
	c.Set = "mutate-self"
	if got, want := c.CommandLine(), "mutate all --set mutate-self -j 1"; got != want {
		t.Errorf("a set: %s, want %s", got, want)
	}
	if got := (Config{}).CommandLine(); got != "mutate" {
		t.Errorf("no command: %s", got)
	}
}
