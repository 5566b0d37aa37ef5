package hipkern

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
)

// NoEmulationEnv, when set to any value, stops LoadEmulation: the GPU tests
// then skip on a machine without a GPU instead of running on the host
// emulation.
const NoEmulationEnv = "GATHERMUT_NO_EMULATION"

// EmulationLibEnv names a host emulation library to load instead of
// building one: a mutation run's kernel under test (a kernel mutant, or
// the kernel schema, built with build.sh --compiler emulate). While it is
// set, Load opens no GPU library, so the tests run on that emulation.
const EmulationLibEnv = "GATHERMUT_HIPKERN_EMULATION"

// ErrNoEmulation is LoadEmulation's error when the host emulation is not to
// be used here: NoEmulationEnv is set, LibEnv names a library under test
// (which must not be replaced), or bash or c++ is missing to build it. The
// GPU tests skip on it; any other error of LoadEmulation is a failure of the
// emulation, and they fail on it.
var ErrNoEmulation = errors.New("hipkern: no host emulation here")

// LoadEmulation loads the host emulation of the kernel library (build.sh
// --compiler emulate: the same gather.hip, built with c++ against
// compat.h's sequential emulation of two devices) and registers its
// providers, for tests on machines without a GPU; Load refuses that library
// (it is not a GPU), LoadEmulation is the only way in. It returns
// ErrNoEmulation when the emulation is not to be used here, refuses when
// another library is loaded already, and does nothing when the emulation
// is. The library is built once per set of kernel sources into the user
// cache directory.
//
// The emulation tests the Go binding, the providers and the engine's GPU
// path for real; it is never evidence about a GPU (EVIDENCE.md records
// real GPU runs only).
func LoadEmulation() error {
	//gathermut:equivalent(branch-if) errEmulationUnavailable is nil in a cgo build, the only build that loads a library (and that a mutation run tests); TestLoadEmulationWithoutCgo covers the branch without cgo
	if errEmulationUnavailable != nil {
		return errEmulationUnavailable //gathermut:equivalent(zero-return) the branch is dead in a cgo build (see above); TestLoadEmulationWithoutCgo checks this error without cgo
	}
	if os.Getenv(NoEmulationEnv) != "" {
		return fmt.Errorf("%w: %s is set", ErrNoEmulation, NoEmulationEnv)
	}
	if p := os.Getenv(LibEnv); p != "" {
		return fmt.Errorf("%w: %s names %s, the library under test", ErrNoEmulation, LibEnv, p)
	}
	path := os.Getenv(EmulationLibEnv)
	if path == "" {
		var err error
		if path, err = EmulationLibrary(); err != nil {
			return err
		}
	}
	emulationRequest.Store(&path)
	defer emulationRequest.Store(nil)
	if err := Load(); err != nil {
		return err
	}
	// Load does nothing when a library is loaded already: it must be this.
	if info, _ := Available(); info.Library != path {
		return fmt.Errorf("hipkern: host emulation not loaded: %s is loaded already", info.Library)
	}
	return nil
}

// EmulationLibrary returns the path of the host emulation library for the
// current kernel sources, building it first if the cache lacks it.
func EmulationLibrary() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("hipkern: host emulation: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return emulationLibrary(filepath.Join(root, "hipkern"), filepath.Join(cache, "gathermut"))
}

// emulationLibrary returns cache/hipkern-emulation-<key>/libgathermut_hip.so,
// the emulation built from the kernel sources in src (key: their sha256),
// running src/build.sh first if that is not a file yet.
func emulationLibrary(src, cache string) (string, error) {
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
