package schedule

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc/pool"

	"gathermut/mutate/goasm"
	"gathermut/mutate/internal/cache"
	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
	"gathermut/mutate/testbin"
)

// schemaRun is the schema side of a run: each selected mutant's number,
// the renders of the mutated packages' schemata, one test binary per
// observing package built from them, and each observing package's
// baseline on its binary. Binaries and baselines are made when a mutant
// first needs them (the mutated packages' eagerly, at the start): a
// mutant killed by its own package's tests never waits for the tests of
// the packages that import it.
type schemaRun struct {
	s      *scheduler
	tree   string // the tree hash: baselines are cached under it
	dir    string
	number map[string]int // mutant id -> its number (GATHERMUT_MUTANT)
	byPkg  map[string][]mutant.Mutant
	main   *render

	mu        sync.Mutex
	built     []*binary
	renders   int
	binaries  map[string]*future[*binary]
	baselines map[string]*future[*PackageBaseline]
	unusable  map[string]string // observing package -> why its schema binary is not used
	runner    *Runner           // the run's runner (its GPU slots), once it exists
	builds    time.Duration     // summed over builds
	rounds    int
}

// render is one rendering of the schemata: which mutants it switches,
// where each mutant's coverage is counted, and the overlay that puts it
// in place. A build that rejects some mutants makes a new render without
// them.
type render struct {
	id       int
	dir      string
	overlay  string
	pkgs     map[string]*schemaPkg
	site     map[string][]int     // mutant id -> the hits sites of its coverage
	sites    int                  // hits file size
	switched map[string]bool      // mutant id -> switched in this render
	dropped  map[string]string    // mutant id -> why a build dropped it
	numbers  map[string]int       // mutant id -> its number (the run's)
	tests    map[string]*wrapInfo // observing package -> its wrapped tests (testwrap.go)
	// origin says, in the user's terms, what each file the render wrote
	// is (rendered path -> "the test wrapper mutate adds to ...").
	origin map[string]string
	// probeNode maps the hits site of each function probe to the
	// declaration it counts (probes.go; incremental runs only).
	probeNode map[int]int32
}

// binary is one observing package's schema test binary.
type binary struct {
	path    string
	command string
	r       *render
}

// future is a value made once, by the first caller that needs it.
type future[T any] struct {
	once    sync.Once
	started atomic.Bool
	done    atomic.Bool
	v       T
	err     error
}

// get returns the value, made by make on the first call; a call while
// another worker makes it waits with its turn lent (workers.go).
func (f *future[T]) get(ctx context.Context, make func() (T, error)) (T, error) {
	if f.started.Load() && !f.done.Load() {
		lend(ctx, func() { f.once.Do(func() {}) })
	}
	f.once.Do(func() {
		f.started.Store(true)
		f.v, f.err = make()
		f.done.Store(true)
	})
	return f.v, f.err
}

// schemaMutant reports whether m can take part in a schema: a Go mutant
// that compiles and is not ignored.
func schemaMutant(m mutant.Mutant) bool {
	return m.Kind == mutant.Go && m.Runs() && m.Edit != nil && m.Schema != nil
}

// newSchemaRun numbers the mutants, renders the schemata, and builds the
// test binaries of the mutated packages that have tests. A build that
// fails drops the mutants the compiler's errors point into (a constant
// made a variable where a constant is needed, a type the switch wrote
// wrong, a go vet finding) and builds again; dropped mutants run on their
// own builds, as without schemata.
func (s *scheduler) newSchemaRun(ctx context.Context, ms []mutant.Mutant, eager []string, tree string) (*schemaRun, error) {
	sr := &schemaRun{
		s: s, tree: tree, dir: filepath.Join(s.Temp, "schema"), number: map[string]int{}, byPkg: map[string][]mutant.Mutant{},
		binaries: map[string]*future[*binary]{}, baselines: map[string]*future[*PackageBaseline]{}, unusable: map[string]string{},
	}
	for _, m := range ms {
		if schemaMutant(m) {
			sr.number[m.ID] = len(sr.number) + 1
			sr.byPkg[m.Package] = append(sr.byPkg[m.Package], m)
		}
	}
	dropped := sr.cachedDrops()
	first, err := sr.precheck(ctx, dropped, eager)
	if err != nil {
		return nil, err
	}
	for round := 1; ; round++ {
		sr.rounds++
		r := first
		if r == nil {
			if r, err = sr.render(dropped); err != nil {
				return nil, err
			}
		}
		first = nil
		failures := map[string]string{}
		bins := map[string]*binary{}
		var mu sync.Mutex
		p := pool.New()
		for _, obs := range eager {
			p.Go(func() {
				b, out, err := sr.build(ctx, obs, r)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failures[obs] = out
					return
				}
				bins[obs] = b
			})
		}
		p.Wait()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(failures) == 0 {
			sr.main = r
			sr.cacheDrops(dropped)
			for obs, b := range bins {
				f := &future[*binary]{}
				f.get(ctx, func() (*binary, error) { return b, nil })
				sr.binaries[obs] = f
			}
			return sr, nil
		}
		n := 0
		for _, out := range failures {
			n += r.dropFor(out, s.root, dropped)
		}
		if n == 0 {
			obs := slices.Sorted(maps.Keys(failures))[0]
			return nil, fmt.Errorf("the test binaries with all mutants in them (the schema build) do not compile, "+
				"and not because of a mutant: %s (a bug of mutate: please report it)", r.describeFailure(failures[obs], s.root))
		}
		if round >= 8 {
			return nil, fmt.Errorf("the test binaries with all mutants in them (the schema build) still do not compile after "+
				"%d builds, each without the mutants the previous one's errors pointed at", round)
		}
	}
}

// render writes the schemata of every mutated package, without the
// dropped mutants, and the overlay that puts them in place.
func (sr *schemaRun) render(dropped map[string]string) (*render, error) {
	sr.mu.Lock()
	sr.renders++
	id := sr.renders
	sr.mu.Unlock()
	r := &render{
		id: id, dir: filepath.Join(sr.dir, fmt.Sprintf("r%d", id)), pkgs: map[string]*schemaPkg{}, origin: map[string]string{},
		site: map[string][]int{}, switched: map[string]bool{}, dropped: maps.Clone(dropped), numbers: sr.number,
	}
	paths := make([]string, 0, len(sr.byPkg))
	for p := range sr.byPkg {
		paths = append(paths, p)
	}
	paths = append(paths, sr.probePackages()...)
	sort.Strings(paths)
	replace := map[string]string{}
	next := 0
	for i, path := range paths {
		entries, sources, asm, err := sr.entries(r, path)
		if err != nil {
			return nil, err
		}
		probes, err := sr.probeEntries(path, sources)
		if err != nil {
			return nil, err
		}
		entries = append(entries, probes...)
		if len(entries) == 0 && len(asm) == 0 {
			continue
		}
		if next, err = sr.renderPackage(r, i, path, entries, sources, next, replace); err != nil {
			return nil, err
		}
		if len(asm) > 0 {
			if next, err = sr.renderAsm(r, r.pkgs[path], filepath.Join(r.dir, fmt.Sprintf("p%d", i)), asm, next, replace); err != nil {
				return nil, err
			}
		}
	}
	r.sites = max(next, 1)
	for i, path := range paths {
		if err := sr.writeSupport(r, i, path, replace); err != nil {
			return nil, err
		}
	}
	var err error
	if r.tests, err = sr.renderTestWrappers(r, replace); err != nil {
		return nil, err
	}
	r.overlay = filepath.Join(r.dir, "overlay.json")
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	return r, testbin.WriteOverlay(r.overlay, replace)
}

// entries are a package's schema entries in render r: each mutant's
// switch (a dropped one keeps only its probe), a constant's switched
// uses, the probes at a variable's readers; sources holds the files
// they are in. Its assembly mutants (not dropped) come apart: their
// switches are whole routines (renderAsm).
func (sr *schemaRun) entries(r *render, path string) ([]schema.Entry, map[string][]byte, []mutant.Mutant, error) {
	root := sr.s.root
	var entries []schema.Entry
	var asm []mutant.Mutant
	sources := map[string][]byte{}
	for _, m := range sr.byPkg[path] {
		if m.Schema.Kind == mutant.AsmSite {
			if _, gone := r.dropped[m.ID]; !gone {
				asm = append(asm, m)
			}
			continue
		}
		site := *m.Schema
		if _, gone := r.dropped[m.ID]; gone && site.Switched() {
			site = mutant.Site{Probe: m.Schema.Probe}
		}
		if !site.Switched() && site.Probe < 0 && len(m.Schema.Readers) == 0 {
			continue
		}
		if site.Kind == mutant.UsesSite {
			// the constant's uses are switched, each to the value the
			// mutated constant gives it; they also count its coverage
			for _, u := range site.Uses {
				if err := readSource(sources, root, u.File); err != nil {
					return nil, nil, nil, err
				}
				use := &mutant.Site{Kind: mutant.ExprSite, Start: u.Start, End: u.End, Type: u.Type, Text: u.Text, Probe: -1}
				entries = append(entries, schema.Entry{N: sr.number[m.ID], File: u.File, Site: use})
			}
			r.switched[m.ID] = true
			continue
		}
		if err := readSource(sources, root, m.File); err != nil {
			return nil, nil, nil, err
		}
		entries = append(entries, schema.Entry{N: sr.number[m.ID], File: m.File, Site: &site, NoCover: m.Schema.Readers != nil})
		if site.Switched() {
			r.switched[m.ID] = true
		}
		for _, rd := range m.Schema.Readers {
			if err := readSource(sources, root, rd.File); err != nil {
				return nil, nil, nil, err
			}
			entries = append(entries, schema.Entry{N: sr.number[m.ID], File: rd.File, Site: &mutant.Site{Probe: rd.At}})
		}
	}
	return entries, sources, asm, nil
}

// renderPackage renders package path (the i-th) from its entries, its
// hits sites numbered from next, writes its files into the render's
// directory and maps them in replace; it returns the next site number.
func (sr *schemaRun) renderPackage(r *render, i int, path string, entries []schema.Entry, sources map[string][]byte, next int, replace map[string]string) (int, error) {
	dir := sr.s.prog.Dir(path)
	names, err := schemaNames(dir)
	if err != nil {
		return 0, err
	}
	sp, nextSite := &schema.Package{Files: map[string]*schema.File{}, Cover: map[int][]int{}}, next
	if len(entries) > 0 {
		if sp, nextSite, err = schema.Render(names, sources, entries, next); err != nil {
			return 0, err
		}
		sr.noteProbes(r, sp)
	}
	pkg := &schemaPkg{path: path, schema: sp, names: names, files: map[string]string{}, dir: dir}
	r.pkgs[path] = pkg
	for rel, f := range sp.Files {
		out := filepath.Join(r.dir, fmt.Sprintf("p%d", i), filepath.Base(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(out, f.Source, 0o644); err != nil {
			return 0, err
		}
		orig := filepath.Join(sr.s.root, filepath.FromSlash(rel))
		replace[orig] = out
		pkg.files[out] = rel
		pkg.files[orig] = rel
		r.origin[out] = rel + " (as mutate rewrote it to switch its mutants)"
	}
	for _, m := range sr.byPkg[path] {
		if s, ok := sp.Cover[sr.number[m.ID]]; ok {
			r.site[m.ID] = s
		}
	}
	return nextSite, nil
}

// writeSupport adds the switch's support file (the active mutant, the
// hits file of r.sites sites) to a rendered package, under a name no
// file of the package has.
func (sr *schemaRun) writeSupport(r *render, i int, path string, replace map[string]string) error {
	pkg := r.pkgs[path]
	if pkg == nil {
		return nil
	}
	// The support file sorts first among the package's files: Go
	// initializes package variables in file order where no dependency
	// says otherwise, and an assembly routine that a variable's
	// initializer calls (a CPU feature check) reads the switch without
	// the compiler seeing it.
	name := filepath.Join(pkg.dir, "0gathermut_schema.go")
	for j := 0; fileExists(name); j++ {
		name = filepath.Join(pkg.dir, fmt.Sprintf("0gathermut_schema%d.go", j))
	}
	out := filepath.Join(r.dir, fmt.Sprintf("p%d", i), "0gathermut_schema.go")
	if err := os.WriteFile(out, schema.Support(sr.s.prog.Name(path), pkg.names, r.sites), 0o644); err != nil {
		return err
	}
	replace[name] = out
	r.origin[out] = "the file mutate adds to package " + path + " to switch its mutants"
	return nil
}

// schemaPkg is one rendered package and how to find its files in errors.
type schemaPkg struct {
	path   string
	schema *schema.Package
	names  schema.Names
	files  map[string]string // rendered or original absolute path -> module-relative file
	dir    string
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

// build builds one observing package's test binary from a render.
func (sr *schemaRun) build(ctx context.Context, obs string, r *render) (*binary, string, error) {
	bin := filepath.Join(r.dir, strings.NewReplacer("/", "_", ".", "_").Replace(obs)+".test")
	if err := sr.s.slots.acquire(ctx); err != nil {
		return nil, "", err
	}
	start := time.Now()
	cmdline, out, err := testbin.Go(ctx, sr.s.root, "test", "-c", "-o", bin, "-overlay", r.overlay, obs)
	sr.s.slots.release()
	sr.mu.Lock()
	sr.builds += time.Since(start)
	sr.mu.Unlock()
	if err != nil {
		return nil, out, err
	}
	b := &binary{path: bin, command: cmdline, r: r}
	sr.mu.Lock()
	sr.built = append(sr.built, b)
	sr.mu.Unlock()
	return b, "", nil
}

// binary returns the schema test binary of an observing package, building
// it from the main render on first use; a build that fails drops the
// mutants its errors point into, in a render of its own.
func (sr *schemaRun) binary(ctx context.Context, obs string) (*binary, error) {
	sr.mu.Lock()
	f := sr.binaries[obs]
	if f == nil {
		f = &future[*binary]{}
		sr.binaries[obs] = f
	}
	sr.mu.Unlock()
	return f.get(ctx, func() (*binary, error) {
		r := sr.main
		for round := 1; ; round++ {
			b, out, err := sr.build(ctx, obs, r)
			if err == nil {
				return b, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			dropped := maps.Clone(r.dropped)
			if r.dropFor(out, sr.s.root, dropped) == 0 || round >= 8 {
				return nil, fmt.Errorf("the schema test binary of %s does not build: %s", obs, firstLine(compileError(out)))
			}
			if r, err = sr.render(dropped); err != nil {
				return nil, err
			}
		}
	})
}

// baseline returns an observing package's baseline on its schema binary,
// run on first use.
func (sr *schemaRun) baseline(ctx context.Context, obs string) (*PackageBaseline, error) {
	sr.mu.Lock()
	f := sr.baselines[obs]
	if f == nil {
		f = &future[*PackageBaseline]{}
		sr.baselines[obs] = f
	}
	sr.mu.Unlock()
	return f.get(ctx, func() (*PackageBaseline, error) {
		if pb, plain := sr.cachedBaseline(obs); pb != nil {
			sr.s.progressf("mutate: baseline of %s: %d tests, from the baseline cache\n", obs, len(pb.Names))
			if plain != "" {
				// a schema binary that failed on this tree fails again
				pb.plain = true
				sr.mu.Lock()
				sr.unusable[obs] = plain
				sr.mu.Unlock()
				fmt.Fprintf(sr.s.Stderr, "mutate: %s (the baseline cache)\n", plain)
			}
			return pb, nil
		}
		b, err := sr.binary(ctx, obs)
		if err != nil {
			return nil, err
		}
		pb, err := sr.runBaseline(ctx, obs, b)
		if err != nil {
			return nil, err
		}
		pb.render = b.r
		pb.Commands = append([]string{b.command}, pb.Commands...)
		sr.s.progressf("mutate: baseline of %s: %d tests (%.1f s)%s\n", obs, len(pb.Names), pb.Elapsed.Seconds(), pb.passNote())
		if len(pb.Failing) == 0 {
			sr.cacheBaseline(obs, pb, "")
			return pb, nil
		}
		// A test that fails on the schema binary may pass without the
		// schema: the switches make functions too big to inline, so
		// allocation counts change. Then the package's tests run on builds
		// without the schema, like --no-schemata, and the report says so.
		plain, err := sr.plainBaseline(ctx, obs)
		if err != nil {
			return nil, err
		}
		if len(plain.Failing) > 0 {
			return plain, &redBaseline{pb: plain}
		}
		plain.plain = true
		why := fmt.Sprintf("the schema test binary of %s fails %s, which pass without the schema: that package's tests run on builds of their own", obs, strings.Join(pb.Failing, ", "))
		sr.mu.Lock()
		sr.unusable[obs] = why
		sr.mu.Unlock()
		sr.cacheBaseline(obs, plain, why)
		fmt.Fprintf(sr.s.Stderr, "mutate: %s\n", why)
		return plain, nil
	})
}

// redBaseline is a package baseline with failing tests.
type redBaseline struct{ pb *PackageBaseline }

func (e *redBaseline) Error() string {
	return "the baseline is failing: " + strings.Join(e.pb.Failing, ", ")
}

func isRed(err error) (*PackageBaseline, bool) {
	var r *redBaseline
	if errors.As(err, &r) {
		return r.pb, true
	}
	return nil, false
}

var errorPos = regexp.MustCompile(`(\S+\.go):(\d+):(\d+)`)

// describeFailure is a failed build's first error in the user's terms: the
// file named by what it is (a file of the module by its module-relative
// path, a file the tool wrote by what it is for), never by a temp path.
func (r *render) describeFailure(out, root string) string {
	line := firstLine(compileError(out))
	m := errorPos.FindStringSubmatchIndex(line)
	if m == nil {
		return line
	}
	path := line[m[2]:m[3]]
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	where, ok := r.origin[path]
	if !ok {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			where = filepath.ToSlash(rel)
		} else {
			where = filepath.Base(path)
		}
	}
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[m[1]:]), ":"))
	return fmt.Sprintf("%s, line %s: %s", where, line[m[4]:m[5]], msg)
}

// dropFor adds to dropped the switched mutants a failed build's errors
// point into; it returns how many it added.
func (r *render) dropFor(out, root string, dropped map[string]string) int {
	n := 0
	drop := func(muts []int, why string) {
		want := map[int]bool{}
		for _, m := range muts {
			want[m] = true
		}
		for id := range r.switched {
			if want[r.numbers[id]] {
				if _, done := dropped[id]; !done {
					dropped[id] = "the schema build rejected it: " + why
					n++
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
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[m[1]:]), ":"))
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		found := false
		for _, pkg := range r.pkgs {
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
		for _, pkg := range r.pkgs {
			for name, muts := range pkg.schema.Consts {
				if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(msg) {
					drop(muts, fmt.Sprintf("%s:%d: %s", filepath.Base(path), ln, msg))
				}
			}
		}
	}
	return n
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

// whyNotSwitched says why m ran on its own build.
func (sr *schemaRun) whyNotSwitched(m mutant.Mutant) string {
	if m.Schema != nil && m.Schema.Fallback != "" {
		return "not switched: " + m.Schema.Fallback
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	for _, b := range sr.built {
		if why, ok := b.r.dropped[m.ID]; ok {
			return why
		}
	}
	return ""
}

// collectBaseline gathers the package baselines the run made.
func (sr *schemaRun) collectBaseline() *Baseline {
	b := &Baseline{Packages: map[string]*PackageBaseline{}}
	sr.mu.Lock()
	fs := maps.Clone(sr.baselines)
	sr.mu.Unlock()
	for _, f := range fs {
		if f.done.Load() && f.v != nil {
			b.add(f.v)
			b.Duration += f.v.Elapsed
		}
	}
	b.sort()
	return b
}

func (sr *schemaRun) buildSeconds() float64 {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.builds.Seconds()
}

// plainBaseline runs an observing package's baseline on a test binary
// built without the schema, with coverage (as --no-schemata does).
func (sr *schemaRun) plainBaseline(ctx context.Context, obs string) (*PackageBaseline, error) {
	bin := filepath.Join(sr.dir, "plain-"+strings.NewReplacer("/", "_", ".", "_").Replace(obs)+".test")
	args := []string{"test", "-c", "-o", bin}
	mutated := make([]string, 0, len(sr.byPkg))
	for p := range sr.byPkg {
		mutated = append(mutated, p)
	}
	sort.Strings(mutated)
	cover := coverFor(sr.s.prog, obs, mutated)
	if len(cover) > 0 {
		args = append(args, "-cover", "-covermode=set", "-coverpkg="+strings.Join(cover, ","))
	}
	if err := sr.s.slots.acquire(ctx); err != nil {
		return nil, err
	}
	cmdline, out, err := testbin.Go(ctx, sr.s.root, append(args, obs)...)
	sr.s.slots.release()
	if err != nil {
		return nil, fmt.Errorf("schedule: baseline build of %s failed: %v\n%s", obs, err, out)
	}
	pb, err := runPackageBaseline(ctx, sr.s.prog, obs, packageOptions{
		Binary: bin, Cover: true, TempDir: sr.s.Temp, Timeout: sr.s.cfg.BaselineTimeout.D(), Slots: sr.s.slots, CoverPkgs: cover,
	})
	if err != nil {
		return nil, err
	}
	pb.Commands = append([]string{cmdline}, pb.Commands...)
	return pb, nil
}

// unusableReason says why the schema binary of a package is not used, or "".
func (sr *schemaRun) unusableReason(obs string) string {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	return sr.unusable[obs]
}

// The baseline cache keeps, per observing package, what its schema
// baseline found: each test's status and time and the mutants it covers,
// keyed by the tool binary, the tree hash and the package. A later run on
// the same tree whose mutants this package observes are all among those
// recorded (a run after an "all", a second "run <id>") takes the baseline
// from it; the coverage of a mutant does not depend on which other
// mutants a schema holds, since with none active the schema runs the
// original code.
type baselineEntry struct {
	Key      string              `json:"key"`
	Tests    []cachedTest        `json:"tests"`
	Universe []string            `json:"universe"` // the mutants whose coverage is recorded
	Covered  map[string][]string `json:"covered"`  // test -> mutant ids
	Flaky    []string            `json:"flaky,omitempty"`
	// Plain, for a package whose schema binary failed tests that pass
	// without the schema, says so: the baseline is the one without the
	// schema, and the package's tests run on builds of their own.
	Plain string `json:"plain,omitempty"`
}

type cachedTest struct {
	Name    string        `json:"name"`
	Status  string        `json:"status"`
	Elapsed time.Duration `json:"elapsed"`
	Skip    string        `json:"skip,omitempty"`
}

func (sr *schemaRun) baselineKey(obs string) string {
	h := sha256.New()
	fmt.Fprintf(h, "baseline\x00%s\x00%s\x00%s\x00%s", cache.Tool(), sr.s.root, sr.tree, obs)
	return hex.EncodeToString(h.Sum(nil))
}

// observed lists the run's mutants whose code obs's tests can reach.
func (sr *schemaRun) observed(obs string) []mutant.Mutant {
	var out []mutant.Mutant
	for pkg, ms := range sr.byPkg {
		if slices.Contains(sr.s.prog.Observers(pkg), obs) {
			out = append(out, ms...)
		}
	}
	return out
}

// cachedBaseline returns obs's baseline from the cache, or nil; plain
// says why it is a baseline without the schema, if it is one.
func (sr *schemaRun) cachedBaseline(obs string) (pb *PackageBaseline, plain string) {
	if sr.s.cfg.NoCache {
		return nil, ""
	}
	key := sr.baselineKey(obs)
	var e baselineEntry
	if !cache.Read("baseline", key, &e) || e.Key != key {
		return nil, ""
	}
	universe := map[string]bool{}
	for _, id := range e.Universe {
		universe[id] = true
	}
	for _, m := range sr.observed(obs) {
		if !universe[m.ID] {
			return nil, ""
		}
	}
	pb = &PackageBaseline{Path: obs, Dir: sr.s.prog.Dir(obs), Tests: map[string]*TestBaseline{}, Flaky: e.Flaky, covered: map[string]map[string]bool{}}
	for _, t := range e.Tests {
		pb.Tests[t.Name] = &TestBaseline{Name: t.Name, Status: t.Status, Elapsed: t.Elapsed, Skip: t.Skip}
		pb.Names = append(pb.Names, t.Name)
		set := map[string]bool{}
		for _, id := range e.Covered[t.Name] {
			set[id] = true
		}
		pb.covered[t.Name] = set
	}
	sort.Strings(pb.Names)
	return pb, e.Plain
}

// cacheBaseline records obs's green baseline (on the schema binary, or
// without the schema where plain says why), adding to what the cache
// holds for the same tree.
func (sr *schemaRun) cacheBaseline(obs string, pb *PackageBaseline, plain string) {
	if sr.s.cfg.NoCache {
		return
	}
	key := sr.baselineKey(obs)
	var old baselineEntry
	if !cache.Read("baseline", key, &old) || old.Key != key {
		old = baselineEntry{}
	}
	e := baselineEntry{Key: key, Covered: map[string][]string{}, Flaky: pb.Flaky, Plain: plain}
	ms := sr.observed(obs)
	fresh := map[string]bool{}
	for _, m := range ms {
		fresh[m.ID] = true
		e.Universe = append(e.Universe, m.ID)
	}
	for _, id := range old.Universe {
		if !fresh[id] {
			e.Universe = append(e.Universe, id)
		}
	}
	r := &Runner{}
	for _, name := range pb.Names {
		t := pb.Tests[name]
		e.Tests = append(e.Tests, cachedTest{Name: name, Status: t.Status, Elapsed: t.Elapsed, Skip: t.Skip})
		for _, m := range ms {
			if r.covers(pb, t, m) {
				e.Covered[name] = append(e.Covered[name], m.ID)
			}
		}
		for _, id := range old.Covered[name] {
			if !fresh[id] {
				e.Covered[name] = append(e.Covered[name], id)
			}
		}
	}
	if err := cache.Write("baseline", key, e); err != nil {
		fmt.Fprintf(sr.s.Stderr, "mutate: baseline cache not written: %v\n", err)
	}
}

// readSource adds a module-relative file's bytes to sources.
func readSource(sources map[string][]byte, root, rel string) error {
	if _, ok := sources[rel]; ok {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	sources[rel] = data
	return nil
}

// baselineReady reports whether obs's baseline is made (green or not).
func (sr *schemaRun) baselineReady(obs string) bool {
	sr.mu.Lock()
	f := sr.baselines[obs]
	sr.mu.Unlock()
	return f != nil && f.done.Load()
}

// renderAsm renders the package's assembly mutants (package goasm: each
// routine that holds one dispatches at its entry to a copy with the
// mutant made) from coverage site next on, writing each file under dir
// and into replace; it returns the next free site.
func (sr *schemaRun) renderAsm(r *render, pkg *schemaPkg, dir string, asm []mutant.Mutant, next int, replace map[string]string) (int, error) {
	byFile := map[string][]mutant.Mutant{}
	var files []string
	for _, m := range asm {
		if byFile[m.File] == nil {
			files = append(files, m.File)
		}
		byFile[m.File] = append(byFile[m.File], m)
	}
	sort.Strings(files)
	for _, rel := range files {
		orig := filepath.Join(sr.s.root, filepath.FromSlash(rel))
		src, err := os.ReadFile(orig)
		if err != nil {
			return next, err
		}
		f, err := goasm.Parse(src)
		if err != nil {
			return next, fmt.Errorf("lab: %s: %w", rel, err)
		}
		var sms []goasm.SchemaMutant
		for _, m := range byFile[rel] {
			am, err := f.MutantAt(m.Operator, m.Edit.Start, m.Edit.End, m.Edit.Text)
			if err != nil {
				return next, fmt.Errorf("lab: %s: mutant %s: %w", rel, m.ID, err)
			}
			sms = append(sms, goasm.SchemaMutant{Num: sr.number[m.ID], Mutant: am})
		}
		sch, err := goasm.Render(f, sms, goasm.Names{Active: pkg.names.Active, Hits: pkg.names.Hits}, next)
		if err != nil {
			return next, fmt.Errorf("lab: %s: %w", rel, err)
		}
		out := filepath.Join(dir, filepath.Base(rel))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return next, err
		}
		if err := os.WriteFile(out, sch.Src, 0o644); err != nil {
			return next, err
		}
		replace[orig] = out
		pkg.files[out] = rel
		pkg.files[orig] = rel
		for _, m := range byFile[rel] {
			for _, routine := range sch.Routines[sr.number[m.ID]] {
				r.site[m.ID] = append(r.site[m.ID], sch.SiteOf[routine])
			}
			r.switched[m.ID] = true
		}
		next += len(sch.SiteOf)
	}
	return next, nil
}

// gpu returns the GPU slots of the run's runner for obs's baseline (see
// Runner.gpuSlotsOf); nil before the runner exists.
func (sr *schemaRun) gpu(obs string) slots {
	if sr.runner == nil {
		return nil
	}
	return sr.runner.gpuSlotsOf(obs)
}
