package hipkern

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// NoEmulationEnv, when set to any value, stops LoadEmulation: the GPU tests
// then skip on a machine without a GPU instead of running on the host
// emulation.
const NoEmulationEnv = "GATHERMUT_NO_EMULATION"

// LoadEmulation loads the host emulation of the kernel library (build.sh
// --compiler emulate: the same gather.hip, built with c++ against
// compat.h's sequential emulation of two devices) and registers its
// providers, for tests on machines without a GPU. It refuses when
// NoEmulationEnv or LibEnv is set (LibEnv names a library to test, which
// must not be replaced) and when Load already succeeded with another
// library. The library is built once per set of kernel sources into the
// user cache directory.
//
// The emulation tests the Go binding, the providers and the engine's GPU
// path for real; it is never evidence about a GPU (EVIDENCE.md records
// real GPU runs only).
func LoadEmulation() error {
	if os.Getenv(NoEmulationEnv) != "" {
		return fmt.Errorf("hipkern: host emulation disabled (%s is set)", NoEmulationEnv)
	}
	if p := os.Getenv(LibEnv); p != "" {
		return fmt.Errorf("hipkern: host emulation not used: %s names %s", LibEnv, p)
	}
	path, err := EmulationLibrary()
	if err != nil {
		return err
	}
	if err := os.Setenv(LibEnv, path); err != nil {
		return fmt.Errorf("hipkern: %w", err)
	}
	return Load()
}

// EmulationLibrary returns the path of the host emulation library for the
// current kernel sources, building it first if the cache lacks it.
func EmulationLibrary() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	src := filepath.Join(root, "hipkern")
	key, err := sourcesKey(src)
	if err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "gathermut", "hipkern-emulation-"+key[:16])
	lib := filepath.Join(dir, "libgathermut_hip.so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	// Build beside the final name and rename: concurrent test binaries
	// (a mutation run starts many) may build at once.
	tmp, err := os.CreateTemp(dir, "build-*.so")
	if err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("bash", filepath.Join(src, "build.sh"), "--compiler", "emulate", "--src", src, "--out", tmp.Name())
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("hipkern: host emulation: build.sh --compiler emulate: %v: %s", err, out)
	}
	if err := os.Rename(tmp.Name(), lib); err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	return lib, nil
}

// sourcesKey is the sha256 of the kernel sources and the build script, so
// that a changed kernel gets a fresh emulation library.
func sourcesKey(src string) (string, error) {
	var files []string
	for _, glob := range []string{"*.hip", "*.h", "build.sh"} {
		m, err := filepath.Glob(filepath.Join(src, glob))
		if err != nil {
			return "", err
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return "", errors.New("no kernel sources in " + src)
	}
	sort.Strings(files)
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
