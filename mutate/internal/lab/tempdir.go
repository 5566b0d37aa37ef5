package lab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"gathermut/mutate/report"
)

// ensureTemp makes the run's temp dir, once, for the work that needs one
// (reading the catalog, type-checking, builds, tests) and points the
// child processes into it (useOwnTemp). GATHERMUT_KEEP_TMP keeps it.
func (l *lab) ensureTemp() error {
	if l.tmp != "" {
		return nil
	}
	tmp, err := os.MkdirTemp("", "gathermut-")
	if err != nil {
		return fmt.Errorf("lab: temp dir: %w", err)
	}
	l.tmp = tmp
	if os.Getenv("GATHERMUT_KEEP_TMP") != "" {
		fmt.Fprintf(l.stderr, "mutate: keeping the run's temp dir %s (GATHERMUT_KEEP_TMP)\n", l.tmp)
	}
	return l.useOwnTemp()
}

// temp makes the run's temp dir if it is not made yet and returns it:
// discovery calls it only when it is not answered from the cache.
func (l *lab) temp() (string, error) {
	if err := l.ensureTemp(); err != nil {
		return "", err
	}
	return l.tmp, nil
}

// removeTemp removes the run's temp dir, if one was made and
// GATHERMUT_KEEP_TMP does not keep it.
func (l *lab) removeTemp() {
	if l.tmp != "" && os.Getenv("GATHERMUT_KEEP_TMP") == "" {
		os.RemoveAll(l.tmp)
	}
}

// useOwnTemp points every child process's temporary files into the run's
// own temp dir, which Run removes whatever happens: GOTMPDIR for the go
// command's work directories (a build killed by a timeout or Ctrl-C
// cannot remove its own go-build* dir) and TMPDIR for everything else,
// the test binaries' t.TempDir included (a test killed mid-way leaves its
// dir). Nothing is left in the system temp dir after a run.
func (l *lab) useOwnTemp() error {
	l.sysTemp, l.sysGoTemp = os.TempDir(), os.Getenv("GOTMPDIR")
	for env, dir := range map[string]string{"GOTMPDIR": filepath.Join(l.tmp, "go"), "TMPDIR": filepath.Join(l.tmp, "tmp")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("lab: %w", err)
		}
		//gathermut:equivalent(branch-if) unreachable: os.Setenv fails only for a key with '=' or NUL (these are constants) or a value with NUL (a path has none)
		if err := os.Setenv(env, dir); err != nil {
			return fmt.Errorf("lab: set %s: %w", env, err) //gathermut:equivalent(zero-return) unreachable (see above)
		}
	}
	return nil
}

var (
	goEnvOnce       sync.Once
	goRoot, modPath string
	goCache         string
)

// paths are the absolute paths reports must not name.
func (l *lab) paths() report.Paths {
	goEnvOnce.Do(func() { goRoot, modPath, goCache = goEnvPaths() })
	home, _ := os.UserHomeDir()
	return report.Paths{Root: l.root, Temp: l.tmp, GoRoot: goRoot, ModCache: modPath, GoCache: goCache, TempDir: l.sysTemp, GoTempDir: l.sysGoTemp, Home: home}
}

// goEnvPaths asks the go command for GOROOT, GOMODCACHE and GOCACHE;
// all "" when it does not answer with the three.
func goEnvPaths() (root, modCache, cache string) {
	out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE", "GOCACHE").Output()
	if err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 3 {
			return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]), strings.TrimSpace(lines[2])
		}
	}
	return "", "", ""
}
