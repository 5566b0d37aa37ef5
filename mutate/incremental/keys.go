package incremental

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gathermut/mutate/mutant"
)

// reach returns the nodes reachable from roots over adj, roots included,
// sorted.
func reach(roots []int, adj [][]int32) []int32 {
	seen := map[int32]bool{}
	var queue []int32
	for _, r := range roots {
		if r >= 0 && !seen[int32(r)] {
			seen[int32(r)] = true
			queue = append(queue, int32(r))
		}
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, m := range adj[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	out := make([]int32, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] }) //gathermut:equivalent(boundary) the nodes are distinct (a set's keys)
	return out
}

// testClosure is everything a test's binary can run for it: the test, the
// package's TestMain, and what runs at init in every module package the
// binary holds, with all they refer to.
func (g *Graph) testClosure(id string) []int32 {
	if c, ok := g.fwdTest[id]; ok {
		return c
	}
	t, ok := g.tests[id]
	if !ok {
		return nil
	}
	pkg := g.testPkg[id]
	roots := append([]int{t}, g.testMain[pkg]...)
	for _, q := range g.binary[pkg] {
		roots = append(roots, g.inits[q]...)
	}
	c := reach(roots, g.edges)
	g.fwdTest[id] = c
	return c
}

// testCodeHash hashes a test's own code: the declarations of test files
// and test-only packages its closure holds.
func (g *Graph) testCodeHash(id string) [32]byte {
	if h, ok := g.testHash[id]; ok {
		return h
	}
	c := g.testClosure(id)
	h := sha256.New()
	if c == nil {
		fmt.Fprintf(h, "absent\x00%s", id)
	}
	for _, n := range c {
		if g.nodes[n].testCode {
			g.write(h, n)
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	g.testHash[id] = out
	return out
}

func (g *Graph) write(h hash.Hash, n int32) {
	fmt.Fprintf(h, "%s\x00%x\n", g.nodes[n].key, g.nodes[n].hash)
}

// candidates are the tests whose closure holds node n: the tests that can
// execute it (a superset of those that cover it), sorted.
func (g *Graph) candidates(n int) []string {
	if g.cands == nil {
		g.cands = map[int32][]string{}
		var ids []string
		for id := range g.tests {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			for _, m := range g.testClosure(id) {
				g.cands[m] = append(g.cands[m], id)
			}
		}
	}
	return g.cands[int32(n)]
}

// locate returns the declaration a Go mutant's edit lies in, or -1.
func (g *Graph) locate(m mutant.Mutant) int {
	if m.Edit == nil || m.Kind == mutant.Kernel || isText(m.File) {
		return -1
	}
	return g.nodeAt(m.File, m.Edit.Start)
}

// NodeKey names a declaration: "pkg.Name", "pkg.(T).M", "pkg.init#2".
func (g *Graph) NodeKey(n int32) string { return g.nodes[n].key }

// Identity names a mutant independently of where its code sits in the
// file and of the comments and formatting around it (a line added above
// changes its id, not its identity): its kind, file and operator; for a Go
// mutant its declaration and the tokens of that declaration with the
// edit made (the same mutated code, however formatted); for an assembly
// or kernel mutant the normalized line it starts on and the edit's text;
// for a catalog mutant the entry.
func (g *Graph) Identity(m mutant.Mutant) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", m.Kind, m.File, m.Operator)
	switch n := g.locate(m); {
	case n >= 0 && m.Edit.End <= g.nodes[n].end:
		// the declaration as the mutant makes it, by its tokens: the
		// same program whatever the comments and formatting around
		d := g.nodes[n]
		src := g.src[d.file]
		mutated := append(append(append([]byte(nil), src[d.start:m.Edit.Start]...), m.Edit.Text...), src[m.Edit.End:d.end]...)
		fmt.Fprintf(h, "%s\x00", d.key)
		writeTokens(h, goTokens(mutated))
	case m.Edit != nil && g.text(m.File) != nil:
		fmt.Fprintf(h, "%s\x00%q\x00", g.text(m.File).identity(m.Edit.Start, m.Edit.End), m.Edit.Text)
	default:
		fmt.Fprintf(h, "%s\x00", m.ID)
		if m.Edit != nil {
			fmt.Fprintf(h, "%d\x00%d\x00%q\x00", m.Edit.Start, m.Edit.End, m.Edit.Text)
		}
	}
	if m.Catalog != nil {
		data, _ := json.Marshal(m.Catalog)
		h.Write(data)
	}
	fmt.Fprintf(h, "\x00%s", strings.Join(mutant.TestIDStrings(m.Expected), ","))
	return hex.EncodeToString(h.Sum(nil))
}

// textFile is an assembly or C/C++ file read for identities and hashes.
type textFile struct {
	src  []byte
	sum  [32]byte
	norm []string // each line normalized ("" for a blank or comment line)
	nth  []int    // how many earlier lines normalize the same
	off  []int    // each line's start
}

// text reads a module file that is not Go, once; nil when it does not
// read.
func (g *Graph) text(rel string) *textFile {
	if t, ok := g.texts[rel]; ok {
		return t
	}
	src, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(rel)))
	if err != nil {
		g.texts[rel] = nil
		return nil
	}
	t := &textFile{src: src, sum: sumText(src)}
	seen := map[string]int{}
	// comments keep their newlines when stripped: the lines stay lines
	off := 0
	for _, line := range strings.Split(stripComments(string(src)), "\n") {
		norm := strings.Join(strings.Fields(line), " ")
		t.norm = append(t.norm, norm)
		t.nth = append(t.nth, seen[norm])
		t.off = append(t.off, off)
		seen[norm]++
		if nl := bytes.IndexByte(src[off:], '\n'); nl >= 0 {
			off += nl + 1
		} else {
			off = len(src)
		}
	}
	g.texts[rel] = t
	return t
}

// identity names [start, end) by its normalized line (see textIdentity).
func (t *textFile) identity(start, end int) string {
	if start < 0 || end > len(t.src) || start > end || len(t.off) == 0 {
		return fmt.Sprintf("raw %d %d", start, end)
	}
	i := sort.SearchInts(t.off, start+1) - 1
	prefix := strings.Join(strings.Fields(stripComments(string(t.src[t.off[i]:start]))), " ")
	return fmt.Sprintf("%q\x00%d\x00%q\x00%q", t.norm[i], t.nth[i], prefix, t.src[start:end])
}

var asmRoutine = regexp.MustCompile(`(?m)^\s*TEXT\s+[^·(]*·([A-Za-z_][A-Za-z0-9_]*)`)

// asmDecls are the Go declarations an assembly mutant's routine stands
// for: the bodyless function of the routine's name in the mutant's
// package, else every bodyless function of the package.
func (g *Graph) asmDecls(m mutant.Mutant) []int {
	t := g.text(m.File)
	var routine string
	if t != nil && m.Edit != nil && m.Edit.Start <= len(t.src) {
		if all := asmRoutine.FindAllSubmatch(t.src[:m.Edit.Start], -1); len(all) > 0 {
			routine = string(all[len(all)-1][1])
		}
	}
	var named, bodyless []int
	for i, n := range g.nodes {
		if n.pkg != m.Package || n.testCode || !n.bodyless {
			continue
		}
		bodyless = append(bodyless, i)
		if routine != "" && strings.HasSuffix(n.key, "."+routine) {
			named = append(named, i)
		}
	}
	if len(named) > 0 {
		return named
	}
	return bodyless
}

// Evidence is what a run saw of a judged mutant besides the code: which
// declarations ran. Without it (nil, or no Executed) a verdict's key is
// static: all the production code its tests can reach, as the graph says.
type Evidence struct {
	// Probed are the declarations whose running the run's schema counted
	// (Probes): for them "ran" is known.
	Probed map[int32]bool
	// Ran are the tests the mutant's own test processes ran, and Executed
	// the declarations those processes entered with the mutant active;
	// Executed is nil when they counted nothing (not a schema binary with
	// probes).
	Ran      []string
	Executed []int32
	// Tests are the declarations each test entered in its baseline, for
	// the tests whose baseline the run took with probes (shared).
	Tests map[string][]int32
	// KernelPackage is the package whose tests judge kernel mutants;
	// KernelFiles the kernel's sources, module-relative.
	KernelPackage string
	KernelFiles   []string
}

// deps is a verdict's dependencies as the cache stores them: names whose
// values the current graph gives (see Cache.value), and the node sets the
// names refer to.
type deps struct {
	names map[string]bool
	sets  map[string][]string // set id -> node keys, sorted
}

func (d *deps) add(name string) { d.names[name] = true }

// set interns a node set and returns its id.
func (d *deps) set(g *Graph, nodes []int32) string {
	keys := make([]string, 0, len(nodes))
	for _, n := range nodes {
		keys = append(keys, g.nodes[n].key)
	}
	sort.Strings(keys)
	keys = sortedSet(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\n")))
	id := hex.EncodeToString(sum[:8])
	d.sets[id] = keys
	return id
}

// depsOf lists what a verdict on m depends on (see the package doc):
//
//   - the mutated code: its declaration (n:), or the assembly file (f:)
//     and the Go declaration of its routine, or the kernel's sources;
//     for a mutant the compiler rejected, the whole package (p:);
//   - the tests: those that ran with the mutant active and its expected
//     killers; unless it was killed, also every test that can reach its
//     code (c:, and that set itself) — a new one could kill it. Each
//     test's own code (t:);
//   - the production code those tests ran: for the tests that ran with
//     the mutant active, what their processes entered (x:); for the
//     others, what they entered in the baseline (b:); where the run did
//     not count it, all the code they can reach (s:, the static part: a
//     declaration without a probe — a variable, a type, an assembly
//     routine — is always in it).
func (g *Graph) depsOf(m mutant.Mutant, r mutant.Result, ev *Evidence) (*deps, bool) {
	if ev == nil {
		ev = &Evidence{}
	}
	d := &deps{names: map[string]bool{}, sets: map[string][]string{}}
	decls, ok := g.mutatedCode(d, m, ev)
	if !ok {
		return nil, false
	}
	if r.Status == mutant.Unviable {
		if m.Kind != mutant.Kernel {
			d.add("p:" + m.Package)
		}
		return d, true
	}
	killed := r.Status == mutant.Killed
	observed := ev.Executed != nil
	ranUnder := g.ranUnder(r, ev)
	tests := map[string]bool{}
	for t := range ranUnder {
		tests[t] = true
	}
	for _, t := range mutant.TestIDStrings(m.Expected) {
		tests[t] = true
	}
	if !killed {
		if m.Kind == mutant.Kernel {
			d.add("k:" + ev.KernelPackage)
			for _, t := range g.testsOf(ev.KernelPackage) {
				tests[t] = true
			}
		}
		for _, n := range decls {
			d.add("c:" + g.nodes[n].key)
			for _, t := range g.candidates(n) {
				tests[t] = true
			}
		}
	}
	probed := "-"
	if len(ev.Probed) > 0 {
		var ns []int32
		for n := range ev.Probed {
			ns = append(ns, n)
		}
		probed = d.set(g, ns)
	}
	if observed {
		d.add("x:" + d.set(g, ev.Executed))
	}
	for t := range tests {
		d.add("t:" + t)
		if _, ok := g.tests[t]; !ok {
			continue
		}
		switch {
		case observed && ranUnder[t]:
			d.add("s:" + probed + ":" + t)
		case !killed && ev.Tests[t] != nil:
			d.add("b:" + d.set(g, ev.Tests[t]))
			d.add("s:" + probed + ":" + t)
		default:
			d.add("s:-:" + t)
		}
	}
	return d, true
}

// mutatedCode adds the mutated code to d: the declaration of a Go
// mutant, an assembly mutant's file and the declarations of its routine,
// a kernel mutant's sources; it returns the declarations, false when the
// mutant's code is not in the graph.
func (g *Graph) mutatedCode(d *deps, m mutant.Mutant, ev *Evidence) ([]int, bool) {
	switch {
	case m.Kind == mutant.Kernel:
		if len(ev.KernelFiles) == 0 {
			return nil, false
		}
		for _, f := range ev.KernelFiles {
			d.add("f:" + f)
		}
		return nil, true
	case isText(m.File):
		if g.text(m.File) == nil {
			return nil, false
		}
		d.add("f:" + m.File)
		decls := g.asmDecls(m)
		for _, n := range decls {
			d.add("n:" + g.nodes[n].key)
		}
		return decls, true
	default:
		n := g.locate(m)
		if n < 0 {
			return nil, false
		}
		d.add("n:" + g.nodes[n].key)
		return []int{n}, true
	}
}

// ranUnder are the tests that ran with the mutant active: those its
// processes ran when the run counted them (ev.Executed), else the module
// tests its result names (covering and killing).
func (g *Graph) ranUnder(r mutant.Result, ev *Evidence) map[string]bool {
	out := map[string]bool{}
	if ev.Executed != nil {
		for _, t := range ev.Ran {
			out[t] = true
		}
		return out
	}
	for _, t := range append(append([]string(nil), r.CoveredBy...), r.KilledBy...) {
		if _, ok := g.tests[t]; ok {
			out[t] = true
		}
	}
	return out
}

// testsOf lists the tests of a package, sorted.
func (g *Graph) testsOf(pkg string) []string {
	var out []string
	for id, p := range g.testPkg {
		if p == pkg {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// values computes what dependency names stand for in the current graph;
// it memoizes, so a run's many verdicts share the work.
type values struct {
	g    *Graph
	sets map[string][]string
	memo map[string][]byte
}

func (g *Graph) values(sets map[string][]string) *values {
	return &values{g: g, sets: sets, memo: map[string][]byte{}}
}

// value is a dependency's current value, or false when what it names is
// gone (a declaration removed or renamed, a set not stored).
func (v *values) value(name string) ([]byte, bool) {
	if b, ok := v.memo[name]; ok {
		return b, b != nil
	}
	b := v.compute(name)
	v.memo[name] = b
	return b, b != nil
}

func (v *values) compute(name string) []byte {
	g := v.g
	kind, arg, _ := strings.Cut(name, ":")
	h := sha256.New()
	switch kind {
	case "n":
		n, ok := g.byKey[arg]
		if !ok {
			return nil
		}
		return g.nodes[n].hash[:]
	case "t":
		s := g.testCodeHash(arg)
		return s[:]
	case "c":
		n, ok := g.byKey[arg]
		if !ok {
			return nil
		}
		fmt.Fprintf(h, "%q", g.candidates(n))
	case "k":
		fmt.Fprintf(h, "%q", g.testsOf(arg))
	case "f":
		t := g.text(arg)
		if t == nil {
			return nil
		}
		return t.sum[:]
	case "p":
		for i := range g.nodes {
			if g.nodes[i].pkg == arg && !g.nodes[i].testCode {
				g.write(h, int32(i))
			}
		}
	case "x", "b":
		keys, ok := v.sets[arg]
		if !ok {
			return nil
		}
		for _, k := range keys {
			n, ok := g.byKey[k]
			if !ok {
				return nil
			}
			g.write(h, int32(n))
		}
	case "s":
		set, test, _ := strings.Cut(arg, ":")
		skip := map[string]bool{}
		if set != "-" {
			keys, ok := v.sets[set]
			if !ok {
				return nil
			}
			for _, k := range keys {
				skip[k] = true
			}
		}
		for _, n := range g.testClosure(test) {
			if nd := g.nodes[n]; !nd.testCode && !skip[nd.key] {
				g.write(h, n)
			}
		}
	default:
		return nil
	}
	return h.Sum(nil)
}

// digest hashes a verdict's identity, the global hash and the values of
// its dependencies; false when one of them is gone.
func (v *values) digest(identity string, names []string, extra []string) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "%x\x00%s\x00%s\x00", v.g.global, identity, strings.Join(extra, "\x00"))
	for _, name := range names {
		b, ok := v.value(name)
		if !ok {
			return "", false
		}
		fmt.Fprintf(h, "%s\x00%x\n", name, b)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

func sortedSet(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
