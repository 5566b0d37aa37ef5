package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHeaderIsGenerated regenerates codebooks.h from testdata/codebooks and
// requires the committed header to be exactly that output.
func TestHeaderIsGenerated(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "codebooks")
	got, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "codebooks.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("hipkern/codebooks.h is not the generator's output: run go run ./hipkern/internal/gencodebooks (from %s)", dir)
	}
}

// validDir writes a codebook directory of the right shape (zeros of the
// right width and count), so the error cases need no real data.
func validDir(t *testing.T) string {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(deltaFile, "0.125\n")
	for _, tb := range tables {
		v := "0"
		switch tb.CType {
		case "uint64_t":
			v = "0x0000000000000000"
		case "uint32_t":
			v = "0x00000000"
		}
		write(tb.File, strings.Repeat(v+"\n", tb.Count))
	}
	return dir
}

// TestGenerateRefusesBadData: a wrong count, a value out of range, a value
// not in hex and a missing file are errors naming the file.
func TestGenerateRefusesBadData(t *testing.T) {
	if _, err := Generate(validDir(t)); err != nil {
		t.Fatalf("valid data: %v", err)
	}
	for _, c := range []struct {
		file, content, want string
	}{
		{"kmask_iq2xs.txt", "1\n2\n", "gencodebooks: kmask_iq2xs.txt: 2 values, want 8"},
		{"kvalues_iq4nl.txt", strings.Repeat("-129\n", 16), "gencodebooks: kvalues_iq4nl.txt line 1: "},
		{"ksigns_iq2xs.txt", strings.Repeat("256\n", 128), "gencodebooks: ksigns_iq2xs.txt line 1: "},
		{"iq3s_grid.txt", strings.Repeat("0x1ffffffff\n", 512), "gencodebooks: iq3s_grid.txt line 1: "},
		{"iq2xxs_grid.txt", strings.Repeat("12\n", 256), `gencodebooks: iq2xxs_grid.txt line 1: "12" is not 0x hex`},
		{deltaFile, "0.125\n0.5\n", "gencodebooks: iq1s_delta.txt: 2 values, want 1"},
		{deltaFile, "x\n", "gencodebooks: iq1s_delta.txt: "},
	} {
		dir := validDir(t)
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Generate(dir); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %q: got %v, want an error starting %q", c.file, c.content[:min(len(c.content), 12)], err, c.want)
		}
	}
	for _, name := range []string{deltaFile, "iq1s_grid.txt"} {
		dir := validDir(t)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		want := "gencodebooks: open " + filepath.Join(dir, name) + ": no such file or directory"
		if _, err := Generate(dir); err == nil || err.Error() != want {
			t.Errorf("missing %s: got %v, want %s", name, err, want)
		}
	}
	// IQ1S_DELTA must be a float32: 1e39 is out of its range.
	dir := validDir(t)
	if err := os.WriteFile(filepath.Join(dir, deltaFile), []byte("1e39\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `gencodebooks: iq1s_delta.txt: strconv.ParseFloat: parsing "1e39": value out of range`
	if _, err := Generate(dir); err == nil || err.Error() != want {
		t.Errorf("delta 1e39: got %v, want %s", err, want)
	}
}

// TestLiteralRange: each C type takes its whole range, written back in the
// header's form, and nothing outside it.
func TestLiteralRange(t *testing.T) {
	for _, c := range []struct {
		ctype, in, want string
		ok              bool
	}{
		{"uint64_t", "0xffffffffffffffff", "0xffffffffffffffffull", true},
		{"uint64_t", "0x10000000000000000", "", false},
		{"uint32_t", "0xffffffff", "0xffffffffu", true},
		{"uint32_t", "0x00000001", "0x00000001u", true},
		{"uint32_t", "0x100000000", "", false},
		{"uint8_t", "255", "255", true},
		{"uint8_t", "256", "", false},
		{"int8_t", "-128", "-128", true},
		{"int8_t", "127", "127", true},
		{"int8_t", "128", "", false},
		{"float", "1", "", false},
	} {
		got, err := literal(c.ctype, c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("literal(%s, %s) = %q, %v; want %q, ok %v", c.ctype, c.in, got, err, c.want, c.ok)
		}
	}
	if _, err := literal("float", "1"); err == nil || err.Error() != "unknown C type float" {
		t.Errorf("literal of an unknown type: %v", err)
	}
}

// TestCommand: the command writes the generator's header to -out (from
// testdata/codebooks to hipkern/codebooks.h by default), readable by all;
// it exits 1 saying why when the data or the output is bad, and 2 on a bad
// flag.
func TestCommand(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	savedExit, savedArgs, savedStderr := exit, os.Args, os.Stderr
	t.Cleanup(func() { exit, os.Args, os.Stderr = savedExit, savedArgs, savedStderr })
	code := -1
	exit = func(c int) { code = c }
	// command runs main with args, and returns what it wrote on stderr.
	command := func(args ...string) string {
		t.Helper()
		f, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		os.Args, os.Stderr, code = append([]string{"gencodebooks"}, args...), f, -1
		main()
		os.Stderr = savedStderr
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	root := t.TempDir()
	src := filepath.Join(root, "testdata", "codebooks")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(validDir(t), src); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "hipkern"), 0o755); err != nil {
		t.Fatal(err)
	}
	want, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	if stderr := command(); code != 0 || stderr != "" {
		t.Fatalf("with the default paths: exit %d, stderr %q", code, stderr)
	}
	out := filepath.Join(root, "hipkern", "codebooks.h")
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is not the generator's output (%v)", out, err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, %v; want 0644", out, fi.Mode().Perm(), err)
	}

	other := filepath.Join(root, "other.h")
	missing := filepath.Join(root, "missing")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-src", src, "-out", other}, 0, ""},
		{[]string{"-src", missing}, 1, "gencodebooks: open " + filepath.Join(missing, deltaFile) + ": no such file or directory\n"},
		{[]string{"-out", filepath.Join(missing, "x.h")}, 1, "gencodebooks: open " + filepath.Join(missing, "x.h") + ": no such file or directory\n"},
		{[]string{"-bogus"}, 2, "flag provided but not defined: -bogus\n"},
	} {
		if stderr := command(c.args...); code != c.code || !strings.HasPrefix(stderr, c.stderr) || c.code != 2 && stderr != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, stderr, c.code, c.stderr)
		}
	}
	// run writes its usage to the stderr it is given, not the process's.
	var stderr bytes.Buffer
	if code := run([]string{"-bogus"}, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "flag provided but not defined: -bogus\nUsage of gencodebooks:\n") {
		t.Errorf("run(-bogus) = %d, stderr %q", code, stderr.String())
	}
	if got, err := os.ReadFile(other); err != nil || !bytes.Equal(got, want) {
		t.Errorf("-out %s is not the generator's output (%v)", other, err)
	}
}
