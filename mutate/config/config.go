package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// IncrementalDefault is Config.Incremental for the default cache file.
const IncrementalDefault = "default"

// AnnotationsGitHub is Config.Annotations for GitHub Actions' workflow
// commands (::warning file=...,line=...::message).
const AnnotationsGitHub = "github"

// DefaultPatterns are the row's packages without gather/gathertest (the
// provider conformance suite, test infrastructure). They are no longer a
// default of the tool: this repository's ProjectFile names the row's
// packages and excludes gather/gathertest.
var DefaultPatterns = []string{"./gguf/...", "./gather", "./gather/internal/...", "./engine/...", "./hipkern/..."}

// Config is one run's configuration.
type Config struct {
	Command         Command  `json:"command"`           // all, list, run, diff, merge, bench
	Select          string   `json:"select,omitempty"`  // the id glob of run and diff
	Dir             string   `json:"dir"`               // a directory of the module to test
	Patterns        []string `json:"patterns"`          // package patterns (from the project file or ./... when none given)
	Jobs            int      `json:"jobs"`              // parallel workers
	TimeoutFactor   float64  `json:"timeoutFactor"`     // each test's timeout = factor * its baseline time + floor
	TimeoutFloor    Duration `json:"timeoutFloor"`      // 0: derived from the test binaries' start-up on this machine
	BaselineTimeout Duration `json:"baselineTimeout"`   // the limit on one baseline test process
	StrictTimeouts  bool     `json:"strictTimeouts"`    // a timed-out generic mutant fails the run
	GPUJobs         int      `json:"gpuJobs,omitempty"` // test processes that use the GPU at once
	ReportDir       string   `json:"reportDir"`         // where reports go ("" until resolved: ReportDirFor)
	Name            string   `json:"name"`              // report base name
	Catalog         string   `json:"catalog"`           // catalog package, import path or ./dir; "" for none
	CatalogExplicit bool     `json:"catalogExplicit"`   // --catalog was given (a missing catalog is then an error)
	OnlyCatalog     bool     `json:"onlyCatalog"`       // only catalog mutants
	InDiff          string   `json:"inDiff,omitempty"`  // only mutants on lines changed since this git ref
	Shard           Shard    `json:"shard"`             // the part of the mutants to run
	Operators       []string `json:"operators"`         // generic operators; empty: all
	// Languages are the kinds of code generic operators mutate: "go",
	// "asm" (assembly files of the packages), "kernel" (the catalog's
	// kernel recipe's device code); empty: all three.
	Languages []string `json:"languages,omitempty"`
	Verbose   bool     `json:"verbose"`  // print each verdict as it comes
	Schemata  bool     `json:"schemata"` // schema builds (false: one overlay build per mutant)
	NoCache   bool     `json:"noCache"`  // do not read or write the discovery cache
	// NoKillerMap runs each mutant's covering tests in cost tiers only,
	// without the killer map's predicted killers first (package
	// selection): the verdicts are the same, only the order differs.
	NoKillerMap bool `json:"noKillerMap,omitempty"`
	// Incremental reuses the verdicts of earlier runs whose inputs are
	// unchanged: "" off, IncrementalDefault for the file in the user
	// cache dir, else the cache file's path.
	Incremental string `json:"incremental,omitempty"`
	// Exclude lists file globs (MatchGlob) whose generic mutants are not
	// made: the project file's, then --exclude's.
	Exclude []string `json:"exclude,omitempty"`
	// Race are the project file's package patterns whose test binaries
	// are built with -race (schedule's raceArgs).
	Race []string `json:"race,omitempty"`
	// SARIF is the file --sarif writes the findings to (SARIF 2.1.0);
	// Annotations is "github" for GitHub workflow-command annotations on
	// stdout (--annotations github), else "".
	SARIF       string    `json:"sarif,omitempty"`
	Annotations string    `json:"annotations,omitempty"`
	Threshold   Threshold `json:"threshold"`        // the minimum score that passes; none: any survivor fails
	Origin      string    `json:"origin,omitempty"` // where packages, catalog and exclusions came from (Apply)
	// Tool is the command that runs this tool from the module root, as
	// the run found it ("go run ./mutate", "mutate", "bin/mutate", "go
	// run example.com/x/mutate@v1.2.0"), and ToolDir the --dir it must be
	// given there ("" for none): the prefix of the commands a report
	// gives (report.ToolCommand). "" in reports written before it.
	Tool    string `json:"tool,omitempty"`
	ToolDir string `json:"toolDir,omitempty"`
	// Set is the project file's named set whose settings apply (--set).
	Set   string   `json:"set,omitempty"`
	Given Explicit `json:"given"` // the settings the command line gave
	// JSON makes list print one JSON object per mutant (list --json).
	JSON bool `json:"-"`
}

// Default returns the configuration of a plain "mutate all".
func Default() Config {
	return Config{
		Command:         CmdAll,
		Dir:             ".",
		Jobs:            1,
		TimeoutFactor:   3,
		BaselineTimeout: Duration(10 * time.Minute),
		Catalog:         "",
		Schemata:        true,
	}
}

// Judging is the part of a configuration that decides which mutants run
// and how they are judged: reports of runs that differ in it are not parts
// of one run. Whether schemata were used is not part of it: both modes
// give the same verdicts.
type Judging struct {
	Select         string
	Catalog        string
	OnlyCatalog    bool
	InDiff         string
	Operators      string
	Languages      string
	StrictTimeouts bool
	TimeoutFactor  float64
	TimeoutFloor   Duration
	Exclude        string
	Threshold      Threshold
}

// Judging returns the verdict-deciding part of c.
func (c Config) Judging() Judging {
	return Judging{
		Select: c.Select, Catalog: c.Catalog, OnlyCatalog: c.OnlyCatalog, InDiff: c.InDiff,
		Operators: strings.Join(c.Operators, ","), Languages: strings.Join(c.Languages, ","), StrictTimeouts: c.StrictTimeouts,
		TimeoutFactor: c.TimeoutFactor, TimeoutFloor: c.TimeoutFloor,
		Exclude: strings.Join(c.Exclude, ","), Threshold: c.Threshold,
	}
}

// Diff lists the fields in which j and other differ, as "Field: a vs b".
func (j Judging) Diff(other Judging) []string {
	var out []string
	a, b := reflect.ValueOf(j), reflect.ValueOf(other)
	for i := 0; i < a.NumField(); i++ {
		x, y := a.Field(i).Interface(), b.Field(i).Interface()
		if x != y {
			out = append(out, fmt.Sprintf("%s: %v vs %v", a.Type().Field(i).Name, x, y))
		}
	}
	return out
}

// Validate checks what the flags alone can tell.
func (c Config) Validate() error {
	for _, l := range c.Languages {
		if !slices.Contains(AllLanguages, l) {
			return fmt.Errorf("--lang %q: want some of %s", l, strings.Join(AllLanguages, ", "))
		}
	}
	if c.Jobs < 1 {
		return fmt.Errorf("-j must be at least 1")
	}
	if c.Annotations != "" && c.Annotations != AnnotationsGitHub {
		return fmt.Errorf("--annotations %q: the one format is %s", c.Annotations, AnnotationsGitHub)
	}
	if c.Set != "" {
		if err := CheckSetName(c.Set); err != nil {
			return fmt.Errorf("--set: %v", err)
		}
	}
	if c.TimeoutFactor < 0 || c.TimeoutFloor < 0 || c.BaselineTimeout <= 0 {
		return fmt.Errorf("timeouts must not be negative (factor %v, floor %v, baseline %v)", c.TimeoutFactor, c.TimeoutFloor, c.BaselineTimeout)
	}
	return nil
}

// ReportName is the report base name: Name, or for the run command "run",
// so that rerunning a few mutants never overwrites the reports of a whole
// run, or the set's name (--set), else mutation (NAME-shard-K-of-N for a
// shard).
func (c Config) ReportName() string {
	switch {
	case c.Name != "":
		return c.Name
	case c.Command == CmdRun:
		return "run"
	case c.Set != "" && c.Shard.N > 0:
		return fmt.Sprintf("%s-shard-%d-of-%d", c.Set, c.Shard.K, c.Shard.N)
	case c.Set != "":
		return c.Set
	case c.Shard.N > 0:
		return fmt.Sprintf("mutation-shard-%d-of-%d", c.Shard.K, c.Shard.N)
	}
	return "mutation"
}

// Shard selects part K of N parts of the mutants, split by expected work;
// N == 0 means all.
type Shard struct {
	K int `json:"k"`
	N int `json:"n"`
}

// String is "k/n", or "" for no shard.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// ParseShard parses "k/n" (0 <= k < n); "" is no shard.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return Shard{}, fmt.Errorf("--shard %q: want k/n with 0 <= k < n", s)
	}
	return Shard{K: k, N: n}, nil
}

// Duration is a time.Duration written as "2s" in JSON.
type Duration time.Duration

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("config: duration: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("config: duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// AllLanguages are the kinds of code the generic operators mutate.
var AllLanguages = []string{"go", "asm", "kernel"}

// Mutates reports whether the generic operators run on code of language
// lang ("go", "asm" or "kernel").
func (c Config) Mutates(lang string) bool {
	return len(c.Languages) == 0 || slices.Contains(c.Languages, lang)
}
