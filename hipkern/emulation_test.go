package hipkern

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

// TestEmulationLibraryBuild: on a cache miss the library is built by
// src/build.sh --compiler emulate into a temporary name beside its final
// one and renamed, leaving nothing else behind; a hit needs no tools; the
// missing tools are ErrNoEmulation; a failed build, and a final name taken
// by a directory, are errors that leave no temporary behind.
func TestEmulationLibraryBuild(t *testing.T) {
	needBuildTools(t)
	t.Run("build, then cached", func(t *testing.T) {
		src, cache := fakeSources(t, ""), t.TempDir()
		dir := libDir(t, src, cache)
		lib, err := emulationLibrary(src, cache)
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
		if again, err := emulationLibrary(src, cache); err != nil || again != lib {
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
			_, err := emulationLibrary(fakeSources(t, ""), cache)
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
		_, err := emulationLibrary(src, cache)
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
		_, err := emulationLibrary(src, cache)
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
		if _, err := emulationLibrary(src, t.TempDir()); errText(err) != "hipkern: host emulation: no kernel sources in "+src {
			t.Errorf("no sources: %v", err)
		}
	})
}

// TestEmulationLibraryCache: EmulationLibrary keeps the library for the
// module's kernel sources under the user cache directory, or under the
// temporary directory where there is none.
func TestEmulationLibraryCache(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "hipkern")
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
		// A library already there: EmulationLibrary returns it unbuilt.
		want := filepath.Join(libDir(t, src, filepath.Join(cache, "gathermut")), "libgathermut_hip.so")
		if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, want, "cached")
		if got, err := EmulationLibrary(); err != nil || got != want {
			t.Errorf("%s: EmulationLibrary() = %q, %v; want %s", c.name, got, err, want)
		}
	}
}

// TestLoadEmulation: with neither NoEmulationEnv nor LibEnv set,
// LoadEmulation loads the emulation (again: it does nothing), which
// describes itself as such; NoEmulationEnv or LibEnv make it refuse with
// ErrNoEmulation; another library loaded, or a fatal registration, make it
// fail.
func TestLoadEmulation(t *testing.T) {
	if errEmulationUnavailable != nil {
		t.Skip(errEmulationUnavailable)
	}
	if os.Getenv(NoEmulationEnv) != "" || os.Getenv(LibEnv) != "" {
		t.Skipf("%s or %s is set: the host emulation is not to be loaded in this process", NoEmulationEnv, LibEnv)
	}
	if info, err := Available(); err == nil && info.Arch != "host-emulation" {
		t.Skipf("a GPU library is loaded (%s): the host emulation is not opened beside it", info.Name)
	}
	needBuildTools(t)
	for range 2 {
		if err := LoadEmulation(); err != nil {
			t.Fatalf("LoadEmulation: %v", err)
		}
	}
	emu, err := EmulationLibrary()
	if err != nil {
		t.Fatal(err)
	}
	info, err := Available()
	want := Info{Name: "host emulation device 0", Arch: "host-emulation", Devices: 2, Runtime: "host emulation", Library: emu}
	if err != nil || info != want || !info.Emulation() {
		t.Errorf("Available() = %+v, %v; want %+v", info, err, want)
	}
	if s := "the host emulation, not a GPU: host emulation device 0 (host-emulation), 2 device(s), host emulation runtime, library " + emu; info.String() != s {
		t.Errorf("Info.String() = %q, want %q", info.String(), s)
	}

	for _, c := range []struct{ noEmu, lib, want string }{
		{"1", "", "hipkern: no host emulation here: GATHERMUT_NO_EMULATION is set"},
		{"", "/x/lib.so", "hipkern: no host emulation here: GATHERMUT_HIPKERN_LIB names /x/lib.so, the library under test"},
	} {
		t.Setenv(NoEmulationEnv, c.noEmu)
		t.Setenv(LibEnv, c.lib)
		if err := LoadEmulation(); !errors.Is(err, ErrNoEmulation) || err.Error() != c.want {
			t.Errorf("%s=%q, %s=%q: %v\nwant %s", NoEmulationEnv, c.noEmu, LibEnv, c.lib, err, c.want)
		}
	}
	t.Setenv(NoEmulationEnv, "")
	t.Setenv(LibEnv, "")

	t.Run("another library loaded", func(t *testing.T) {
		withLoader(t, newFakeLib(), Info{Name: "Fake GPU", Arch: "fake_arch", Devices: 1, Runtime: "fake", Library: "/fake.so"})
		want := "hipkern: host emulation not loaded: /fake.so is loaded already"
		if err := LoadEmulation(); errText(err) != want || errors.Is(err, ErrNoEmulation) {
			t.Errorf("LoadEmulation: %v\nwant %s", err, want)
		}
	})
	t.Run("Load refuses the emulation afterwards", func(t *testing.T) {
		// LoadEmulation's admission ends with it: Load on its own refuses
		// the same library.
		resetLoader(t)
		t.Setenv(LibEnv, emu)
		if err := Load(); errText(err) != emulationRefusal(emu) {
			t.Errorf("Load with %s=%s after LoadEmulation: %v\nwant %s", LibEnv, emu, err, emulationRefusal(emu))
		}
	})
	t.Run("providers registered twice", func(t *testing.T) {
		// The emulation's providers are registered: loading it again into
		// an empty loader fails to register them, and that is final.
		resetLoader(t)
		want := "hipkern: register the GPU providers of " + emu + ": " +
			`gather: register EmbeddingQuant provider "hip.EmbeddingQuant" for device gpu: already registered` + "\n" +
			`gather: register EmbeddingFloat provider "hip.EmbeddingFloat" for device gpu: already registered`
		for name, err := range map[string]error{
			"LoadEmulation":       LoadEmulation(),
			"Load":                Load(),
			"Available":           func() error { _, err := Available(); return err }(),
			"Alloc":               allocFails(t, gpu0, 8),
			"Free":                Free(gpu0, 0x1000),
			"CopyIn":              CopyIn(gpu0, 0x1000, []byte{1}),
			"CopyOut":             CopyOut(gpu0, make([]byte, 1), 0x1000),
			"LoadEmulation again": LoadEmulation(),
		} {
			if errText(err) != want {
				t.Errorf("%s: %v\nwant %s", name, err, want)
			}
		}
		if loader.lib != nil {
			t.Errorf("a library whose registration failed is loaded")
		}
	})
	t.Run("fatal", func(t *testing.T) {
		resetLoader(t)
		fatal := errors.New("hipkern: register the GPU providers of /l.so: boom")
		loader.fatal = fatal
		if err := LoadEmulation(); err != fatal || loader.lib != nil {
			t.Errorf("LoadEmulation after a fatal registration: %v (loaded %v), want %v", err, loader.lib, fatal)
		}
	})
}
