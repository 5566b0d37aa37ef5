package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/internal/discover"
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
	tmp     string               // the run's temp dir, removed at the end
	sysTemp string               // the system temp dir before useOwnTemp
	// sysGoTemp is GOTMPDIR before useOwnTemp ("" when unset)
	sysGoTemp string
}

// Run runs one command of the mutate tool (all, list, run, diff) as cfg
// describes, in the pipeline's steps: discover the mutants, schedule and
// judge them, then the outcome (the tree hash again, the reports, the
// exit code). It returns an *exitcode.Exit with the command's exit code
// and its one-line reason, exitcode.OK included; any other error is a
// configuration error.
func Run(ctx context.Context, cfg config.Config, stdout, stderr io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return exitcode.Fail(exitcode.Usage, "%v", err)
	}
	l := &lab{cfg: cfg, stdout: stdout, stderr: stderr, started: time.Now()}
	defer l.tearDown()
	if err := l.setUp(); err != nil {
		return err
	}

	d, err := discover.Run(ctx, discover.Input{Config: l.cfg, Ops: l.ops, Root: l.root, Module: l.module, Temp: l.tmp, Stderr: stderr})
	if err != nil {
		return err
	}
	switch l.cfg.Command {
	case config.CmdList:
		return l.list(d)
	case config.CmdDiff:
		return l.diffs(d)
	}
	machine := describeMachine()
	j, err := schedule.Judge(ctx, schedule.Input{Config: l.cfg, Discovery: d, Temp: l.tmp, Stderr: stderr,
		Machine: machine, GoVersion: goVersion(), Paths: l.paths()})
	if err != nil {
		return err
	}
	return l.finish(d, j, machine)
}

// setUp finds the module, applies its project file, resolves the
// operators and makes the run's temp dir, which every child process
// uses.
func (l *lab) setUp() error {
	var err error
	l.root, l.module, err = load.ModuleRoot(l.cfg.Dir)
	if err != nil {
		return exitcode.Fail(exitcode.Config, "%v", err)
	}
	if err := l.applyProject(); err != nil {
		return err
	}
	if l.tmp, err = os.MkdirTemp("", "gathermut-"); err != nil {
		return err
	}
	if os.Getenv("GATHERMUT_KEEP_TMP") != "" {
		fmt.Fprintf(l.stderr, "mutate: keeping the run's temp dir %s (GATHERMUT_KEEP_TMP)\n", l.tmp)
	}
	return l.useOwnTemp()
}

// tearDown removes the run's temp dir, unless GATHERMUT_KEEP_TMP asks to
// keep it.
func (l *lab) tearDown() {
	if l.tmp != "" && os.Getenv("GATHERMUT_KEEP_TMP") == "" {
		os.RemoveAll(l.tmp)
	}
}

// list prints every mutant, one line each.
func (l *lab) list(d *discover.Discovery) error {
	for _, m := range d.Mutants {
		fmt.Fprintf(l.stdout, "%s\t%s\t%s:%d:%d\t%s\t%s -> %s%s\n", m.ID, m.Operator, m.File, m.Pos.Line, m.Pos.Column, m.Func, oneLine(m.Original), oneLine(m.Replacement), listNote(m))
	}
	fmt.Fprintf(l.stderr, "%d mutants in %s (%d generic packages)\n", len(d.Mutants), l.module, len(d.Generic))
	return &exitcode.Exit{Code: exitcode.OK, Reason: plural(len(d.Mutants), "mutant", "mutants") + " listed"}
}

// diffs prints every mutant's diff (or why it has none).
func (l *lab) diffs(d *discover.Discovery) error {
	for _, m := range d.Mutants {
		if m.Diff == "" {
			fmt.Fprintf(l.stdout, "# %s: %s\n", m.ID, m.Note)
			continue
		}
		fmt.Fprintf(l.stdout, "# %s\n%s", m.ID, m.Diff)
	}
	return &exitcode.Exit{Code: exitcode.OK, Reason: plural(len(d.Mutants), "diff", "diffs") + " printed"}
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
