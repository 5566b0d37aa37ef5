package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"gathermut/mutate/catalog"
	"gathermut/mutate/config"
	"gathermut/mutate/exitcode"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
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

	root    string          // module root
	module  string          // module path
	tmp     string          // removed at the end; "" until ensureTemp
	sysTemp string          // the system temp dir before useOwnTemp
	project *config.Project // the module's project file, nil without one
	prog    *load.Program
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
//
// A temp dir is made only for work that needs one (ensureTemp): list and
// diff answered from the discovery cache make none. Output to a closed
// stdout (mutate list | head) ends list and diff early and cleanly, with
// the temp dir removed; the command's main ignores SIGPIPE's default of
// killing the process so that this can happen.
func Run(ctx context.Context, cfg config.Config, stdout, stderr io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return Fail(exitcode.Usage, "%v", err)
	}
	beat := newHeartbeat(stderr, heartbeatEvery())
	beat.run()
	defer beat.stop()
	l := &lab{cfg: cfg, stdout: stdout, stderr: beat, started: time.Now(), slots: newSlots(cfg.Jobs)}
	var err error
	l.root, l.module, err = load.ModuleRoot(cfg.Dir)
	if err != nil {
		return Fail(exitcode.Config, "%v", err)
	}
	if err := l.applyProject(); err != nil {
		return err
	}
	l.cfg.ReportDir = config.ReportDirFor(l.cfg, l.project, l.root, l.module, cacheDir())
	l.cfg.Tool, l.cfg.ToolDir = l.toolCommand()
	defer l.removeTemp()

	beat.doing("finding the mutants")
	d, err := l.discover(ctx)
	if err != nil {
		return err
	}
	out := &closedWriter{w: stdout}
	switch cfg.Command {
	case "list":
		n := 0
		for _, m := range d.mutants {
			fmt.Fprintf(out, "%s\t%s\t%s:%d:%d\t%s\t%s -> %s%s\n", m.ID, m.Operator, m.File, m.Pos.Line, m.Pos.Column, m.Func, oneLine(m.Original), oneLine(m.Replacement), listNote(m))
			if out.err != nil {
				break
			}
			n++
		}
		fmt.Fprintf(l.stderr, "%d mutants in %s (%d generic packages)\n", len(d.mutants), l.module, len(d.generic))
		return &Exit{Code: exitcode.OK, Reason: plural(len(d.mutants), "mutant", "mutants") + " listed" + out.note(n)}
	case "diff":
		n := 0
		for _, m := range d.mutants {
			if m.Diff == "" {
				fmt.Fprintf(out, "# %s: %s\n", m.ID, m.Invalid)
			} else {
				fmt.Fprintf(out, "# %s\n%s", m.ID, m.Diff)
			}
			if out.err != nil {
				break
			}
			n++
		}
		return &Exit{Code: exitcode.OK, Reason: plural(len(d.mutants), "diff", "diffs") + " printed" + out.note(n)}
	}
	if err := l.ensureTemp(); err != nil {
		return err
	}
	beat.doing("building the test binaries and running the baseline")
	return l.execute(ctx, d)
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
	switch {
	case m.Invalid != "":
		return "\t[error: " + m.Invalid + "]"
	case m.Equivalent != "":
		return "\t[ignored: " + m.Equivalent + "]"
	case m.Unviable != "":
		return "\t[unviable: " + oneLine(m.Unviable) + "]"
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
