package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/mutant"
)

// Machine describes where a run happened.
type Machine struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPU      string `json:"cpu,omitempty"`
	Cores    int    `json:"cores"`
	GPUs     []GPU  `json:"gpus,omitempty"`
	GPUNote  string `json:"gpuNote,omitempty"` // why no GPU is listed
}

// GPU is one accelerator.
type GPU struct {
	Name string `json:"name"`
	Arch string `json:"arch"`
}

// BaselineInfo summarises the baseline.
type BaselineInfo struct {
	Packages int      `json:"packages"`
	Tests    int      `json:"tests"`
	Flaky    []string `json:"flaky,omitempty"`
	Failing  []string `json:"failing,omitempty"`
	Skipped  []string `json:"skipped,omitempty"`
	Seconds  float64  `json:"seconds"`
}

// Timing says where a run's time went: wall seconds of the phases, and
// for the mutants' builds and test processes the seconds summed over
// workers.
type Timing struct {
	Discovery      float64 `json:"discovery"`      // wall: catalog, load, mutants (TypeCheck included)
	TypeCheck      float64 `json:"typeCheck"`      // wall: type-checking the mutants
	Baseline       float64 `json:"baseline"`       // wall of each package's baseline, summed (with schemata they overlap the mutants)
	SchemaBuilds   float64 `json:"schemaBuilds"`   // wall: rendering and building the schema binaries
	SchemaRounds   int     `json:"schemaRounds"`   // schema builds until one compiled
	Mutants        float64 `json:"mutants"`        // wall: running the mutants
	FallbackBuilds float64 `json:"fallbackBuilds"` // summed: per-mutant overlay builds
	Builds         int     `json:"builds"`         // how many
	TestProcesses  float64 `json:"testProcesses"`  // summed: mutant test processes
	Processes      int     `json:"processes"`      // how many
}

// Meta is the run-level information of a report.
type Meta struct {
	Name        string              `json:"name"`
	Module      string              `json:"module"`
	Root        string              `json:"root"`
	Patterns    []string            `json:"patterns"`
	Catalog     string              `json:"catalog,omitempty"`
	Started     time.Time           `json:"started"`
	WallSeconds float64             `json:"wallSeconds"`
	Jobs        int                 `json:"jobs"`
	Machine     Machine             `json:"machine"`
	GoVersion   string              `json:"goVersion"`
	Version     string              `json:"version"`
	TreeBefore  string              `json:"treeBefore"`
	TreeAfter   string              `json:"treeAfter"`
	TreeChanged []string            `json:"treeChanged,omitempty"`
	Interrupted bool                `json:"interrupted"`
	Shard       string              `json:"shard,omitempty"`
	Shards      []string            `json:"shards,omitempty"` // merged reports
	Config      config.Config       `json:"config"`           // the run's configuration
	Baseline    BaselineInfo        `json:"baseline"`
	Timing      Timing              `json:"timing"`
	Modes       map[mutant.Mode]int `json:"modes,omitempty"` // how many mutants each mode judged
	Summary     Summary             `json:"summary"`
	ExitCode    exitcode.Code       `json:"exitCode"`
	Reason      string              `json:"reason"`
}

// Report is the mutation-testing-report-schema document.
type Report struct {
	Schema        string                 `json:"$schema"`
	SchemaVersion string                 `json:"schemaVersion"`
	Thresholds    Thresholds             `json:"thresholds"`
	ProjectRoot   string                 `json:"projectRoot"`
	Files         map[string]*FileResult `json:"files"`
	Framework     Framework              `json:"framework"`
	System        System                 `json:"system"`
	Config        *config.Config         `json:"config,omitempty"`
	Gathermut     Meta                   `json:"gathermut"`
}

// Thresholds are the schema's score thresholds.
type Thresholds struct {
	High int `json:"high"`
	Low  int `json:"low"`
}

// FileResult is one mutated file.
type FileResult struct {
	Language string         `json:"language"`
	Source   string         `json:"source"`
	Mutants  []MutantResult `json:"mutants"`
}

// Location is a [start, end) range, 1-based.
type Location struct {
	Start mutant.Position `json:"start"`
	End   mutant.Position `json:"end"`
}

// MutantResult is one mutant in the schema's form.
type MutantResult struct {
	ID             string          `json:"id"`
	MutatorName    string          `json:"mutatorName"`
	Replacement    string          `json:"replacement"`
	Location       Location        `json:"location"`
	Status         string          `json:"status"`
	StatusReason   string          `json:"statusReason,omitempty"`
	KilledBy       []string        `json:"killedBy,omitempty"`
	CoveredBy      []string        `json:"coveredBy,omitempty"`
	Duration       float64         `json:"duration"` // milliseconds
	TestsCompleted int             `json:"testsCompleted"`
	Description    string          `json:"description"`
	Gathermut      *mutant.Outcome `json:"gathermut"`
}

// Framework names the tool.
type Framework struct {
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	Dependencies map[string]string `json:"dependencies,omitempty"`
}

// System is the schema's machine description.
type System struct {
	CI bool `json:"ci"`
	OS struct {
		Platform    string `json:"platform"`
		Description string `json:"description,omitempty"`
	} `json:"os"`
	CPU struct {
		LogicalCores int    `json:"logicalCores"`
		Model        string `json:"model,omitempty"`
	} `json:"cpu"`
}

// SchemaStatus maps a verdict to the schema's status.
func SchemaStatus(r mutant.Result) string {
	switch r.Status {
	case mutant.Killed:
		return "Killed"
	case mutant.Survived:
		if r.Why == NotCovered {
			return "NoCoverage"
		}
		return "Survived"
	case mutant.TimedOut:
		return "Timeout"
	case mutant.Unviable:
		return "CompileError"
	case mutant.Error:
		return "RuntimeError"
	}
	return "Ignored" // ignored and not run
}

// NotCovered is the Why of a mutant no test executes.
const NotCovered = "not covered by any test"

func statusReason(r mutant.Result) string {
	switch r.Status {
	case mutant.NotRun:
		return "not run: " + r.Why
	case mutant.Killed:
		if r.Why != "" {
			return r.Why
		}
		return r.Excerpt
	}
	return r.Why
}

// Build assembles a report from outcomes; sources maps module-relative
// paths to the original file contents.
func Build(meta Meta, outcomes []mutant.Outcome, sources map[string]string) *Report {
	sorted := append([]mutant.Outcome(nil), outcomes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Mutant.ID < sorted[j].Mutant.ID })
	meta.Summary = Summarize(sorted)
	r := &Report{
		Schema:        "https://git.io/mutation-testing-schema",
		SchemaVersion: "2",
		Thresholds:    Thresholds{High: 80, Low: 60},
		ProjectRoot:   meta.Root,
		Files:         map[string]*FileResult{},
		Framework:     Framework{Name: "gathermut mutate", Version: meta.Version},
		Config:        &meta.Config,
		Gathermut:     meta,
	}
	r.System.CI = os.Getenv("CI") != ""
	r.System.OS.Platform = meta.Machine.OS
	r.System.OS.Description = meta.Machine.OS + "/" + meta.Machine.Arch
	r.System.CPU.LogicalCores = meta.Machine.Cores
	r.System.CPU.Model = meta.Machine.CPU
	for i := range sorted {
		o := &sorted[i]
		m := o.Mutant
		fr := r.Files[m.File]
		if fr == nil {
			fr = &FileResult{Language: language(m.File), Source: sources[m.File], Mutants: []MutantResult{}}
			r.Files[m.File] = fr
		}
		end := m.End
		if end.Line == 0 {
			end = m.Pos
		}
		start := m.Pos
		if start.Line == 0 {
			start = mutant.Position{Line: 1, Column: 1}
			end = start
		}
		fr.Mutants = append(fr.Mutants, MutantResult{
			ID:             m.ID,
			MutatorName:    m.Operator,
			Replacement:    m.Replacement,
			Location:       Location{Start: start, End: end},
			Status:         SchemaStatus(o.Result),
			StatusReason:   statusReason(o.Result),
			KilledBy:       o.Result.KilledBy,
			CoveredBy:      o.Result.CoveredBy,
			Duration:       float64(o.Result.Duration) / float64(time.Millisecond),
			TestsCompleted: o.Result.TestsRun,
			Description:    description(m),
			Gathermut:      o,
		})
	}
	return r
}

func description(m mutant.Mutant) string {
	d := fmt.Sprintf("%s in %s: %q -> %q", m.Operator, m.Func, m.Original, m.Replacement)
	if m.Catalog != nil {
		d = fmt.Sprintf("catalog %s (class %d): %s", m.Catalog.ID, m.Catalog.Class, m.Catalog.Reason)
	}
	return d
}

func language(path string) string {
	switch filepath.Ext(path) {
	case ".go":
		return "go"
	case ".hip", ".cu", ".cuh", ".c", ".h", ".cc", ".cpp":
		return "cpp"
	}
	return "plaintext"
}

// Outcomes returns the outcomes a report holds, sorted by id.
func (r *Report) Outcomes() ([]mutant.Outcome, error) {
	var out []mutant.Outcome
	for path, f := range r.Files {
		for _, m := range f.Mutants {
			if m.Gathermut == nil {
				return nil, fmt.Errorf("report: mutant %s in %s has no gathermut data (not written by this tool)", m.ID, path)
			}
			out = append(out, *m.Gathermut)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Mutant.ID < out[j].Mutant.ID })
	return out, nil
}

// Sources returns the original sources a report holds.
func (r *Report) Sources() map[string]string {
	out := map[string]string{}
	for path, f := range r.Files {
		out[path] = f.Source
	}
	return out
}

// Write writes <dir>/<name>.json and <dir>/<name>.md.
func Write(dir string, r *Report) (jsonPath, mdPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("report: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", "", fmt.Errorf("report: %w", err)
	}
	jsonPath = filepath.Join(dir, r.Gathermut.Name+".json")
	if err := os.WriteFile(jsonPath, append(data, '\n'), 0o644); err != nil {
		return "", "", fmt.Errorf("report: %w", err)
	}
	mdPath = filepath.Join(dir, r.Gathermut.Name+".md")
	if err := os.WriteFile(mdPath, []byte(Markdown(r)), 0o644); err != nil {
		return "", "", fmt.Errorf("report: %w", err)
	}
	return jsonPath, mdPath, nil
}

// Read reads a JSON report written by Write.
func Read(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if r.SchemaVersion != "2" {
		return nil, fmt.Errorf("report: %s: schemaVersion %q, want \"2\"", path, r.SchemaVersion)
	}
	return &r, nil
}

// Merge combines shard reports of the same tree into one. Mutants present
// in several reports must agree on their id; the first wins.
func Merge(name string, reports []*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("report: merge: no reports")
	}
	if err := checkShardSet(reports); err != nil {
		return nil, err
	}
	first := reports[0].Gathermut
	meta := first
	meta.Name = name
	meta.Shard = ""
	meta.Shards = nil
	meta.WallSeconds = 0
	meta.TreeChanged = nil
	seen := map[string]bool{}
	var outcomes []mutant.Outcome
	sources := map[string]string{}
	for _, r := range reports {
		g := r.Gathermut
		if g.TreeBefore != first.TreeBefore {
			return nil, fmt.Errorf("report: merge: %s ran on tree %s but %s on tree %s: not the same sources", g.Name, short(g.TreeBefore), first.Name, short(first.TreeBefore))
		}
		if g.TreeAfter != g.TreeBefore {
			meta.TreeAfter = g.TreeAfter
			meta.TreeChanged = append(meta.TreeChanged, g.TreeChanged...)
		}
		meta.Interrupted = meta.Interrupted || g.Interrupted
		meta.WallSeconds = max(meta.WallSeconds, g.WallSeconds)
		label := g.Name
		if g.Shard != "" {
			label += " (shard " + g.Shard + ")"
		}
		meta.Shards = append(meta.Shards, label)
		os, err := r.Outcomes()
		if err != nil {
			return nil, err
		}
		for _, o := range os {
			if !seen[o.Mutant.ID] {
				seen[o.Mutant.ID] = true
				outcomes = append(outcomes, o)
			}
		}
		for p, s := range r.Sources() {
			sources[p] = s
		}
	}
	merged := Build(meta, outcomes, sources)
	merged.Gathermut.ExitCode, merged.Gathermut.Reason = ExitCode(merged.Gathermut.Summary, Conditions{
		TreeChanged:    merged.Gathermut.TreeAfter != merged.Gathermut.TreeBefore,
		BaselineRed:    len(merged.Gathermut.Baseline.Failing) > 0,
		Interrupted:    merged.Gathermut.Interrupted,
		StrictTimeouts: first.Config.StrictTimeouts,
	})
	return merged, nil
}

// checkShardSet refuses a merge that would pass for a whole run but is
// not one: shards of different splits, a shard given twice or missing,
// shards mixed with unsharded reports, or runs of different packages,
// catalogs or flags.
func checkShardSet(reports []*Report) error {
	first := reports[0].Gathermut
	n := -1
	seen := map[int]string{}
	for _, r := range reports {
		g := r.Gathermut
		if strings.Join(g.Patterns, " ") != strings.Join(first.Patterns, " ") || g.Catalog != first.Catalog || g.Module != first.Module {
			return fmt.Errorf("report: merge: %s ran %s %v (catalog %q) but %s ran %s %v (catalog %q)", g.Name, g.Module, g.Patterns, g.Catalog, first.Name, first.Module, first.Patterns, first.Catalog)
		}
		if d := first.Config.Judging().Diff(g.Config.Judging()); len(d) > 0 {
			return fmt.Errorf("report: merge: %s and %s were judged differently (%s)", first.Name, g.Name, strings.Join(d, "; "))
		}
		if (g.Shard == "") != (first.Shard == "") {
			return fmt.Errorf("report: merge: %s and %s: shard reports mixed with an unsharded one", g.Name, first.Name)
		}
		if g.Shard == "" {
			continue
		}
		var k, m int
		if _, err := fmt.Sscanf(g.Shard, "%d/%d", &k, &m); err != nil || m < 1 || k < 0 || k >= m {
			return fmt.Errorf("report: merge: %s: shard %q is not k/n", g.Name, g.Shard)
		}
		if n >= 0 && m != n {
			return fmt.Errorf("report: merge: %s is shard %s but an earlier report is of %d shards", g.Name, g.Shard, n)
		}
		n = m
		if other, ok := seen[k]; ok {
			return fmt.Errorf("report: merge: shard %s given twice (%s and %s)", g.Shard, other, g.Name)
		}
		seen[k] = g.Name
	}
	for k := 0; k < n; k++ {
		if _, ok := seen[k]; !ok {
			return fmt.Errorf("report: merge: shard %d/%d is missing", k, n)
		}
	}
	return nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
