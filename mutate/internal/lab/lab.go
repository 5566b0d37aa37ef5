package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
)

// Version is the tool version reported in the JSON framework block.
const Version = "0.2.0"

// Exit is an error that ends the command with an exit code and a one-line
// reason.
type Exit struct {
	Code   exitcode.Code
	Reason string
}

func (e *Exit) Error() string { return e.Reason }

// Fail returns an *Exit.
func Fail(code exitcode.Code, format string, args ...any) error {
	return &Exit{Code: code, Reason: fmt.Sprintf(format, args...)}
}

// CodeOf returns the exit code an error from Run stands for: its *Exit's
// code, or exitcode.Config for any other error.
func CodeOf(err error) exitcode.Code {
	var e *Exit
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return exitcode.OK
	}
	return exitcode.Config
}

// lab is one run's state.
type lab struct {
	cfg     config.Config
	stdout  io.Writer
	stderr  io.Writer
	started time.Time

	root    string // module root
	module  string // module path
	tmp     string // removed at the end
	sysTemp string // the system temp dir before useOwnTemp
	prog    *load.Program
	ops     []*operator.Operator // the generic operators, resolved once from cfg.Operators
	cat     catalog.Catalog
	catPath string

	slots slots // the child processes the run has at once

	discoverySeconds float64
	typeCheckSeconds float64
}

// Run runs one command of the mutate tool (all, list, run, diff) as cfg
// describes. It returns an *Exit with the command's exit code and its
// one-line reason, exitcode.OK included; any other error is a
// configuration error.
func Run(ctx context.Context, cfg config.Config, stdout, stderr io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return Fail(exitcode.Usage, "%v", err)
	}
	l := &lab{cfg: cfg, stdout: stdout, stderr: stderr, started: time.Now(), slots: newSlots(cfg.Jobs)}
	var err error
	l.root, l.module, err = load.ModuleRoot(cfg.Dir)
	if err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	if err := l.applyProject(); err != nil {
		return err
	}
	l.tmp, err = os.MkdirTemp("", "gathermut-")
	if err != nil {
		return err
	}
	if os.Getenv("GATHERMUT_KEEP_TMP") != "" {
		fmt.Fprintf(stderr, "mutate: keeping the run's temp dir %s (GATHERMUT_KEEP_TMP)\n", l.tmp)
	} else {
		defer os.RemoveAll(l.tmp)
	}
	if err := l.useOwnTemp(); err != nil {
		return err
	}

	d, err := l.discover(ctx)
	if err != nil {
		return err
	}
	switch cfg.Command {
	case config.CmdList:
		for _, m := range d.mutants {
			fmt.Fprintf(stdout, "%s\t%s\t%s:%d:%d\t%s\t%s -> %s%s\n", m.ID, m.Operator, m.File, m.Pos.Line, m.Pos.Column, m.Func, oneLine(m.Original), oneLine(m.Replacement), listNote(m))
		}
		fmt.Fprintf(stderr, "%d mutants in %s (%d generic packages)\n", len(d.mutants), l.module, len(d.generic))
		return &Exit{Code: exitcode.OK, Reason: plural(len(d.mutants), "mutant", "mutants") + " listed"}
	case config.CmdDiff:
		for _, m := range d.mutants {
			if m.Diff == "" {
				fmt.Fprintf(stdout, "# %s: %s\n", m.ID, m.Note)
				continue
			}
			fmt.Fprintf(stdout, "# %s\n%s", m.ID, m.Diff)
		}
		return &Exit{Code: exitcode.OK, Reason: plural(len(d.mutants), "diff", "diffs") + " printed"}
	}
	return l.execute(ctx, d)
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

// GlobRegexp turns an id glob (* and ?, matching any characters including
// '/' and ':') into an anchored regexp; a string without wildcards matches
// exactly. Commas separate alternatives: "a,b*" matches a and every id
// starting with b (ids never contain commas).
func GlobRegexp(glob string) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("^(")
	for i, alt := range strings.Split(glob, ",") {
		if i > 0 {
			sb.WriteString("|")
		}
		for _, r := range alt {
			switch r {
			case '*':
				sb.WriteString(".*")
			case '?':
				sb.WriteString(".")
			default:
				sb.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
	}
	sb.WriteString(")$")
	return regexp.MustCompile(sb.String())
}

func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
