package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"gathermut/mutate/config"
)

// TestHelpRowWords: the row's words (catalog, GPU jobs, kernel code, the
// bench and its sets) are in the help only of a module with a catalog.
func TestHelpRowWords(t *testing.T) {
	rowWords := []string{"--catalog", "--only-catalog", "--gpu-jobs", "kernel", "bench", "mutate-self", "GPU"}
	for _, c := range []struct {
		name string
		d    helpDefaults
		want bool
	}{
		{"a module without a catalog", helpDefaults{intro: "here: module example.com/m", catalog: "none"}, false},
		{"a module with a catalog", helpDefaults{intro: "here: module gathermut", catalog: "./mutants", row: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := flagsText(c.d) + c.d.rowText(rowCommands)
			for _, w := range rowWords {
				if strings.Contains(text, w) != c.want {
					t.Errorf("%q in the help: %v, want %v\n%s", w, !c.want, c.want, text)
				}
			}
		})
	}
}

// TestCommandHelp: mutate <command> -h prints that command's usage, not
// the list of every command.
func TestCommandHelp(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"list", "usage: mutate list [packages]\n\nlist the mutants"},
		{"run", "usage: mutate run <id|glob> [pkgs]\n\nrun the mutants whose id matches"},
		{"operators", "usage: mutate operators\n\nlist the mutation operators"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			var stderr bytes.Buffer
			_, _, err := parse([]string{c.cmd, "-h", "--dir", t.TempDir()}, &stderr)
			if !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("err %v, want flag.ErrHelp", err)
			}
			if got := stderr.String(); !strings.HasPrefix(got, c.want) || strings.Contains(got, "commands:") {
				t.Errorf("%s -h printed:\n%s", c.cmd, got)
			}
		})
	}
}

// TestTimeoutFlag: --timeout is a factor (--timeout-factor) or a duration
// (--timeout-floor); anything else is a usage error saying so.
func TestTimeoutFlag(t *testing.T) {
	for _, c := range []struct {
		arg     string
		factor  float64
		floor   string
		wantErr string
	}{
		{"5", 5, "auto", ""},
		{"2.5x", 2.5, "auto", ""},
		{"2s", 3, "2s", ""},
		{"500ms", 3, "500ms", ""},
		{"0", 0, "", "a factor must be above 0"},
		{"soon", 0, "", `"soon" is neither a factor (5, 5x) nor a duration (2s, 500ms)`},
	} {
		t.Run(c.arg, func(t *testing.T) {
			var stderr bytes.Buffer
			cfg, _, err := parse([]string{"list", "--timeout", c.arg}, &stderr)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || cfg.TimeoutFactor != c.factor || floorText(cfg.TimeoutFloor) != c.floor {
				t.Errorf("factor %v floor %v err %v, want %v %v", cfg.TimeoutFactor, cfg.TimeoutFloor, err, c.factor, c.floor)
			}
		})
	}
}

func floorText(d config.Duration) string {
	if d == 0 {
		return "auto"
	}
	return d.String()
}

// TestJSONFlag: --json is list's; other commands refuse it.
func TestJSONFlag(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		fail bool
	}{{"list", false}, {"all", true}} {
		t.Run(c.cmd, func(t *testing.T) {
			cfg, _, err := parse([]string{c.cmd, "--json"}, &bytes.Buffer{})
			if (err != nil) != c.fail || (!c.fail && !cfg.JSON) {
				t.Errorf("%s --json: err %v, JSON %v", c.cmd, err, cfg.JSON)
			}
		})
	}
}
