package cxx

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// fixtureMutants reads the schema fixture and makes its mutants, numbered
// from 1.
func fixtureMutants(t *testing.T) ([]byte, []SchemaMutant, []Mutant) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "schema_fixture.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	srcs := parseOne(t, string(src), Emulation)
	ms, err := Mutants(srcs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sm []SchemaMutant
	for i, m := range ms {
		if srcs[0].Name != "k.hip" || m.File != "k.hip" {
			t.Fatalf("mutant in file %s", m.File)
		}
		sm = append(sm, SchemaMutant{Num: i + 1, File: "kern.cpp", Site: m.Site})
	}
	return src, sm, ms
}

// compileCxx builds src (with the header, if any, included first) into an
// executable; it returns the compiler's output on failure.
func compileCxx(t *testing.T, cxx, dir, name string, src []byte, header string) (string, []byte, error) {
	t.Helper()
	file := filepath.Join(dir, name+".cpp")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-O0", "-w", "-o", filepath.Join(dir, name)}
	if header != "" {
		h := filepath.Join(dir, name+".h")
		if err := os.WriteFile(h, []byte(header), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-include", h)
	}
	args = append(args, file)
	out, err := exec.Command(cxx, args...).CombinedOutput()
	return filepath.Join(dir, name), out, err
}

// runBin runs an executable with GATHERMUT_MUTANT=n in its environment
// and returns its outcome (stdout and how it ended) and its stderr.
func runBin(bin string, n int) (string, string) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GATHERMUT_MUTANT=%d", n))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	end := "exit 0"
	if err := cmd.Run(); err != nil {
		end = err.Error()
	}
	return stdout.String() + "[" + end + "]", stderr.String()
}

var diagRE = regexp.MustCompile(`(?m)^[^:\n]*\.cpp:(\d+):(\d+): (?:fatal )?error:`)

// errorOffsets returns the byte offsets in src of the errors a compiler
// reported for it (a column is a byte's: the fixture has no tabs).
func errorOffsets(src []byte, diags []byte) []int {
	lineStart := []int{0}
	for i, c := range src {
		if c == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	var offs []int
	for _, m := range diagRE.FindAllSubmatch(diags, -1) {
		line, _ := strconv.Atoi(string(m[1]))
		col, _ := strconv.Atoi(string(m[2]))
		if line >= 1 && line <= len(lineStart) {
			offs = append(offs, lineStart[line-1]+col-1)
		}
	}
	return offs
}

// markedRegions returns the byte ranges between the fixture's markers
// /*name{*/ and /*}name*/.
func markedRegions(src []byte, name string) [][2]int {
	var out [][2]int
	s := string(src)
	open, close := "/*"+name+"{*/", "/*}"+name+"*/"
	for off := 0; ; {
		i := strings.Index(s[off:], open)
		if i < 0 {
			return out
		}
		start := off + i + len(open)
		j := strings.Index(s[start:], close)
		out = append(out, [2]int{start, start + j})
		off = start + j
	}
}

// TestSchemaAgreesWithMutants builds the fixture's schema once with c++
// and every mutant on its own, runs every mutant both ways and requires
// the same output; checks that a site's hit is set exactly where the code
// ran; and that the schema's one compile error (a mutant that does not
// compile) is traced back to its site's mutants.
func TestSchemaAgreesWithMutants(t *testing.T) {
	cxx, err := exec.LookPath("c++")
	if err != nil {
		t.Skip("no c++ compiler")
	}
	src, all, muts := fixtureMutants(t)
	dir := t.TempDir()

	orig, out, err := compileCxx(t, cxx, dir, "orig", src, "")
	if err != nil {
		t.Fatalf("the fixture does not compile: %v\n%s", err, out)
	}
	want, _ := runBin(orig, 0)
	if !strings.HasSuffix(want, "[exit 0]") {
		t.Fatalf("the fixture fails: %s", want)
	}

	// the schema: the switchable mutants; the others are probes
	switchable, probes := splitProbes(all)
	if len(probes) == 0 || len(switchable) < 200 {
		t.Fatalf("%d switchable mutants and %d probes: the fixture lost its coverage", len(switchable), len(probes))
	}
	sch, schemaBin, dropped := buildSchema(t, cxx, dir, map[string][]byte{"kern.cpp": src}, switchable, probes)
	// the one mutant that cannot compile is p += n -> p = n, and the error
	// names its site's mutants only
	if got, want := droppedText(muts, dropped), "assign +=->-= in reader::next; assign +=->= in reader::next"; got != want {
		t.Errorf("mutants traced from the schema's compile errors: %s; want %s", got, want)
	}

	// the unmutated schema: the original's output, and the hits
	got, hits := runBin(schemaBin, 0)
	if got != want {
		t.Errorf("schema with no mutant on:\n%s\nwant\n%s", got, want)
	}
	checkHits(t, src, muts, sch, dropped, hits, nil)
	checkColdBodyHits(t, src, all, muts, sch, schemaBin, dropped)

	// every mutant built from its own mutated copy, and switched on in the
	// schema
	outcomes, unviable := buildMutantsAlone(t, cxx, dir, src, muts)
	killed, compared := compareAloneAndSwitched(t, all, muts, want, schemaBin, dropped, outcomes, unviable)
	for n := range unviable {
		if m := muts[n-1]; len(unviable) != 1 || m.Original != "+=" || m.Replacement != "=" {
			t.Errorf("mutant %d (%s %q -> %q in %s) does not compile alone; want only p += n -> p = n", n, m.Operator, m.Original, m.Replacement, m.Func)
		}
	}
	// naming mutant 0 runs the original
	if got := runMany(t, schemaBin, []int{0})[0]; got != want {
		t.Errorf("schema run with 0 named: %s, want %s", got, want)
	}
	t.Logf("%d mutants (%d switchable, %d probes): %d unviable, %d compared with the schema, %d change the output",
		len(all), len(switchable), len(probes), len(unviable), compared, killed)
}

// splitProbes splits the mutants into those a switch can hold and the
// probes (a site with a Why).
func splitProbes(all []SchemaMutant) (switchable, probes []SchemaMutant) {
	for _, m := range all {
		if m.Site.Why == "" {
			switchable = append(switchable, m)
		} else {
			probes = append(probes, m)
		}
	}
	return switchable, probes
}

// buildSchema renders and compiles the schema of files. When the first
// build fails, the mutants of the sites its errors lie in are dropped and
// it is built once more, which must succeed. It returns the schema, its
// executable and the dropped mutants' numbers.
func buildSchema(t *testing.T, cxx, dir string, files map[string][]byte, switchable, probes []SchemaMutant) (*Schema, string, map[int]bool) {
	t.Helper()
	dropped := map[int]bool{}
	for attempt := 0; ; attempt++ {
		var keep []SchemaMutant
		for _, m := range switchable {
			if !dropped[m.Num] {
				keep = append(keep, m)
			}
		}
		sch, err := Render(files, keep, probes)
		if err != nil {
			t.Fatal(err)
		}
		rendered := sch.Files["kern.cpp"]
		bin, diags, err := compileCxx(t, cxx, dir, fmt.Sprintf("schema%d", attempt), rendered.Src, sch.Header())
		if err == nil {
			return sch, bin, dropped
		}
		offs := errorOffsets(rendered.Src, diags)
		if attempt > 0 || len(offs) == 0 {
			t.Fatalf("schema build %d fails: %v\n%s", attempt, err, diags)
		}
		for _, off := range offs {
			nums := rendered.Locate(off)
			if len(nums) == 0 {
				t.Fatalf("compile error at offset %d lies in no site:\n%s", off, diags)
			}
			for _, n := range nums {
				dropped[n] = true
			}
		}
	}
}

// droppedText describes the dropped mutants, sorted and joined by "; ".
func droppedText(muts []Mutant, dropped map[int]bool) string {
	var text []string
	for n := range dropped {
		m := muts[n-1]
		text = append(text, fmt.Sprintf("%s %s->%s in %s", m.Operator, m.Original, m.Replacement, m.Func))
	}
	sort.Strings(text)
	return strings.Join(text, "; ")
}

// checkColdBodyHits switches on the one mutant that runs lazy's cold body
// (branch-true of its condition) and checks that its sites are hit.
func checkColdBodyHits(t *testing.T, src []byte, all []SchemaMutant, muts []Mutant, sch *Schema, schemaBin string, dropped map[int]bool) {
	t.Helper()
	forced := 0
	for _, m := range all {
		mm := muts[m.Num-1]
		if mm.Operator == "branch-true" && strings.HasPrefix(mm.Original, "a > 1000") {
			forced++
			_, hits := runBin(schemaBin, m.Num)
			checkHits(t, src, muts, sch, dropped, hits, &mm)
		}
	}
	if forced != 1 {
		t.Errorf("%d branch-true mutants of lazy's condition, want 1", forced)
	}
}

// compareAloneAndSwitched runs every mutant in the schema switched on and
// requires the outcome it had when built alone (outcomes). A mutant that
// does not compile alone (unviable) must have been dropped from the
// schema. It returns how many viable mutants change the output (killed)
// and how many were compared, which must be every mutant in the schema.
func compareAloneAndSwitched(t *testing.T, all []SchemaMutant, muts []Mutant, want, schemaBin string, dropped map[int]bool, outcomes map[int]string, unviable map[int]bool) (killed, compared int) {
	t.Helper()
	var inSchema []int
	for _, m := range all {
		if m.Site.Why == "" && !dropped[m.Num] {
			inSchema = append(inSchema, m.Num)
		}
	}
	switchedOutcomes := runMany(t, schemaBin, inSchema)
	for _, m := range all {
		mm := muts[m.Num-1]
		if unviable[m.Num] {
			if !dropped[m.Num] {
				t.Errorf("mutant %d (%s %q -> %q) does not compile alone, but compiled in the schema", m.Num, mm.Operator, mm.Original, mm.Replacement)
			}
			continue
		}
		alone := outcomes[m.Num]
		if alone != want {
			killed++
		}
		if m.Site.Why != "" || dropped[m.Num] {
			continue
		}
		compared++
		if switched := switchedOutcomes[m.Num]; alone != switched {
			t.Errorf("mutant %d (%s %q -> %q in %s): built alone\n%s\nswitched on in the schema\n%s", m.Num, mm.Operator, mm.Original, mm.Replacement, mm.Func, alone, switched)
		}
	}
	if compared != len(inSchema) {
		t.Errorf("%d mutants compared, %d in the schema", compared, len(inSchema))
	}
	return killed, compared
}

// buildMutantsAlone builds every mutant of the fixture from its own
// mutated copy of the source (never through the schema's switch) and runs
// it. To keep the compiler runs few, a run builds a batch of copies, each
// copy (the fixture's device and host code, mutated) in a namespace of its
// own behind a main that runs the copy its argument names. A copy that
// does not compile is taken out of its batch and built alone as the whole
// fixture, where it must fail too: it is unviable.
func buildMutantsAlone(t *testing.T, cxx, dir string, src []byte, muts []Mutant) (map[int]string, map[int]bool) {
	t.Helper()
	const devMark, endMark = "// ---- device code ----\n", "// ---- end ----\n"
	devAt := bytes.Index(src, []byte(devMark))
	if devAt < 0 || !bytes.Contains(src, []byte(endMark)) {
		t.Fatal("the fixture lost its section markers")
	}
	prelude := string(src[:devAt])
	copyOf := func(num int) string {
		m := muts[num-1]
		if m.Edit.Start < devAt {
			t.Fatalf("mutant %d lies before the device code", num)
		}
		mutated := string(src[:m.Edit.Start]) + m.Edit.Text + string(src[m.Edit.End:])
		return mutated[devAt:strings.Index(mutated, endMark)]
	}
	outcomes := map[int]string{}
	unviable := map[int]bool{}
	var nums []int
	for n := 1; n <= len(muts); n++ {
		nums = append(nums, n)
	}
	const batch = 50
	for b := 0; b < len(nums); b += batch {
		todo := nums[b:min(b+batch, len(nums))]
		for attempt := 0; len(todo) > 0; attempt++ {
			var tu strings.Builder
			tu.WriteString(prelude)
			type span struct{ from, to, num int }
			var spans []span
			for _, n := range todo {
				from := strings.Count(tu.String(), "\n") + 1
				fmt.Fprintf(&tu, "namespace m%d {\n%s}\n", n, copyOf(n))
				spans = append(spans, span{from, strings.Count(tu.String(), "\n"), n})
			}
			tu.WriteString("int main(int argc, char** argv) {\n  for (int k = 1; k < argc; k++) {\n    const int n = atoi(argv[k]);\n    printf(\"== mutant %d\\n\", n);\n    switch (n) {\n")
			for _, n := range todo {
				fmt.Fprintf(&tu, "      case %d: m%d::run_all(); break;\n", n, n)
			}
			tu.WriteString("    }\n  }\n  return 0;\n}\n")
			bin, diags, err := compileCxx(t, cxx, dir, fmt.Sprintf("batch%d_%d", b, attempt), []byte(tu.String()), "")
			if err != nil {
				bad := map[int]bool{}
				for _, m := range diagRE.FindAllSubmatch(diags, -1) {
					line, _ := strconv.Atoi(string(m[1]))
					for _, sp := range spans {
						if sp.from <= line && line <= sp.to {
							bad[sp.num] = true
						}
					}
				}
				if len(bad) == 0 || attempt > 2 {
					t.Fatalf("batch %d fails outside every copy: %v\n%s", b, err, diags)
				}
				var keep []int
				for _, n := range todo {
					if !bad[n] {
						keep = append(keep, n)
						continue
					}
					// alone, as the whole fixture
					m := muts[n-1]
					whole := append(append(append([]byte(nil), src[:m.Edit.Start]...), m.Edit.Text...), src[m.Edit.End:]...)
					if _, out, err := compileCxx(t, cxx, dir, fmt.Sprintf("alone%d", n), whole, ""); err == nil {
						t.Errorf("mutant %d fails to compile in a batch but compiles alone:\n%s", n, diags)
						_ = out
					}
					unviable[n] = true
				}
				todo = keep
				continue
			}
			for n, out := range runMany(t, bin, todo) {
				outcomes[n] = out
			}
			break
		}
	}
	return outcomes, unviable
}

// runMany runs an executable once with the numbers as arguments: it runs
// the fixture's code for each in turn, after a line "== mutant n". It
// returns each number's outcome as runBin does: its part of the output
// and how the process ended. A process that does not end well is run
// again for each number alone, so one crash or hang cannot stand for the
// others.
func runMany(t *testing.T, bin string, nums []int) map[int]string {
	t.Helper()
	out := map[int]string{}
	if len(nums) == 0 {
		return out
	}
	var args []string
	for _, n := range nums {
		args = append(args, strconv.Itoa(n))
	}
	stdout, end := runArgs(bin, args...)
	if end == "exit 0" {
		parts := strings.Split(stdout, "== mutant ")
		if len(parts) == len(nums)+1 && parts[0] == "" {
			for k, n := range nums {
				head := strconv.Itoa(n) + "\n"
				if !strings.HasPrefix(parts[k+1], head) {
					t.Fatalf("%s: part %d starts %q, want mutant %d", bin, k, parts[k+1][:min(20, len(parts[k+1]))], n)
				}
				out[n] = strings.TrimPrefix(parts[k+1], head) + "[exit 0]"
			}
			return out
		}
	}
	for _, n := range nums {
		stdout, end := runArgs(bin, strconv.Itoa(n))
		out[n] = strings.TrimPrefix(stdout, fmt.Sprintf("== mutant %d\n", n)) + "[" + end + "]"
	}
	return out
}

// runArgs runs bin with args and returns its stdout and how it ended.
// There is no time limit: every loop of the fixture is bounded under
// every mutant (its GUARD), so a run that hangs is a failure of the
// fixture, which go test's own timeout reports.
func runArgs(bin string, args ...string) (string, string) {
	var stdout bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout = &stdout
	end := "exit 0"
	if err := cmd.Run(); err != nil {
		end = err.Error()
	}
	return stdout.String(), end
}

// checkHits compares the schema's hits with the fixture's cold regions:
// a site is hit exactly when it lies outside them. With a mutant on
// (branch-true of lazy's condition) the cold body of lazy runs too.
func checkHits(t *testing.T, src []byte, muts []Mutant, sch *Schema, dropped map[int]bool, stderr string, on *Mutant) {
	t.Helper()
	line := strings.TrimSpace(stderr[strings.LastIndex(stderr, "hits ")+len("hits "):])
	if len(line) != sch.Sites {
		t.Fatalf("hits %q: %d sites, want %d", line, len(line), sch.Sites)
	}
	cold := markedRegions(src, "cold")
	if len(cold) != 6 {
		t.Fatalf("%d cold regions in the fixture", len(cold))
	}
	if on != nil {
		// the condition reads true: the body of lazy's if runs, and
		// cold_fn; b + 1 > 2 still does not, nor now does the original
		// condition inside the mutated site, nor the return after the if
		cold = append(append(cold[:3:3], cold[4]), markedRegions(src, "unless-true")...)
	}
	type siteInfo struct {
		start, end int
		what       string
	}
	sites := map[int]siteInfo{}
	for n, s := range sch.SiteOf {
		m := muts[n-1]
		info := siteInfo{m.Site.Start, m.Site.End, fmt.Sprintf("%s %q", m.Operator, src[m.Site.Start:m.Site.End])}
		if m.Site.Why != "" {
			info = siteInfo{m.Site.Probe, m.Site.Probe + 1, "probe of " + m.Func}
		}
		if dropped[n] {
			t.Errorf("dropped mutant %d has a site", n)
		}
		sites[s] = info
	}
	if len(sites) != sch.Sites {
		t.Fatalf("%d sites named by SiteOf, schema has %d", len(sites), sch.Sites)
	}
	for s, info := range sites {
		isCold := false
		for _, c := range cold {
			isCold = isCold || (c[0] <= info.start && info.end <= c[1])
		}
		if on != nil && on.Site.Start <= info.start && info.end <= on.Site.End && (info.start != on.Site.Start || info.end != on.Site.End) {
			isCold = true
		}
		if hit := line[s] == '1'; hit == isCold {
			t.Errorf("site %d (%s): hit %v, want %v (mutant on: %v)", s, info.what, hit, !isCold, on != nil)
		}
	}
}

func TestRenderText(t *testing.T) {
	const src = "#define GM_DEV __device__\nGM_DEV int f(int a, int b) { b = a + 1; return b; }\n"
	srcs := parseOne(t, src, Emulation)
	ms, err := Mutants(srcs, []string{"arith", "remove-stmt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Operator != "remove-stmt" || ms[1].Operator != "arith" {
		t.Fatalf("mutants %+v", ms)
	}
	third := ms[1].Site
	third.Text = "a * 1"
	probe := Site{Kind: ExprSite, Start: 0, End: 1, Why: "constant", Probe: ms[0].Site.Probe}
	muts := []SchemaMutant{{1, "k.hip", ms[0].Site}, {2, "k.hip", ms[1].Site}, {3, "k.hip", third}}
	files := map[string][]byte{"k.hip": []byte(src)}
	sch, err := Render(files, muts, []SchemaMutant{{4, "k.hip", probe}})
	if err != nil {
		t.Fatal(err)
	}
	r := sch.Files["k.hip"]
	want := "#define GM_DEV __device__\nGM_DEV int f(int a, int b) { GATHERMUT_HIT(0); " +
		"{ GATHERMUT_HIT(1); if (!(GATHERMUT_ON(1))) { b = (GATHERMUT_HIT(2), !(GATHERMUT_ON(2) || GATHERMUT_ON(3)) ? (a + 1) : GATHERMUT_ON(2) ? (a - 1) : (a * 1)); } " +
		"else if (GATHERMUT_ON(1)) { {} } } return b; }\n"
	if string(r.Src) != want {
		t.Errorf("rendered\n%s\nwant\n%s", r.Src, want)
	}
	if sch.Sites != 3 || fmt.Sprint(sch.SiteOf) != "map[1:1 2:2 3:2 4:0]" {
		t.Errorf("sites %d, SiteOf %v", sch.Sites, sch.SiteOf)
	}
	if h := sch.Header(); h != "#define GATHERMUT_SCHEMA 1\n#define GATHERMUT_SITES 3\n" {
		t.Errorf("header %q", h)
	}
	out := string(r.Src)
	for _, tt := range []struct {
		at   string
		want string
	}{
		{"a - 1", "[2 3]"},
		{"a * 1", "[2 3]"},
		{"GATHERMUT_HIT(2)", "[2 3]"},
		{"{} }", "[1]"},
		{"if (!(GATHERMUT_ON(1)))", "[1]"},
		{"return b", "[]"},
		{"#define", "[]"},
	} {
		if got := fmt.Sprint(r.Locate(strings.Index(out, tt.at))); got != tt.want {
			t.Errorf("Locate(%q) = %s, want %s", tt.at, got, tt.want)
		}
	}
	for _, g := range r.Regions {
		if g.Start < 0 || g.End > len(out) || g.Start >= g.End {
			t.Errorf("region %+v outside the output", g)
		}
	}

	// no mutants: the file is not rendered, and the header still declares
	// one site (an array of 0 bytes does not compile)
	sch, err = Render(files, nil, nil)
	if err != nil || len(sch.Files) != 0 || sch.Sites != 0 || !strings.Contains(sch.Header(), "GATHERMUT_SITES 1\n") {
		t.Errorf("no mutants: %v, %d files, %d sites, header %q", err, len(sch.Files), sch.Sites, sch.Header())
	}
}

func TestRenderErrors(t *testing.T) {
	files := map[string][]byte{"k.hip": []byte("0123456789abcdefghij")}
	site := func(start, end int) Site { return Site{Kind: ExprSite, Start: start, End: end, Text: "x"} }
	tests := []struct {
		name string
		muts []SchemaMutant
		want string
	}{
		{"constant", []SchemaMutant{{1, "k.hip", Site{Kind: ExprSite, Start: 1, End: 2, Why: "in a template argument"}}}, "mutant 1 cannot be switched: in a template argument"},
		{"no file", []SchemaMutant{{2, "other.hip", site(1, 2)}}, "mutant 2: no file other.hip"},
		{"past the end", []SchemaMutant{{3, "k.hip", site(5, 21)}}, "mutant 3: site [5, 21) outside k.hip"},
		{"negative", []SchemaMutant{{4, "k.hip", site(-1, 2)}}, "site [-1, 2) outside"},
		{"reversed", []SchemaMutant{{5, "k.hip", site(4, 2)}}, "site [4, 2) outside"},
		{"overlap", []SchemaMutant{{6, "k.hip", site(2, 8)}, {7, "k.hip", site(5, 12)}}, "sites [2, 8) and [5, 12) overlap"},
	}
	for _, tt := range tests {
		if _, err := Render(files, tt.muts, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
	// probes: at a body's brace of a file among the sources
	files["b.hip"] = []byte("int f() { return 1; }")
	for _, tt := range []struct {
		probe SchemaMutant
		want  string
	}{
		{SchemaMutant{8, "other.hip", Site{Probe: 0, Why: "c"}}, "mutant 8: no file other.hip"},
		{SchemaMutant{9, "b.hip", Site{Probe: 30, Why: "c"}}, "mutant 9: its probe at 30 is not a function body's brace"},
		{SchemaMutant{10, "b.hip", Site{Probe: -1, Why: "c"}}, "its probe at -1"},
		{SchemaMutant{11, "b.hip", Site{Probe: 2, Why: "c"}}, "its probe at 2"},
	} {
		if _, err := Render(files, nil, []SchemaMutant{tt.probe}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("probe %+v: %v, want an error with %q", tt.probe, err, tt.want)
		}
	}
	if sch, err := Render(files, nil, []SchemaMutant{{12, "b.hip", Site{Probe: 8, Why: "c"}}}); err != nil || string(sch.Files["b.hip"].Src) != "int f() { GATHERMUT_HIT(0); return 1; }" {
		t.Errorf("a probe alone: %v", err)
	}
	// nested and adjacent sites are fine
	if _, err := Render(files, []SchemaMutant{{1, "k.hip", site(2, 8)}, {2, "k.hip", site(3, 5)}, {3, "k.hip", site(8, 9)}}, nil); err != nil {
		t.Errorf("nested and adjacent sites: %v", err)
	}
}

// TestKernelSchemaCompiles renders the real kernel's schema (every
// switchable mutant of its device code, the others as probes) and checks
// that it compiles as the host emulation (c++, as build.sh builds it) and,
// where hipcc is installed, for gfx1100: no mutant of the kernel has to
// leave the schema for a compile error.
func TestKernelSchemaCompiles(t *testing.T) {
	files := kernelFiles(t)
	u, err := Preprocess("gather.hip", files, Emulation)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mutants(srcs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var muts, probes []SchemaMutant
	for i, m := range ms {
		sm := SchemaMutant{Num: i + 1, File: m.File, Site: m.Site}
		if m.Site.Why == "" {
			muts = append(muts, sm)
		} else {
			probes = append(probes, sm)
		}
	}
	sch, err := Render(files, muts, probes)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range files {
		if r := sch.Files[name]; r != nil {
			b = r.Src
		}
		if name == "gather.hip" {
			b = append([]byte(sch.Header()), b...)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := filepath.Join(dir, "gather.hip")
	compilers := [][]string{
		{"c++", "-x", "c++", "-std=c++14", "-DGM_HOST_EMULATION", "-ffp-contract=off", "-Wno-unknown-pragmas", "-fsyntax-only", entry},
		{"hipcc", "--offload-arch=gfx1100", "-nogpulib", "-ffp-contract=off", "-fsyntax-only", entry},
	}
	ran := 0
	for _, c := range compilers {
		if _, err := exec.LookPath(c[0]); err != nil {
			t.Logf("%s not installed: the kernel schema is not compiled with it", c[0])
			continue
		}
		ran++
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%s: the kernel schema (%d switchable mutants, %d probes) does not compile: %v\n%s", c[0], len(muts), len(probes), err, out)
		}
	}
	if ran == 0 {
		t.Skip("no c++ or hipcc")
	}
}
