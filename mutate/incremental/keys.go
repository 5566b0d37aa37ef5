package incremental

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
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
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
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
// execute it (a superset of those that cover it).
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

func (g *Graph) forward(n int) []int32 {
	if c, ok := g.fwd[n]; ok {
		return c
	}
	c := reach([]int{n}, g.edges)
	g.fwd[n] = c
	return c
}

func (g *Graph) backward(n int) []int32 {
	if c, ok := g.bwd[n]; ok {
		return c
	}
	c := reach([]int{n}, g.redges)
	g.bwd[n] = c
	return c
}

// locate returns the declaration a Go mutant's edit lies in, or -1.
func (g *Graph) locate(m mutant.Mutant) int {
	if m.Edit == nil || m.Kind == mutant.Kernel {
		return -1
	}
	return g.nodeAt(m.File, m.Edit.Start)
}

// Identity names a mutant independently of where its declaration sits in
// the file (a line added above it changes its id, not its identity): its
// file, declaration, the edit relative to the declaration, the operator
// and, for a catalog mutant, the entry.
func (g *Graph) Identity(m mutant.Mutant) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", m.Kind, m.File, m.Operator)
	if n := g.locate(m); n >= 0 {
		d := g.nodes[n]
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%q\x00", d.key, m.Edit.Start-d.start, m.Edit.End-d.start, m.Edit.Text)
	} else {
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

// Key is what a verdict on m depends on, hashed: m itself, every
// declaration its declaration can reach (the code the mutant's effect
// runs through), every declaration on a path from a test to it (the code
// that decides whether and how a test reaches it: callers, the tables
// that hold it), which tests can execute it (a new or removed test
// changes the key), their own code (test files and test-only packages:
// the checks) and, through the salt and the global hash, the tool, Go,
// go.mod, go.sum and the testdata. false when m's declaration is not
// found (a file outside the module's packages).
func (g *Graph) Key(m mutant.Mutant, extra ...string) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "all\x00%x\x00%s\x00%s\x00", g.global, g.Identity(m), strings.Join(extra, "\x00"))
	if m.Kind == mutant.Kernel {
		// the kernel sources are in extra; the Go side is the killers'
		// whole closure (the binding they load the kernel through)
		for _, k := range sortedSet(mutant.TestIDStrings(m.Expected)) {
			fmt.Fprintf(h, "%s\x00", k)
			for _, n := range g.testClosure(k) {
				g.write(h, n)
			}
		}
		return hex.EncodeToString(h.Sum(nil)), true
	}
	d := g.locate(m)
	if d < 0 {
		return "", false
	}
	dh := g.declKey(d)
	h.Write(dh[:])
	for _, t := range sortedSet(mutant.TestIDStrings(m.Expected)) {
		fmt.Fprintf(h, "expected %s\x00%x\n", t, g.testCodeHash(t))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// declKey hashes what every mutant of declaration d depends on besides
// itself (computed once per declaration).
func (g *Graph) declKey(d int) [32]byte {
	if k, ok := g.declKeys[d]; ok {
		return k
	}
	h := sha256.New()
	for _, n := range union(g.forward(d), g.backward(d)) {
		g.write(h, n)
	}
	for _, t := range g.candidates(d) {
		fmt.Fprintf(h, "test %s\x00%x\n", t, g.testCodeHash(t))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	g.declKeys[d] = out
	// the closures are not needed again for this declaration
	delete(g.fwd, d)
	delete(g.bwd, d)
	return out
}

// KilledKey is what a kill by the tests killedBy depends on: as Key, but
// of the tests only the killers (and a catalog mutant's expected
// killers), and of the paths to the mutant only those from them. A test
// added elsewhere cannot undo a kill, so it does not change this key.
// false when a killer is not a test of the module (a crash blamed on a
// test binary) or m's declaration is not found.
func (g *Graph) KilledKey(m mutant.Mutant, killedBy []string, extra ...string) (string, bool) {
	if m.Kind == mutant.Kernel || len(killedBy) == 0 {
		return "", false
	}
	d := g.locate(m)
	if d < 0 {
		return "", false
	}
	tests := sortedSet(append(append([]string(nil), killedBy...), mutant.TestIDStrings(m.Expected)...))
	var reachable []int32
	for _, t := range tests {
		if _, ok := g.tests[t]; !ok {
			return "", false
		}
		reachable = union(reachable, g.testClosure(t))
	}
	h := sha256.New()
	fmt.Fprintf(h, "killed\x00%x\x00%s\x00%s\x00", g.global, g.Identity(m), strings.Join(extra, "\x00"))
	for _, n := range union(g.forward(d), intersect(g.backward(d), reachable)) {
		g.write(h, n)
	}
	for _, t := range tests {
		fmt.Fprintf(h, "test %s\x00%x\n", t, g.testCodeHash(t))
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

// union merges two sorted node lists.
func union(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// intersect keeps the nodes of sorted a that are in sorted b.
func intersect(a, b []int32) []int32 {
	var out []int32
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case b[j] < a[i]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}
