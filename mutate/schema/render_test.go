package schema_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
	"gathermut/mutate/schema"
)

// span returns the range of the first occurrence of sub in src.
func span(t *testing.T, src, sub string) (int, int) {
	t.Helper()
	i := strings.Index(src, sub)
	if i < 0 {
		t.Fatalf("%q not in %q", sub, src)
	}
	return i, i + len(sub)
}

var testNames = schema.Names{Active: "A", Hits: "H", Prefix: "x"}

// entry is a schema entry written by text: kind "probe" puts a probe
// before at; "none" is an entry without a site.
type entry struct {
	n          int
	file       string
	kind       mutant.SiteKind
	form       string
	at         string
	text       string
	name       string
	value      string // a const site's value, within at
	block      bool
	noCover    bool
	probeAfter bool // the probe goes after at, not before
}

func (e entry) make(t *testing.T, src string) schema.Entry {
	t.Helper()
	file := e.file
	if file == "" {
		file = "p/p.go"
	}
	switch e.kind {
	case "none":
		return schema.Entry{N: e.n, File: file}
	case "probe":
		s, end := span(t, src, e.at)
		if e.probeAfter {
			s = end
		}
		return schema.Entry{N: e.n, File: file, Site: &mutant.Site{Probe: s}, NoCover: e.noCover}
	}
	s, end := span(t, src, e.at)
	site := &mutant.Site{Kind: e.kind, Form: e.form, Start: s, End: end, Type: "int", Text: e.text, Name: e.name, Block: e.block, Probe: -1}
	if e.value != "" {
		vs, _ := span(t, src[s:end], e.value)
		site.ValueStart, site.ValueEnd = s+vs, s+vs+len(e.value)
	}
	return schema.Entry{N: e.n, File: file, Site: site, NoCover: e.noCover}
}

// TestRender: the schema of one file for each kind of site, shared and
// nested sites, probes, and the numbering of sites and coverage.
func TestRender(t *testing.T) {
	const src = "package p\n\nfunc f(x int) int {\n\tif x > 0 { x = 1 }\n\treturn x + 1\n}\n"
	for _, c := range renderCases {
		t.Run(c.name, func(t *testing.T) {
			var entries []schema.Entry
			for _, e := range c.entries {
				entries = append(entries, e.make(t, src))
			}
			pkg, next, err := schema.Render(testNames, map[string][]byte{"p/p.go": []byte(src)}, entries, 5)
			if err != nil {
				t.Fatal(err)
			}
			got := string(pkg.Files["p/p.go"].Source)
			head := "package p\n\nfunc f(x int) int {\n"
			if !strings.HasPrefix(got, head) || got[len(head):] != c.want {
				t.Errorf("rendered:\n%q\nwant the body:\n%q", strings.TrimPrefix(got, head), c.want)
			}
			if next != c.next {
				t.Errorf("next site %d, want %d", next, c.next)
			}
			if !reflect.DeepEqual(pkg.Cover, c.cover) {
				t.Errorf("cover %v, want %v", pkg.Cover, c.cover)
			}
			if c.consts == nil {
				c.consts = map[string][]int{}
			}
			if !reflect.DeepEqual(pkg.Consts, c.consts) {
				t.Errorf("consts %v, want %v", pkg.Consts, c.consts)
			}
		})
	}
}

// renderCase is one of TestRender's cases.
type renderCase struct {
	name    string
	entries []entry
	want    string // the rendered function body (from "\tif" to the end)
	cover   map[int][]int
	consts  map[string][]int
	next    int
}

// renderCases are TestRender's cases.
var renderCases = []renderCase{
	{name: "expr", entries: []entry{{n: 1, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}},
		want:  "\tif x > 0 { x = 1 }\n\treturn func() int { H[5] = 1; switch A { case 1: return x - 1; }; return x + 1 }()\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "expr-shared", entries: []entry{{n: 1, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}, {n: 2, kind: mutant.ExprSite, at: "x + 1", text: "x * 1"}},
		want:  "\tif x > 0 { x = 1 }\n\treturn func() int { H[5] = 1; switch A { case 1: return x - 1; case 2: return x * 1; }; return x + 1 }()\n}\n",
		cover: map[int][]int{1: {5}, 2: {5}}, next: 6},
	{name: "expr-no-cover", entries: []entry{{n: 1, kind: mutant.ExprSite, at: "x + 1", text: "x - 1", noCover: true}, {n: 2, kind: mutant.ExprSite, at: "x + 1", text: "x * 1"}},
		want:  "\tif x > 0 { x = 1 }\n\treturn func() int { H[5] = 1; switch A { case 1: return x - 1; case 2: return x * 1; }; return x + 1 }()\n}\n",
		cover: map[int][]int{2: {5}}, next: 6},
	{name: "stmt", entries: []entry{{n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: "return 0"}},
		want:  "\tif x > 0 { x = 1 }\n\tif A == 1 { return 0 } else { H[5] = 1; return x + 1 }\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "stmt-two", entries: []entry{{n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: "return 0"}, {n: 3, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: ""}},
		want:  "\tif x > 0 { x = 1 }\n\tif A == 1 { return 0 } else if A == 3 {  } else { H[5] = 1; return x + 1 }\n}\n",
		cover: map[int][]int{1: {5}, 3: {5}}, next: 6},
	{name: "stmt-else", entries: []entry{{n: 1, kind: mutant.StmtSite, form: mutant.InElse, at: "x = 1", text: "x = 2"}},
		want:  "\tif x > 0 { { if A == 1 { x = 2 } else { H[5] = 1; x = 1 } } }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "stmt-func", entries: []entry{{n: 1, kind: mutant.StmtSite, form: mutant.InFunc, at: "x = 1", text: "x = 2"}},
		want:  "\tif x > 0 { func() { if A == 1 { x = 2 } else { H[5] = 1; x = 1 } }() }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "block", entries: []entry{{n: 1, kind: mutant.BlockSite, at: "{ x = 1 }", text: "{}"}},
		want:  "\tif x > 0 { if A == 1 {} else { H[5] = 1;  x = 1 } }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "block-two", entries: []entry{{n: 1, kind: mutant.BlockSite, at: "{ x = 1 }", text: "{}"}, {n: 2, kind: mutant.BlockSite, at: "{ x = 1 }", text: "{ x = 2 }"}},
		want:  "\tif x > 0 { if A == 1 {} else if A == 2 { x = 2 } else { H[5] = 1;  x = 1 } }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}, 2: {5}}, next: 6},
	{name: "block-without-brace", entries: []entry{{n: 1, kind: mutant.BlockSite, at: "x = 1", text: "{}"}},
		want:  "\tif x > 0 { { if A == 1 {} else { H[5] = 1; {x = 1} } }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "probe", entries: []entry{{n: 1, kind: "probe", at: "return"}},
		want:  "\tif x > 0 { x = 1 }\n\tH[5] = 1; return x + 1\n}\n",
		cover: map[int][]int{1: {5}}, next: 6},
	{name: "probe-shared", entries: []entry{{n: 1, kind: "probe", at: "return"}, {n: 2, kind: "probe", at: "return"}},
		want:  "\tif x > 0 { x = 1 }\n\tH[5] = 1; return x + 1\n}\n",
		cover: map[int][]int{1: {5}, 2: {5}}, next: 6},
	{name: "no-site", entries: []entry{{n: 1, kind: "none"}, {n: 2, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}},
		want:  "\tif x > 0 { x = 1 }\n\treturn func() int { H[5] = 1; switch A { case 2: return x - 1; }; return x + 1 }()\n}\n",
		cover: map[int][]int{2: {5}}, next: 6},
	{name: "probe-before-stmt", entries: []entry{{n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: "return 0"}, {n: 2, kind: "probe", at: "return"}},
		want:  "\tif x > 0 { x = 1 }\n\tH[5] = 1; if A == 1 { return 0 } else { H[6] = 1; return x + 1 }\n}\n",
		cover: map[int][]int{1: {6}, 2: {5}}, next: 7},
	{name: "probe-after-expr", entries: []entry{{n: 1, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}, {n: 2, kind: "probe", at: "x + 1", probeAfter: true}},
		want:  "\tif x > 0 { x = 1 }\n\treturn func() int { H[5] = 1; switch A { case 1: return x - 1; }; return x + 1 }()H[6] = 1; \n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, next: 7},
	{name: "probe-inside-stmt", entries: []entry{{n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: "return 0"}, {n: 2, kind: "probe", at: "x + 1"}},
		want:  "\tif x > 0 { x = 1 }\n\tif A == 1 { return 0 } else { H[5] = 1; return H[6] = 1; x + 1 }\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, next: 7},
	{name: "nested", entries: []entry{{n: 2, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}, {n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: "return 0"}},
		want:  "\tif x > 0 { x = 1 }\n\tif A == 1 { return 0 } else { H[5] = 1; return func() int { H[6] = 1; switch A { case 2: return x - 1; }; return x + 1 }() }\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, next: 7},
	{name: "siblings", entries: []entry{{n: 3, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}, {n: 2, kind: mutant.ExprSite, at: "1 }", text: "2 }"}, {n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "if x > 0 { x = 1 }", text: ""}},
		want:  "\tif A == 1 {  } else { H[5] = 1; if x > 0 { x = func() int { H[6] = 1; switch A { case 2: return 2 }; }; return 1 } }() }\n\treturn func() int { H[7] = 1; switch A { case 3: return x - 1; }; return x + 1 }()\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}, 3: {7}}, next: 8},
	{name: "stmt-over-expr", entries: []entry{{n: 2, kind: mutant.ExprSite, at: "x = 1", text: "x"}, {n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "x = 1", text: "x = 2"}},
		want:  "\tif x > 0 { if A == 1 { x = 2 } else { H[5] = 1; func() int { H[6] = 1; switch A { case 2: return x; }; return x = 1 }() } }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, next: 7},
	{name: "block-over-expr", entries: []entry{{n: 2, kind: mutant.ExprSite, at: "{ x = 1 }", text: "x"}, {n: 1, kind: mutant.BlockSite, at: "{ x = 1 }", text: "{}"}},
		want:  "\tif x > 0 { if A == 1 {} else { H[5] = 1; {func() int { H[6] = 1; switch A { case 2: return x; }; return { x = 1 } }()} }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, next: 7},
	{name: "stmt-over-block", entries: []entry{{n: 2, kind: mutant.BlockSite, at: "{ x = 1 }", text: "{}"}, {n: 1, kind: mutant.StmtSite, form: mutant.InList, at: "{ x = 1 }", text: "{ x = 2 }"}},
		want:  "\tif x > 0 if A == 1 { { x = 2 } } else { H[5] = 1; { if A == 2 {} else { H[6] = 1;  x = 1 } } }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, next: 7},
	{name: "const-over-stmt", entries: []entry{{n: 2, kind: mutant.StmtSite, form: mutant.InList, at: "x = 1", text: "x = 3"}, {n: 1, kind: mutant.ConstSite, at: "x = 1", name: "x", value: "1", text: "2"}},
		want:  "\tif x > 0 { var x int = func() int { H[5] = 1; switch A { case 1: return 2; }; return 1 }() }\n\treturn x + 1\n}\n",
		cover: map[int][]int{1: {5}, 2: {6}}, consts: map[string][]int{"x": {1}}, next: 7},
}

// TestRenderConst: a constant made a variable in place, or taken out of
// its block and appended to the file.
func TestRenderConst(t *testing.T) {
	const src = "package p\n\nconst c = 1\n\nconst (\n\ta = 3\n\tb = 4\n)\n"
	for _, c := range []struct {
		name    string
		entries []entry
		want    string
		consts  map[string][]int
	}{
		{name: "alone", entries: []entry{{n: 1, kind: mutant.ConstSite, at: "const c = 1", name: "c", value: "1", text: "2"}, {n: 2, kind: mutant.ConstSite, at: "const c = 1", name: "c", value: "1", text: "0"}},
			want:   "package p\n\nvar c int = func() int { H[5] = 1; switch A { case 1: return 2; case 2: return 0; }; return 1 }()\n\nconst (\n\ta = 3\n\tb = 4\n)\n",
			consts: map[string][]int{"c": {1, 2}}},
		{name: "block", entries: []entry{{n: 1, kind: mutant.ConstSite, at: "b = 4", name: "b", value: "4", text: "5", block: true}},
			want:   "package p\n\nconst c = 1\n\nconst (\n\ta = 3\n\t\n)\n\nvar b int = func() int { H[5] = 1; switch A { case 1: return 5; }; return 4 }()\n",
			consts: map[string][]int{"b": {1}}},
		{name: "two", entries: []entry{{n: 1, kind: mutant.ConstSite, at: "b = 4", name: "b", value: "4", text: "5", block: true}, {n: 2, kind: mutant.ConstSite, at: "a = 3", name: "a", value: "3", text: "6", block: true}, {n: 3, kind: mutant.ConstSite, at: "const c = 1", name: "c", value: "1", text: "2"}},
			want:   "package p\n\nvar c int = func() int { H[5] = 1; switch A { case 3: return 2; }; return 1 }()\n\nconst (\n\t\n\t\n)\n\nvar a int = func() int { H[6] = 1; switch A { case 2: return 6; }; return 3 }()\n\nvar b int = func() int { H[7] = 1; switch A { case 1: return 5; }; return 4 }()\n",
			consts: map[string][]int{"a": {2}, "b": {1}, "c": {3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var entries []schema.Entry
			for _, e := range c.entries {
				entries = append(entries, e.make(t, src))
			}
			pkg, _, err := schema.Render(testNames, map[string][]byte{"p/p.go": []byte(src)}, entries, 5)
			if err != nil {
				t.Fatal(err)
			}
			f := pkg.Files["p/p.go"]
			if got := string(f.Source); got != c.want {
				t.Errorf("rendered:\n%q\nwant:\n%q", got, c.want)
			}
			if !reflect.DeepEqual(pkg.Consts, c.consts) {
				t.Errorf("consts %v, want %v", pkg.Consts, c.consts)
			}
			// a compile error in a constant's initializer is its mutants'
			for name, muts := range c.consts {
				i := strings.Index(string(f.Source), "var "+name+" ")
				if got := f.Locate(i + 4); !reflect.DeepEqual(got, muts) {
					t.Errorf("Locate in var %s: %v, want %v", name, got, muts)
				}
			}
		})
	}
}

// TestRenderFiles: sites are numbered file by file in the order of the
// files' names, from the first site given.
func TestRenderFiles(t *testing.T) {
	srcs := map[string][]byte{"p/b.go": []byte("package p\n\nvar b = 1\n"), "p/a.go": []byte("package p\n\nvar a = 1\n")}
	entries := []schema.Entry{
		{N: 1, File: "p/b.go", Site: &mutant.Site{Kind: mutant.ExprSite, Start: 19, End: 20, Type: "int", Text: "2"}},
		{N: 2, File: "p/a.go", Site: &mutant.Site{Kind: mutant.ExprSite, Start: 19, End: 20, Type: "int", Text: "3"}},
	}
	pkg, next, err := schema.Render(testNames, srcs, entries, 0)
	if err != nil {
		t.Fatal(err)
	}
	if next != 2 || !reflect.DeepEqual(pkg.Cover, map[int][]int{1: {1}, 2: {0}}) {
		t.Errorf("next %d, cover %v; want 2 and map[1:[1] 2:[0]]", next, pkg.Cover)
	}
	for f, want := range map[string]string{
		"p/a.go": "package p\n\nvar a = func() int { H[0] = 1; switch A { case 2: return 3; }; return 1 }()\n",
		"p/b.go": "package p\n\nvar b = func() int { H[1] = 1; switch A { case 1: return 2; }; return 1 }()\n",
	} {
		if got := string(pkg.Files[f].Source); got != want {
			t.Errorf("%s:\n%q\nwant\n%q", f, got, want)
		}
	}
}

// TestRenderErrors: entries that do not fit their file are errors that
// say what is wrong.
func TestRenderErrors(t *testing.T) {
	const src = "package p\n\nvar v = 1 + 2\n"
	site := func(start, end int) *mutant.Site {
		return &mutant.Site{Kind: mutant.ExprSite, Start: start, End: end, Type: "int", Text: "0"}
	}
	for _, c := range []struct {
		name    string
		entries []schema.Entry
		want    string
	}{
		{"no-source", []schema.Entry{{N: 1, File: "p/q.go", Site: site(19, 20)}}, "schema: no source for p/q.go"},
		{"negative-start", []schema.Entry{{N: 1, File: "p/p.go", Site: site(-1, 20)}}, "schema: p/p.go: site [-1, 20) outside the file"},
		{"past-end", []schema.Entry{{N: 1, File: "p/p.go", Site: site(19, len(src)+1)}}, fmt.Sprintf("schema: p/p.go: site [19, %d) outside the file", len(src)+1)},
		{"reversed", []schema.Entry{{N: 1, File: "p/p.go", Site: site(20, 19)}}, "schema: p/p.go: site [20, 19) outside the file"},
		{"overlap", []schema.Entry{{N: 1, File: "p/p.go", Site: site(19, 22)}, {N: 2, File: "p/p.go", Site: site(21, 24)}}, "schema: p/p.go: sites [19, 22) and [21, 24) overlap"},
		{"overlap-nested", []schema.Entry{{N: 1, File: "p/p.go", Site: site(11, 24)}, {N: 2, File: "p/p.go", Site: site(19, 22)}, {N: 3, File: "p/p.go", Site: site(21, 24)}}, "schema: p/p.go: sites [19, 22) and [21, 24) overlap"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := schema.Render(testNames, map[string][]byte{"p/p.go": []byte(src)}, c.entries, 0)
			if err == nil || err.Error() != c.want {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	// the edges of the file are inside it
	if _, _, err := schema.Render(testNames, map[string][]byte{"p/p.go": []byte(src)}, []schema.Entry{{N: 1, File: "p/p.go", Site: site(0, len(src))}}, 0); err != nil {
		t.Errorf("a site over the whole file: %v", err)
	}
	if _, _, err := schema.Render(testNames, map[string][]byte{"p/p.go": []byte(src)}, []schema.Entry{{N: 1, File: "p/p.go", Site: site(19, 19)}}, 0); err != nil {
		t.Errorf("an empty site: %v", err)
	}
}

// TestLocate: an offset of a rendered file belongs to the mutants of the
// innermost region holding it; of two alike, the last.
func TestLocate(t *testing.T) {
	f := &schema.File{Regions: []schema.Region{
		{Start: 10, End: 30, Mutants: []int{1, 2}},
		{Start: 12, End: 16, Mutants: []int{1}},
		{Start: 20, End: 24, Mutants: []int{2}},
		{Start: 20, End: 24, Mutants: []int{3}},
		{Start: 40, End: 41, Mutants: []int{4}},
	}}
	for _, c := range []struct {
		offset int
		want   []int
	}{
		{9, nil}, {10, []int{1, 2}}, {11, []int{1, 2}}, {12, []int{1}}, {15, []int{1}}, {16, []int{1, 2}},
		{20, []int{3}}, {23, []int{3}}, {24, []int{1, 2}}, {29, []int{1, 2}}, {30, nil}, {40, []int{4}}, {41, nil},
	} {
		if got := f.Locate(c.offset); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Locate(%d) = %v, want %v", c.offset, got, c.want)
		}
	}
	if got := (&schema.File{}).Locate(0); got != nil {
		t.Errorf("Locate in a file without regions: %v", got)
	}
}

// TestRenderRegions: a compile error in a mutant's text is that mutant's;
// elsewhere in the site it is every mutant's of the site.
func TestRenderRegions(t *testing.T) {
	const src = "package p\n\nfunc f(x int) int {\n\treturn x + 1\n}\n"
	entries := []schema.Entry{
		entry{n: 1, kind: mutant.ExprSite, at: "x + 1", text: "x - 1"}.make(t, src),
		entry{n: 2, kind: mutant.ExprSite, at: "x + 1", text: "x * 1"}.make(t, src),
		entry{n: 3, kind: mutant.StmtSite, form: mutant.InList, at: "return x + 1", text: "return 7"}.make(t, src),
		entry{n: 4, kind: "probe", at: "return"}.make(t, src),
	}
	pkg, _, err := schema.Render(testNames, map[string][]byte{"p/p.go": []byte(src)}, entries, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := pkg.Files["p/p.go"]
	out := string(f.Source)
	for _, c := range []struct {
		at   string
		want []int
	}{
		{"x * 1", []int{2}}, {"x - 1", []int{1}}, {"switch", []int{1, 2}}, {"7", []int{3}}, {"else", []int{3}},
		{"H[0]", []int{4}}, {"package", nil}, {"}\n", nil},
	} {
		i := strings.LastIndex(out, c.at)
		if got := f.Locate(i); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Locate at %q: %v, want %v\n%s", c.at, got, c.want, out)
		}
	}
}

// TestSupport: the support file declares the switch and as many hits as
// sites, at least one.
func TestSupport(t *testing.T) {
	for _, c := range []struct{ sites, want int }{{0, 1}, {1, 1}, {2, 2}, {300, 300}} {
		got := string(schema.Support("q", testNames, c.sites))
		for _, want := range []string{"package q\n", "var A = func() int {", "var H = func() []byte {", fmt.Sprintf("const sites = %d\n", c.want), "xos.Getenv(\"GATHERMUT_MUTANT\")", "xsyscall.Mmap("} {
			if !strings.Contains(got, want) {
				t.Errorf("Support for %d sites lacks %q", c.sites, want)
			}
		}
	}
}
