package cxx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestScratch(t *testing.T) {
	files := map[string][]byte{}
	for _, n := range []string{"gather.hip", "decoders.h", "compat.h", "codebooks.h"} {
		b, err := os.ReadFile(filepath.Join("../../hipkern", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	for _, env := range []Env{Emulation, NVCC, HIPCC} {
		u, err := Preprocess("gather.hip", files, env)
		if err != nil {
			t.Fatal(err)
		}
		srcs, err := Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range srcs {
			for _, f := range s.Funcs {
				if f.Device {
					n++
					if f.BodyErr != nil {
						t.Errorf("%s %s: %v", s.Name, f.Name, f.BodyErr)
					}
				}
			}
		}
		ms, err := Mutants(srcs, nil)
		if err != nil {
			t.Error(err)
		}
		byOp := map[string]int{}
		nc := 0
		for _, m := range ms {
			byOp[m.Operator]++
			if m.Site.Why != "" {
				nc++
			}
		}
		t.Logf("%s: %d device funcs, %d mutants (%d const) %v", env.Name, n, len(ms), nc, byOp)
	}
}

func TestScratch2(t *testing.T) {
	src := []byte("struct alignas(16) gm_vec4 { int x; };\n__device__ void f(unsigned char* o, gm_vec4 v) {\n  *(gm_vec4*)o = v;\n}\n")
	u, err := Preprocess("a.h", map[string][]byte{"a.h": src}, Emulation)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("types %v", srcs[0].Types["gm_vec4"])
	for _, f := range srcs[0].Funcs {
		t.Logf("%s %v %v", f.Name, f.Device, f.BodyErr)
	}
}

func TestScratchRender(t *testing.T) {
	files := map[string][]byte{}
	for _, n := range []string{"gather.hip", "decoders.h", "compat.h", "codebooks.h"} {
		b, _ := os.ReadFile(filepath.Join("../../hipkern", n))
		files[n] = b
	}
	u, _ := Preprocess("gather.hip", files, Emulation)
	srcs, _ := Parse(u)
	ms, _ := Mutants(srcs, nil)
	var sm, probes []SchemaMutant
	for i, m := range ms {
		x := SchemaMutant{Num: i + 1, File: m.File, Site: m.Site}
		if m.Site.Why == "" {
			sm = append(sm, x)
		} else {
			probes = append(probes, x)
		}
	}
	sch, err := Render(files, sm, probes)
	if err != nil {
		t.Fatal(err)
	}
	dir := "/tmp/schema-src"
	os.MkdirAll(dir, 0o755)
	for n, b := range files {
		out := b
		if r, ok := sch.Files[n]; ok {
			out = r.Src
		}
		if n == "gather.hip" {
			out = append([]byte(sch.Header()+"#line 1 \"gather.hip\"\n"), out...)
		}
		os.WriteFile(filepath.Join(dir, n), out, 0o644)
	}
	t.Logf("%d sites", sch.Sites)
}
