package testbin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"gathermut/mutate/load"
)

// Nested builds. A test may build the module it tests: go build, go run
// or go test on its own packages (a command's end-to-end test), then run
// what it built. The tool never writes the tree, so such a go command sees
// the mutant only when the test process hands it the overlay its own
// binary was built from. Every test process therefore gets:
//
//   - GOFLAGS: the user's (go env GOFLAGS) with -overlay=<the overlay of
//     its binary> (Options.Overlay; it holds the user's own overlay, see
//     WriteOverlay) and -count=1, so a nested go test runs its tests
//     instead of answering from the test cache: a schema binary's result
//     depends on GATHERMUT_MUTANT, which it reads before the test cache
//     logs what a test consults;
//   - the schema switch and hits file as the tool set them: a binary built
//     from a schema overlay reads the same GATHERMUT_MUTANT, and counts its
//     sites in the same GATHERMUT_HITS file (a shared mapping), as the
//     test binary that built it;
//   - without schemata, for a baseline run that collects coverage
//     (Options.NestedCover), GOFLAGS also asks for -cover of the mutated
//     packages: a binary a test builds writes its counters into a
//     GOCOVERDIR of the run's, a nested go test writes its profile, and
//     both are added to the test's coverage profile.
//
// The variables a run sets for its test processes (GATHERMUT_MUTANT,
// GATHERMUT_HITS, GATHERMUT_KERNEL_HITS) are removed from what a test
// process inherits from the tool: when the tool itself runs inside another
// run's test (a tool tested end to end), they are addressed to the tool's
// process, not to the binaries it tests.

// toolVars are the variables a run sets for the processes it tests.
var toolVars = []string{"GATHERMUT_MUTANT", "GATHERMUT_HITS", "GATHERMUT_KERNEL_HITS"}

// childEnv is base without the tool's own variables (toolVars) and its
// GOFLAGS, then GOFLAGS=goflags and extra.
func childEnv(base []string, goflags string, extra []string) []string {
	out := make([]string, 0, len(base)+len(extra)+1)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if isToolVar(name) || name == "GOFLAGS" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GOFLAGS="+goflags)
	return append(out, extra...)
}

func isToolVar(name string) bool {
	for _, v := range toolVars {
		if name == v {
			return true
		}
	}
	return false
}

// SplitGoflags splits a GOFLAGS value as the go command does: elements are
// separated by spaces, and an element that starts with a quote (' or ")
// runs to the next quote of the same kind, spaces included, without
// escapes.
func SplitGoflags(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return out, nil
		}
		if q := s[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("testbin: GOFLAGS: unterminated %c string", q)
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t\r\n")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}

// JoinGoflags is the inverse of SplitGoflags: an element that holds a
// space, or starts with a quote, is quoted. An element that holds a space
// and both kinds of quote cannot be written in GOFLAGS.
func JoinGoflags(flags []string) (string, error) {
	parts := make([]string, len(flags))
	for i, f := range flags {
		switch {
		case f == "" || strings.ContainsAny(f, " \t\r\n") || f[0] == '\'' || f[0] == '"':
			switch {
			case !strings.Contains(f, "'"):
				parts[i] = "'" + f + "'"
			case !strings.Contains(f, `"`):
				parts[i] = `"` + f + `"`
			default:
				return "", fmt.Errorf("testbin: GOFLAGS cannot hold %q (spaces and both quotes)", f)
			}
		default:
			parts[i] = f
		}
	}
	return strings.Join(parts, " "), nil
}

// flagName is the name of a GOFLAGS element ("-overlay=x" -> "overlay"),
// or "" for an element that is not a flag.
func flagName(f string) string {
	name, ok := strings.CutPrefix(f, "-")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	name, _, _ = strings.Cut(name, "=")
	return name
}

// overlayOf returns the file the last -overlay element of flags names, or "".
func overlayOf(flags []string) string {
	path := ""
	for _, f := range flags {
		if flagName(f) == "overlay" {
			_, path, _ = strings.Cut(f, "=")
		}
	}
	return path
}

// NestedCover asks the go commands a baseline test runs for coverage (the
// mode without schemata): Packages are the mutated packages the test's
// package observes, and Dir is a directory of the run's for their output.
type nestedCover struct {
	packages []string
	coverdir string // GOCOVERDIR of the binaries a test builds
	profile  string // -coverprofile of a nested go test
}

// nestedGoflags is the GOFLAGS of a test process: the user's without
// their -overlay (overlay, when set, holds it) and their coverage flags
// when cover is set, then -count=1, -overlay=overlay and cover's flags.
func nestedGoflags(user []string, overlay string, cover *nestedCover) []string {
	var out []string
	for _, f := range user {
		switch name := flagName(f); {
		case name == "overlay" && overlay != "":
		case name == "count":
		case cover != nil && (name == "cover" || name == "covermode" || name == "coverpkg" || name == "coverprofile"):
		default:
			out = append(out, f)
		}
	}
	out = append(out, "-count=1")
	if overlay != "" {
		out = append(out, "-overlay="+overlay)
	}
	if cover != nil {
		out = append(out, "-cover", "-covermode=set", "-coverpkg="+strings.Join(cover.packages, ","), "-coverprofile="+cover.profile)
	}
	return out
}

var userGoflags = sync.OnceValues(func() ([]string, error) {
	cmd := exec.Command("go", "env", "GOFLAGS")
	cmd.Env = load.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("testbin: go env GOFLAGS: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return SplitGoflags(strings.TrimSpace(string(out)))
})

// userOverlay is the Replace map of the overlay the user's GOFLAGS names
// (nil when none), its paths made absolute against the working directory,
// as the go command does.
var userOverlay = sync.OnceValues(func() (map[string]string, error) {
	flags, err := userGoflags()
	if err != nil {
		return nil, err
	}
	path := overlayOf(flags)
	if path == "" {
		return nil, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("testbin: %w", err)
	}
	return readOverlay(path, wd)
})

// readOverlay reads an overlay file; relative paths, the file's own and
// those in it, are made absolute against wd.
func readOverlay(path, wd string) (map[string]string, error) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(wd, p)
	}
	data, err := os.ReadFile(abs(path))
	if err != nil {
		return nil, fmt.Errorf("testbin: the overlay in GOFLAGS: %w", err)
	}
	var ov Overlay
	if err := json.Unmarshal(data, &ov); err != nil {
		return nil, fmt.Errorf("testbin: the overlay in GOFLAGS (%s): %w", path, err)
	}
	out := make(map[string]string, len(ov.Replace))
	for from, to := range ov.Replace {
		out[abs(from)] = abs(to)
	}
	return out, nil
}

// environment is the environment of a test process run with o, its
// GOFLAGS, and the nested coverage to collect after it (nil when none).
func (o Options) environment() ([]string, string, *nestedCover, error) {
	var cover *nestedCover
	if o.Cover != "" && len(o.NestedCover) > 0 {
		cover = &nestedCover{packages: o.NestedCover, coverdir: o.Cover + ".nested", profile: o.Cover + ".gotest"}
		if err := os.MkdirAll(cover.coverdir, 0o755); err != nil {
			return nil, "", nil, fmt.Errorf("testbin: %w", err)
		}
	}
	user, err := userGoflags()
	if err != nil {
		return nil, "", nil, err
	}
	goflags, err := JoinGoflags(nestedGoflags(user, o.Overlay, cover))
	if err != nil {
		return nil, "", nil, err
	}
	extra := o.Env
	if cover != nil {
		extra = append([]string{"GOCOVERDIR=" + cover.coverdir}, extra...)
	}
	return childEnv(os.Environ(), goflags, extra), goflags, cover, nil
}

// collect adds what the binaries a test built and its nested go tests
// recorded to the test's coverage profile, and removes their files.
func (c *nestedCover) collect(ctx context.Context, profile string) error {
	defer os.RemoveAll(c.coverdir)
	defer os.Remove(c.profile)
	var lines []string
	entries, _ := os.ReadDir(c.coverdir)
	counters := false
	for _, e := range entries {
		counters = counters || strings.HasPrefix(e.Name(), "covcounters.")
	}
	if counters {
		text := c.coverdir + ".txt"
		defer os.Remove(text)
		cmd := Command(ctx, c.coverdir, load.Env(), "go", "tool", "covdata", "textfmt", "-i="+c.coverdir, "-o="+text)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("testbin: go tool covdata textfmt: %v: %s", err, strings.TrimSpace(string(out)))
		}
		// no output file: no counters matched a meta-data file
		more, err := profileLines(text)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		lines = append(lines, more...)
	}
	more, err := profileLines(c.profile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	lines = append(lines, more...)
	if len(lines) == 0 {
		return nil
	}
	f, err := os.OpenFile(profile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("testbin: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		lines = append([]string{"mode: set"}, lines...)
	}
	_, werr := f.WriteString(strings.Join(lines, "\n") + "\n")
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("testbin: add nested coverage to %s: %w", profile, werr)
	}
	return nil
}

// profileLines reads a coverage profile's block lines (not its mode line).
func profileLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "mode:") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}
