package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
	"gathermut/mutate/testbin"
)

// schemaRun is the schema side of a run: every selected mutant's number
// and coverage site, the instrumented packages, and one test binary per
// observing package built from them.
type schemaRun struct {
	dir      string
	number   map[string]int    // mutant id -> its number (GATHERMUT_MUTANT)
	site     map[string]int    // mutant id -> the hits site that counts its coverage
	sites    int               // hits file size
	switched map[string]bool   // mutant id -> runs in the schema binary
	dropped  map[string]string // mutant id -> why the schema build dropped it
	bins     map[string]string // observing package -> schema test binary
	builds   map[string]string // observing package -> the command that built its binary
	commands []string
	rounds   int
	seconds  float64 // wall time of the builds
}

// schemaMutant reports whether m can take part in a schema: a Go mutant
// that compiles and is not ignored.
func schemaMutant(m mutant.Mutant) bool {
	return m.Kind == mutant.Go && m.Invalid == "" && m.Unviable == "" && m.Equivalent == "" && m.Edit != nil
}

// buildSchema renders the schemata of the mutated packages and builds the
// observers' test binaries from them. A build that fails drops the
// mutants the compiler's errors point into (a const that became a
// variable where a constant is needed, a type the switch wrote wrong, a
// go vet finding) and builds again; dropped mutants run on their own
// builds, as without schemata.
func (l *lab) buildSchema(ctx context.Context, ms []mutant.Mutant, observers []string) (*schemaRun, error) {
	start := time.Now()
	sr := &schemaRun{
		dir: filepath.Join(l.tmp, "schema"), number: map[string]int{}, site: map[string]int{},
		switched: map[string]bool{}, dropped: map[string]string{}, bins: map[string]string{}, builds: map[string]string{},
	}
	if err := os.MkdirAll(sr.dir, 0o755); err != nil {
		return nil, err
	}
	byPkg := map[string][]mutant.Mutant{}
	for _, m := range ms {
		if !schemaMutant(m) {
			continue
		}
		sr.number[m.ID] = len(sr.number) + 1
		byPkg[m.Package] = append(byPkg[m.Package], m)
	}
	for round := 1; ; round++ {
		sr.rounds = round
		overlay, pkgs, err := l.renderSchema(sr, byPkg)
		if err != nil {
			return nil, err
		}
		failures := l.buildObservers(ctx, sr, overlay, observers)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(failures) == 0 {
			break
		}
		dropped := 0
		for _, out := range failures {
			dropped += sr.dropFor(out, pkgs, l.root)
		}
		if dropped == 0 {
			// nothing points at a mutant: no schema for this run
			var first string
			for _, out := range failures {
				first = firstLine(compileError(out))
				break
			}
			for id := range sr.switched {
				sr.dropped[id] = "the schema build failed: " + first
			}
			for k := range byPkg {
				byPkg[k] = nil
			}
			if round > 1 && len(sr.switched) == 0 {
				return nil, fmt.Errorf("lab: the test binaries do not build without any mutant either: %s", first)
			}
		}
		if round >= 8 {
			return nil, fmt.Errorf("lab: the schema build still fails after %d rounds", round)
		}
	}
	sr.seconds = time.Since(start).Seconds()
	return sr, nil
}

// renderSchema writes the schema of every package with mutants and the
// overlay that puts it in place.
func (l *lab) renderSchema(sr *schemaRun, byPkg map[string][]mutant.Mutant) (string, map[string]*schemaPkg, error) {
	paths := make([]string, 0, len(byPkg))
	for p := range byPkg {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	replace := map[string]string{}
	pkgs := map[string]*schemaPkg{}
	clear(sr.switched)
	clear(sr.site)
	next := 0
	for i, path := range paths {
		dir := l.prog.Dir(path)
		var entries []schema.Entry
		sources := map[string][]byte{}
		for _, m := range byPkg[path] {
			if m.Schema == nil {
				continue
			}
			site := *m.Schema
			if _, gone := sr.dropped[m.ID]; gone && site.Switched() {
				site = mutant.Site{Probe: -1}
			}
			if !site.Switched() && site.Probe < 0 {
				continue
			}
			if _, ok := sources[m.File]; !ok {
				data, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(m.File)))
				if err != nil {
					return "", nil, err
				}
				sources[m.File] = data
			}
			entries = append(entries, schema.Entry{N: sr.number[m.ID], File: m.File, Site: &site})
			if site.Switched() {
				sr.switched[m.ID] = true
			}
		}
		if len(entries) == 0 {
			continue
		}
		names, err := schemaNames(dir)
		if err != nil {
			return "", nil, err
		}
		sp, nextSite, err := schema.Render(names, sources, entries, next)
		if err != nil {
			return "", nil, err
		}
		next = nextSite
		pkg := &schemaPkg{schema: sp, names: names, files: map[string]string{}}
		pkgs[path] = pkg
		for rel, f := range sp.Files {
			out := filepath.Join(sr.dir, fmt.Sprintf("p%d", i), filepath.Base(rel))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return "", nil, err
			}
			if err := os.WriteFile(out, f.Source, 0o644); err != nil {
				return "", nil, err
			}
			orig := filepath.Join(l.root, filepath.FromSlash(rel))
			replace[orig] = out
			pkg.files[out] = rel
			pkg.files[orig] = rel
		}
		for _, m := range byPkg[path] {
			if s, ok := sp.Site[sr.number[m.ID]]; ok {
				sr.site[m.ID] = s
			}
		}
		pkg.supportDir = dir
	}
	sr.sites = next
	for i, path := range paths {
		pkg := pkgs[path]
		if pkg == nil {
			continue
		}
		name := filepath.Join(pkg.supportDir, "zz_gathermut_schema.go")
		for j := 0; fileExists(name); j++ {
			name = filepath.Join(pkg.supportDir, fmt.Sprintf("zz_gathermut_schema%d.go", j))
		}
		out := filepath.Join(sr.dir, fmt.Sprintf("p%d", i), "zz_gathermut_schema.go")
		if err := os.WriteFile(out, schema.Support(l.prog.Name(path), pkg.names, max(sr.sites, 1)), 0o644); err != nil {
			return "", nil, err
		}
		replace[name] = out
	}
	overlay := filepath.Join(sr.dir, "overlay.json")
	return overlay, pkgs, testbin.WriteOverlay(overlay, replace)
}

// schemaPkg is one rendered package and how to find its files in errors.
type schemaPkg struct {
	schema     *schema.Package
	names      schema.Names
	files      map[string]string // rendered or original absolute path -> module-relative file
	supportDir string
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// schemaNames picks identifiers for the switch that no file of the package
// uses.
func schemaNames(dir string) (schema.Names, error) {
	var all []byte
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return schema.Names{}, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return schema.Names{}, err
		}
		all = append(all, data...)
	}
	names := schema.DefaultNames
	for i := 0; bytes.Contains(all, []byte(names.Prefix)); i++ {
		names = schema.Names{Active: fmt.Sprintf("gathermut%dActive", i), Hits: fmt.Sprintf("gathermut%dHits", i), Prefix: fmt.Sprintf("gathermut%d", i)}
	}
	return names, nil
}

// buildObservers builds every observer's schema test binary; it returns
// the output of each build that failed.
func (l *lab) buildObservers(ctx context.Context, sr *schemaRun, overlay string, observers []string) map[string]string {
	var mu sync.Mutex
	failures := map[string]string{}
	p := pool.New().WithMaxGoroutines(max(l.cfg.Jobs, 1))
	for i, obs := range observers {
		bin := filepath.Join(sr.dir, fmt.Sprintf("o%d.test", i))
		p.Go(func() {
			cmdline, out, err := testbin.Go(ctx, l.root, "test", "-c", "-o", bin, "-overlay", overlay, obs)
			mu.Lock()
			defer mu.Unlock()
			sr.commands = append(sr.commands, cmdline)
			if err != nil {
				failures[obs] = out
				return
			}
			sr.bins[obs] = bin
			sr.builds[obs] = cmdline
		})
	}
	p.Wait()
	return failures
}

var errorPos = regexp.MustCompile(`(\S+\.go):(\d+):(\d+)`)

// dropFor drops the mutants a failed build's errors point into; it
// returns how many it dropped.
func (sr *schemaRun) dropFor(out string, pkgs map[string]*schemaPkg, root string) int {
	dropped := 0
	drop := func(muts []int, why string) {
		for _, n := range muts {
			for id, num := range sr.number {
				if num == n && sr.switched[id] {
					if _, done := sr.dropped[id]; !done {
						sr.dropped[id] = "the schema build rejected it: " + why
						dropped++
					}
				}
			}
		}
	}
	for _, line := range strings.Split(out, "\n") {
		m := errorPos.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		path := line[m[2]:m[3]]
		ln, _ := strconv.Atoi(line[m[4]:m[5]])
		col, _ := strconv.Atoi(line[m[6]:m[7]])
		msg := strings.TrimSpace(line[m[1]:])
		msg = strings.TrimPrefix(msg, ":")
		msg = strings.TrimSpace(msg)
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		found := false
		for _, pkg := range pkgs {
			rel, ok := pkg.files[path]
			if !ok {
				continue
			}
			f := pkg.schema.Files[rel]
			if muts := f.Locate(lineColOffset(f.Source, ln, col)); len(muts) > 0 {
				drop(muts, rel+": "+msg)
				found = true
			}
		}
		if found {
			continue
		}
		// an error outside every site: a constant made a variable where a
		// constant is needed (an array length in a test, another package)
		for _, pkg := range pkgs {
			for name, muts := range pkg.schema.Consts {
				if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(msg) {
					drop(muts, fmt.Sprintf("%s:%d: %s", filepath.Base(path), ln, msg))
				}
			}
		}
	}
	return dropped
}

// lineColOffset turns a 1-based line and column into a byte offset.
func lineColOffset(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line && off < len(src); l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return min(off+col-1, len(src))
}
