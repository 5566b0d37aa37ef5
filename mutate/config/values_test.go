package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDefault: the defaults the command's help and doc state (a floor of
// 0: derived from the machine; no report folder: ReportDirFor decides).
func TestDefault(t *testing.T) {
	c := Default()
	if c.Command != CmdAll || c.Dir != "." || c.Jobs != 1 || c.TimeoutFactor != 3 || c.TimeoutFloor.D() != 0 ||
		c.BaselineTimeout.D() != 10*time.Minute || c.ReportDir != "" || c.Catalog != "" || !c.Schemata || c.Threshold.Given {
		t.Errorf("Default() = %+v", c)
	}
}

func TestValidateValues(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Config)
		err  string // "" for valid
	}{
		{"default", func(*Config) {}, ""},
		{"every language", func(c *Config) { c.Languages = []string{"go", "asm", "kernel"} }, ""},
		{"an unknown language", func(c *Config) { c.Languages = []string{"go", "rust"} }, `--lang "rust": want some of go, asm, kernel`},
		{"one job", func(c *Config) { c.Jobs = 1 }, ""},
		{"no jobs", func(c *Config) { c.Jobs = 0 }, "-j must be at least 1"},
		{"factor 0 and floor 0", func(c *Config) { c.TimeoutFactor, c.TimeoutFloor = 0, 0 }, ""},
		{"a negative factor", func(c *Config) { c.TimeoutFactor = -0.5 }, "timeouts must not be negative (factor -0.5, floor 0s, baseline 10m0s)"},
		{"a negative floor", func(c *Config) { c.TimeoutFloor = Duration(-time.Second) }, "timeouts must not be negative (factor 3, floor -1s, baseline 10m0s)"},
		{"a zero baseline timeout", func(c *Config) { c.BaselineTimeout = 0 }, "baseline 0s"},
		{"a baseline timeout of 1ns", func(c *Config) { c.BaselineTimeout = 1 }, ""},
		{"a bad set name", func(c *Config) { c.Set = "a/b" }, "--set: set name"},
	} {
		cfg := Default()
		c.edit(&cfg)
		err := cfg.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

func TestParseShardValues(t *testing.T) {
	for in, want := range map[string]Shard{"0/1": {0, 1}, "0/2": {0, 2}, "1/2": {1, 2}, "4/5": {4, 5}} {
		if got, err := ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"1/1", "0/0", "-1/1", "0/-1", "2/1", "x/2", "0/y", "0-1", "0/1/2"} {
		if _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "want k/n with 0 <= k < n") {
			t.Errorf("ParseShard(%q): %v", bad, err)
		}
	}
	if (Shard{0, 1}).String() != "0/1" || (Shard{}).String() != "" {
		t.Errorf("String")
	}
	c := Config{Shard: Shard{0, 1}}
	if got := c.ReportName(); got != "mutation-shard-0-of-1" {
		t.Errorf("ReportName of a shard of 1: %q", got)
	}
	c.Set = "s"
	if got := c.ReportName(); got != "s-shard-0-of-1" {
		t.Errorf("ReportName of a set's shard of 1: %q", got)
	}
}

// TestJudgingDiffEachField: every field of the judging part is compared.
func TestJudgingDiffEachField(t *testing.T) {
	base := Default()
	for _, c := range []struct {
		field string
		edit  func(*Config)
	}{
		{"Select", func(c *Config) { c.Select = "x*" }},
		{"Catalog", func(c *Config) { c.Catalog = "./m" }},
		{"OnlyCatalog", func(c *Config) { c.OnlyCatalog = true }},
		{"InDiff", func(c *Config) { c.InDiff = "HEAD" }},
		{"Operators", func(c *Config) { c.Operators = []string{"arith"} }},
		{"Languages", func(c *Config) { c.Languages = []string{"go"} }},
		{"StrictTimeouts", func(c *Config) { c.StrictTimeouts = true }},
		{"TimeoutFactor", func(c *Config) { c.TimeoutFactor = 4 }},
		{"TimeoutFloor", func(c *Config) { c.TimeoutFloor = Duration(time.Second) }},
		{"Exclude", func(c *Config) { c.Exclude = []string{"a"} }},
		{"Threshold", func(c *Config) { c.Threshold = Threshold{80, true} }},
	} {
		other := Default()
		c.edit(&other)
		d := base.Judging().Diff(other.Judging())
		if len(d) != 1 || !strings.HasPrefix(d[0], c.field+": ") {
			t.Errorf("%s changed: diff %q", c.field, d)
		}
	}
}

func TestDurationJSON(t *testing.T) {
	var d Duration
	for in, want := range map[string]string{`5`: "config: duration: json: cannot unmarshal number", `"5"`: `config: duration: time: missing unit in duration "5"`} {
		if err := json.Unmarshal([]byte(in), &d); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if err := json.Unmarshal([]byte(`"1m30s"`), &d); err != nil || d.D() != 90*time.Second || d.String() != "1m30s" {
		t.Errorf("1m30s: %v %v", d, err)
	}
}

func TestMutates(t *testing.T) {
	all := Config{}
	some := Config{Languages: []string{"go", "kernel"}}
	for _, lang := range AllLanguages {
		if !all.Mutates(lang) {
			t.Errorf("no --lang: %s not mutated", lang)
		}
		if some.Mutates(lang) != (lang != "asm") {
			t.Errorf("--lang go,kernel: Mutates(%s) = %v", lang, some.Mutates(lang))
		}
	}
}

func TestReadProjectErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ProjectFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadProject(dir); p != nil || err == nil || !strings.HasPrefix(err.Error(), "config: ") || !strings.Contains(err.Error(), ProjectFile) {
		t.Errorf("a project file that is a directory: %v, %v", p, err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, ProjectFile), []byte(`{"threshold": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadProject(bad); err == nil || !strings.Contains(err.Error(), filepath.Join(bad, ProjectFile)) {
		t.Errorf("a bad project file: %v", err)
	}
}

// TestApplyLeavesOpen: what a project file leaves out keeps its value,
// and the origin names what came from the command line after the file.
func TestApplyLeavesOpen(t *testing.T) {
	c := Default()
	c.Operators = []string{"negate"}
	c.Threshold = Threshold{70, true}
	c.Apply(&Project{})
	if strings.Join(c.Patterns, " ") != "./..." || c.Catalog != "" || c.CatalogExplicit || strings.Join(c.Operators, ",") != "negate" ||
		c.Threshold != (Threshold{70, true}) || c.Origin != "settings of this module's "+ProjectFile {
		t.Errorf("an empty project file: %+v", c)
	}
	th := 60.0
	c = Default()
	c.Patterns, c.Given = []string{"./x"}, Explicit{Packages: true}
	c.Apply(&Project{Packages: []string{"./p"}, Threshold: &th})
	if c.Origin != "settings of this module's "+ProjectFile+"; packages from the command line" || c.Threshold != (Threshold{60, true}) {
		t.Errorf("packages given: %+v", c)
	}
}

func TestThresholdValues(t *testing.T) {
	for th, want := range map[Threshold]string{{85.5, true}: "85.5%", {90, true}: "90%", {0.25, true}: "0.25%", {}: "none"} {
		if got := th.String(); got != want {
			t.Errorf("%+v: %q, want %q", th, got, want)
		}
	}
	th := Threshold{80, true}
	if err := json.Unmarshal([]byte("null"), &th); err != nil || th.Given || th.Percent != 0 {
		t.Errorf("null: %+v %v", th, err)
	}
	if err := json.Unmarshal([]byte(`"80"`), &th); err == nil || !strings.Contains(err.Error(), "config: threshold: ") {
		t.Errorf("a string: %v", err)
	}
}

func TestGlobValues(t *testing.T) {
	for _, bad := range []string{"**/a/[x", "a/**/[x"} {
		if err := CheckGlob(bad); err == nil {
			t.Errorf("CheckGlob(%q) accepted", bad)
		}
	}
	for _, c := range []struct {
		glob, rel string
		want      bool
	}{
		{"gather", "gather/x.go", true},
		{"gather", "gather", true},
		{"x.go", "x.go", true},
		{"a/b", "a", false},
		{"a/*", "a/b/c.go", true},
	} {
		if got := MatchGlob(c.glob, c.rel); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v", c.glob, c.rel, got)
		}
	}
}
