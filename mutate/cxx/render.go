package cxx

import (
	"fmt"
	"sort"
	"strings"
)

// SchemaMutant is a mutant entering a kernel schema: its number (the value
// of GATHERMUT_MUTANT that turns it on) and its site.
type SchemaMutant struct {
	Num  int
	File string
	Site Site
}

// Region is a byte range of a rendered file and the mutants whose code it
// holds, so that a compile error there can be traced to them.
type Region struct {
	Start, End int
	Mutants    []int
}

// Rendered is a schema's copy of one file.
type Rendered struct {
	Src     []byte
	Regions []Region
}

// Schema is the rendered kernel sources: every file that holds a site, and
// the number of coverage sites (GATHERMUT_SITES).
type Schema struct {
	Files map[string]*Rendered
	Sites int
	// SiteOf maps a mutant's number to its coverage site.
	SiteOf map[int]int
}

// The names a schema uses, defined by the kernel's compat.h when
// GATHERMUT_SCHEMA is set: GATHERMUT_ON(n) is true in a process started
// with GATHERMUT_MUTANT=n; GATHERMUT_HIT(s) records that site s ran.
const (
	onMacro  = "GATHERMUT_ON"
	hitMacro = "GATHERMUT_HIT"
)

// Header returns the lines a schema build puts before the kernel's entry
// file: the switch that turns the schema on and the number of sites.
func (s *Schema) Header() string {
	return fmt.Sprintf("#define GATHERMUT_SCHEMA 1\n#define GATHERMUT_SITES %d\n", max(s.Sites, 1))
}

// Render builds the schema of files from the mutants that can be switched
// (a Site.Why that is not empty is an error here: such a mutant is built
// on its own). Mutants with the same site share one coverage site and one
// switch; a site inside another is rendered inside the other's original
// text, so both switch independently. A mutant that cannot be switched
// still needs its coverage: probes are the function bodies' opening braces
// where Render puts a hit for them.
func Render(files map[string][]byte, muts []SchemaMutant, probes []SchemaMutant) (*Schema, error) {
	type key struct {
		file       string
		start, end int
		kind       SiteKind
	}
	sites := map[key]*site{}
	var order []*site
	sch := &Schema{Files: map[string]*Rendered{}, SiteOf: map[int]int{}}
	for _, m := range muts {
		if m.Site.Why != "" {
			return nil, fmt.Errorf("cxx: mutant %d cannot be switched: %s", m.Num, m.Site.Why)
		}
		src, ok := files[m.File]
		if !ok {
			return nil, fmt.Errorf("cxx: mutant %d: no file %s", m.Num, m.File)
		}
		if m.Site.Start < 0 || m.Site.End > len(src) || m.Site.Start > m.Site.End {
			return nil, fmt.Errorf("cxx: mutant %d: site [%d, %d) outside %s", m.Num, m.Site.Start, m.Site.End, m.File)
		}
		k := key{m.File, m.Site.Start, m.Site.End, m.Site.Kind}
		st := sites[k]
		if st == nil {
			st = &site{file: m.File, start: m.Site.Start, end: m.Site.End, kind: m.Site.Kind}
			sites[k] = st
			order = append(order, st)
		}
		st.nums = append(st.nums, m.Num)
		st.texts = append(st.texts, m.Site.Text)
	}
	// probe hits at function bodies: one site per body
	probeSite := map[key]*site{}
	for _, m := range probes {
		src, ok := files[m.File]
		if !ok {
			return nil, fmt.Errorf("cxx: mutant %d: no file %s", m.Num, m.File)
		}
		if m.Site.Probe < 0 || m.Site.Probe >= len(src) || src[m.Site.Probe] != '{' {
			return nil, fmt.Errorf("cxx: mutant %d: its probe at %d is not a function body's brace in %s", m.Num, m.Site.Probe, m.File)
		}
		k := key{m.File, m.Site.Probe, m.Site.Probe + 1, "probe"}
		st := probeSite[k]
		if st == nil {
			st = &site{file: m.File, start: m.Site.Probe, end: m.Site.Probe + 1, kind: "probe"}
			probeSite[k] = st
			order = append(order, st)
		}
		st.nums = append(st.nums, m.Num)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.start != b.start {
			return a.start < b.start
		}
		return a.end > b.end
	})
	for i, st := range order {
		st.hit = i
		for _, n := range st.nums {
			sch.SiteOf[n] = i
		}
	}
	sch.Sites = len(order)
	byFile := map[string][]*site{}
	for _, st := range order {
		byFile[st.file] = append(byFile[st.file], st)
	}
	for name, list := range byFile {
		r := &renderer{src: files[name]}
		if err := r.check(list); err != nil {
			return nil, fmt.Errorf("cxx: %s: %w", name, err)
		}
		r.span(0, len(r.src), list)
		sch.Files[name] = &Rendered{Src: []byte(r.out.String()), Regions: r.regions}
	}
	return sch, nil
}

type site struct {
	file       string
	start, end int
	kind       SiteKind
	nums       []int
	texts      []string
	hit        int
}

type renderer struct {
	src     []byte
	out     strings.Builder
	regions []Region
}

// check refuses sites that overlap without nesting: each mutant must be
// renderable inside or beside the others.
func (r *renderer) check(list []*site) error {
	var open []*site
	for _, s := range list {
		for len(open) > 0 && open[len(open)-1].end <= s.start {
			open = open[:len(open)-1]
		}
		if len(open) > 0 && s.end > open[len(open)-1].end && s.kind != "probe" {
			o := open[len(open)-1]
			return fmt.Errorf("sites [%d, %d) and [%d, %d) overlap", o.start, o.end, s.start, s.end)
		}
		if s.kind != "probe" {
			open = append(open, s)
		}
	}
	return nil
}

// span writes src[start:end) with the sites in list (sorted, within the
// range) switched.
func (r *renderer) span(start, end int, list []*site) {
	pos := start
	for len(list) > 0 {
		s := list[0]
		if s.kind == "probe" {
			// a hit right after the body's opening brace
			r.out.Write(r.src[pos:s.end])
			fmt.Fprintf(&r.out, " %s(%d);", hitMacro, s.hit)
			pos, list = s.end, list[1:]
			continue
		}
		// the sites inside s follow it in the list
		j := 1
		for j < len(list) && list[j].start < s.end {
			j++
		}
		inner := list[1:j]
		r.out.Write(r.src[pos:s.start])
		from := r.out.Len()
		switch s.kind {
		case ExprSite:
			fmt.Fprintf(&r.out, "(%s(%d), !(%s) ? (", hitMacro, s.hit, r.any(s.nums))
			r.span(s.start, s.end, inner)
			r.out.WriteString(")")
			for k, n := range s.nums {
				if k == len(s.nums)-1 {
					fmt.Fprintf(&r.out, " : (%s)", s.texts[k])
				} else {
					fmt.Fprintf(&r.out, " : %s(%d) ? (%s)", onMacro, n, s.texts[k])
				}
			}
			r.out.WriteString(")")
		case StmtSite:
			fmt.Fprintf(&r.out, "{ %s(%d); if (!(%s)) { ", hitMacro, s.hit, r.any(s.nums))
			r.span(s.start, s.end, inner)
			r.out.WriteString(" }")
			for k, n := range s.nums {
				fmt.Fprintf(&r.out, " else if (%s(%d)) { %s }", onMacro, n, s.texts[k])
			}
			r.out.WriteString(" }")
		}
		r.regions = append(r.regions, Region{Start: from, End: r.out.Len(), Mutants: append([]int(nil), s.nums...)})
		pos, list = s.end, list[j:]
	}
	r.out.Write(r.src[pos:end])
}

func (r *renderer) any(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = fmt.Sprintf("%s(%d)", onMacro, n)
	}
	return strings.Join(parts, " || ")
}

// Locate returns the mutants of the innermost region holding offset of a
// rendered file.
func (r *Rendered) Locate(offset int) []int {
	var best *Region
	for i := range r.Regions {
		g := &r.Regions[i]
		if g.Start <= offset && offset < g.End && (best == nil || g.End-g.Start <= best.End-best.Start) {
			best = g
		}
	}
	if best == nil {
		return nil
	}
	return best.Mutants
}
