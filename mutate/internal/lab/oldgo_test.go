package lab

import (
	"strings"
	"testing"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// TestOldGoLines: a module whose go.mod says go 1.16, or has no go line
// (which the go command reads as go 1.16), gets test binaries with all its
// mutants in them: the code the tool adds to its packages (the switch, the
// rendered sites, the test wrapper) compiles at that language version, so
// no mutant falls back to a build of its own.
func TestOldGoLines(t *testing.T) {
	for _, c := range []struct{ name, fixture string }{
		{"go 1.16", "oldgo/go116"},
		{"no go line", "oldgo/nogoline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyRepoFixture(t, c.fixture)
			cfg := config.Default()
			cfg.Jobs, cfg.Command = 2, config.CmdAll
			res := runPipelineWith(t, dir, cfg, "")
			if res.code != exitcode.OK && res.code != exitcode.Survivors {
				t.Fatalf("exit %d (%s)\n%s", res.code, res.reason, res.stderr)
			}
			if strings.Contains(res.stderr, "own build") || !strings.Contains(res.stderr, "test binaries built") {
				t.Errorf("the mutants did not all go into the test binaries:\n%s", res.stderr)
			}
			schema := 0
			for id, o := range res.outcomes {
				switch o.Result.Mode {
				case mutant.ModeSchema:
					schema++
				case mutant.ModeOverlay:
					t.Errorf("%s: built on its own (%s)", id, o.Result.Why)
				}
			}
			if schema < 20 {
				t.Errorf("%d of %d mutants ran in the test binaries, want at least 20", schema, len(res.outcomes))
			}
		})
	}
}
