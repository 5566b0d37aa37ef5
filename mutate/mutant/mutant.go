package mutant

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"gathermut/mutate/catalog"
)

// Kind says how a mutant is built: Go mutants are compiled through an
// overlay, kernel mutants rebuild a native library.
type Kind string

const (
	Go     Kind = "go"
	Kernel Kind = "kernel"
)

// Position is a 1-based line and column in the original file.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Mutant is one rewrite of one file.
type Mutant struct {
	ID          string         `json:"id,omitempty"`
	Operator    string         `json:"operator,omitempty"`
	Kind        Kind           `json:"kind"`
	Package     string         `json:"package"`   // import path of the mutated package ("" for kernel mutants)
	File        string         `json:"file"`      // module-relative, slash-separated
	Func        string         `json:"func"`      // enclosing function, as in catalog.Target.Func
	Pos         Position       `json:"pos"`       // start of the mutated node
	End         Position       `json:"end"`       // end (exclusive) of the mutated node
	InBody      bool           `json:"inBody"`    // inside a function body (coverage applies); false: package level, covered by every test
	BodyStart   Position       `json:"bodyStart"` // the innermost enclosing function body, when InBody
	BodyEnd     Position       `json:"bodyEnd"`
	Original    string         `json:"original"`             // source of the mutated node
	Replacement string         `json:"replacement"`          // source that replaces it ("" for a deletion)
	Diff        string         `json:"diff"`                 // unified diff of the file
	Edit        *Edit          `json:"edit,omitempty"`       // the change to the file on disk
	ResultHash  string         `json:"resultHash,omitempty"` // hash of the mutated file: equal hashes, equal programs`
	Catalog     *catalog.Entry `json:"catalog,omitempty"`
	Expected    []TestID       `json:"expected,omitempty"` // a catalog mutant's expected killers
	Schema      *Site          `json:"schema,omitempty"`   // how the mutant enters its package's schema, or why not
	// State says whether tests judge the mutant (Runnable) or discovery
	// decided it (Invalid, Equivalent, Unbuildable); Note says why: the
	// catalog error, the equivalence reason, the type-check or vet error.
	State State  `json:"state,omitempty"`
	Note  string `json:"note,omitempty"`
	// Compiled lists the kernel builds that compile a kernel mutant's code
	// ("emulation", "nvcc", "hipcc"): a backend judges only what it
	// compiles.
	Compiled []string `json:"compiled,omitempty"`
}

// ReplacementHash is the short hash used in generic mutant ids.
func ReplacementHash(replacement string) string {
	sum := sha256.Sum256([]byte(replacement))
	return hex.EncodeToString(sum[:4])
}

// EditID builds the id of an assembly or kernel mutant: MakeID over what
// its report shows (shown: the statement or site after the change) and
// its edit itself (the length of the bytes it replaces and their new
// text), so that two different edits at one position never share an id
// whatever their shown text.
func EditID(operator, file string, pos Position, shown string, e Edit) string {
	return MakeID(operator, file, pos, fmt.Sprintf("%s\x00%d\x00%s", shown, e.End-e.Start, e.Text))
}

// MakeID builds a generic mutant's id.
func MakeID(operator, file string, pos Position, replacement string) string {
	return fmt.Sprintf("%s:%s:%d:%d:%s", operator, file, pos.Line, pos.Column, ReplacementHash(replacement))
}

// Status is a mutant's verdict.
type Status string

const (
	Killed   Status = "killed"
	Survived Status = "survived"
	TimedOut Status = "timed out"
	Unviable Status = "unviable"
	NotRun   Status = "not run"
	Error    Status = "error"
	Ignored  Status = "ignored"
	// Interrupted is no verdict: the run was interrupted (Ctrl-C) before
	// the mutant was judged. Reports count such mutants apart and keep
	// them out of every other count, the score and the rates.
	Interrupted Status = "interrupted"
)

// NotCovered is the Why of a survivor no test executes: the baseline's
// coverage decided it without running anything.
const NotCovered = "not covered by any test"

// Statuses lists every verdict in report order (Interrupted, which is not
// a verdict, is not among them).
var Statuses = []Status{Killed, Survived, TimedOut, Unviable, NotRun, Error, Ignored}

// Result is the verdict on one mutant and the evidence for it.
type Result struct {
	Status         Status        `json:"status"`
	Why            string        `json:"why,omitempty"`      // reason for the status, in one line
	KilledBy       []string      `json:"killedBy,omitempty"` // failing tests, "pkgpath.TestName"
	ExpectedKiller bool          `json:"expectedKiller"`     // a catalog mutant was killed by one of its expected tests
	CoveredBy      []string      `json:"coveredBy,omitempty"`
	TestsRun       int           `json:"testsRun,omitempty"`
	Commands       []string      `json:"commands,omitempty"`
	ExitCode       int           `json:"exitCode"`
	Excerpt        string        `json:"excerpt,omitempty"`
	Duration       time.Duration `json:"duration,omitempty"`
	// Mode says how the mutant was judged: ModeSchema, ModeOverlay,
	// ModeKernel or ModeStatic; ModeNote why it was not switched in the
	// schema when it could have been (a schema run only).
	Mode     Mode   `json:"mode,omitempty"`
	ModeNote string `json:"modeNote,omitempty"`
	// Signal names the signal that ended the test process when the run
	// was stopped from outside (a timeout kills it): then ExitCode is -1.
	Signal string `json:"signal,omitempty"`
	// Reused marks a verdict taken from the incremental cache: this run
	// did not build or test the mutant (see package incremental).
	Reused bool `json:"reused,omitempty"`
	// Backend names what judged the mutant: "go", "asm-amd64",
	// "kernel-emulation" or "kernel-gpu" (BackendOf says which for a
	// mutant without one).
	Backend string `json:"backend,omitempty"`
	// Timeout says what became of a test process that ran past its limit
	// among the others, run again alone with twice the time: it ran past
	// it again (TimeoutConfirmed: the status is TimedOut), or it finished
	// (TimeoutSlow: the status is what that run decided, killed or
	// survived), or it was not run again because an earlier run of the
	// same judged tree confirmed the mutant's timeout (TimeoutKnown: the
	// status is TimedOut). Empty when no process timed out.
	Timeout TimeoutRerun `json:"timeout,omitempty"`
}

// TimeoutRerun is what a timed-out test process's run again alone gave
// (Result.Timeout).
type TimeoutRerun string

// What a rerun of a timed-out test process gave.
const (
	TimeoutConfirmed TimeoutRerun = "confirmed"
	TimeoutSlow      TimeoutRerun = "slow"
	TimeoutKnown     TimeoutRerun = "known"
)

// BackendOf returns the backend that judges m's kind of code: its
// result's when set, else "asm-<arch>" for an assembly file, "kernel" for
// a kernel mutant not judged, "go" otherwise.
func BackendOf(m Mutant, r Result) string {
	switch {
	case r.Backend != "":
		return r.Backend
	case m.Kind == Kernel:
		return "kernel"
	case m.Assembly():
		return "asm-" + asmArch(m.File)
	}
	return "go"
}

// asmArch is the architecture an assembly file's name says (x_amd64.s).
func asmArch(file string) string {
	base := strings.TrimSuffix(file[strings.LastIndex(file, "/")+1:], ".s")
	if i := strings.LastIndex(base, "_"); i >= 0 {
		return base[i+1:]
	}
	return "any"
}

// Assembly reports whether m mutates an assembly file.
func (m Mutant) Assembly() bool { return strings.HasSuffix(m.File, ".s") }

// Mode is how a mutant was judged.
type Mode string

const (
	ModeSchema  Mode = "schema"  // a process of its package's schema test binary
	ModeOverlay Mode = "overlay" // its own go test -c through an -overlay
	ModeKernel  Mode = "kernel"  // a rebuild of the kernel library
	ModeStatic  Mode = "static"  // decided without running tests (unviable at type check, ignored, an error, not covered)
)

// CatalogFailure reports whether r fails a catalog mutant: one that ran and
// was not killed by its expected tests.
func (r Result) CatalogFailure(m Mutant) bool {
	if m.Catalog == nil {
		return false
	}
	switch r.Status {
	case Killed:
		return !r.ExpectedKiller
	case Survived, TimedOut, Error, Unviable:
		return true
	}
	return false
}

// Outcome pairs a mutant with its result.
type Outcome struct {
	Mutant Mutant `json:"mutant"`
	Result Result `json:"result"`
}
