package incremental

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// The references between declarations come from type-checking the whole
// module with its tests, the slow part of building a graph. They depend
// only on the module's code as the compiler sees it: the declarations
// (their tokens, hashed without comments and formatting), the files each
// package builds from and what the packages import. A graph keeps them
// under a digest of exactly that, so a build after a comment-only change,
// or none, reads them back.

// edgeFile is the stored references: pairs of declaration names.
type edgeFile struct {
	Key   string      `json:"key"`
	Edges [][2]string `json:"edges"`
}

// edgesKey digests what the references depend on.
func (g *Graph) edgesKey(pkgs []listed) string {
	h := sha256.New()
	fmt.Fprintf(h, "edges v1\x00%s\x00%s\x00", g.module, runtime.Version())
	for _, kv := range g.env {
		if k, _, _ := strings.Cut(kv, "="); k == "GOFLAGS" || k == "GOOS" || k == "GOARCH" || k == "CGO_ENABLED" {
			fmt.Fprintf(h, "%s\x00", kv)
		}
	}
	for _, p := range pkgs {
		fmt.Fprintf(h, "%s\x00%q\x00%q\x00%q\x00%q\x00%q\x00%q\x00%q\x00%q\x00", p.ImportPath, p.Name, p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles,
			p.Imports, p.TestImports, p.XTestImports)
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		data, _ := os.ReadFile(filepath.Join(g.root, name))
		fmt.Fprintf(h, "%s\x00%d\x00%s", name, len(data), data)
	}
	for _, n := range g.nodes {
		fmt.Fprintf(h, "%s\x00%s\x00%t\x00%x\n", n.key, n.file, n.testCode, n.hash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (g *Graph) edgesPath() string {
	return filepath.Join(g.edgeCache, g.edgeKey[:2], g.edgeKey+".json.gz")
}

// loadEdges reads the stored references of this code; false when there
// are none (or they do not read).
func (g *Graph) loadEdges(pkgs []listed) bool {
	if g.edgeCache == "" {
		return false
	}
	g.edgeKey = g.edgesKey(pkgs)
	f, err := os.Open(g.edgesPath())
	if err != nil {
		return false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	var e edgeFile
	if json.NewDecoder(zr).Decode(&e) != nil || e.Key != g.edgeKey {
		return false
	}
	edges := make([][]int32, len(g.nodes))
	for _, p := range e.Edges {
		from, ok1 := g.byKey[p[0]]
		to, ok2 := g.byKey[p[1]]
		if !ok1 || !ok2 {
			return false
		}
		edges[from] = append(edges[from], int32(to))
	}
	g.edges = edges
	g.edgesRead = true
	return true
}

// saveEdges stores the references; a failure costs only the next build's
// time.
func (g *Graph) saveEdges() {
	if g.edgeCache == "" || g.edgeKey == "" {
		return
	}
	e := edgeFile{Key: g.edgeKey}
	for from, tos := range g.edges {
		for _, to := range tos {
			e.Edges = append(e.Edges, [2]string{g.nodes[from].key, g.nodes[to].key})
		}
	}
	writeGzipJSON(g.edgesPath(), e) // a failure costs only the next build's time
}
