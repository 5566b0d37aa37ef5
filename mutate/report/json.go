package report

import (
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/outcome"
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
	// Interrupted: the run was interrupted before every package's
	// baseline had finished (the mutants of packages whose baseline was
	// done may have been judged already).
	Interrupted bool `json:"interrupted,omitempty"`
}

// ShardInfo is one of the reports a merged report was made from, with
// the flags it ran with.
type ShardInfo struct {
	Name        string  `json:"name"`
	Shard       string  `json:"shard,omitempty"`
	WallSeconds float64 `json:"wallSeconds"`
	Timing      Timing  `json:"timing"`
	Interrupted bool    `json:"interrupted,omitempty"`
	Machine     Machine `json:"machine"`
	CommandLine string  `json:"commandLine"` // the part's command line (config.Config.CommandLine)
}

// IncrementalInfo says where reused verdicts came from.
type IncrementalInfo struct {
	Cache  string `json:"cache"`  // the cache file, with known paths replaced
	Reused int    `json:"reused"` // verdicts taken from it
	Stored int    `json:"stored"` // verdicts it holds after the run
}

// Timing says where a run's time went: wall seconds of the phases, and
// for the mutants' builds and test processes the seconds summed over
// workers.
type Timing struct {
	Discovery      float64 `json:"discovery"`              // wall: catalog, load, mutants (TypeCheck included)
	TypeCheck      float64 `json:"typeCheck"`              // wall: type-checking the mutants
	Baseline       float64 `json:"baseline"`               // wall of each package's baseline, summed (with schemata they overlap the mutants)
	SchemaBuilds   float64 `json:"schemaBuilds"`           // wall: rendering and building the schema binaries
	SchemaRounds   int     `json:"schemaRounds"`           // schema builds until one compiled
	Mutants        float64 `json:"mutants"`                // wall: running the mutants
	FallbackBuilds float64 `json:"fallbackBuilds"`         // summed: per-mutant overlay builds
	Builds         int     `json:"builds"`                 // how many
	TestProcesses  float64 `json:"testProcesses"`          // summed: mutant test processes
	Processes      int     `json:"processes"`              // how many
	KernelSchema   float64 `json:"kernelSchema,omitempty"` // summed: building the kernel schema libraries (per backend)
	// TimeoutReruns is the time of the timed-out test processes run again
	// alone (summed), Reruns how many; TimeoutFloor the floor of every
	// test's limit the run used (seconds); Startup, when the floor was
	// derived, the slowest start-up of a test binary it measured.
	TimeoutReruns float64 `json:"timeoutReruns,omitempty"`
	Reruns        int     `json:"reruns,omitempty"`
	TimeoutFloor  float64 `json:"timeoutFloor,omitempty"`
	Startup       float64 `json:"startup,omitempty"`
	// Order is how the test processes split by the step of a mutant's
	// order they ran in (package selection): its predicted killers, the
	// cost tiers, the tail; nil in reports written before it.
	Order *OrderTiming `json:"order,omitempty"`
}

// OrderTiming is the test processes of the mutants by the step of their
// order: count and seconds summed over workers; Kills are the mutants the
// step decided (killed or timed out).
type OrderTiming struct {
	Predicted        int     `json:"predicted"`
	PredictedSeconds float64 `json:"predictedSeconds"`
	PredictedKills   int     `json:"predictedKills"`
	Tiers            int     `json:"tiers"`
	TierSeconds      float64 `json:"tierSeconds"`
	TierKills        int     `json:"tierKills"`
	Tail             int     `json:"tail"`
	TailSeconds      float64 `json:"tailSeconds"`
	TailKills        int     `json:"tailKills"`
}

// Meta is the run-level information of a report.
type Meta struct {
	Name        string      `json:"name"`
	Module      string      `json:"module"`
	Patterns    []string    `json:"patterns"`
	Catalog     string      `json:"catalog,omitempty"`
	Started     time.Time   `json:"started"`
	WallSeconds float64     `json:"wallSeconds"`
	Jobs        int         `json:"jobs"`
	Machine     Machine     `json:"machine"`
	GoVersion   string      `json:"goVersion"`
	Version     string      `json:"version"`
	TreeBefore  string      `json:"treeBefore"`
	TreeAfter   string      `json:"treeAfter"`
	TreeChanged []string    `json:"treeChanged,omitempty"`
	Interrupted bool        `json:"interrupted"`
	Shard       string      `json:"shard,omitempty"`
	Shards      []ShardInfo `json:"shards,omitempty"` // merged reports: every part, with its flags
	// WorkerSeconds is, for a merged report, the sum of its parts' wall
	// times (WallSeconds is the longest part's).
	WorkerSeconds float64             `json:"workerSeconds,omitempty"`
	Incremental   *IncrementalInfo    `json:"incremental,omitempty"`
	Config        config.Config       `json:"config"`      // the run's configuration
	CommandLine   string              `json:"commandLine"` // rendered once from Config (Build)
	Baseline      BaselineInfo        `json:"baseline"`
	Timing        Timing              `json:"timing"`
	Modes         map[mutant.Mode]int `json:"modes,omitempty"` // how many mutants each mode judged
	// GPUOnly are the kernel mutants left out of a run where no GPU
	// compiler is on PATH: their code only a GPU compiler sees (inline
	// PTX), so only a GPU run can judge them.
	GPUOnly  []string        `json:"gpuOnly,omitempty"`
	Summary  outcome.Summary `json:"summary"`
	ExitCode exitcode.Code   `json:"exitCode"`
	Reason   string          `json:"reason"`

	// Tests and Commands are tables of the file's lean form (lean.go):
	// the full id of each short test id, and the command templates. A
	// report in memory has neither.
	Tests    []string `json:"tests,omitempty"`
	Commands []string `json:"commands,omitempty"`

	// Paths are replaced in everything Build writes; they are not part
	// of the report.
	Paths Paths `json:"-"`
}

// Report is the mutation-testing-report-schema document.
type Report struct {
	Schema        string                 `json:"$schema"`
	SchemaVersion string                 `json:"schemaVersion"`
	Thresholds    Thresholds             `json:"thresholds"`
	ProjectRoot   string                 `json:"projectRoot"`
	Files         map[string]*FileResult `json:"files"`
	TestFiles     map[string]*TestFile   `json:"testFiles,omitempty"`
	Framework     Framework              `json:"framework"`
	System        System                 `json:"system"`
	Performance   *Performance           `json:"performance,omitempty"`
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

// OpenLocation is a location whose end may be left out.
type OpenLocation struct {
	Start mutant.Position  `json:"start"`
	End   *mutant.Position `json:"end,omitempty"`
}

// TestFile is the schema's test file: the tests a report's killedBy and
// coveredBy name, with where they are.
type TestFile struct {
	Tests []TestDefinition `json:"tests"`
}

// TestDefinition is one test; ID is what killedBy and coveredBy hold.
type TestDefinition struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Location *OpenLocation `json:"location,omitempty"`
}

// TestLocation is where a test function is declared.
type TestLocation struct {
	File string `json:"file"` // module-relative
	Line int    `json:"line"`
}

// Performance is the schema's time per phase, in milliseconds.
type Performance struct {
	Setup      float64 `json:"setup"`
	InitialRun float64 `json:"initialRun"`
	Mutation   float64 `json:"mutation"`
}

// MutantResult is one mutant in the schema's form.
type MutantResult struct {
	ID             string    `json:"id"`
	MutatorName    string    `json:"mutatorName"`
	Replacement    string    `json:"replacement"`
	Location       Location  `json:"location"`
	Status         string    `json:"status"`
	StatusReason   string    `json:"statusReason,omitempty"`
	KilledBy       []string  `json:"killedBy,omitempty"`
	CoveredBy      []string  `json:"coveredBy,omitempty"`
	Duration       float64   `json:"duration"` // milliseconds
	TestsCompleted int       `json:"testsCompleted"`
	Description    string    `json:"description,omitempty"` // left out of the file where the evidence gives it (lean.go)
	Static         bool      `json:"static,omitempty"`
	Gathermut      *Evidence `json:"gathermut"`
}

// Evidence is this tool's own record of a mutant: the mutant and its
// result, less what the schema's fields already hold (killedBy,
// coveredBy), and the command that reruns it. In the file it is lean
// (lean.go): Read gives it back whole.
type Evidence struct {
	Mutant mutant.Mutant `json:"mutant"`
	Result mutant.Result `json:"result"`
	Rerun  string        `json:"rerun,omitempty"` // run from the module root
	// Run holds Result.Commands in the file (nil in memory).
	Run *CommandRefs `json:"run,omitempty"`

	omit leanKeys // keys of Mutant the file leaves out
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

// SchemaStatus maps a verdict to the schema's status. A mutant that did
// not run (no compiler for a kernel mutant, every selected test skipped,
// or the run was interrupted first) is Pending, the schema's status for a
// mutant not tested yet: viewers show it apart from Ignored, which here
// means equivalent, and leave it out of the score, as this tool does.
func SchemaStatus(r mutant.Result) string {
	switch r.Status {
	case mutant.Killed:
		return "Killed"
	case mutant.Survived:
		if r.Why == mutant.NotCovered {
			return "NoCoverage"
		}
		return "Survived"
	case mutant.TimedOut:
		return "Timeout"
	case mutant.Unviable:
		return "CompileError"
	case mutant.Error:
		return "RuntimeError"
	case mutant.NotRun, mutant.Interrupted:
		return "Pending"
	}
	return "Ignored"
}

// statusReason is the one-line reason a viewer shows: why, or for a kill
// the failing tests and the first line of what they printed.
func statusReason(r mutant.Result) string {
	reason := r.Why
	switch r.Status {
	case mutant.NotRun:
		reason = "not run: " + r.Why
	case mutant.Killed:
		if reason == "" {
			reason = "killed by " + strings.Join(r.KilledBy, ", ")
		}
		if msg := failureLine(r.Excerpt); msg != "" {
			reason += ": " + msg
		}
	}
	if r.Reused {
		reason += " (reused from the incremental cache)"
	}
	return firstLine(reason, maxReason+120)
}

// Inputs are what a report holds besides the outcomes: the original
// sources and where the tests are.
type Inputs struct {
	Sources map[string]string       // module-relative path -> original file
	Tests   map[string]TestLocation // test id ("pkgpath.TestName") -> declaration
}

// Build assembles a report from outcomes. Every string goes through
// meta.Paths.Clean and every failure output through TrimFailure.
func Build(meta Meta, outcomes []mutant.Outcome, in Inputs) *Report {
	sorted := make([]mutant.Outcome, len(outcomes))
	for i, o := range outcomes {
		sorted[i] = clean(o, meta.Paths)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Mutant.ID < sorted[j].Mutant.ID })
	meta = cleanMeta(meta)
	meta.Summary = outcome.Summarize(sorted)
	r := &Report{
		Schema:        "https://git.io/mutation-testing-schema",
		SchemaVersion: "2",
		Thresholds:    Thresholds{High: 80, Low: 60},
		ProjectRoot:   ".",
		Files:         map[string]*FileResult{},
		Framework:     Framework{Name: "gathermut mutate", Version: meta.Version},
		Performance:   &Performance{Setup: meta.Timing.Discovery * 1000, InitialRun: meta.Timing.Baseline * 1000, Mutation: (meta.Timing.SchemaBuilds + meta.Timing.Mutants) * 1000},
		Gathermut:     meta,
	}
	r.System.CI = os.Getenv("CI") != ""
	r.System.OS.Platform = meta.Machine.OS
	r.System.OS.Description = meta.Machine.OS + "/" + meta.Machine.Arch
	r.System.CPU.LogicalCores = meta.Machine.Cores
	r.System.CPU.Model = meta.Machine.CPU
	testIDs := map[string]bool{}
	for _, o := range sorted {
		m := o.Mutant
		fr := r.Files[m.File]
		if fr == nil {
			fr = &FileResult{Language: language(m.File), Source: in.Sources[m.File], Mutants: []MutantResult{}}
			r.Files[m.File] = fr
		}
		for _, id := range o.Result.KilledBy {
			testIDs[id] = true
		}
		for _, id := range o.Result.CoveredBy {
			testIDs[id] = true
		}
		fr.Mutants = append(fr.Mutants, mutantResult(meta, o))
	}
	r.TestFiles = testFiles(testIDs, in.Tests)
	return r
}

// cleanMeta removes absolute paths from the run's record and renders its
// command line, once.
func cleanMeta(meta Meta) Meta {
	meta.Config = cleanConfig(meta.Config, meta.Paths)
	if meta.CommandLine == "" {
		meta.CommandLine = meta.Config.CommandLine()
	}
	if meta.Incremental != nil {
		inc := *meta.Incremental
		inc.Cache = outside(meta.Paths, inc.Cache)
		meta.Incremental = &inc
	}
	meta.Baseline.Skipped = meta.Paths.CleanAll(append([]string(nil), meta.Baseline.Skipped...))
	meta.Baseline.Flaky = meta.Paths.CleanAll(append([]string(nil), meta.Baseline.Flaky...))
	return meta
}

// mutantResult is one mutant in the schema's form, with this tool's
// evidence.
func mutantResult(meta Meta, o mutant.Outcome) MutantResult {
	m := o.Mutant
	end := m.End
	if end.Line == 0 {
		end = m.Pos
	}
	start := m.Pos
	if start.Line == 0 {
		start = mutant.Position{Line: 1, Column: 1}
		end = start
	}
	ev := &Evidence{Mutant: m, Result: o.Result, Rerun: RerunCommand(meta, m)}
	// what the schema's fields hold, and what only discovery and
	// test selection use, stays out of the evidence; the edit stays:
	// with the source it gives the diff (lean.go)
	ev.Mutant.ID, ev.Mutant.Operator, ev.Mutant.Replacement = "", "", ""
	ev.Mutant.ResultHash = ""
	ev.Result.KilledBy, ev.Result.CoveredBy, ev.Result.Duration, ev.Result.TestsRun = nil, nil, 0, 0
	return MutantResult{
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
		Static:         m.Kind == mutant.Go && !m.InBody && m.Pos.Line > 0,
		Gathermut:      ev,
	}
}

// clean trims a result's failure output and removes absolute paths from
// every string of the outcome.
func clean(o mutant.Outcome, p Paths) mutant.Outcome {
	m, res := o.Mutant, o.Result
	m.Note = p.Clean(m.Note)
	res.Why = p.Clean(res.Why)
	res.Excerpt = TrimFailure(p.Clean(res.Excerpt))
	res.Commands = p.CleanAll(append([]string(nil), res.Commands...))
	for i, c := range res.Commands {
		res.Commands[i] = toolPath.ReplaceAllString(c, "go tool $1")
	}
	res.KilledBy = append([]string(nil), res.KilledBy...)
	res.CoveredBy = append([]string(nil), res.CoveredBy...)
	return mutant.Outcome{Mutant: m, Result: res}
}

// Outside stands for a directory of a configuration that is neither in
// the module nor in a known place: reports name no absolute path.
const Outside = "(outside the module)"

// toolPath is a go tool's binary in the build cache or GOROOT, as "go
// tool -n" names it: a report says "go tool test2json" instead.
var toolPath = regexp.MustCompile(`\S*/(test2json|cover|vet)\b`)

// outside is a path cleaned (Paths.Clean), or Outside when it stays
// absolute.
func outside(p Paths, path string) string {
	if path = p.Clean(path); filepath.IsAbs(path) {
		return Outside
	}
	return path
}

func cleanConfig(c config.Config, p Paths) config.Config {
	dir := func(d string) string { return outside(p, d) }
	c.Dir = dir(c.Dir)
	c.ReportDir = dir(c.ReportDir)
	if c.SARIF != "" {
		c.SARIF = dir(c.SARIF)
	}
	if c.Incremental != "" && c.Incremental != config.IncrementalDefault {
		c.Incremental = dir(c.Incremental)
	}
	c.Patterns = p.CleanAll(append([]string(nil), c.Patterns...))
	return c
}

// testFiles lists every test id the mutants name, under the file that
// declares it; an id with no known declaration (a test binary that
// crashed outside any test, a test that no longer exists) is listed under
// its package path, so that every killedBy and coveredBy id resolves.
func testFiles(ids map[string]bool, locs map[string]TestLocation) map[string]*TestFile {
	if len(ids) == 0 {
		return nil
	}
	out := map[string]*TestFile{}
	for id := range ids {
		def := TestDefinition{ID: id, Name: testName(id)}
		key := testPackage(id)
		if loc, ok := locs[id]; ok && loc.File != "" {
			key = loc.File
			if loc.Line > 0 {
				def.Location = &OpenLocation{Start: mutant.Position{Line: loc.Line, Column: 1}}
			}
		}
		tf := out[key]
		if tf == nil {
			tf = &TestFile{}
			out[key] = tf
		}
		tf.Tests = append(tf.Tests, def)
	}
	for _, tf := range out {
		sort.Slice(tf.Tests, func(i, j int) bool { return tf.Tests[i].ID < tf.Tests[j].ID })
	}
	return out
}

// testName is the part of a test id after the package: "TestX", or the
// id itself when it has none ("pkg (test binary)").
func testName(id string) string {
	if i := strings.LastIndex(id, "."); i >= 0 && !strings.Contains(id[i:], " ") && !strings.Contains(id[i:], "/") {
		return id[i+1:]
	}
	return id
}

func testPackage(id string) string {
	if name := testName(id); name != id {
		return strings.TrimSuffix(id, "."+name)
	}
	pkg, _, _ := strings.Cut(id, " ")
	return pkg
}

func description(m mutant.Mutant) string {
	d := fmt.Sprintf("%s in %s: %q -> %q", m.Operator, m.Func, m.Original, m.Replacement)
	if m.Catalog != nil {
		d = fmt.Sprintf("catalog %s (class %d): %s", m.Catalog.ID, m.Catalog.Class, m.Catalog.Reason)
	}
	return d
}

func language(p string) string {
	switch filepath.Ext(p) {
	case ".go":
		return "go"
	case ".hip", ".cu", ".cuh", ".c", ".h", ".cc", ".cpp":
		return "cpp"
	}
	return "plaintext"
}

// ToolModule is the module of this tool. A report written before the
// run recorded its command (config.Config.Tool) reruns in it as "go run
// ./mutate", elsewhere as "go run gathermut/mutate".
const ToolModule = "gathermut"

// ToolCommand is the command line that runs this tool with args from the
// module root, as the run that made the report was started
// (config.Config.Tool, with --dir where it needs one): "go run ./mutate
// run <id>" in this repository, "mutate run <id>" for a binary on PATH,
// "/home/u/bin/mutate run <id>" for one started by its path (see
// lab.Invocation.ToolCommand).
func ToolCommand(meta Meta, args ...string) string {
	cfg := meta.Config
	tool := cfg.Tool
	if tool == "" {
		tool = "go run gathermut/mutate"
		if meta.Module == ToolModule {
			tool = "go run ./mutate"
		}
	}
	words := append([]string{tool}, args...)
	if cfg.ToolDir != "" {
		words = append(words, "--dir", config.ShellWord(cfg.ToolDir))
	}
	return strings.Join(words, " ")
}

// RerunCommand is the command, run from the module root, that judges the
// mutant again (ToolCommand): its id and, where the run's command line
// chose them rather than the module's defaults (config.Config.Given), its
// package directory (or patterns), catalog and operators.
func RerunCommand(meta Meta, m mutant.Mutant) string {
	args := []string{"run", config.ShellWord(m.ID)}
	cfg := meta.Config
	if cfg.Set != "" {
		args = append(args, "--set "+config.ShellWord(cfg.Set))
	}
	if cfg.Given.Packages && len(cfg.Patterns) > 0 {
		if m.Catalog == nil && m.File != "" && m.Kind == mutant.Go {
			args = append(args, "./"+path.Dir(m.File))
		} else {
			for _, p := range cfg.Patterns {
				args = append(args, config.ShellWord(p))
			}
		}
	}
	if cfg.Given.Catalog {
		args = append(args, "--catalog="+config.ShellWord(cfg.Catalog))
	}
	if cfg.Given.Operators && len(cfg.Operators) > 0 {
		args = append(args, "--operators="+config.ShellWord(strings.Join(cfg.Operators, ",")))
	}
	return ToolCommand(meta, args...)
}

// Outcomes returns the outcomes a report holds, sorted by id.
func (r *Report) Outcomes() ([]mutant.Outcome, error) {
	var out []mutant.Outcome
	for p, f := range r.Files {
		for _, m := range f.Mutants {
			if m.Gathermut == nil {
				return nil, fmt.Errorf("report: mutant %s in %s has no gathermut data (not written by this tool)", m.ID, p)
			}
			o := mutant.Outcome{Mutant: m.Gathermut.Mutant, Result: m.Gathermut.Result}
			o.Mutant.ID, o.Mutant.Operator, o.Mutant.Replacement = m.ID, m.MutatorName, m.Replacement
			o.Result.Duration = time.Duration(math.Round(m.Duration * float64(time.Millisecond)))
			o.Result.TestsRun = m.TestsCompleted
			o.Result.KilledBy = append([]string(nil), m.KilledBy...)
			o.Result.CoveredBy = append([]string(nil), m.CoveredBy...)
			if len(o.Result.KilledBy) == 0 {
				o.Result.KilledBy = nil
			}
			if len(o.Result.CoveredBy) == 0 {
				o.Result.CoveredBy = nil
			}
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Mutant.ID < out[j].Mutant.ID })
	return out, nil
}

// Inputs returns the sources and test locations a report holds.
func (r *Report) Inputs() Inputs {
	in := Inputs{Sources: map[string]string{}, Tests: map[string]TestLocation{}}
	for p, f := range r.Files {
		in.Sources[p] = f.Source
	}
	for file, tf := range r.TestFiles {
		for _, t := range tf.Tests {
			if t.Location != nil {
				in.Tests[t.ID] = TestLocation{File: file, Line: t.Location.Start.Line}
			}
		}
	}
	return in
}

// Write writes <dir>/<name>.json (the lean form, lean.go), <dir>/<name>.md
// and <dir>/<name>.html (HTMLPath).
func Write(dir string, r *Report) (jsonPath, mdPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("report: %w", err)
	}
	data, err := encode(r)
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
	page, err := HTML(r)
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(HTMLPath(jsonPath), page, 0o644); err != nil {
		return "", "", fmt.Errorf("report: %w", err)
	}
	return jsonPath, mdPath, nil
}

// HTMLPath is the page Write writes beside the JSON report at jsonPath.
func HTMLPath(jsonPath string) string {
	return strings.TrimSuffix(jsonPath, ".json") + ".html"
}

// Read reads a JSON report written by Write.
func Read(p string) (*Report, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	r, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", p, err)
	}
	if r.SchemaVersion != "2" {
		return nil, fmt.Errorf("report: %s: schemaVersion %q, want \"2\"", p, r.SchemaVersion)
	}
	return r, nil
}
