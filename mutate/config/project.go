package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ProjectFile is the name of the optional configuration file in a module's
// root directory. It gives the module's defaults: what a plain
// "mutate all" mutates there. Every field may be left out; a flag on the
// command line overrides the field it names.
//
//	{
//	  "comment":   "why these settings",            // ignored by the tool
//	  "packages":  ["./gguf/...", "./gather/..."],  // default: ["./..."]
//	  "catalog":   "./mutants",                     // default: none
//	  "exclude":   ["gather/gathertest/**"],        // file globs, see MatchGlob
//	  "operators": ["arith", "negate"],             // default: the default set
//	  "threshold": 85,                              // default: none (any survivor fails)
//	  "reportDir": "reports",                       // default: the user cache dir (ReportDirFor)
//	  "sets": {"mutate-self": {"packages": ["./mutate/..."], "catalog": ""}}
//	}
//
// "sets" names other jobs of the module: --set NAME takes that set's
// fields instead of the top level's (a field the set leaves out has its
// default, not the top level's value), and the reports are named NAME
// unless --name says otherwise. A set holds no sets; its name is letters,
// digits, '.', '_' and '-'.
const ProjectFile = ".gathermut.json"

// OutsideDefaults are the packages mutated in a module without a project
// file, or whose project file names none.
var OutsideDefaults = []string{"./..."}

// Project is the content of a ProjectFile.
type Project struct {
	Comment   string   `json:"comment,omitempty"` // for people; the tool ignores it
	Packages  []string `json:"packages,omitempty"`
	Catalog   *string  `json:"catalog,omitempty"`
	Exclude   []string `json:"exclude,omitempty"`
	Operators []string `json:"operators,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	// Race are package patterns ("./gather", "./hipkern/...") whose test
	// binaries are built with -race, baseline and mutants alike: the
	// packages whose tests run the module's goroutines.
	Race []string `json:"race,omitempty"`
	// ReportDir is where reports go, relative to the module root (a
	// module that commits its reports names its folder here).
	ReportDir *string `json:"reportDir,omitempty"`
	// Sets are other jobs of the module, chosen with --set (Select).
	Sets map[string]*Project `json:"sets,omitempty"`
}

// Select returns the named set of p; an unknown name (or no project file)
// is an error that lists the sets there are.
func (p *Project) Select(name string) (*Project, error) {
	if p == nil {
		return nil, fmt.Errorf("config: --set %s: the module has no %s", name, ProjectFile)
	}
	set, ok := p.Sets[name]
	if !ok {
		names := make([]string, 0, len(p.Sets))
		for n := range p.Sets {
			names = append(names, n)
		}
		sort.Strings(names)
		have := "it names none"
		if len(names) > 0 {
			have = "it names " + strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("config: --set %s: no such set in %s (%s)", name, ProjectFile, have)
	}
	return set, nil
}

// CheckSetName accepts a set's name: it becomes a report's base name.
func CheckSetName(name string) error {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" || strings.Trim(name, ".") == "" {
		return fmt.Errorf("set name %q: use letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// ReadProject reads the project file of the module rooted at root; nil
// without error when there is none. A file that does not parse, has a
// field this tool does not know, or an invalid value is an error naming
// the file and what is wrong.
func ReadProject(root string) (*Project, error) {
	p := filepath.Join(root, ProjectFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return ParseProject(p, data)
}

// ParseProject decodes and checks a project file's content; name is used
// in errors.
func ParseProject(name string, data []byte) (*Project, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var pr Project
	if err := dec.Decode(&pr); err != nil {
		return nil, fmt.Errorf("config: %s: %v", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("config: %s: text after the JSON object", name)
	}
	if err := pr.check(name); err != nil {
		return nil, err
	}
	for setName, set := range pr.Sets {
		if err := CheckSetName(setName); err != nil {
			return nil, fmt.Errorf("config: %s: sets: %v", name, err)
		}
		if set == nil {
			return nil, fmt.Errorf("config: %s: set %s: not an object", name, setName)
		}
		if set.Sets != nil {
			return nil, fmt.Errorf("config: %s: set %s: a set cannot hold sets", name, setName)
		}
		if err := set.check(name + ": set " + setName); err != nil {
			return nil, err
		}
	}
	return &pr, nil
}

// check validates a project's (or a set's) values; name is used in errors.
func (pr *Project) check(name string) error {
	for _, pat := range pr.Packages {
		if strings.TrimSpace(pat) == "" {
			return fmt.Errorf("config: %s: packages: empty pattern", name)
		}
	}
	for _, g := range pr.Exclude {
		if err := CheckGlob(g); err != nil {
			return fmt.Errorf("config: %s: exclude: %v", name, err)
		}
	}
	if pr.Threshold != nil {
		if err := CheckThreshold(*pr.Threshold); err != nil {
			return fmt.Errorf("config: %s: threshold: %v", name, err)
		}
	}
	if pr.ReportDir != nil {
		d := *pr.ReportDir
		if strings.TrimSpace(d) == "" || filepath.IsAbs(d) || strings.HasPrefix(d, "/") || strings.Contains(d, "\\") {
			return fmt.Errorf("config: %s: reportDir %q: write a folder relative to the module root with forward slashes", name, d)
		}
	}
	return nil
}

// ReportDirFor is where a run's reports go: --report-dir as the command
// line gave it (relative to the current directory); else the project
// file's reportDir, under the module root; else a folder of the module in
// the reports folder of the user cache (cache, see ReportCacheDir), so
// that a run writes nothing into the user's source tree unless asked.
func ReportDirFor(c Config, p *Project, root, module, cache string) string {
	switch {
	case c.Given.ReportDir:
		return c.ReportDir
	case p != nil && p.ReportDir != nil:
		return filepath.Join(root, filepath.FromSlash(*p.ReportDir))
	}
	return ReportCacheDir(cache, root, module)
}

// ReportCacheDir is the default report folder of the module at root with
// path module: <cache>/reports/<module path, made a file name>-<hash of
// root>, so two checkouts of one module keep their reports apart. Without
// a cache folder it is under the system temp dir.
func ReportCacheDir(cache, root, module string) string {
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "gathermut-cache")
	}
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, module)
	if name == "" {
		name = "module"
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cache, "reports", name+"-"+hex.EncodeToString(sum[:4]))
}

// Explicit says which settings the command line gave, so that a project
// file does not override them.
type Explicit struct {
	Packages  bool `json:"packages,omitempty"`
	Catalog   bool `json:"catalog,omitempty"`
	Operators bool `json:"operators,omitempty"`
	Threshold bool `json:"threshold,omitempty"`
	ReportDir bool `json:"reportDir,omitempty"`
	// Exclude are the --exclude globs (also in Config.Exclude, after the
	// project file's).
	Exclude []string `json:"exclude,omitempty"`
}

// Apply fills in what the command line left open (c.Given): from the project file
// p (nil: none), else the defaults for a module without one
// (OutsideDefaults, no catalog). It records where the settings came from
// in c.Origin, for the run's first line and the report.
func (c *Config) Apply(p *Project) {
	given := c.Given
	var flags []string
	if given.Packages {
		flags = append(flags, "packages")
	} else if p != nil && len(p.Packages) > 0 {
		c.Patterns = append([]string(nil), p.Packages...)
	} else {
		c.Patterns = append([]string(nil), OutsideDefaults...)
	}
	if given.Catalog {
		flags = append(flags, "catalog")
	} else if p != nil && p.Catalog != nil {
		c.Catalog = *p.Catalog
		c.CatalogExplicit = c.Catalog != ""
	} else {
		c.Catalog = ""
	}
	if p != nil {
		c.Exclude = append(append([]string(nil), p.Exclude...), c.Exclude...)
		c.Race = append([]string(nil), p.Race...)
		if given.Operators {
			flags = append(flags, "operators")
		} else if len(p.Operators) > 0 {
			c.Operators = append([]string(nil), p.Operators...)
		}
		if given.Threshold {
			flags = append(flags, "threshold")
		} else if p.Threshold != nil {
			c.Threshold = Threshold{Percent: *p.Threshold, Given: true}
		}
	}
	switch {
	case p != nil && c.Set != "":
		c.Origin = "settings of set " + c.Set + " in this module's " + ProjectFile
	case p != nil:
		c.Origin = "settings of this module's " + ProjectFile
	default:
		c.Origin = "defaults for a module without " + ProjectFile
	}
	if len(flags) > 0 {
		c.Origin += "; " + strings.Join(flags, ", ") + " from the command line"
	}
}

// Threshold is a minimum mutation score in percent. The zero value is
// none: any survivor fails the run.
type Threshold struct {
	Percent float64
	Given   bool
}

func (t Threshold) String() string {
	if !t.Given {
		return "none"
	}
	return strconv.FormatFloat(t.Percent, 'f', -1, 64) + "%"
}

// Met reports whether detected of scored mutants reach the threshold,
// compared exactly (not through a rounded score).
func (t Threshold) Met(detected, scored int) bool {
	return t.Given && float64(detected)*100 >= t.Percent*float64(scored)
}

// MarshalJSON writes a threshold as a number, none as null.
func (t Threshold) MarshalJSON() ([]byte, error) {
	if !t.Given {
		return []byte("null"), nil
	}
	return json.Marshal(t.Percent)
}

// UnmarshalJSON reads a number, or null for none.
func (t *Threshold) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*t = Threshold{}
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("config: threshold: %w", err)
	}
	*t = Threshold{Percent: f, Given: true}
	return nil
}

// ParseThreshold reads --threshold's value: a percentage from 0 to 100,
// with or without a trailing %.
func ParseThreshold(s string) (Threshold, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil {
		return Threshold{}, fmt.Errorf("--threshold %q: want a percentage from 0 to 100", s)
	}
	if err := CheckThreshold(f); err != nil {
		return Threshold{}, fmt.Errorf("--threshold %q: %v", s, err)
	}
	return Threshold{Percent: f, Given: true}, nil
}

// CheckThreshold accepts a percentage from 0 to 100.
func CheckThreshold(f float64) error {
	if !(f >= 0 && f <= 100) {
		return fmt.Errorf("%v is not a percentage from 0 to 100", f)
	}
	return nil
}

// CheckGlob reports whether g is a usable exclusion glob.
func CheckGlob(g string) error {
	if strings.TrimSpace(g) == "" {
		return errors.New("empty glob")
	}
	if strings.HasPrefix(g, "/") || strings.HasPrefix(g, "./") || strings.Contains(g, "\\") {
		return fmt.Errorf("glob %q: write it relative to the module root with forward slashes, without a leading / or ./", g)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(g, "/"), "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("glob %q: %v", g, err)
		}
	}
	return nil
}

// MatchGlob reports whether the module-relative, slash-separated file path
// rel is excluded by glob g. Segments match as in path.Match (* and ? do
// not cross a slash); a segment ** matches any number of directories. A
// glob without a slash matches a file's name in any directory
// ("*_string.go"); a glob that matches a directory excludes every file
// under it ("gather/gathertest" is "gather/gathertest/**").
func MatchGlob(g, rel string) bool {
	g = strings.TrimSuffix(g, "/")
	parts := strings.Split(rel, "/")
	if !strings.Contains(g, "/") { //gathermut:equivalent(branch-true) a glob with a slash cannot match a file name, which has none
		ok, _ := path.Match(g, parts[len(parts)-1])
		if ok {
			return true
		}
	}
	gs := strings.Split(g, "/")
	// the file itself, or any directory above it
	for n := len(parts); n >= 1; n-- {
		if matchSegments(gs, parts[:n]) {
			return true
		}
	}
	return false
}

func matchSegments(gs, ps []string) bool {
	for len(gs) > 0 {
		if gs[0] == "**" {
			for skip := 0; skip <= len(ps); skip++ {
				if matchSegments(gs[1:], ps[skip:]) {
					return true
				}
			}
			return false
		}
		if len(ps) == 0 {
			return false
		}
		if ok, _ := path.Match(gs[0], ps[0]); !ok {
			return false
		}
		gs, ps = gs[1:], ps[1:]
	}
	return len(ps) == 0
}
