package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/cache"
	"gathermut/mutate/internal/discover"
	"gathermut/mutate/internal/progress"
	"gathermut/mutate/internal/schedule"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// lab is one run's state.
type lab struct {
	cfg     config.Config
	stdout  io.Writer
	stderr  io.Writer
	started time.Time

	root    string               // module root
	module  string               // module path
	ops     []*operator.Operator // the generic operators, resolved once from cfg.Operators
	tmp     string               // removed at the end; "" until ensureTemp
	sysTemp string               // the system temp dir before useOwnTemp
	project *config.Project      // the module's project file, nil without one
	// sysGoTemp is GOTMPDIR before useOwnTemp ("" when unset)
	sysGoTemp string
}

// Run runs one command of the mutate tool (all, list, run, diff) as cfg
// describes, in the pipeline's steps: discover the mutants, schedule and
// judge them, then the outcome (the tree hash again, the reports, the
// exit code). It returns an *exitcode.Exit with the command's exit code
// and its one-line reason, exitcode.OK included; any other error is a
// configuration error.
//
// A temp dir is made only for work that needs one (ensureTemp): list and
// diff answered from the discovery cache make none. Output to a closed
// stdout (mutate list | head) ends list and diff early and cleanly, with
// the temp dir removed; the command's main ignores SIGPIPE's default of
// killing the process so that this can happen.
func Run(ctx context.Context, cfg config.Config, stdout, stderr io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return exitcode.Fail(exitcode.Usage, "%v", err)
	}
	beat := progress.NewHeartbeat(stderr, progress.HeartbeatEvery())
	beat.Run()
	defer beat.Stop()
	l := &lab{cfg: cfg, stdout: stdout, stderr: beat, started: time.Now()}
	defer l.removeTemp()
	if err := l.setUp(); err != nil {
		return err
	}

	if l.cfg.Command.Judges() {
		// all and run need the temp dir at once: child processes
		// (go list included) put their files there
		if err := l.ensureTemp(); err != nil {
			return err
		}
	}
	beat.Doing("finding the mutants")
	d, err := discover.Run(ctx, discover.Input{Config: l.cfg, Ops: l.ops, Root: l.root, Module: l.module, Temp: l.temp, Stderr: l.stderr})
	if err != nil {
		return err
	}
	switch l.cfg.Command {
	case config.CmdList:
		return l.list(d)
	case config.CmdDiff:
		return l.diffs(d)
	}
	beat.Doing("building the test binaries and running the baseline")
	machine := describeMachine()
	j, err := schedule.Judge(ctx, schedule.Input{Config: l.cfg, Discovery: d, Temp: l.tmp, Stderr: l.stderr,
		Machine: machine, GoVersion: goVersion(), Paths: l.paths()})
	if err != nil {
		return err
	}
	return l.finish(d, j, machine)
}

// setUp finds the module, applies its project file (and resolves the
// operators), then decides where the reports go and the command that
// reruns the tool from the module root. It makes no temp dir: ensureTemp
// does, for the work that needs one.
func (l *lab) setUp() error {
	var err error
	l.root, l.module, err = load.ModuleRoot(l.cfg.Dir)
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	if err := l.applyProject(); err != nil {
		return err
	}
	l.cfg.ReportDir = config.ReportDirFor(l.cfg, l.project, l.root, l.module, cache.Dir())
	l.cfg.Tool, l.cfg.ToolDir = l.toolCommand()
	return nil
}

// list prints every mutant, one line each; a closed stdout ends it
// (closedWriter).
func (l *lab) list(d *discover.Discovery) error {
	out := &closedWriter{w: l.stdout}
	n := 0
	for _, m := range d.Mutants {
		if l.cfg.JSON {
			writeListJSON(out, m)
		} else {
			fmt.Fprintf(out, "%s\t%s\t%s:%d:%d\t%s\t%s -> %s%s\n", m.ID, m.Operator, m.File, m.Pos.Line, m.Pos.Column, m.Func, oneLine(m.Original), oneLine(m.Replacement), listNote(m))
		}
		if out.err != nil {
			break //gathermut:equivalent(loop-control) after a failed write closedWriter drops every write and n is not counted: the same output and note
		}
		n++
	}
	kind := "package"
	if l.cfg.Catalog != "" {
		kind = "generic package" // the catalog's entries may reach others
	}
	fmt.Fprintf(l.stderr, "%s in %s (%s)\n", plural(len(d.Mutants), "mutant", "mutants"), l.module, plural(len(d.Generic), kind, kind+"s"))
	return &exitcode.Exit{Code: exitcode.OK, Reason: plural(len(d.Mutants), "mutant", "mutants") + " listed" + out.note(n)}
}

// listJSON is a mutant as list --json prints it, one object per line.
type listJSON struct {
	ID          string `json:"id"`
	Operator    string `json:"operator"`
	Kind        string `json:"kind"`
	Package     string `json:"package,omitempty"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Func        string `json:"func,omitempty"`
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	State       string `json:"state,omitempty"` // decided before any test: error, ignored, unviable
	Note        string `json:"note,omitempty"`
	Diff        string `json:"diff,omitempty"`
}

func writeListJSON(w io.Writer, m mutant.Mutant) {
	state := map[mutant.State]string{mutant.Invalid: "error", mutant.Equivalent: "ignored", mutant.Unbuildable: "unviable"}[m.State]
	note := ""
	if state != "" {
		note = m.Note
	}
	data, _ := json.Marshal(listJSON{ID: m.ID, Operator: m.Operator, Kind: string(m.Kind), Package: m.Package, File: m.File, Line: m.Pos.Line, Column: m.Pos.Column,
		Func: m.Func, Original: m.Original, Replacement: m.Replacement, State: state, Note: note, Diff: m.Diff})
	w.Write(append(data, '\n'))
}

// diffs prints every mutant's diff (or why it has none); a closed stdout
// ends it (closedWriter).
func (l *lab) diffs(d *discover.Discovery) error {
	out := &closedWriter{w: l.stdout}
	n := 0
	for _, m := range d.Mutants {
		if m.Diff == "" {
			fmt.Fprintf(out, "# %s: %s\n", m.ID, m.Note)
		} else {
			fmt.Fprintf(out, "# %s\n%s", m.ID, m.Diff)
		}
		if out.err != nil {
			break //gathermut:equivalent(loop-control) after a failed write closedWriter drops every write and n is not counted: the same output and note
		}
		n++
	}
	return &exitcode.Exit{Code: exitcode.OK, Reason: plural(len(d.Mutants), "diff", "diffs") + " printed" + out.note(n)}
}

// closedWriter passes writes on until one fails (a closed pipe), then
// drops the rest and keeps the error.
type closedWriter struct {
	w   io.Writer
	err error
}

func (c *closedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}

// note says, for the final line, where the output stopped: "" when all
// of it was written.
func (c *closedWriter) note(written int) string {
	if c.err == nil {
		return ""
	}
	return fmt.Sprintf(" (stdout closed after %d: %v)", written, c.err)
}

func listNote(m mutant.Mutant) string {
	switch m.State {
	case mutant.Invalid:
		return "\t[error: " + m.Note + "]"
	case mutant.Equivalent:
		return "\t[ignored: " + m.Note + "]"
	case mutant.Unbuildable:
		return "\t[unviable: " + oneLine(m.Note) + "]"
	}
	return ""
}

// progressf prints a phase line on stderr.
func (l *lab) progressf(format string, args ...any) {
	fmt.Fprintf(l.stderr, format, args...)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
