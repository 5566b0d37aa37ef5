package gencheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gatherDir is package gather's directory, seen from here.
var gatherDir = filepath.Join("..", "..")

// asmgenOutputs are the files go generate's asmgen line writes, relative
// to package gather's directory.
var asmgenOutputs = []string{"decode_amd64.s", "stubs_amd64.go", "accel_table_amd64.go"}

// generateLine is the go:generate command of accel_amd64.go that runs
// asmgen; the test runs the same command.
func generateLine(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(gatherDir, "accel_amd64.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(src), "\n") {
		if cmd, ok := strings.CutPrefix(l, "//go:generate "); ok && strings.Contains(cmd, "asmgen") {
			return cmd
		}
	}
	t.Fatal("accel_amd64.go has no go:generate line that runs asmgen")
	return ""
}

// offline reports whether a failed go command failed for want of the
// module (no cache and no network), not because the generator is wrong.
func offline(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "module lookup disabled", "connection refused", "i/o timeout", "network is unreachable"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// TestAsmgenCommittedOutputs runs asmgen exactly as go generate in gather
// does (the go:generate line of accel_amd64.go, with its relative output
// paths), in a temporary copy of gather's layout, and requires each output
// to be byte for byte the committed file: the assembly, its Go
// declarations and the codec-to-decoder map cannot drift from the
// generator or from each other.
func TestAsmgenCommittedOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator (go run, seconds): not in -short")
	}
	line := generateLine(t)
	cmdText, ok := strings.CutPrefix(line, `sh -c "cd internal/asmgen && `)
	if !ok || !strings.HasSuffix(cmdText, `"`) {
		t.Fatalf("go:generate line %q is not sh -c \"cd internal/asmgen && ...\"", line)
	}
	args := strings.Fields(strings.TrimSuffix(cmdText, `"`))
	if len(args) < 2 || args[0] != "go" || args[1] != "run" {
		t.Fatalf("go:generate line %q does not go run asmgen", line)
	}
	root := t.TempDir()
	gen := filepath.Join(root, "internal", "asmgen")
	if err := os.MkdirAll(gen, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		data, err := os.ReadFile(filepath.Join("..", "asmgen", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gen, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", args[1:]...)
	cmd.Dir = gen
	if out, err := cmd.CombinedOutput(); err != nil {
		if offline(string(out)) {
			t.Skipf("asmgen's module (avo) is neither cached nor reachable: %s", strings.TrimSpace(string(out)))
		}
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	for _, f := range asmgenOutputs {
		want, err := os.ReadFile(filepath.Join(gatherDir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("asmgen did not write %s: %v", f, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("gather/%s is not what asmgen generates: run go generate in gather", f)
		}
	}
}
