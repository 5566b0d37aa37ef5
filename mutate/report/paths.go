package report

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Paths are the absolute paths a run knows of. Build replaces them in
// every string it puts in a report, so that no report names a checkout,
// a temp dir or a home directory: module files become module-relative
// ("gather/legacy.go:12"), the module root ".", and the others a
// placeholder ($TMP, $GOROOT, $GOMODCACHE, $GOCACHE, $TMPDIR, $GOTMPDIR,
// ~). A file the run names by a path still absolute after that (a cache
// file given on the command line) is reported as Outside, so what a report
// says does not depend on where the temp dirs are.
type Paths struct {
	Root     string // module root
	Temp     string // the run's own temp dir
	GoRoot   string
	ModCache string
	GoCache  string
	TempDir  string // the system temp dir the run started with
	// GoTempDir is the GOTMPDIR the run started with ("" when unset):
	// test processes make their t.TempDir there, so a path a test hands
	// the tool may be under it rather than under TempDir.
	GoTempDir string
	Home      string
}

type replacement struct{ from, to string }

// replacer orders the replacements longest first, so that a path inside
// another (the run's temp dir inside the system one) gets its own name.
func (p Paths) replacer() []replacement {
	var rs []replacement
	add := func(from, to string) {
		from = strings.TrimRight(from, "/")
		if len(from) > 1 {
			rs = append(rs, replacement{from + "/", to + "/"}, replacement{from, to})
		}
	}
	if p.Root != "" {
		rr := strings.TrimRight(p.Root, "/")
		if len(rr) > 1 {
			rs = append(rs, replacement{rr + "/", ""}, replacement{rr, "."})
		}
	}
	add(p.Temp, "$TMP")
	add(p.GoRoot, "$GOROOT")
	add(p.ModCache, "$GOMODCACHE")
	add(p.GoCache, "$GOCACHE")
	add(p.TempDir, "$TMPDIR")
	add(p.GoTempDir, "$GOTMPDIR")
	add(p.Home, "~")
	sort.SliceStable(rs, func(i, j int) bool { return len(rs[i].from) > len(rs[j].from) })
	return rs
}

// Clean replaces the known absolute paths in s, each only where it is a
// whole path or the start of one: at a path-separator boundary on both
// sides. A name that merely starts like a known directory keeps its own
// name: with the module at ~/src/app, ~/src/app-inc.cache stays whole
// (it is not "./-inc.cache"), and so does ~/src/application.
func (p Paths) Clean(s string) string {
	if s == "" {
		return s
	}
	for _, r := range p.replacer() {
		if strings.Contains(s, r.from) {
			s = replaceAtBoundary(s, r.from, r.to)
		}
	}
	return s
}

// replaceAtBoundary replaces the occurrences of the path from in s that
// stand as a path of their own: not preceded by a character of a path
// (so /src/app does not match inside /home/src/app) and, unless from ends
// with a separator, not followed by one of a file name (so /src/app does
// not match the start of /src/app-inc.cache or /src/apps).
func replaceAtBoundary(s, from, to string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, from)
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		before := len(s) - len(rest) + i // offset in s
		end := i + len(from)
		ok := (before == 0 || !pathChar(s[before-1]) || escapedSpace(s[:before])) &&
			(strings.HasSuffix(from, "/") || end == len(rest) || !nameChar(rest[end]))
		if ok {
			b.WriteString(rest[:i])
			b.WriteString(to)
			rest = rest[end:]
			continue
		}
		b.WriteString(rest[:i+1])
		rest = rest[i+1:]
	}
}

// escapedSpace reports whether s ends with an escaped tab or newline (\t,
// \n) as a Go-quoted string in a test's output writes them: the path
// after it starts there (a stack trace's "\t/src/app/main.go:17").
func escapedSpace(s string) bool {
	n := len(s)
	return n >= 2 && s[n-2] == '\\' && (s[n-1] == 't' || s[n-1] == 'n') && (n == 2 || s[n-3] != '\\')
}

// nameChar reports whether c can be part of a file or directory name as
// written in the paths and commands a run prints: letters, digits and
// ._-+@~ (a path ends at a space, a quote, a colon, a comma, a
// parenthesis, an '=', a separator).
func nameChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("._-+@~", c) >= 0 || c >= 0x80
}

// pathChar reports whether c can stand right before a path inside a
// longer one: a name character or a separator.
func pathChar(c byte) bool { return nameChar(c) || c == '/' || c == '\\' }

// CleanAll cleans every string of xs in place and returns it.
func (p Paths) CleanAll(xs []string) []string {
	for i := range xs {
		xs[i] = p.Clean(xs[i])
	}
	return xs
}

// AbsolutePath finds an absolute file-system path in s (a slash after a
// space, quote, parenthesis, '=' or the start, followed by a name): the
// check the tests run on every report.
var AbsolutePath = regexp.MustCompile(`(^|[\s"'(=:,\[])/[A-Za-z0-9_.-]+/`)

// Failure limits: what of a test's output a report keeps.
const (
	maxExcerpt = 1000 // bytes of the trimmed failure output
	maxReason  = 300  // bytes of a one-line statusReason
	maxLine    = 240  // bytes of one kept line
)

var (
	fileLine  = regexp.MustCompile(`^\s*[\w./$~-]+\.go:\d+(:\d+)?: `)       // t.Error output: "    x_test.go:12: message"
	frameFile = regexp.MustCompile(`^\s+\S+\.(go|s):\d+( \+0x[0-9a-f]+)?$`) // a stack frame's file line
	keepLine  = regexp.MustCompile(`^(--- FAIL|panic: |fatal error: |\[signal |test timed out|\*\*\* Test killed|SIGQUIT|exit status )`)
)

// TrimFailure keeps what identifies a failure in a test's output: the
// --- FAIL lines, the t.Error messages (with their indented continuation),
// a panic's message and its first frame in the module (not the runtime or
// the testing package), and a timeout or fatal error line; goroutine
// dumps and passing output go. Without any of these it keeps the first
// lines. The result is at most maxExcerpt bytes.
func TrimFailure(out string) string {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	var kept []string
	size := 0
	keep := func(line string) bool {
		line = strings.TrimRight(line, " \t")
		line = truncate(line, maxLine)
		if size+len(line)+1 > maxExcerpt {
			return false
		}
		kept = append(kept, line)
		size += len(line) + 1
		return true
	}
	panicking := false
	framesKept := 0
	inMessage := -1 // indentation of the t.Error message being continued
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		switch {
		case trimmed == "":
			inMessage = -1
			continue
		case strings.HasPrefix(trimmed, "goroutine ") && strings.HasSuffix(trimmed, ":"):
			inMessage = -1
			if framesKept > 0 {
				panicking = false
			}
			continue
		case keepLine.MatchString(trimmed):
			if strings.HasPrefix(trimmed, "panic: ") || strings.HasPrefix(trimmed, "fatal error: ") {
				panicking = true
			}
			inMessage = -1
			if !keep(line) {
				return strings.Join(kept, "\n")
			}
		case fileLine.MatchString(line) && !frameFile.MatchString(line):
			inMessage = indent
			if !keep(line) {
				return strings.Join(kept, "\n")
			}
		case inMessage >= 0 && indent > inMessage:
			if !keep(line) {
				return strings.Join(kept, "\n")
			}
		case panicking && framesKept == 0 && i+1 < len(lines) && frameFile.MatchString(lines[i+1]) && !runtimeFrame(trimmed, lines[i+1]):
			// the first frame outside the runtime and the testing package
			if !keep(line) || !keep(lines[i+1]) {
				return strings.Join(kept, "\n")
			}
			framesKept++
			i++
		default:
			inMessage = -1
		}
	}
	if len(kept) == 0 {
		for _, line := range lines {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "=== ") {
				continue
			}
			if len(kept) == 5 || !keep(line) {
				break
			}
		}
	}
	return strings.Join(kept, "\n")
}

func runtimeFrame(fn, file string) bool {
	fn = strings.TrimSpace(fn)
	for _, p := range []string{"runtime.", "testing.", "panic(", "created by "} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return strings.Contains(file, "$GOROOT/") || strings.Contains(file, "/src/runtime/") || strings.Contains(file, "/src/testing/")
}

// failureLine picks the line of a trimmed failure output that says most:
// a panic or fatal error, else a t.Error message, else the first line.
func failureLine(excerpt string) string {
	lines := strings.Split(excerpt, "\n")
	for _, pick := range []func(string) bool{
		func(l string) bool {
			t := strings.TrimSpace(l)
			return strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") || strings.HasPrefix(t, "test timed out")
		},
		func(l string) bool { return fileLine.MatchString(l) },
	} {
		for _, l := range lines {
			if pick(l) {
				return firstLine(l, maxReason)
			}
		}
	}
	return firstLine(excerpt, maxReason)
}

// firstLine returns the first line of s, cut to n bytes.
func firstLine(s string, n int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return truncate(strings.TrimSpace(line), n)
}

// truncate cuts s to at most n bytes, ending in "..." when cut, and never
// inside a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-3, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
