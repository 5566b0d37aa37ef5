package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"gathermut/mutate/mutant"
)

// FindingKind says why a mutant is a finding.
type FindingKind string

const (
	// CatalogEscape: a catalog mutant that ran and was not killed by one
	// of its expected tests.
	CatalogEscape FindingKind = "catalog mutant not killed by its expected test"
	// Survivor: a generic mutant the tests ran and missed.
	Survivor FindingKind = "survived"
	// Uncovered: a generic mutant no test executes.
	Uncovered FindingKind = "not covered by any test"
	// Unjudged: a mutant that could not be judged (status error).
	Unjudged FindingKind = "error"
)

// Finding is one thing a reviewer acts on, as the markdown's "To act on"
// lists them: a catalog mutant not killed by its expected test, a
// survivor (covered or not) and an error. SARIF and the GitHub
// annotations write one result each.
type Finding struct {
	Kind   FindingKind
	Level  string // "error" (catalog escapes, errors) or "warning" (survivors)
	RuleID string // the operator, or the catalog id
	Mutant mutant.Mutant
	Result mutant.Result
	// Path is the file as the repository names it: the module-relative
	// path, with the module's directory in its git work tree in front
	// (GitHub resolves paths from the repository root).
	Path string
	// Region is the mutant's range with columns in characters (Unicode
	// code points), 1-based, end exclusive; zero when the mutant has no
	// place in a file.
	Region Location
	// Fingerprint stays the same across runs while the mutant's function,
	// its text and its replacement do, whatever moves around it (see
	// fingerprint).
	Fingerprint string
	Rerun       string
}

// Findings lists a report's findings ordered by file, line and column.
func Findings(r *Report) ([]Finding, error) {
	outcomes, err := r.Outcomes()
	if err != nil {
		return nil, err
	}
	prefix := repoPrefix(r.Gathermut.Paths.Root)
	var out []Finding
	for _, o := range outcomes {
		m, res := o.Mutant, o.Result
		var kind FindingKind
		switch {
		case res.CatalogFailure(m):
			kind = CatalogEscape
		case res.Status == mutant.Survived && res.Why == NotCovered:
			kind = Uncovered
		case res.Status == mutant.Survived:
			kind = Survivor
		case res.Status == mutant.Error:
			kind = Unjudged
		default:
			continue
		}
		f := Finding{Kind: kind, Level: "warning", RuleID: m.Operator, Mutant: m, Result: res, Rerun: RerunCommand(r.Gathermut, m)}
		if kind == CatalogEscape || kind == Unjudged {
			f.Level = "error"
		}
		if m.Catalog != nil {
			f.RuleID = m.Catalog.ID
		}
		if f.RuleID == "" {
			f.RuleID = "mutant"
		}
		src := ""
		if fr := r.Files[m.File]; fr != nil {
			src = fr.Source
		}
		if m.File != "" {
			f.Path = prefix + m.File
			if m.Pos.Line > 0 {
				end := m.End
				if end.Line == 0 {
					end = m.Pos
				}
				f.Region = Location{Start: charPosition(src, m.Pos), End: charPosition(src, end)}
			}
		}
		f.Fingerprint = fingerprint(m, src)
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Region.Start.Line != b.Region.Start.Line {
			return a.Region.Start.Line < b.Region.Start.Line
		}
		if a.Region.Start.Column != b.Region.Start.Column {
			return a.Region.Start.Column < b.Region.Start.Column
		}
		return a.Mutant.ID < b.Mutant.ID
	})
	return out, nil
}

// Message is the finding in one paragraph: what changed where, why it is
// a finding, and the command that reruns it.
func (f Finding) Message() string {
	m, res := f.Mutant, f.Result
	var b strings.Builder
	switch f.Kind {
	case CatalogEscape:
		fmt.Fprintf(&b, "Catalog mutant %s (class %d) was not killed by its expected test (%s): %s.", m.ID, m.Catalog.Class, strings.Join(m.Expected, ", "), verdict(res))
		if m.Catalog.Reason != "" {
			fmt.Fprintf(&b, " It stands for: %s.", strings.TrimSuffix(m.Catalog.Reason, "."))
		}
	case Uncovered:
		fmt.Fprintf(&b, "Mutant not covered by any test: %s.", changeText(m))
	case Survivor:
		fmt.Fprintf(&b, "Mutant survived: %s; %s.", changeText(m), res.Why)
	case Unjudged:
		fmt.Fprintf(&b, "Mutant could not be judged: %s; %s.", changeText(m), res.Why)
	}
	fmt.Fprintf(&b, " Rerun: %s", f.Rerun)
	return b.String()
}

func verdict(res mutant.Result) string {
	s := string(res.Status)
	if res.Status == mutant.Killed && len(res.KilledBy) > 0 {
		s = "killed only by " + listSome(res.KilledBy, 3)
	}
	if res.Why != "" && res.Status != mutant.Killed {
		s += " (" + res.Why + ")"
	}
	return s
}

func changeText(m mutant.Mutant) string {
	repl := oneLine(m.Replacement)
	if repl == "" {
		repl = "(deleted)"
	}
	s := fmt.Sprintf("%s %s -> %s", m.Operator, oneLine(m.Original), repl)
	if m.Func != "" {
		s += " in " + m.Func
	}
	return s
}

// fingerprint identifies a mutant across runs without its line or column,
// which move when code above it changes: a catalog mutant by its id; a
// generic one by its operator, file, function, original and replacement
// text, and how many times the original text occurs in the function (the
// file, for a package-level mutant) before it. A change elsewhere in the
// file leaves it alone; it changes when the function is renamed, the
// mutated code itself changes, or the same text is added before it in the
// same function.
func fingerprint(m mutant.Mutant, src string) string {
	var key string
	if m.Catalog != nil {
		key = "catalog\x00" + m.Catalog.ID
	} else {
		nth := -1
		if at := byteOffset(src, m.Pos); at >= 0 && m.Original != "" {
			from := 0
			if m.InBody {
				if b := byteOffset(src, m.BodyStart); b >= 0 && b <= at {
					from = b
				}
			}
			nth = strings.Count(src[from:at], m.Original)
		}
		key = strings.Join([]string{"generic", m.Operator, m.File, m.Func, m.Original, m.Replacement, fmt.Sprint(nth)}, "\x00")
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}

// byteOffset is the offset of a 1-based line and byte column in src, or
// -1 when src has no such place.
func byteOffset(src string, p mutant.Position) int {
	if p.Line < 1 || p.Column < 1 {
		return -1
	}
	off := 0
	for line := 1; line < p.Line; line++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	if off+p.Column-1 > len(src) {
		return -1
	}
	return off + p.Column - 1
}

// charPosition turns a byte column (go/token's) into a column in Unicode
// code points. Without the source it stays a byte column (the same on an
// ASCII line).
func charPosition(src string, p mutant.Position) mutant.Position {
	start := byteOffset(src, mutant.Position{Line: p.Line, Column: 1})
	at := byteOffset(src, p)
	if start < 0 || at < start {
		return p
	}
	return mutant.Position{Line: p.Line, Column: utf8.RuneCountInString(src[start:at]) + 1}
}

// repoPrefix is the module root's path inside its git work tree,
// slash-separated with a trailing slash ("" at the work tree's root, when
// there is no work tree, or when the root is unknown).
func repoPrefix(root string) string {
	if root == "" || !filepath.IsAbs(root) {
		return ""
	}
	for dir := root; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, root)
			if err != nil || rel == "." {
				return ""
			}
			return filepath.ToSlash(rel) + "/"
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
