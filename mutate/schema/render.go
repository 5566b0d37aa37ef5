package schema

import (
	"fmt"
	"sort"
	"strings"

	"gathermut/mutate/mutant"
)

// Entry is one mutant as a schema build takes it.
type Entry struct {
	N    int          // its number: the binary runs it when GATHERMUT_MUTANT=N
	File string       // module-relative file
	Site *mutant.Site // switched (Kind set), or a fallback with its probe (Probe >= 0)
	// NoCover keeps the entry's site out of the mutant's coverage: a
	// package-level site runs when the binary starts, and its readers'
	// probes (more entries of the same mutant) count instead.
	NoCover bool
}

// Names are the package-level identifiers a schema adds to a package.
type Names struct {
	Active string // the running mutant's number
	Hits   string // one byte per site, set when the site runs
	Prefix string // of the support file's import names
}

// DefaultNames are the identifiers used unless a package already has them.
var DefaultNames = Names{Active: "gathermutActive", Hits: "gathermutHits", Prefix: "gathermut"}

// Region is a part of a rendered file that belongs to mutants: an error
// the compiler reports inside it is theirs.
type Region struct {
	Start, End int   // in the rendered file
	Mutants    []int // the mutants whose code this is
}

// File is one rendered file of a schema.
type File struct {
	Source  []byte
	Regions []Region // innermost last among overlapping ones
}

// Package is the schema of one package.
type Package struct {
	Files map[string]*File // module-relative path -> rendered file
	// Cover maps each mutant number to the sites (indexes in the hits
	// file) whose hits count as running it.
	Cover map[int][]int
	// Consts names the constants turned into variables, with the mutants
	// that turned them.
	Consts map[string][]int
}

// node is one site of a file: its range, how it is switched, and its
// mutants (a probe has no texts).
type node struct {
	kind       mutant.SiteKind // "" for a probe
	start, end int
	form, typ  string
	name       string
	valueStart int
	valueEnd   int
	block      bool
	site       int
	muts       []int
	cover      []bool // per mutant: the site counts for its coverage
	texts      []string
	children   []*node
}

func rank(k mutant.SiteKind) int {
	switch k {
	case mutant.ConstSite:
		return 0
	case mutant.StmtSite:
		return 1
	case mutant.BlockSite:
		return 2
	case mutant.ExprSite:
		return 3
	}
	return 4
}

// Render builds the schema of one package from its entries: sources maps
// each file the entries name to its bytes on disk, and site numbers start
// at firstSite. It returns the schema and the next free site number.
func Render(names Names, sources map[string][]byte, entries []Entry, firstSite int) (*Package, int, error) {
	pkg := &Package{Files: map[string]*File{}, Cover: map[int][]int{}, Consts: map[string][]int{}}
	byFile := map[string][]Entry{}
	for _, e := range entries {
		byFile[e.File] = append(byFile[e.File], e)
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	next := firstSite
	for _, f := range files {
		src, ok := sources[f]
		if !ok {
			return nil, 0, fmt.Errorf("schema: no source for %s", f)
		}
		order, err := fileNodes(f, src, byFile[f])
		if err != nil {
			return nil, 0, err
		}
		root := &node{start: 0, end: len(src)}
		if next, err = nest(f, root, order, next, pkg.Cover); err != nil {
			return nil, 0, err
		}
		r := &renderer{src: src, names: names}
		var out strings.Builder
		r.node(&out, root)
		for _, c := range r.appended {
			start := out.Len()
			out.WriteString(c.text)
			r.regions = append(r.regions, Region{Start: start, End: out.Len(), Mutants: c.muts})
		}
		pkg.Files[f] = &File{Source: []byte(out.String()), Regions: r.regions}
		for name, muts := range r.consts {
			pkg.Consts[name] = append(pkg.Consts[name], muts...)
		}
	}
	return pkg, next, nil
}

// fileNodes makes one node per site of a file (entries with the same site
// share it: one switch, several cases), in the order they nest: by start,
// a probe before what starts where it is, the outer before the inner.
func fileNodes(f string, src []byte, entries []Entry) ([]*node, error) {
	nodes := map[string]*node{}
	var order []*node
	for _, e := range entries {
		s := e.Site
		var key string
		n := &node{}
		switch {
		case s.Switched():
			key = fmt.Sprintf("%s/%d/%d/%s", s.Kind, s.Start, s.End, s.Form)
			*n = node{kind: s.Kind, start: s.Start, end: s.End, form: s.Form, typ: s.Type, name: s.Name, valueStart: s.ValueStart, valueEnd: s.ValueEnd, block: s.Block}
		case s != nil && s.Probe >= 0: //gathermut:equivalent(boundary) a probe stands before a statement, never at offset 0 (the package clause)
			key = fmt.Sprintf("probe/%d", s.Probe)
			*n = node{start: s.Probe, end: s.Probe}
		default:
			continue
		}
		if s.Switched() && (s.Start < 0 || s.End > len(src) || s.Start > s.End) {
			return nil, fmt.Errorf("schema: %s: site [%d, %d) outside the file", f, s.Start, s.End)
		}
		if old, ok := nodes[key]; ok {
			n = old
		} else {
			nodes[key] = n
			order = append(order, n)
		}
		n.muts = append(n.muts, e.N)
		n.cover = append(n.cover, !e.NoCover)
		if s.Switched() {
			n.texts = append(n.texts, s.Text)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.start != b.start {
			return a.start < b.start //gathermut:equivalent(boundary) reached only when the starts differ
		}
		if (a.start == a.end) != (b.start == b.end) {
			return a.start == a.end // a probe goes before what starts where it is
		}
		if a.end != b.end {
			return a.end > b.end //gathermut:equivalent(boundary) reached only when the ends differ
		}
		return rank(a.kind) < rank(b.kind) //gathermut:equivalent(boundary) sites of one kind and range are one node (the form of a range is fixed by its place in the AST), so equal ranks never meet here
	})
	return order, nil
}

// nest numbers the nodes' sites from next, records which sites count
// each mutant's coverage, and hangs each node under the innermost one
// around it (sites that overlap without nesting are an error); it
// returns the next free site number.
func nest(f string, root *node, order []*node, next int, cover map[int][]int) (int, error) {
	stack := []*node{root}
	for _, n := range order {
		n.site = next
		next++
		for i, m := range n.muts {
			if n.cover[i] {
				cover[m] = append(cover[m], n.site)
			}
		}
		for len(stack) > 1 && !within(stack[len(stack)-1], n) {
			// n starts at or after the popped site's start: it must also
			// start at or after its end
			if p := stack[len(stack)-1]; n.start < p.end {
				return 0, fmt.Errorf("schema: %s: sites [%d, %d) and [%d, %d) overlap", f, p.start, p.end, n.start, n.end)
			}
			stack = stack[:len(stack)-1]
		}
		top := stack[len(stack)-1]
		top.children = append(top.children, n)
		if n.start != n.end {
			stack = append(stack, n)
		}
	}
	return next, nil
}

func within(outer, n *node) bool {
	if n.start == n.end {
		return outer.start < n.start && n.start < outer.end
	}
	return outer.start <= n.start && n.end <= outer.end
}

type renderer struct {
	src      []byte
	names    Names
	regions  []Region
	appended []appended
	consts   map[string][]int
}

// appended is a constant's variable written after the file, with the
// mutants whose code it is.
type appended struct {
	text string
	muts []int
}

// original writes the node's range with its children rendered in place.
func (r *renderer) original(out *strings.Builder, n *node) {
	cur := n.start
	for _, c := range n.children {
		out.Write(r.src[cur:c.start])
		r.node(out, c)
		cur = c.end
	}
	out.Write(r.src[cur:n.end])
}

func (r *renderer) mark(start int, out *strings.Builder, muts []int) {
	r.regions = append(r.regions, Region{Start: start, End: out.Len(), Mutants: append([]int(nil), muts...)})
}

// node renders one node: a probe, the file (its children in place), or a
// switched site with its mutants' cases and the original as the default.
func (r *renderer) node(out *strings.Builder, n *node) {
	if n.kind == "" && n.start == n.end {
		start := out.Len()
		fmt.Fprintf(out, "%s[%d] = 1; ", r.names.Hits, n.site)
		r.mark(start, out, n.muts)
		return
	}
	if n.kind == "" { // the file
		r.original(out, n)
		return
	}
	w := &siteWriter{r: r, out: out, n: n}
	start := out.Len()
	switch n.kind {
	case mutant.ExprSite:
		w.expr()
	case mutant.StmtSite, mutant.BlockSite:
		w.stmt()
	case mutant.ConstSite:
		if w.konst() {
			// the spec left its block: only the mark stays here
			r.mark(start, out, n.muts)
			return
		}
	}
	r.mark(start, out, n.muts)
	r.regions = append(r.regions, w.mregions...)
}

// siteWriter writes one switched site.
type siteWriter struct {
	r        *renderer
	out      *strings.Builder
	n        *node
	mregions []Region // where each mutant's text is
}

// mtext writes mutant i's text and marks it.
func (w *siteWriter) mtext(i int) {
	s := w.out.Len()
	w.out.WriteString(w.n.texts[i])
	w.mregions = append(w.mregions, Region{Start: s, End: w.out.Len(), Mutants: []int{w.n.muts[i]}})
}

// expr: a func literal that returns the active mutant's value, else the
// original's.
func (w *siteWriter) expr() {
	out, n, a, h := w.out, w.n, w.r.names.Active, w.r.names.Hits
	fmt.Fprintf(out, "func() %s { %s[%d] = 1; switch %s {", n.typ, h, n.site, a)
	for i, m := range n.muts {
		fmt.Fprintf(out, " case %d: return ", m)
		w.mtext(i)
		out.WriteString(";")
	}
	out.WriteString(" }; return ")
	w.r.original(out, n)
	out.WriteString(" }()")
}

// stmt: an if chain over the active mutant, the original in the else.
func (w *siteWriter) stmt() {
	out, n, a, h := w.out, w.n, w.r.names.Active, w.r.names.Hits
	switch {
	case n.kind == mutant.BlockSite, n.form == mutant.InElse:
		out.WriteString("{ ")
	case n.form == mutant.InFunc:
		out.WriteString("func() { ")
	}
	for i, m := range n.muts {
		if i > 0 {
			out.WriteString(" else ")
		}
		fmt.Fprintf(out, "if %s == %d ", a, m)
		if n.kind == mutant.BlockSite {
			w.mtext(i)
		} else {
			out.WriteString("{ ")
			w.mtext(i)
			out.WriteString(" }")
		}
	}
	if n.kind == mutant.BlockSite {
		var o strings.Builder
		w.r.original(&o, n)
		body := o.String()
		if !strings.HasPrefix(body, "{") {
			body = "{" + body + "}"
		} else {
			body = body[1:]
		}
		fmt.Fprintf(out, " else { %s[%d] = 1; %s", h, n.site, body)
	} else {
		fmt.Fprintf(out, " else { %s[%d] = 1; ", h, n.site)
		w.r.original(out, n)
		out.WriteString(" }")
	}
	switch {
	case n.kind == mutant.BlockSite, n.form == mutant.InElse:
		out.WriteString(" }")
	case n.form == mutant.InFunc:
		out.WriteString(" }()")
	}
}

// konst: the constant becomes a variable whose initializer switches;
// true when the spec leaves its block (the variable follows the file).
func (w *siteWriter) konst() bool {
	r, n := w.r, w.n
	var v strings.Builder
	fmt.Fprintf(&v, "var %s %s = func() %s { %s[%d] = 1; switch %s {", n.name, n.typ, n.typ, r.names.Hits, n.site, r.names.Active)
	for i, m := range n.muts {
		fmt.Fprintf(&v, " case %d: return %s;", m, n.texts[i])
	}
	fmt.Fprintf(&v, " }; return %s }()", r.src[n.valueStart:n.valueEnd])
	if r.consts == nil {
		r.consts = map[string][]int{}
	}
	r.consts[n.name] = append(r.consts[n.name], n.muts...)
	if n.block {
		r.appended = append(r.appended, appended{text: "\n" + v.String() + "\n", muts: append([]int(nil), n.muts...)})
		return true
	}
	w.out.WriteString(v.String())
	return false
}

// Support renders the file a schema adds to a package: the switch, read
// once from GATHERMUT_MUTANT at start, and the hits, mapped from the file
// GATHERMUT_HITS names (one byte per site) so they survive a crash or a
// kill, or in memory.
func Support(pkgName string, names Names, sites int) []byte {
	p := names.Prefix
	return []byte(fmt.Sprintf(`// Code generated by gathermut for a mutant schema; it exists only in a build overlay.

package %[1]s

import (
	%[2]sos "os"
	%[2]sstrconv "strconv"
	%[2]ssyscall "syscall"
)

// %[3]s is the mutant this process runs, 0 for none.
var %[3]s = func() int {
	n, _ := %[2]sstrconv.Atoi(%[2]sos.Getenv("GATHERMUT_MUTANT"))
	return n
}()

// %[4]s has one byte per schema site, set when the site runs.
var %[4]s = func() []byte {
	const sites = %[5]d
	if path := %[2]sos.Getenv("GATHERMUT_HITS"); path != "" {
		if f, err := %[2]sos.OpenFile(path, %[2]sos.O_RDWR, 0); err == nil {
			defer f.Close()
			if b, err := %[2]ssyscall.Mmap(int(f.Fd()), 0, sites, %[2]ssyscall.PROT_READ|%[2]ssyscall.PROT_WRITE, %[2]ssyscall.MAP_SHARED); err == nil {
				return b
			}
		}
	}
	return make([]byte, sites)
}()
`, pkgName, p, names.Active, names.Hits, max(sites, 1)))
}

// Locate returns the mutants an error at offset of a rendered file belongs
// to: those of the innermost region holding it, or none.
func (f *File) Locate(offset int) []int {
	var best *Region
	for i := range f.Regions {
		r := &f.Regions[i]
		if r.Start <= offset && offset < r.End && (best == nil || r.End-r.Start <= best.End-best.Start) {
			best = r
		}
	}
	if best == nil {
		return nil
	}
	return best.Mutants
}
