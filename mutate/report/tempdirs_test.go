package report

import (
	"testing"

	"gathermut/mutate/config"
)

// TestPathsIndependentOfTempDirs: a file a run names (the incremental
// cache given on the command line) is reported the same wherever the temp
// dirs are: under the system temp dir or GOTMPDIR (where a test's
// t.TempDir is when GOTMPDIR is set, as the tool sets it for the tests it
// runs) it gets their placeholder, and anywhere else it is Outside, never
// an absolute path.
func TestPathsIndependentOfTempDirs(t *testing.T) {
	for _, c := range []struct {
		name  string
		paths Paths
		cache string
		want  string
	}{
		{"under TMPDIR", Paths{Root: "/src/m", TempDir: "/tmp"}, "/tmp/T1/002/inc.json.gz", "$TMPDIR/T1/002/inc.json.gz"},
		{"under GOTMPDIR", Paths{Root: "/src/m", TempDir: "/tmp/g-1/tmp", GoTempDir: "/tmp/g-1/go"}, "/tmp/g-1/go/T1/002/inc.json.gz", "$GOTMPDIR/T1/002/inc.json.gz"},
		{"GOTMPDIR inside TMPDIR", Paths{TempDir: "/tmp", GoTempDir: "/tmp/gotmp"}, "/tmp/gotmp/x.gz", "$GOTMPDIR/x.gz"},
		{"TMPDIR inside GOTMPDIR", Paths{TempDir: "/w/t/tmp", GoTempDir: "/w/t"}, "/w/t/tmp/x.gz", "$TMPDIR/x.gz"},
		{"under GOTMPDIR, unknown", Paths{Root: "/src/m", TempDir: "/tmp/g-1/tmp"}, "/tmp/g-1/go/T1/002/inc.json.gz", Outside},
		{"elsewhere", Paths{Root: "/src/m", TempDir: "/tmp", GoTempDir: "/gotmp"}, "/data/inc.json.gz", Outside},
		{"in the module", Paths{Root: "/src/m", TempDir: "/tmp"}, "/src/m/.cache/inc.json.gz", ".cache/inc.json.gz"},
		{"the run's temp", Paths{Root: "/src/m", Temp: "/tmp/gathermut-9", TempDir: "/tmp"}, "/tmp/gathermut-9/inc", "$TMP/inc"},
		{"home", Paths{Home: "/home/u", TempDir: "/tmp"}, "/home/u/.cache/gathermut/incremental/x.gz", "~/.cache/gathermut/incremental/x.gz"},
	} {
		cfg := config.Default()
		cfg.Incremental = c.cache
		r := Build(Meta{Name: "n", Module: "m", Config: cfg, Paths: c.paths, Incremental: &IncrementalInfo{Cache: c.cache, Reused: 1}}, nil, Inputs{})
		if got := r.Gathermut.Incremental.Cache; got != c.want {
			t.Errorf("%s: incremental cache %q, want %q", c.name, got, c.want)
		}
		if got := r.Gathermut.Config.Incremental; got != c.want {
			t.Errorf("%s: config's incremental %q, want %q", c.name, got, c.want)
		}
	}
}
