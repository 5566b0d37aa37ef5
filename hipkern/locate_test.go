package hipkern

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPlaces: after LibEnv, Load looks beside the executable, in the user
// cache directory, and (test binaries only) in build/ beside this
// package's source; none of them depends on the working directory or on a
// go.mod, so a test working in a temporary directory of another module
// gets the same places.
func TestPlaces(t *testing.T) {
	src, err := os.Getwd() // go test runs in the package's source directory
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	want := []place{
		{"beside the executable", filepath.Join(filepath.Dir(exe), LibName)},
		{"the user cache directory", filepath.Join(cache, "gathermut", LibName)},
		{"tests only: build.sh's default output", filepath.Join(src, "build", LibName)},
	}
	if got := places(); !slices.Equal(got, want) {
		t.Errorf("places() = %q\nwant %q", got, want)
	}
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "go.mod"), "module other\n\ngo 1.26\n")
	t.Chdir(other)
	if got := places(); !slices.Equal(got, want) {
		t.Errorf("from a working directory in another module: places() = %q\nwant %q", got, want)
	}
	// Without an executable's path or a cache directory, those rules say
	// why they have no path.
	saved := executable
	executable = func() (string, error) { return "", errors.New("no /proc") }
	t.Cleanup(func() { executable = saved })
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	want = []place{
		{"beside the executable (no /proc)", ""},
		{"the user cache directory (neither $XDG_CACHE_HOME nor $HOME are defined)", ""},
		want[2],
	}
	if got := places(); !slices.Equal(got, want) {
		t.Errorf("no executable path, no cache directory: places() = %q\nwant %q", got, want)
	}
}

// TestPlacesBuildDirectory: the build directory is a place only when the
// test binary knows this source file's absolute path: not under -trimpath
// (a path relative to the module), nor without caller information.
func TestPlacesBuildDirectory(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	saved := sourceFile
	t.Cleanup(func() { sourceFile = saved })
	const rule = "tests only: build.sh's default output"
	for _, c := range []struct {
		file string
		ok   bool
		want string // the place's path, "" for none
	}{
		{"/src/gathermut/hipkern/locate.go", true, filepath.Join("/src/gathermut/hipkern/build", LibName)},
		{"gathermut/hipkern/locate.go", true, ""},
		{"/src/gathermut/hipkern/locate.go", false, ""},
		{"", false, ""},
	} {
		sourceFile = func() (string, bool) { return c.file, c.ok }
		var got []string
		for _, p := range places() {
			if p.rule == rule {
				got = append(got, p.path)
			}
		}
		if want := []string{c.want}; c.want == "" && len(got) != 0 || c.want != "" && !slices.Equal(got, want) {
			t.Errorf("source file %q (known %v): build directory places %q, want %q", c.file, c.ok, got, c.want)
		}
	}
}

// TestLoadNowhere: with LibEnv unset and no place holding the library,
// Load returns locate's error, naming every place tried, and loads
// nothing; it can be retried.
func TestLoadNowhere(t *testing.T) {
	resetLoader(t)
	t.Setenv(LibEnv, "")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	savedExe, savedSrc := executable, sourceFile
	t.Cleanup(func() { executable, sourceFile = savedExe, savedSrc })
	executable = func() (string, error) { return "", errors.New("no /proc") }
	sourceFile = func() (string, bool) { return "gathermut/hipkern/locate.go", true } // -trimpath: no build directory
	lib := filepath.Join(cache, "gathermut", LibName)
	want := "hipkern: no kernel library: " + LibEnv + " is unset and none of these holds it: " +
		"beside the executable (no /proc); " + lib + " (the user cache directory: missing) " +
		"(build it with bash hipkern/build.sh --out PATH)"
	for range 2 {
		if err := Load(); errText(err) != want {
			t.Errorf("Load: %v\nwant %s", err, want)
		}
		if loader.lib != nil || loader.fatal != nil {
			t.Errorf("after the refusal: loaded %v, fatal %v", loader.lib, loader.fatal)
		}
	}
}

// TestFirstFile: the first place holding a regular file wins; a directory
// there is passed over; with none, the error names LibEnv and every place
// tried with why it was passed over.
func TestFirstFile(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a", LibName), filepath.Join(dir, "b", LibName), filepath.Join(dir, "c", LibName)
	for _, d := range []string{filepath.Dir(a), b, filepath.Dir(c)} { // b is a directory
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d := filepath.Join(dir, "file", LibName) // under a regular file: stat fails otherwise than missing
	writeFile(t, filepath.Dir(d), "a file")
	ps := []place{{"rule a", a}, {"rule none (why)", ""}, {"rule b", b}, {"rule d", d}, {"rule c", c}}
	want := "hipkern: no kernel library: GATHERMUT_HIPKERN_LIB is unset and none of these holds it: " +
		a + " (rule a: missing); rule none (why); " + b + " (rule b: not a file); " +
		d + " (rule d: stat " + d + ": not a directory); " + c + " (rule c: missing) " +
		"(build it with bash hipkern/build.sh --out PATH)"
	if p, err := firstFile(ps); p != "" || errText(err) != want {
		t.Errorf("nothing there: %q, %v\nwant %s", p, err, want)
	}
	writeFile(t, c, "lib")
	if p, err := firstFile(ps); p != c || err != nil {
		t.Errorf("c there: %q, %v; want %s", p, err, c)
	}
	writeFile(t, a, "lib")
	if p, err := firstFile(ps); p != a || err != nil {
		t.Errorf("a and c there: %q, %v; want %s", p, err, a)
	}
	link := filepath.Join(dir, "link.so")
	if err := os.Symlink(c, link); err != nil {
		t.Fatal(err)
	}
	if p, err := firstFile([]place{{"link", link}}); p != link || err != nil {
		t.Errorf("a link to a file: %q, %v; want %s", p, err, link)
	}
}

// TestLocate: LibEnv is taken as it is, found or not (the loader's error
// then names it); unset, the first place that holds the library.
func TestLocate(t *testing.T) {
	t.Setenv(LibEnv, "/somewhere/lib.so")
	if p, err := locate(); err != nil || p != "/somewhere/lib.so" {
		t.Errorf("with %s set: %q, %v", LibEnv, p, err)
	}
	t.Setenv(LibEnv, "")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	lib := filepath.Join(cache, "gathermut", LibName)
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, lib, "lib")
	if p, err := locate(); err != nil || p != lib {
		t.Errorf("installed in the cache directory: %q, %v; want %s", p, err, lib)
	}
}
