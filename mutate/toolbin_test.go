package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gathermut/mutate/testbin"
)

// The tests that must run the real command (its flags and exit codes as a
// process, signals, a closed stdout, go run, rerun commands pasted into a
// shell) share one binary, built once per key, not once per test process:
// the key is a hash of what goes into the binary (the tool's sources, the
// go version and platform, GOFLAGS, and the files of the overlay GOFLAGS
// names). Under a mutation run of the tool itself (mutate-self), GOFLAGS
// names the overlay the run built this test binary from, so the go build
// below gets the same overlay and the tool it builds holds the mutant (a
// schema overlay: every mutant, switched by the GATHERMUT_MUTANT the tool
// inherits); every test process of that run with the same overlay shares
// the binary, in the run's own temp dir, which the run removes. Outside a
// mutation run the binary lives in the user cache, and builds older than a
// day are removed.

var (
	toolOnce sync.Once
	toolPath string
	toolErr  error
)

// toolBinary returns the path of the built command, building it at the
// first call of any test process that has no binary for its key yet.
func toolBinary(t *testing.T) string {
	t.Helper()
	toolOnce.Do(func() { toolPath, toolErr = sharedBinary() })
	if toolErr != nil {
		t.Fatalf("build mutate: %v", toolErr)
	}
	return toolPath
}

// sharedBinary finds or builds the binary of this tree's key, under a
// lock that makes the processes of one key build it once.
func sharedBinary() (string, error) {
	key, underRun, err := binaryKey()
	if err != nil {
		return "", err
	}
	base := os.TempDir()
	if !underRun {
		if cache, err := os.UserCacheDir(); err == nil {
			base = filepath.Join(cache, "gathermut", "test-tool")
		}
	}
	dir := filepath.Join(base, "mutate-"+key[:24])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mutate")
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	now := time.Now()
	if _, err := os.Stat(bin); err == nil {
		os.Chtimes(dir, now, now)
		return bin, nil
	}
	tmp := fmt.Sprintf("%s.%d", bin, os.Getpid())
	if out, err := osexec.Command("go", "build", "-o", tmp, ".").CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	if !underRun {
		pruneBinaries(base, dir, now.Add(-24*time.Hour))
	}
	return bin, nil
}

// pruneBinaries removes the builds under base, but keep, last used
// before cutoff.
func pruneBinaries(base, keep string, cutoff time.Time) {
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		path := filepath.Join(base, e.Name())
		info, err := e.Info()
		if path == keep || !e.IsDir() || err != nil || info.ModTime().After(cutoff) {
			continue
		}
		os.RemoveAll(path)
		os.Remove(path + ".lock")
	}
}

// binaryKey hashes what the go build of the tool reads: the platform and
// go version, GOFLAGS (its overlay by content), the overlay's files, the
// module's go.mod and go.sum and every file of the tool's packages (all
// under mutate/, but tests and test data). underRun says that GOFLAGS
// names an overlay or GATHERMUT_MUTANT is set: a mutation run.
func binaryKey() (key string, underRun bool, err error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s cgo=%s toolchain=%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, os.Getenv("CGO_ENABLED"), os.Getenv("GOTOOLCHAIN"))
	flags, err := testbin.SplitGoflags(os.Getenv("GOFLAGS"))
	if err != nil {
		return "", false, err
	}
	underRun = os.Getenv("GATHERMUT_MUTANT") != ""
	for _, f := range flags {
		path, isOverlay := strings.CutPrefix(strings.TrimPrefix(f, "-"), "-overlay=")
		if !isOverlay {
			fmt.Fprintf(h, "flag %s\n", f)
			continue
		}
		underRun = true
		if err := hashOverlay(h, path); err != nil {
			return "", false, err
		}
	}
	for _, f := range []string{"../go.mod", "../go.sum"} {
		if err := hashFile(h, f); err != nil {
			return "", false, err
		}
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".":
			return filepath.SkipDir
		case d.IsDir() || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		return hashFile(h, path)
	})
	return hex.EncodeToString(h.Sum(nil)), underRun, err
}

// hashOverlay hashes an overlay file by what it replaces and with what.
func hashOverlay(h io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var ov testbin.Overlay
	if err := json.Unmarshal(data, &ov); err != nil {
		return fmt.Errorf("overlay %s: %w", path, err)
	}
	var names []string
	for from := range ov.Replace {
		names = append(names, from)
	}
	sort.Strings(names)
	for _, from := range names {
		fmt.Fprintf(h, "overlay %s\n", from)
		if to := ov.Replace[from]; to != "" {
			if err := hashFile(h, to); err != nil {
				return err
			}
		}
	}
	return nil
}

func hashFile(h io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %s %d\n", filepath.ToSlash(path), len(data))
	h.Write(data)
	return nil
}
