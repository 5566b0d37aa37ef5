package kern

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	built    string
	buildErr error
	once     sync.Once
)

// program returns the kernel program: FIXTURE_KERN's (a mutation run's
// build), else one built here with c++ (the test skips without c++).
func program(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FIXTURE_KERN"); p != "" {
		return p
	}
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no c++ to build the kernel")
	}
	once.Do(func() {
		dir, err := os.MkdirTemp("", "kernfixture-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "kernel")
		out, err := exec.Command("c++", "-x", "c++", "-O1", "-o", built, "kernel.hip").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestScale(t *testing.T) {
	for _, c := range []struct{ x, f, want int }{{6, 7, 42}, {-3, 5, -15}} {
		got, err := Run(program(t), "scale", c.x, c.f)
		if err != nil || got != c.want {
			t.Errorf("scale(%d, %d) = %d, %v; want %d", c.x, c.f, got, err, c.want)
		}
	}
}

func TestOffsetPositive(t *testing.T) {
	got, err := Run(program(t), "offset", 10)
	if err != nil || got <= 0 {
		t.Errorf("offset(10) = %d, %v; want a positive number", got, err)
	}
}
