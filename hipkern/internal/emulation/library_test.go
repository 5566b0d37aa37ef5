package emulation

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSourcesKey: the key is the sha256 of each kernel source's name, size
// and bytes (*.hip, then *.h, then build.sh), so it changes with any
// byte or name of them, and with nothing else.
func TestSourcesKey(t *testing.T) {
	write := func(files map[string]string) string {
		dir := t.TempDir()
		for name, content := range files {
			writeFile(t, filepath.Join(dir, name), content)
		}
		return dir
	}
	base := map[string]string{"gather.hip": "abc", "x.h": "de", "build.sh": "f", "README.md": "zz"}
	key, err := sourcesKey(write(base))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%x", sha256.Sum256([]byte("gather.hip 3\nabc"+"x.h 2\nde"+"build.sh 1\nf")))
	if key != want {
		t.Errorf("key %s, want %s", key, want)
	}
	edited := func(edit func(m map[string]string)) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		edit(m)
		return m
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		same  bool
	}{
		{"another directory", base, true},
		{"another README", edited(func(m map[string]string) { m["README.md"] = "other" }), true},
		{"a byte of gather.hip", edited(func(m map[string]string) { m["gather.hip"] = "abd" }), false},
		{"a byte of build.sh", edited(func(m map[string]string) { m["build.sh"] = "g" }), false},
		{"a header renamed", edited(func(m map[string]string) { m["y.h"] = m["x.h"]; delete(m, "x.h") }), false},
		{"a header added", edited(func(m map[string]string) { m["z.h"] = "" }), false},
	} {
		got, err := sourcesKey(write(c.files))
		if err != nil || (got == key) != c.same {
			t.Errorf("%s: key %s, %v; base key %s, want same=%v", c.name, got, err, key, c.same)
		}
	}
	if _, err := sourcesKey(write(map[string]string{"build.sh": "f"})); err != nil {
		t.Errorf("a lone build.sh: %v", err)
	}
	empty := write(map[string]string{"README.md": "zz"})
	if _, err := sourcesKey(empty); errText(err) != "no kernel sources in "+empty {
		t.Errorf("no sources: %v", err)
	}
	dir := write(map[string]string{"build.sh": "f"})
	if err := os.Mkdir(filepath.Join(dir, "gather.hip"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sourcesKey(dir); errText(err) != "read "+filepath.Join(dir, "gather.hip")+": is a directory" {
		t.Errorf("unreadable source: %v", err)
	}
}

// fakeSources writes a kernel source directory whose build.sh stands in
// for the real one: it makes the output's directory, writes its arguments
// there (one a line), then runs tail (bash).
func fakeSources(t *testing.T, tail string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "gather.hip"), "// a fake kernel\n")
	writeFile(t, filepath.Join(dir, "build.sh"), `set -eu
for a in "$@"; do out=$a; done
mkdir -p "$(dirname "$out")"
printf '%s\n' "$@" > "$out"
`+tail+"\n")
	return dir
}

// needBuildTools skips where emulationLibrary would refuse to build.
func needBuildTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "c++"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH: %v", tool, err)
		}
	}
}

// libDir returns the directory emulationLibrary builds src's library in.
func libDir(t *testing.T, src, cache string) string {
	t.Helper()
	key, err := sourcesKey(src)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(cache, "hipkern-emulation-"+key[:16])
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

var tmpOutRE = regexp.MustCompile(`^build-[0-9a-f]{16}\.so$`)

// TestLibraryBuild: on a cache miss the library is built by
// src/build.sh --compiler emulate into a temporary name beside its final
// one and renamed, leaving nothing else behind; a hit needs no tools; the
// missing tools are ErrNoEmulation; a failed build, and a final name taken
// by a directory, are errors that leave no temporary behind.
func TestLibraryBuild(t *testing.T) {
	needBuildTools(t)
	t.Run("build, then cached", func(t *testing.T) {
		src, cache := fakeSources(t, ""), t.TempDir()
		dir := libDir(t, src, cache)
		lib, err := library(src, cache)
		if err != nil || lib != filepath.Join(dir, "libgathermut_hip.so") {
			t.Fatalf("emulationLibrary = %q, %v; want %s", lib, err, filepath.Join(dir, "libgathermut_hip.so"))
		}
		args, err := os.ReadFile(lib)
		if err != nil {
			t.Fatal(err)
		}
		a := strings.Split(strings.TrimSuffix(string(args), "\n"), "\n")
		if len(a) != 6 || !slices.Equal(a[:5], []string{"--compiler", "emulate", "--src", src, "--out"}) ||
			filepath.Dir(a[5]) != dir || !tmpOutRE.MatchString(filepath.Base(a[5])) {
			t.Errorf("build.sh arguments %q, want --compiler emulate --src %s --out %s/build-<random>.so", a, src, dir)
		}
		if got := entries(t, dir); !slices.Equal(got, []string{"libgathermut_hip.so"}) {
			t.Errorf("after the build %s holds %q", dir, got)
		}
		t.Setenv("PATH", t.TempDir())
		if again, err := library(src, cache); err != nil || again != lib {
			t.Errorf("cached, with no tools on PATH: %q, %v; want %s", again, err, lib)
		}
	})
	t.Run("tools missing", func(t *testing.T) {
		bash, _ := exec.LookPath("bash")
		bin := t.TempDir()
		for _, c := range []struct{ link, missing string }{{"", "bash"}, {"bash", "c++"}} {
			if c.link != "" {
				if err := os.Symlink(bash, filepath.Join(bin, c.link)); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			cache := t.TempDir()
			_, err := library(fakeSources(t, ""), cache)
			want := "hipkern: no host emulation here: " + c.missing + " is not on PATH to build it (build.sh --compiler emulate)"
			if !errors.Is(err, ErrNoEmulation) || err.Error() != want {
				t.Errorf("without %s: %v\nwant %s", c.missing, err, want)
			}
			if got := entries(t, cache); len(got) != 0 {
				t.Errorf("without %s the cache holds %q", c.missing, got)
			}
		}
	})
	t.Run("build fails", func(t *testing.T) {
		src, cache := fakeSources(t, "echo 'c++: error: broken' >&2; exit 1"), t.TempDir()
		_, err := library(src, cache)
		want := "hipkern: host emulation: build.sh --compiler emulate: exit status 1: c++: error: broken\n"
		if errText(err) != want || errors.Is(err, ErrNoEmulation) {
			t.Errorf("failed build: %q\nwant %q", errText(err), want)
		}
		if got := entries(t, libDir(t, src, cache)); len(got) != 0 {
			t.Errorf("the failed build left %q", got)
		}
	})
	t.Run("name taken", func(t *testing.T) {
		src, cache := fakeSources(t, ""), t.TempDir()
		lib := filepath.Join(libDir(t, src, cache), "libgathermut_hip.so")
		if err := os.MkdirAll(filepath.Join(lib, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := library(src, cache)
		re := regexp.MustCompile(`^hipkern: host emulation: rename (\S+) ` + regexp.QuoteMeta(lib) + `: file exists$`)
		if m := re.FindStringSubmatch(errText(err)); m == nil || !tmpOutRE.MatchString(filepath.Base(m[1])) {
			t.Errorf("a directory at the library's name: %v", err)
		}
		if got := entries(t, filepath.Dir(lib)); !slices.Equal(got, []string{"libgathermut_hip.so"}) {
			t.Errorf("the failed rename left %q", got)
		}
	})
	t.Run("no sources", func(t *testing.T) {
		src := t.TempDir()
		if _, err := library(src, t.TempDir()); errText(err) != "hipkern: host emulation: no kernel sources in "+src {
			t.Errorf("no sources: %v", err)
		}
	})
}

// TestLibraryCache: Library keeps the library for the
// kernel sources (hipkern/, two directories up) under the user cache directory, or under the
// temporary directory where there is none.
func TestLibraryCache(t *testing.T) {
	src, err := filepath.Abs(filepath.Join("..", "..")) // go test runs in this package's directory
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // a miss must not build: it fails at once
	for _, c := range []struct {
		name      string
		xdg, home string
	}{
		{"XDG_CACHE_HOME", t.TempDir(), ""},
		{"HOME", "", t.TempDir()},
		{"neither", "", ""},
	} {
		tmp := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", c.xdg)
		t.Setenv("HOME", c.home)
		t.Setenv("TMPDIR", tmp)
		cache := map[string]string{"XDG_CACHE_HOME": c.xdg, "HOME": filepath.Join(c.home, ".cache"), "neither": tmp}[c.name]
		// A library already there: Library returns it unbuilt.
		want := filepath.Join(libDir(t, src, filepath.Join(cache, "gathermut")), "libgathermut_hip.so")
		if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, want, "cached")
		if got, err := Library(); err != nil || got != want {
			t.Errorf("%s: Library() = %q, %v; want %s", c.name, got, err, want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
