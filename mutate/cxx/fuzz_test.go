package cxx

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are the kernel's files, the schema fixture and snippets.
func fuzzSeeds(f *testing.F) {
	for _, n := range []string{"gather.hip", "decoders.h", "compat.h", "codebooks.h"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "hipkern", n)); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "schema_fixture.cpp")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		snippetPrelude + "C::template chunk<N>(R{src}, e0, y);\n}\n",
		snippetPrelude + "for (int i = 0; i < 4; ++i) { if (y[i] > 0) continue; y[i] = -y[i]; }\n}\n",
		snippetPrelude + "switch (e0) { case 1: y[0] = (float)e0 * 0.5f; break; default: return; }\n}\n",
		hostMarkers + "struct S { int v; GM_DEV int get() const { return v << 2 | 1; } };\n",
		"#if defined(GM_HOST_EMULATION)\n#define __device__\n#endif\n__device__ int f(int a) { return a ? -a : ~a; }\n",
		"#define GM_DEV __device__\nGM_DEV int f(int a, int b = 2) { int z[3]; z[a] = b; return z[a - 1]; }\n",
	} {
		f.Add([]byte(s))
	}
}

// FuzzParse: Preprocess, Parse and Mutants never panic on any input; they
// return errors.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, env := range []Env{Emulation, NVCC} {
			u, err := Preprocess("k.hip", map[string][]byte{"k.hip": src}, env)
			if err != nil {
				continue
			}
			srcs, err := Parse(u)
			if err != nil {
				continue
			}
			ms, err := Mutants(srcs, nil)
			if err != nil {
				continue
			}
			for _, m := range ms {
				if m.Edit.Start < m.Site.Start || m.Edit.End > m.Site.End || m.Site.Start < 0 || m.Site.End > len(src) {
					t.Fatalf("%s mutant: edit [%d, %d) site [%d, %d) in %d bytes", m.Operator, m.Edit.Start, m.Edit.End, m.Site.Start, m.Site.End, len(src))
				}
			}
		}
	})
}

// FuzzRender: whatever parses renders: the switchable mutants' sites nest
// (Render never refuses them as overlapping), the rendered file lexes, and
// every region traces back to mutants.
func FuzzRender(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		u, err := Preprocess("k.hip", map[string][]byte{"k.hip": src}, Emulation)
		if err != nil {
			return
		}
		srcs, err := Parse(u)
		if err != nil {
			return
		}
		ms, err := Mutants(srcs, nil)
		if err != nil {
			return
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
		sch, err := Render(map[string][]byte{"k.hip": src}, muts, probes)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		r := sch.Files["k.hip"]
		if r == nil {
			if len(ms) > 0 {
				t.Fatalf("%d mutants and no rendered file", len(ms))
			}
			return
		}
		if _, err := Lex(r.Src); err != nil {
			t.Fatalf("the rendered file does not lex: %v", err)
		}
		for _, g := range r.Regions {
			if len(r.Locate(g.Start)) == 0 {
				t.Fatalf("region [%d, %d) traces to no mutant", g.Start, g.End)
			}
		}
		for _, m := range append(muts, probes...) {
			if _, ok := sch.SiteOf[m.Num]; !ok {
				t.Fatalf("mutant %d has no coverage site", m.Num)
			}
		}
	})
}
