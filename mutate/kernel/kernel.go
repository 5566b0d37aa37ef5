package kernel

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

	"gathermut/mutate/catalog"
	"gathermut/mutate/cxx"
	"gathermut/mutate/load"
	"gathermut/mutate/mutant"
	"gathermut/mutate/operator"
	"gathermut/mutate/testbin"
)

// Backend is where kernel mutants are judged.
type Backend string

const (
	// GPU: the library built by the recipe's Build (nvcc or hipcc), the
	// tests on the GPU it finds.
	GPU Backend = "gpu"
	// Emulation: the library built by the recipe's Emulation (c++ against
	// the runtime's host emulation), the tests on the CPU.
	Emulation Backend = "emulation"
)

// Env is the build environment a backend's compiler sees (the cxx Env
// name Mutant.Compiled lists): the emulation's, or the GPU compiler's
// device pass.
func (b Backend) Env(tool string) string {
	if b == Emulation {
		return cxx.Emulation.Name
	}
	if strings.Contains(filepath.Base(tool), "hipcc") {
		return cxx.HIPCC.Name
	}
	return cxx.NVCC.Name
}

// Sources is one run's view of the kernel: the recipe, the sources read
// once, and their parse in every build environment.
type Sources struct {
	Root   string
	Recipe *catalog.Kernel
	Files  map[string][]byte
	Units  map[string][]*cxx.Source
	// Cache keeps schema libraries across runs (libcache.go); off with
	// --no-cache.
	Cache bool
}

// Read reads and parses the recipe's sources.
func Read(root string, k *catalog.Kernel) (*Sources, error) {
	files, err := operator.KernelSources(root, k)
	if err != nil {
		return nil, err
	}
	s := &Sources{Root: root, Recipe: k, Files: files}
	if k.Entry != "" {
		if s.Units, err = operator.KernelUnits(files, k.Entry); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Numbered is a kernel mutant with its number in the run (the value of
// GATHERMUT_MUTANT that selects it in a schema).
type Numbered struct {
	Num    int
	Mutant *mutant.Mutant
}

// Library is a built kernel library.
type Library struct {
	Path    string
	Backend Backend
	Command string // the build's command line (module-relative)
	// Switched holds the numbers of the mutants the library switches (a
	// schema); SiteOf their coverage sites, and Sites how many there are.
	Switched map[int]bool
	SiteOf   map[int]int
	Sites    int
	// Rounds is how many builds it took (a build whose compiler points
	// into a mutant's code drops the mutant and builds again).
	Rounds int
	// Cached: the library was read from the cache (libcache.go), not
	// built now. Inputs, for a library built or read through the cache,
	// is the hash of what it is built from (its cache key): another
	// cache keyed by the library uses it; empty without the cache.
	Cached bool
	Inputs string
}

// Build builds the library for backend from the sources with the files in
// replace put in place (module-relative path -> contents), under dir
// (dir/src is the copy, dir/out the library). It returns the compiler's
// output with the error.
func (s *Sources) Build(ctx context.Context, backend Backend, dir string, replace map[string][]byte) (*Library, string, error) {
	src := filepath.Join(dir, "src")
	lib := filepath.Join(dir, "out", "libkernel.so")
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		return nil, "", err
	}
	for rel, data := range s.Files {
		if r, ok := replace[rel]; ok {
			data = r
		}
		dst := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, "", err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return nil, "", err
		}
	}
	for rel := range replace {
		if _, ok := s.Files[rel]; !ok {
			return nil, "", fmt.Errorf("kernel file %s is not among the recipe's sources %v", rel, s.Recipe.Sources)
		}
	}
	tmpl := s.Recipe.Build
	if backend == Emulation {
		tmpl = s.Recipe.Emulation
	}
	if len(tmpl) == 0 {
		return nil, "", fmt.Errorf("kernel: no %s build command in the recipe", backend)
	}
	var argv []string
	for _, a := range tmpl {
		argv = append(argv, strings.NewReplacer("{src}", src, "{out}", lib).Replace(a))
	}
	cmd := testbin.Command(ctx, s.Root, load.Env(), argv...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return &Library{Path: lib, Backend: backend, Command: testbin.CommandLine(s.Root, argv), Rounds: 1}, buf.String(), err
}

// BuildMutant builds the library with one mutant made.
func (s *Sources) BuildMutant(ctx context.Context, backend Backend, dir string, m *mutant.Mutant) (*Library, string, error) {
	src, ok := s.Files[m.File]
	if !ok {
		return nil, "", fmt.Errorf("kernel file %s is not among the recipe's sources %v", m.File, s.Recipe.Sources)
	}
	data, err := m.Apply(src)
	if err != nil {
		return nil, "", err
	}
	return s.Build(ctx, backend, dir, map[string][]byte{m.File: data})
}

// SiteFor returns where a kernel mutant is switched in the schema of
// backend's build environment env: the smallest expression or statement
// around its edit (package cxx), or why it cannot be.
func (s *Sources) SiteFor(env string, m *mutant.Mutant) (cxx.Site, string) {
	if s.Units == nil {
		return cxx.Site{}, "the kernel recipe names no Entry file, so the kernel is not parsed"
	}
	if m.Edit == nil {
		return cxx.Site{}, "no edit"
	}
	site, ok := cxx.SiteAt(s.Units[env], m.File, m.Edit.Start, m.Edit.End, m.Edit.Text)
	if !ok {
		return cxx.Site{}, "not inside an expression or statement of a parsed function body that can stand a switch"
	}
	return site, ""
}

// BuildSchema renders the schema of muts for backend's environment env and
// builds it; a build whose errors point into mutants' code drops them
// (their numbers are in the returned dropped map with the reason) and
// builds again, at most rounds times. A mutant whose site cannot be found
// is dropped at once.
func (s *Sources) BuildSchema(ctx context.Context, backend Backend, env, dir string, muts []Numbered, rounds int) (*Library, map[int]string, string, error) {
	if s.Recipe.Entry == "" || s.Units == nil {
		return s.buildUnparsed(ctx, backend, dir, muts)
	}
	dropped := map[int]string{}
	live, probes := s.schemaSites(env, muts, dropped)
	var lastOut string
	for round := 1; round <= max(rounds, 1); round++ {
		if ctx.Err() != nil {
			return nil, dropped, lastOut, ctx.Err()
		}
		sch, err := cxx.Render(s.Files, live, droppedProbes(probes, dropped))
		if err != nil {
			return nil, dropped, "", err
		}
		lib, out, err := s.buildCached(ctx, backend, filepath.Join(dir, fmt.Sprintf("round%d", round)), s.schemaFiles(sch))
		lastOut = out
		if err == nil {
			lib.Rounds = round
			lib.Switched, lib.SiteOf, lib.Sites = map[int]bool{}, sch.SiteOf, sch.Sites
			for _, sm := range live {
				lib.Switched[sm.Num] = true
			}
			return lib, dropped, out, nil
		}
		if ctx.Err() != nil {
			return nil, dropped, out, ctx.Err()
		}
		blamed := blame(out, sch)
		if len(blamed) == 0 {
			return nil, dropped, out, fmt.Errorf("kernel schema build failed outside any mutant's code: %s", firstErrorLine(out))
		}
		live = dropBlamed(live, blamed, dropped, "the kernel schema did not compile with it: "+firstErrorLine(out))
	}
	return nil, dropped, lastOut, fmt.Errorf("kernel schema build failed after %d rounds: %s", rounds, firstErrorLine(lastOut))
}

// buildUnparsed is BuildSchema without a parse of the kernel: every
// mutant builds on its own, and the "schema" is the unmutated library.
func (s *Sources) buildUnparsed(ctx context.Context, backend Backend, dir string, muts []Numbered) (*Library, map[int]string, string, error) {
	dropped := map[int]string{}
	for _, n := range muts {
		dropped[n.Num] = "the kernel recipe names no Entry file, so the kernel is not parsed"
	}
	lib, out, err := s.buildCached(ctx, backend, filepath.Join(dir, "round1"), nil)
	if err != nil {
		return nil, dropped, out, fmt.Errorf("the unmutated kernel does not build: %s", firstErrorLine(out))
	}
	lib.Switched, lib.SiteOf = map[int]bool{}, map[int]int{}
	return lib, dropped, out, nil
}

// schemaSites finds each mutant's site in env's parse: the mutants that
// enter the schema (live), and the same by number for the probes of
// those dropped later. A mutant without a site goes into dropped with
// the reason.
func (s *Sources) schemaSites(env string, muts []Numbered, dropped map[int]string) ([]cxx.SchemaMutant, map[int]cxx.SchemaMutant) {
	var live []cxx.SchemaMutant
	probes := map[int]cxx.SchemaMutant{}
	for _, n := range muts {
		site, why := s.SiteFor(env, n.Mutant)
		if why != "" {
			dropped[n.Num] = why
			continue
		}
		sm := cxx.SchemaMutant{Num: n.Num, File: n.Mutant.File, Site: site}
		live = append(live, sm)
		probes[n.Num] = sm
	}
	return live, probes
}

// droppedProbes returns the probes of the mutants dropped so far, by
// number.
func droppedProbes(probes map[int]cxx.SchemaMutant, dropped map[int]string) []cxx.SchemaMutant {
	var list []cxx.SchemaMutant
	for num, p := range probes {
		if _, gone := dropped[num]; gone {
			list = append(list, p)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Num < list[j].Num })
	return list
}

// schemaFiles returns the files a schema build replaces: the rendered
// files, and the entry file (rendered or not) after the schema's header
// and a #line directive that numbers its lines from 1 again.
func (s *Sources) schemaFiles(sch *cxx.Schema) map[string][]byte {
	replace := map[string][]byte{}
	for name, r := range sch.Files {
		replace[name] = r.Src
	}
	header := []byte(sch.Header() + fmt.Sprintf("#line 1 %q\n", filepath.Base(s.Recipe.Entry)))
	entry := replace[s.Recipe.Entry]
	if entry == nil {
		entry = s.Files[s.Recipe.Entry]
	}
	replace[s.Recipe.Entry] = append(header, entry...)
	return replace
}

// dropBlamed moves the blamed mutants of live into dropped with the
// reason why and returns the others (live's array reused).
func dropBlamed(live []cxx.SchemaMutant, blamed map[int]bool, dropped map[int]string, why string) []cxx.SchemaMutant {
	kept := live[:0]
	for _, sm := range live {
		if blamed[sm.Num] {
			dropped[sm.Num] = why
		} else {
			kept = append(kept, sm)
		}
	}
	return kept
}

// compileError matches a compiler's error position: gcc and clang write
// "file:line:col: error", nvcc "file(line): error".
var compileError = regexp.MustCompile(`(?m)^(?:In file included from )?([^\s:()]+)(?::(\d+):(\d+)|\((\d+)\)):? (?:fatal )?error`)

// blame returns the mutants whose rendered code holds a compile error.
// The entry file's #line directive numbers its lines from 1 after the
// header, as in the rendered source.
func blame(out string, sch *cxx.Schema) map[int]bool {
	blamed := map[int]bool{}
	for _, m := range compileError.FindAllStringSubmatch(out, -1) {
		file := m[1]
		line, _ := strconv.Atoi(m[2] + m[4])
		col, _ := strconv.Atoi(m[3])
		for name, r := range sch.Files {
			if filepath.Base(name) != filepath.Base(file) {
				continue
			}
			src := r.Src
			off := offsetOf(src, line, col)
			if off < 0 {
				continue
			}
			ms := r.Locate(off)
			if len(ms) == 0 && col == 0 {
				// nvcc gives no column: every region on the line
				end := offsetOf(src, line+1, 1)
				if end < 0 {
					end = len(src)
				}
				for i := range r.Regions {
					g := r.Regions[i]
					if g.Start < end && g.End > off {
						ms = append(ms, g.Mutants...)
					}
				}
			}
			for _, n := range ms {
				blamed[n] = true
			}
		}
	}
	return blamed
}

// offsetOf returns the byte offset of 1-based line and column in src, -1
// when there is no such line; column 0 means the line's start.
func offsetOf(src []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	if col > 0 {
		off += col - 1
	}
	if off > len(src) {
		return -1
	}
	return off
}

func firstErrorLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "error") {
			return strings.TrimSpace(l)
		}
	}
	if l := strings.TrimSpace(out); l != "" {
		return strings.SplitN(l, "\n", 2)[0]
	}
	return "(no output)"
}
