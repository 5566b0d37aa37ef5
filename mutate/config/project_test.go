package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatchGlob(t *testing.T) {
	for _, c := range []struct {
		glob, rel string
		want      bool
	}{
		{"gather/gathertest", "gather/gathertest/suite.go", true},
		{"gather/gathertest/", "gather/gathertest/sub/x.go", true},
		{"gather/gathertest", "gather/gathertester/x.go", false},
		{"gather/gathertest", "gather/embedding.go", false},
		{"gather/*.go", "gather/embedding.go", true},
		{"gather/*.go", "gather/sub/embedding.go", false},
		{"gather/**/*.go", "gather/embedding.go", true},
		{"gather/**/*.go", "gather/a/b/embedding.go", true},
		{"**/internal/**", "gather/internal/gen/main.go", true},
		{"**/internal/**", "internal/main.go", true},
		{"**/internal/**", "gather/internals/x.go", false},
		{"*_string.go", "a/b/kind_string.go", true},
		{"*_string.go", "kind_string.go", true},
		{"*_string.go", "a/string.go", false},
		{"table.go", "uuid/table.go", true},
		{"uuid/table.go", "x/uuid/table.go", false},
		{"[ab]*.go", "b.go", true},
	} {
		if got := MatchGlob(c.glob, c.rel); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.glob, c.rel, got, c.want)
		}
	}
}

func TestCheckGlob(t *testing.T) {
	for _, good := range []string{"a/**/b", "*.go", "gather/gathertest/"} {
		if err := CheckGlob(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"", " ", "/abs/x.go", "./x.go", `a\b`, "a/[x"} {
		if err := CheckGlob(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseProject(t *testing.T) {
	p, err := ParseProject("p.json", []byte(`{"comment": "c", "packages": ["./a/..."], "catalog": "", "exclude": ["a/gen"], "operators": ["arith"], "threshold": 85}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Packages, " ") != "./a/..." || p.Catalog == nil || *p.Catalog != "" || p.Exclude[0] != "a/gen" || *p.Threshold != 85 {
		t.Errorf("%+v", p)
	}
	for bad, msg := range map[string]string{
		`{"packges": ["./..."]}`:    `unknown field "packges"`,
		`{"threshold": 101}`:        "threshold: 101 is not a percentage",
		`{"threshold": -1}`:         "threshold: -1 is not a percentage",
		`{"exclude": ["/abs"]}`:     "exclude: glob",
		`{"packages": [""]}`:        "packages: empty pattern",
		`{"packages": ["./..."]} x`: "text after the JSON object",
		`{"packages": "./..."}`:     "cannot unmarshal",
	} {
		_, err := ParseProject("p.json", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%s: error %v, want one naming p.json and %q", bad, err, msg)
		}
	}
}

func TestReadProjectMissing(t *testing.T) {
	p, err := ReadProject(t.TempDir())
	if p != nil || err != nil {
		t.Errorf("no file: %v %v", p, err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ProjectFile), []byte(`{"catalog": "./cat"}`), 0o644)
	if p, err := ReadProject(dir); err != nil || *p.Catalog != "./cat" {
		t.Errorf("file: %v %v", p, err)
	}
}

func TestApply(t *testing.T) {
	// no project file: ./... and no catalog, whatever the old defaults were
	c := Default()
	c.Catalog = "./mutants"
	c.Apply(nil)
	if strings.Join(c.Patterns, " ") != "./..." || c.Catalog != "" || !strings.Contains(c.Origin, "without "+ProjectFile) {
		t.Errorf("outside: %+v", c)
	}
	// a project file fills what the command line left open
	cat := "./mutants"
	th := 85.0
	p := &Project{Packages: []string{"./a/...", "./b/..."}, Catalog: &cat, Exclude: []string{"a/gen"}, Operators: []string{"arith"}, Threshold: &th}
	c = Default()
	c.Exclude = []string{"b/x.go"}
	c.Apply(p)
	if strings.Join(c.Patterns, " ") != "./a/... ./b/..." || c.Catalog != "./mutants" || !c.CatalogExplicit ||
		strings.Join(c.Exclude, " ") != "a/gen b/x.go" || strings.Join(c.Operators, ",") != "arith" ||
		c.Threshold != (Threshold{85, true}) || c.Origin != "settings of this module's "+ProjectFile {
		t.Errorf("project: %+v", c)
	}
	// flags win
	c = Default()
	c.Patterns, c.Catalog, c.Operators, c.Threshold = []string{"./c"}, "", []string{"negate"}, Threshold{50, true}
	c.Given = Explicit{Packages: true, Catalog: true, Operators: true, Threshold: true}
	c.Apply(p)
	if strings.Join(c.Patterns, " ") != "./c" || c.Catalog != "" || strings.Join(c.Operators, ",") != "negate" || c.Threshold.Percent != 50 ||
		!strings.HasSuffix(c.Origin, "packages, catalog, operators, threshold from the command line") {
		t.Errorf("flags: %+v", c)
	}
}

func TestThreshold(t *testing.T) {
	for in, want := range map[string]Threshold{"85": {85, true}, "85%": {85, true}, "0": {0, true}, "99.5": {99.5, true}, "100": {100, true}} {
		if got, err := ParseThreshold(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x", "100.1", "-5", "NaN"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	th := Threshold{85, true}
	// 17 of 20 is exactly 85%; 169 of 199 is 84.92%, shown as 84.9%
	if !th.Met(17, 20) || th.Met(169, 199) || (Threshold{}).Met(20, 20) {
		t.Errorf("Met")
	}
	for _, c := range []Threshold{{}, {85, true}, {0, true}} {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Threshold
		if err := json.Unmarshal(data, &back); err != nil || back != c {
			t.Errorf("%v -> %s -> %v %v", c, data, back, err)
		}
	}
	if th.String() != "85%" || (Threshold{}).String() != "none" {
		t.Errorf("String: %s %s", th, Threshold{})
	}
}

// TestReportDirFor: reports go where --report-dir says, else where the
// project file's reportDir says (under the module root), else into a
// folder of the module in the user cache: never into the source tree
// unless asked.
func TestReportDirFor(t *testing.T) {
	root, cache := filepath.FromSlash("/home/u/src/app"), filepath.FromSlash("/home/u/.cache/gathermut")
	dir := "reports"
	proj := &Project{ReportDir: &dir}
	given := Default()
	given.ReportDir, given.Given.ReportDir = "out", true
	def := ReportCacheDir(cache, root, "example.com/app")
	for _, c := range []struct {
		name string
		c    Config
		p    *Project
		want string
	}{
		{"flag", given, proj, "out"},
		{"project file", Default(), proj, filepath.Join(root, "reports")},
		{"neither", Default(), &Project{}, def},
		{"no project file", Default(), nil, def},
	} {
		if got := ReportDirFor(c.c, c.p, root, "example.com/app", cache); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if !strings.HasPrefix(def, filepath.Join(cache, "reports", "example.com_app-")) || strings.HasPrefix(def, root) {
		t.Errorf("default %s: not a folder of the module in the cache", def)
	}
	if other := ReportCacheDir(cache, filepath.FromSlash("/home/u/src/app2"), "example.com/app"); other == def {
		t.Errorf("two checkouts of one module share %s", def)
	}
	if d := ReportCacheDir("", root, "m"); !strings.HasPrefix(d, os.TempDir()) {
		t.Errorf("without a cache dir: %s", d)
	}
	for _, bad := range []string{`{"reportDir": ""}`, `{"reportDir": "/abs/reports"}`, `{"reportDir": "a\\b"}`} {
		if _, err := ParseProject("p.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "reportDir") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if p, err := ParseProject("p.json", []byte(`{"reportDir": "../reports"}`)); err != nil || *p.ReportDir != "../reports" {
		t.Errorf("relative reportDir: %v %v", p, err)
	}
}

// TestProjectSets: a named set is a job of its own: --set takes its
// fields, not the top level's, and names the reports; a bad set is an
// error naming the file and the set.
func TestProjectSets(t *testing.T) {
	p, err := ParseProject("p.json", []byte(`{"packages": ["./row/..."], "catalog": "./mutants", "exclude": ["row/gen"], "threshold": 100,
		"sets": {"mutate-self": {"comment": "the tool", "packages": ["./mutate/..."], "exclude": ["mutate/bench.go"], "threshold": 90}, "b.2_x": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := p.Select("mutate-self")
	if err != nil {
		t.Fatal(err)
	}
	c := Default()
	c.Set = "mutate-self"
	c.Apply(set)
	if strings.Join(c.Patterns, " ") != "./mutate/..." || c.Catalog != "" || c.CatalogExplicit || strings.Join(c.Exclude, " ") != "mutate/bench.go" ||
		c.Threshold != (Threshold{90, true}) || c.Origin != "settings of set mutate-self in this module's "+ProjectFile {
		t.Errorf("set: %+v", c)
	}
	for _, n := range []struct {
		c    Config
		want string
	}{
		{Config{Set: "mutate-self"}, "mutate-self"},
		{Config{Set: "mutate-self", Shard: Shard{K: 1, N: 3}}, "mutate-self-shard-1-of-3"},
		{Config{Set: "mutate-self", Name: "x"}, "x"},
		{Config{Set: "mutate-self", Command: CmdRun}, "run"},
		{Config{}, "mutation"},
		{Config{Shard: Shard{K: 0, N: 2}}, "mutation-shard-0-of-2"},
	} {
		if got := n.c.ReportName(); got != n.want {
			t.Errorf("ReportName of %+v = %q, want %q", n.c, got, n.want)
		}
	}
	if _, err := p.Select("other"); err == nil || !strings.Contains(err.Error(), "no such set") || !strings.Contains(err.Error(), "it names b.2_x, mutate-self") {
		t.Errorf("an unknown set: %v", err)
	}
	if _, err := (&Project{}).Select("x"); err == nil || !strings.Contains(err.Error(), "it names none") {
		t.Errorf("a project without sets: %v", err)
	}
	if _, err := (*Project)(nil).Select("x"); err == nil || !strings.Contains(err.Error(), "has no "+ProjectFile) {
		t.Errorf("no project file: %v", err)
	}
	for bad, msg := range map[string]string{
		`{"sets": {"a b": {}}}`:                                 `set name "a b"`,
		`{"sets": {"..": {}}}`:                                  `set name ".."`,
		`{"sets": {"": {}}}`:                                    `set name ""`,
		`{"sets": {"s": null}}`:                                 "set s: not an object",
		`{"sets": {"s": {"sets": {}}}}`:                         "set s: a set cannot hold sets",
		`{"sets": {"s": {"threshold": 101}}}`:                   "set s: threshold",
		`{"sets": {"s": {"exclude": ["./x"]}}}`:                 "set s: exclude",
		`{"sets": {"s": {"packages": [" "]}}}`:                  "set s: packages: empty pattern",
		`{"sets": {"s": {"packges": []}}}`:                      `unknown field "packges"`,
		`{"packages": [""], "sets": {"s": {}}}`:                 "packages: empty pattern",
		`{"sets": {"s": {"catalog": 1}}}`:                       "cannot unmarshal",
		`{"sets": {"s": {}, "t": {"operators": "x"}}}`:          "cannot unmarshal",
		`{"sets": {"ok": {"threshold": 90}}, "threshold": 200}`: "threshold: 200",
	} {
		_, err := ParseProject("p.json", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%s: error %v, want one naming p.json and %q", bad, err, msg)
		}
	}
	for name, ok := range map[string]bool{"mutate-self": true, "a.b_c-1": true, "": false, ".": false, "a/b": false, "é": false} {
		if err := CheckSetName(name); (err == nil) != ok {
			t.Errorf("CheckSetName(%q): %v", name, err)
		}
		c := Default()
		c.Set = name
		if err := c.Validate(); (err == nil) != (ok || name == "") {
			t.Errorf("Validate with --set %q: %v", name, err)
		}
	}
}
