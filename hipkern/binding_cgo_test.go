//go:build cgo

package hipkern

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gathermut/hipkern/internal/emulation"
)

// openState reports how many openLib calls are not undone and the library
// they opened.
func openState() (int, string) {
	openMu.Lock()
	defer openMu.Unlock()
	return openCount, openedPath
}

// buildHint ends the error of a library that does not open.
const buildHint = " (build it with bash hipkern/build.sh, or set GATHERMUT_HIPKERN_LIB)"

// TestOpenLibErrors: a missing file, a file that is no library, and a
// library lacking an entry point are refused with the loader's reason, and
// none of them counts as open. While a library is open, any other path is
// refused as a second library.
func TestOpenLibErrors(t *testing.T) {
	count, open := openState()
	dir := t.TempDir()
	notLib := filepath.Join(dir, "text.so")
	writeFile(t, notLib, "not a library")
	missing := "/nonexistent/libgathermut_hip.so"
	cases := []struct{ path, prefix, suffix string }{
		{missing, "hipkern: load " + missing + ": " + missing + ": cannot open shared object file: No such file or directory" + buildHint, ""},
		{notLib, "hipkern: load " + notLib + ": " + notLib + ": ", buildHint},
	}
	if cc, err := exec.LookPath("cc"); err == nil {
		src := filepath.Join(dir, "partial.c")
		lib := filepath.Join(dir, "partial.so")
		writeFile(t, src, "int gm_abi_version(void) { return 1; }\n")
		if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
			t.Fatalf("cc: %v\n%s", err, out)
		}
		cases = append(cases, struct{ path, prefix, suffix string }{lib, "hipkern: load " + lib + ": missing symbol gm_runtime" + buildHint, ""})
	}
	for _, c := range cases {
		if count > 0 {
			c.prefix, c.suffix = "hipkern: load "+c.path+": another library, "+open+", is already loaded (one per process)", ""
		}
		lib, err := openLib(c.path)
		got := errText(err)
		if lib != nil || !strings.HasPrefix(got, c.prefix) || !strings.HasSuffix(got, c.suffix) || c.suffix == "" && got != c.prefix {
			t.Errorf("openLib(%s) = %v, %q\nwant %q ... %q", c.path, lib, got, c.prefix, c.suffix)
		}
		if n, p := openState(); n != count || p != open {
			t.Errorf("after the failed openLib(%s): %d open (%s), want %d (%s)", c.path, n, p, count, open)
		}
	}
}

// TestLoadMissingLibrary: Load names the path it tried and how to build the
// library; it can be retried.
func TestLoadMissingLibrary(t *testing.T) {
	resetLoader(t)
	missing := "/nonexistent/libgathermut_hip.so"
	t.Setenv(LibEnv, missing)
	want := "hipkern: load " + missing + ": " + missing + ": cannot open shared object file: No such file or directory" + buildHint
	if count, open := openState(); count > 0 {
		want = "hipkern: load " + missing + ": another library, " + open + ", is already loaded (one per process)"
	}
	if err := Load(); errText(err) != want {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
	if _, err := Available(); errText(err) != want {
		t.Errorf("Available: %v\nwant %s", err, want)
	}
	if loader.fatal != nil {
		t.Errorf("a missing library is fatal: %v", loader.fatal)
	}
}

// emulationForTest returns the host emulation library's path, or skips
// where the emulation is not to be used.
func emulationForTest(t *testing.T) string {
	t.Helper()
	if os.Getenv(emulation.NoEnv) != "" {
		t.Skipf("%s is set: the host emulation is not built here", emulation.NoEnv)
	}
	emu, err := emulation.Library()
	if errors.Is(err, emulation.ErrNoEmulation) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return emu
}

// TestLoadRefusesEmulationLibrary: with LibEnv naming the host emulation
// library (and the test path's emulation variable naming it too, which
// Load does not read), Load does not take it for a GPU: it refuses, naming the library
// and saying it is the host emulation, leaves nothing loaded (a retry
// refuses again) and closes the library, so that the process can open
// another (the emulation, through the test path) afterwards. Where nothing
// is open yet, a copy of the emulation at another path is refused first:
// had it stayed open, the emulation's own path would be refused as a
// second library.
func TestLoadRefusesEmulationLibrary(t *testing.T) {
	emu := emulationForTest(t)
	count, open := openState()
	paths := []string{emu}
	switch {
	case count == 0:
		data, err := os.ReadFile(emu)
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(t.TempDir(), "libgathermut_hip.so")
		if err := os.WriteFile(cp, data, 0o755); err != nil {
			t.Fatal(err)
		}
		paths = []string{cp, emu}
	case open != emu:
		t.Skipf("%s is open in this process: the emulation library cannot be opened beside it", open)
	}
	for _, p := range paths {
		resetLoader(t)
		t.Setenv(LibEnv, p)
		t.Setenv(emulation.LibEnv, p) // the test path's variable admits nothing: only a request does
		want := emulationRefusal(p)
		if err := Load(); errText(err) != want {
			t.Errorf("Load with %s=%s: %v\nwant %s", LibEnv, p, err, want)
		}
		if loader.lib != nil || loader.fatal != nil {
			t.Errorf("after the refusal: loaded %v, fatal %v", loader.lib, loader.fatal)
		}
		if n, o := openState(); n != count || count > 0 && o != open {
			t.Errorf("after the refusal of %s: %d libraries open (%s), want %d", p, n, o, count)
		}
		if _, err := Alloc(gpu0, 8); errText(err) != want {
			t.Errorf("Alloc after the refusal: %v\nwant %s", err, want)
		}
		if count == 0 && mapped(t, p) {
			t.Errorf("%s is still mapped into the process after the refusal: it was not unloaded", p)
		}
	}
}

// mapped reports whether the file at path is mapped into this process.
func mapped(t *testing.T, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps to see the process's mappings: %v", err)
	}
	return strings.Contains(string(maps), " "+path+"\n")
}

// TestOpenLibAgain: the loaded library's own path opens again (one more
// reference, undone by close), and any other path is refused as a second
// library while it is open.
func TestOpenLibAgain(t *testing.T) {
	_, info := needGPU(t)
	count, open := openState()
	if count < 1 || open != info.Library {
		t.Fatalf("%d libraries open (%s), want at least the loaded %s", count, open, info.Library)
	}
	other := filepath.Join(t.TempDir(), "other.so")
	want := "hipkern: load " + other + ": another library, " + info.Library + ", is already loaded (one per process)"
	if lib, err := openLib(other); lib != nil || errText(err) != want {
		t.Errorf("openLib(%s) = %v, %v\nwant %s", other, lib, err, want)
	}
	lib, err := openLib(info.Library)
	if err != nil {
		t.Fatal(err)
	}
	if n, p := openState(); n != count+1 || p != info.Library {
		t.Errorf("after opening %s again: %d open (%s), want %d", info.Library, n, p, count+1)
	}
	if v, rt := lib.abiVersion(), lib.runtimeName(); v != abiVersion || rt != info.Runtime {
		t.Errorf("the library opened again answers ABI %d, runtime %q; want %d, %q", v, rt, abiVersion, info.Runtime)
	}
	lib.close()
	if n, p := openState(); n != count || p != info.Library {
		t.Errorf("after close: %d open (%s), want %d (%s)", n, p, count, info.Library)
	}
}

// TestLoadFromAnotherModule: a program of another module, working in that
// module's directory, loads the library installed by the documented rule
// (here the user cache directory, holding a copy of the host emulation):
// Load reaches it without any go.mod of gathermut (and refuses it, naming
// it, since the emulation is not a GPU).
func TestLoadFromAnotherModule(t *testing.T) {
	emu := emulationForTest(t) // before the cache directory moves
	data, err := os.ReadFile(emu)
	if err != nil {
		t.Fatal(err)
	}
	cache, other := t.TempDir(), t.TempDir()
	lib := filepath.Join(cache, "gathermut", LibName)
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, data, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(other, "go.mod"), "module other\n\ngo 1.26\n")
	t.Chdir(other)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv(LibEnv, "")
	resetLoader(t)
	want := emulationRefusal(lib)
	if count, open := openState(); count > 0 {
		want = "hipkern: load " + lib + ": another library, " + open + ", is already loaded (one per process)"
	}
	if err := Load(); errText(err) != want {
		t.Errorf("Load from another module: %v\nwant %s", err, want)
	}
}

// TestOpenCloseConcurrent (races in shared state): goroutines open the
// loaded library's path again, all at once, then close it, all at once,
// while others read the open count; afterwards the count is back where it
// was. openCount changes only under openMu: under -race (the row's
// mutation run builds hipkern's tests with it) an update moved out of the
// lock is reported, since two closes then change it with nothing ordering
// them; without -race a lost update can leave the count off.
func TestOpenCloseConcurrent(t *testing.T) {
	_, info := needGPU(t)
	count, open := openState()
	const n = 8
	libs := make([]backend, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			libs[i], errs[i] = openLib(info.Library)
		})
	}
	close(start)
	wg.Wait()
	closing := make(chan struct{})
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("openLib(%s): %v", info.Library, errs[i])
		}
		wg.Go(func() {
			<-closing
			libs[i].close()
		})
		wg.Go(func() {
			<-closing
			openState()
		})
	}
	close(closing)
	wg.Wait()
	if got, p := openState(); got != count || p != open {
		t.Errorf("after the concurrent opens and closes: %d open (%s), want %d (%s)", got, p, count, open)
	}
}
