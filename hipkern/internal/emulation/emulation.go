package emulation

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"gathermut/hipkern/internal/admit"
)

const (
	// NoEnv, when set to any value, stops Load: the GPU tests then skip on
	// a machine without a GPU instead of running on the host emulation.
	NoEnv = "GATHERMUT_NO_EMULATION"
	// LibEnv names a host emulation library to load instead of building
	// one: a mutation run's kernel under test (a kernel mutant, or the
	// kernel schema, built with build.sh --compiler emulate). While it is
	// set (and gpuLibEnv is not), ForTest loads that library and no other.
	LibEnv = "GATHERMUT_HIPKERN_EMULATION"
	// gpuLibEnv is hipkern.LibEnv (this package is imported by hipkern's
	// tests, so it cannot import hipkern): a library under test, which the
	// emulation must not replace.
	gpuLibEnv = "GATHERMUT_HIPKERN_LIB"
)

// ErrNoEmulation is Load's error when the host emulation is not to be used
// here: NoEnv is set, hipkern.LibEnv names a library under test (which
// must not be replaced), the binary has no cgo, or bash or c++ is missing
// to build it. The GPU tests skip on it; any other error of Load is a
// failure of the emulation, and they fail on it.
var ErrNoEmulation = errors.New("hipkern: no host emulation here")

// Load loads the host emulation through load (hipkern.Load, which admits
// it only while admit.While runs) and checks with loaded (the path of the
// library hipkern has loaded, "" for none) that the emulation is what is
// loaded: load does nothing when another library is loaded already. The
// library is LibEnv's, else the cached build for the current kernel
// sources (Library).
func Load(load func() error, loaded func() string) error {
	if !haveCgo {
		return fmt.Errorf("%w: hipkern: built without cgo", ErrNoEmulation)
	}
	if os.Getenv(NoEnv) != "" {
		return fmt.Errorf("%w: %s is set", ErrNoEmulation, NoEnv)
	}
	if p := os.Getenv(gpuLibEnv); p != "" {
		return fmt.Errorf("%w: %s names %s, the library under test", ErrNoEmulation, gpuLibEnv, p)
	}
	path := os.Getenv(LibEnv)
	if path == "" {
		var err error
		if path, err = Library(); err != nil {
			return err
		}
	}
	if err := admit.While(path, load); err != nil {
		return err
	}
	if got := loaded(); got != path {
		return fmt.Errorf("hipkern: host emulation not loaded: %s is loaded already", got)
	}
	return nil
}

// ForTest loads what a GPU test runs on: while LibEnv names an emulation
// library (and hipkern.LibEnv names none), that library and nothing else,
// so that a mutation run's emulated kernel under test is never swapped for
// a GPU library found by load; otherwise the GPU library (load), else the
// host emulation. Its error wraps ErrNoEmulation when there is neither
// here (a test skips), and is a failure otherwise; either says why load
// found no GPU library.
func ForTest(load func() error, loaded func() string) error {
	if os.Getenv(LibEnv) != "" && os.Getenv(gpuLibEnv) == "" {
		if err := Load(load, loaded); err != nil {
			return fmt.Errorf("%s names the library under test: %w", LibEnv, err)
		}
		return nil
	}
	gpuErr := load()
	if gpuErr == nil {
		return nil
	}
	if err := Load(load, loaded); err != nil {
		return fmt.Errorf("no GPU library: %v; the host emulation: %w", gpuErr, err)
	}
	return nil
}

// Library returns the path of the host emulation library for the current
// kernel sources, building it first if the cache lacks it.
func Library() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("hipkern: host emulation: no source path for the kernel sources")
	}
	src := filepath.Join(filepath.Dir(file), "..", "..")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return library(src, filepath.Join(cache, "gathermut"))
}

// library returns cache/hipkern-emulation-<key>/libgathermut_hip.so, the
// emulation built from the kernel sources in src (key: their sha256),
// running src/build.sh first if that is not a file yet.
func library(src, cache string) (string, error) {
	key, err := sourcesKey(src)
	if err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	dir := filepath.Join(cache, "hipkern-emulation-"+key[:16])
	lib := filepath.Join(dir, "libgathermut_hip.so")
	if fi, err := os.Stat(lib); err == nil && fi.Mode().IsRegular() {
		return lib, nil
	}
	for _, tool := range []string{"bash", "c++"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%w: %s is not on PATH to build it (build.sh --compiler emulate)", ErrNoEmulation, tool)
		}
	}
	// Build beside the final name (build.sh makes the directory) and
	// rename: concurrent test binaries (a mutation run starts many) may
	// build at once, so each build gets a random name of its own.
	tmp := filepath.Join(dir, fmt.Sprintf("build-%016x.so", rand.Uint64()))
	defer os.Remove(tmp)
	cmd := exec.Command("bash", filepath.Join(src, "build.sh"), "--compiler", "emulate", "--src", src, "--out", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("hipkern: host emulation: build.sh --compiler emulate: %v: %s", err, out)
	}
	if err := os.Rename(tmp, lib); err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	return lib, nil
}

// sourcesKey is the sha256 of the kernel sources and the build script, so
// that a changed kernel gets a fresh emulation library.
func sourcesKey(src string) (string, error) {
	var files []string
	for _, glob := range []string{"*.hip", "*.h", "build.sh"} {
		// Glob fails only on a malformed pattern; these are constant.
		m, _ := filepath.Glob(filepath.Join(src, glob))
		files = append(files, m...)
	}
	if len(files) == 0 {
		return "", errors.New("no kernel sources in " + src)
	}
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
