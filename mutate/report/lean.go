package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gathermut/mutate/mutant"
)

// The JSON file is the report in a lean form that reads back to the same
// report (doc.go, "Lean JSON"): encode writes it, decode expands it.
// Everything it leaves out is derived again from what it keeps.

// CommandRefs is a mutant's commands in the file: indexes into the
// report's command table (Meta.Commands), whose templates hold "{n}"
// where the mutant's schema number (GATHERMUT_MUTANT) goes and "{dir}"
// where the number of its own temp folder ($TMP/mutant-<dir>) goes.
type CommandRefs struct {
	Table []int  `json:"t"`
	N     int    `json:"n,omitempty"`
	Dir   string `json:"dir,omitempty"`
}

// The per-mutant parts of a command, and their places in a template.
var (
	switchVar = regexp.MustCompile(`GATHERMUT_MUTANT=(\d+)`)
	mutantDir = regexp.MustCompile(`/mutant-(\d+)/`)
)

const (
	switchHole = "GATHERMUT_MUTANT={n}"
	dirHole    = "/mutant-{dir}/"
)

// expand fills a template with a mutant's own parts.
func (c CommandRefs) expand(tmpl string) string {
	s := strings.ReplaceAll(tmpl, switchHole, "GATHERMUT_MUTANT="+strconv.Itoa(c.N))
	return strings.ReplaceAll(s, dirHole, "/mutant-"+c.Dir+"/")
}

// commandTable collects the distinct templates of a report's commands.
type commandTable struct {
	index     map[string]int
	templates []string
}

// refs turns one mutant's commands into references, or returns nil when a
// command does not come back from its template (the commands are then
// written as they are).
func (t *commandTable) refs(cmds []string) *CommandRefs {
	if len(cmds) == 0 {
		return nil
	}
	var c CommandRefs
	var n, dir string
	one := func(re *regexp.Regexp, cmd string, v *string) bool {
		for _, m := range re.FindAllStringSubmatch(cmd, -1) {
			if *v != "" && *v != m[1] {
				return false
			}
			*v = m[1]
		}
		return true
	}
	for _, cmd := range cmds {
		if !one(switchVar, cmd, &n) || !one(mutantDir, cmd, &dir) {
			return nil
		}
	}
	if n != "" {
		v, err := strconv.Atoi(n)
		if err != nil || strconv.Itoa(v) != n {
			return nil // leading zeros, or too long: keep the command as it is
		}
		c.N = v
	}
	c.Dir = dir
	tmpls := make([]string, len(cmds))
	for i, cmd := range cmds {
		tmpl := switchVar.ReplaceAllLiteralString(cmd, switchHole)
		tmpl = mutantDir.ReplaceAllLiteralString(tmpl, dirHole)
		if c.expand(tmpl) != cmd {
			return nil
		}
		tmpls[i] = tmpl
	}
	for _, tmpl := range tmpls {
		k, ok := t.index[tmpl]
		if !ok {
			k = len(t.templates)
			t.index[tmpl] = k
			t.templates = append(t.templates, tmpl)
		}
		c.Table = append(c.Table, k)
	}
	return &c
}

// leanKeys are keys of an evidence's mutant object that the file leaves
// out because the report gives them elsewhere: file (the files key), pos
// and end (the location).
type leanKeys struct {
	file, pos, end bool
	// emptyDiff: the diff is empty though the edit would give one (decode
	// must not make it)
	emptyDiff bool
}

// MarshalJSON writes the evidence with every key of its mutant and result
// objects whose value is the zero value left out (decoding leaves such a
// field zero), and the keys encode found derivable.
func (e Evidence) MarshalJSON() ([]byte, error) {
	m, err := marshalLean(e.Mutant, func(k string) bool {
		return (k == "file" && e.omit.file) || (k == "pos" && e.omit.pos) || (k == "end" && e.omit.end)
	}, "schema")
	if err != nil {
		return nil, err
	}
	r, err := marshalLean(e.Result, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	return marshalPlain(struct {
		Mutant json.RawMessage `json:"mutant"`
		Result json.RawMessage `json:"result"`
		Rerun  string          `json:"rerun,omitempty"`
		Run    *CommandRefs    `json:"run,omitempty"`
		NoDiff bool            `json:"noDiff,omitempty"`
	}{m, r, e.Rerun, e.Run, e.omit.emptyDiff})
}

// UnmarshalJSON reads an evidence and notes which derivable keys of its
// mutant were left out.
func (e *Evidence) UnmarshalJSON(data []byte) error {
	var raw struct {
		Mutant json.RawMessage `json:"mutant"`
		Result mutant.Result   `json:"result"`
		Rerun  string          `json:"rerun"`
		Run    *CommandRefs    `json:"run"`
		NoDiff bool            `json:"noDiff"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = Evidence{Result: raw.Result, Rerun: raw.Rerun, Run: raw.Run}
	if len(raw.Mutant) == 0 || string(raw.Mutant) == "null" {
		e.omit = leanKeys{file: true, pos: true, end: true}
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw.Mutant, &keys); err != nil {
		return err
	}
	_, file := keys["file"]
	_, pos := keys["pos"]
	_, end := keys["end"]
	e.omit = leanKeys{file: !file, pos: !pos, end: !end, emptyDiff: raw.NoDiff}
	return json.Unmarshal(raw.Mutant, &e.Mutant)
}

// marshalLean marshals v, an object (a struct), without its zero-valued
// keys and those drop names; the objects under the keys nested (structs
// too) lose their zero-valued keys as well.
func marshalLean(v any, drop func(string) bool, nested ...string) (json.RawMessage, error) {
	data, err := marshalPlain(v)
	if err != nil {
		return nil, err
	}
	return dropZeros(data, drop, nested)
}

func dropZeros(data []byte, drop func(string) bool, nested []string) (json.RawMessage, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, err
	}
	for k, val := range keys {
		switch string(val) {
		case `""`, `false`, `0`, `null`:
			delete(keys, k)
			continue
		}
		if drop(k) {
			delete(keys, k)
			continue
		}
		if slices.Contains(nested, k) && len(val) > 0 && val[0] == '{' {
			inner, err := dropZeros(val, func(string) bool { return false }, nil)
			if err != nil {
				return nil, err
			}
			keys[k] = inner
		}
	}
	return marshalPlain(keys)
}

// marshalPlain is json.Marshal without HTML escapes (<, >, & stay as they
// are: the file is not HTML) and without the final newline.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encode writes r in the lean form.
func encode(r *Report) ([]byte, error) {
	lean := *r
	lean.Gathermut.Tests, lean.Gathermut.Commands = nil, nil
	// short test ids, in the order of the full ones
	var ids []string
	for _, tf := range r.TestFiles {
		for _, t := range tf.Tests {
			ids = append(ids, t.ID)
		}
	}
	sort.Strings(ids)
	short := make(map[string]string, len(ids))
	for i, id := range ids {
		short[id] = strconv.Itoa(i)
	}
	shorten := func(in []string) []string {
		if in == nil {
			return nil
		}
		out := make([]string, len(in))
		for i, id := range in {
			s, ok := short[id]
			if !ok {
				s = id // not in testFiles: Build lists every id it writes, so only a hand-made report gets here
			}
			out[i] = s
		}
		return out
	}
	if len(ids) > 0 {
		lean.Gathermut.Tests = ids
		lean.TestFiles = make(map[string]*TestFile, len(r.TestFiles))
		for k, tf := range r.TestFiles {
			c := &TestFile{Tests: make([]TestDefinition, len(tf.Tests))}
			for i, t := range tf.Tests {
				t.ID = short[t.ID]
				c.Tests[i] = t
			}
			lean.TestFiles[k] = c
		}
	}
	table := &commandTable{index: map[string]int{}}
	lean.Files = make(map[string]*FileResult, len(r.Files))
	paths := make([]string, 0, len(r.Files))
	for p := range r.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // the command table's order does not depend on map order
	for _, p := range paths {
		f := r.Files[p]
		c := &FileResult{Language: f.Language, Source: f.Source, Mutants: make([]MutantResult, len(f.Mutants))}
		for i, m := range f.Mutants {
			m.KilledBy, m.CoveredBy = shorten(m.KilledBy), shorten(m.CoveredBy)
			if m.Gathermut != nil {
				if m.Description == description(wholeMutant(m)) {
					m.Description = "" // decode makes it again
				}
				ev := leanEvidence(m, p, f.Source)
				if refs := table.refs(ev.Result.Commands); refs != nil {
					ev.Run, ev.Result.Commands = refs, nil
				}
				m.Gathermut = &ev
			}
			c.Mutants[i] = m
		}
		lean.Files[p] = c
	}
	lean.Gathermut.Commands = table.templates
	return marshalPlain(&lean)
}

// leanEvidence is mutant m's evidence as the lean JSON of file p (source
// src) holds it: without what decode gives back (the rerun command, the
// file and positions the schema's fields hold, a diff the edit gives) and
// without the test output of a mutant that needs no action (keepExcerpt).
func leanEvidence(m MutantResult, p, src string) Evidence {
	ev := *m.Gathermut
	ev.Rerun = "" // RerunCommand gives it again
	if !keepExcerpt(ev.Result, wholeMutant(m)) {
		ev.Result.Excerpt = "" // the status reason keeps its failure line
	}
	ev.omit = leanKeys{file: ev.Mutant.File == p, pos: ev.Mutant.Pos == m.Location.Start, end: ev.Mutant.End == m.Location.End}
	if e := ev.Mutant.Edit; e != nil && ev.Mutant.Diff != "" && e.Start >= 0 && e.Start <= e.End && e.End <= len(src) &&
		mutant.EditDiff(p, []byte(src), *e) == ev.Mutant.Diff {
		ev.Mutant.Diff = "" // decode makes it again
	} else if e != nil && ev.Mutant.Diff == "" {
		ev.omit.emptyDiff = true
	}
	return ev
}

// keepExcerpt reports whether the JSON keeps a mutant's test output: for
// what a reviewer acts on (a survivor, an error, a catalog mutant not
// killed by its expected test, whose unexpected killer's output says why),
// an unviable mutant (its build error) and every catalog mutant (the
// expected killer's output is the entry's evidence, and there are few);
// a generic mutant's failure line is in its status reason, and the
// generic mutants' whole output would be most of the file.
func keepExcerpt(r mutant.Result, m mutant.Mutant) bool {
	switch r.Status {
	case mutant.Survived, mutant.Error, mutant.Unviable:
		return true
	}
	return m.Catalog != nil || r.CatalogFailure(m)
}

// wholeMutant is a mutant's evidence with what the schema's fields hold
// put back.
func wholeMutant(m MutantResult) mutant.Mutant {
	mu := m.Gathermut.Mutant
	mu.ID, mu.Operator, mu.Replacement = m.ID, m.MutatorName, m.Replacement
	return mu
}

// decode reads a report written by encode, or by a version before the
// lean form, and expands it.
func decode(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	g := &r.Gathermut
	for k, tf := range r.TestFiles {
		for i := range tf.Tests {
			ids, err := fullTestIDs(g.Tests, []string{tf.Tests[i].ID})
			if err != nil {
				return nil, fmt.Errorf("testFiles[%s]: %w", k, err)
			}
			tf.Tests[i].ID = ids[0]
		}
	}
	for p, f := range r.Files {
		for i := range f.Mutants {
			if err := expandMutant(g, p, f, &f.Mutants[i]); err != nil {
				return nil, err
			}
		}
	}
	// the rerun command and the description need the whole mutant: after
	// the loop above
	for _, f := range r.Files {
		for i := range f.Mutants {
			m := &f.Mutants[i]
			ev := m.Gathermut
			if ev == nil {
				continue
			}
			if ev.Rerun == "" {
				ev.Rerun = RerunCommand(r.Gathermut, wholeMutant(*m))
			}
			if m.Description == "" {
				m.Description = description(wholeMutant(*m))
			}
		}
	}
	g.Tests, g.Commands = nil, nil
	return &r, nil
}

// fullTestIDs expands the short test ids of in (indices into tests, the
// report's table of full ids); a full id is kept. Without a table, or
// without ids, in is returned as it is.
func fullTestIDs(tests, in []string) ([]string, error) {
	if len(tests) == 0 || in == nil {
		return in, nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		k, err := strconv.Atoi(s)
		if err != nil {
			out[i] = s // a full id ("pkg.TestX" is never a number)
			continue
		}
		if k < 0 || k >= len(tests) {
			return nil, fmt.Errorf("test id %q is not in gathermut.tests (%d tests)", s, len(tests))
		}
		out[i] = tests[k]
	}
	return out, nil
}

// expandMutant expands mutant m of file p (f) in place: its test ids, and
// its evidence's omitted fields and command references.
func expandMutant(g *Meta, p string, f *FileResult, m *MutantResult) error {
	var err error
	if m.KilledBy, err = fullTestIDs(g.Tests, m.KilledBy); err != nil {
		return fmt.Errorf("mutant %s: killedBy: %w", m.ID, err)
	}
	if m.CoveredBy, err = fullTestIDs(g.Tests, m.CoveredBy); err != nil {
		return fmt.Errorf("mutant %s: coveredBy: %w", m.ID, err)
	}
	ev := m.Gathermut
	if ev == nil {
		return nil
	}
	if ev.omit.file {
		ev.Mutant.File = p
	}
	if ev.omit.pos {
		ev.Mutant.Pos = m.Location.Start
	}
	if ev.omit.end {
		ev.Mutant.End = m.Location.End
	}
	if ev.Mutant.Diff == "" && ev.Mutant.Edit != nil && !ev.omit.emptyDiff {
		if e := ev.Mutant.Edit; e.Start < 0 || e.End < e.Start || e.End > len(f.Source) {
			return fmt.Errorf("mutant %s: edit [%d, %d) outside its file's source of %d bytes", m.ID, e.Start, e.End, len(f.Source))
		}
		ev.Mutant.Diff = mutant.EditDiff(p, []byte(f.Source), *ev.Mutant.Edit)
	}
	ev.omit = leanKeys{}
	if ev.Run == nil {
		return nil
	}
	for _, k := range ev.Run.Table {
		if k < 0 || k >= len(g.Commands) {
			return fmt.Errorf("mutant %s: command %d is not in gathermut.commands (%d)", m.ID, k, len(g.Commands))
		}
		ev.Result.Commands = append(ev.Result.Commands, ev.Run.expand(g.Commands[k]))
	}
	ev.Run = nil
	return nil
}
