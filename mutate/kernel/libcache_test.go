package kernel

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gathermut/mutate/cxx"
)

// TestSchemaLibraryCache: with Cache set, a schema build with the same
// inputs reads the library back (Cached) and it runs like the built one;
// a changed source builds again; without Cache nothing is read.
func TestSchemaLibraryCache(t *testing.T) {
	needCxx(t)
	t.Setenv("GATHERMUT_CACHE", t.TempDir())
	ctx := context.Background()
	k := fixtureRecipe()
	s, err := Read(fixtureRoot, k)
	if err != nil {
		t.Fatal(err)
	}
	_, nums := runnableKernelMutants(t, k)
	dir := t.TempDir()
	build := func(name string, cache bool) *Library {
		t.Helper()
		s.Cache = cache
		lib, _, out, err := s.BuildSchema(ctx, Emulation, cxx.Emulation.Name, filepath.Join(dir, name), nums, 3)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return lib
	}
	cases := []struct {
		name         string
		cache, wantC bool
		edit         bool // change a source first
	}{
		{"first build stores", true, false, false},
		{"same inputs read back", true, true, false},
		{"without the cache, built", false, false, false},
		{"a changed source builds again", true, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.edit {
				s.Files["kern/compat.h"] = append(append([]byte(nil), s.Files["kern/compat.h"]...), "\n// changed\n"...)
			}
			lib := build(c.name, c.cache)
			if lib.Cached != c.wantC {
				t.Errorf("Cached = %v, want %v", lib.Cached, c.wantC)
			}
			if (lib.Inputs != "") != c.cache {
				t.Errorf("Inputs = %q with the cache %v", lib.Inputs, c.cache)
			}
			if _, err := os.Stat(lib.Path); err != nil {
				t.Fatalf("library: %v", err)
			}
			if got := run(t, lib.Path, "scale", "42", "7"); got != "294" {
				t.Errorf("the library without a mutant: %s", got)
			}
		})
	}
}
