package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFileIsCurrent checks that the committed gather/codebooks.go is
// exactly what the committed text tables generate, so neither can drift.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := Generate("../../../testdata/codebooks")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../codebooks.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gather/codebooks.go is stale: run go generate in gather/")
	}
}

// TestGenerateRefusesBadTables checks the count and parse errors.
func TestGenerateRefusesBadTables(t *testing.T) {
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"short table", "kmask_iq2xs.txt", "1\n2\n", "kmask_iq2xs.txt: 2 values, want 8"},
		{"bad hex", "iq3s_grid.txt", strings.Repeat("0x1zz\n", 512), "iq3s_grid.txt line 1"},
		{"int8 overflow", "kvalues_iq4nl.txt", strings.Repeat("200\n", 16), "kvalues_iq4nl.txt line 1"},
		{"deltas differ", "iq1m_delta.txt", "0.25\n", "iq1s_delta 0.125 and iq1m_delta 0.25 differ"},
		{"delta not a float32", "iq1s_delta.txt", "1e39\n", "iq1s_delta.txt: strconv.ParseFloat"},
		{"uint8 overflow on line 3", "ksigns_iq2xs.txt", "0\n129\n256\n" + strings.Repeat("0\n", 125), "ksigns_iq2xs.txt line 3"},
		{"uint32 overflow", "iq3xxs_grid.txt", "0x100000000\n" + strings.Repeat("0x04040404\n", 255), "iq3xxs_grid.txt line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTables(t)
			if err := os.WriteFile(dir+"/"+tc.file, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Generate(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Generate error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestGenerateRefusesMissingTables checks that each kind of file (the
// second delta as well as the first, and a table) is read with its error
// reported, rather than taken as empty.
func TestGenerateRefusesMissingTables(t *testing.T) {
	for _, file := range []string{"iq1s_delta.txt", "iq1m_delta.txt", "kmask_iq2xs.txt"} {
		t.Run(file, func(t *testing.T) {
			dir := copyTables(t)
			if err := os.Remove(dir + "/" + file); err != nil {
				t.Fatal(err)
			}
			src, err := Generate(dir)
			want := "gencodebooks: open " + dir + "/" + file + ": no such file or directory"
			if err == nil || err.Error() != want || src != nil {
				t.Fatalf("Generate = %d bytes, error %v; want nothing and %q", len(src), err, want)
			}
		})
	}
}

// TestGenerateRefusesBadDefinitions checks the guards against a mistake in
// the tables list itself: an element type readValues cannot render, and a
// Go name that makes the source unparsable.
func TestGenerateRefusesBadDefinitions(t *testing.T) {
	dir := copyTables(t)
	for _, tc := range []struct {
		name string
		edit func(*table)
		want string
	}{
		{"element type", func(tb *table) { tb.elem = "uint16" },
			"gencodebooks: " + dir + "/kmask_iq2xs.txt: unsupported element type uint16"},
		{"Go name", func(tb *table) { tb.name = "kmask-IQ2XS" }, "gencodebooks: formatting: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := append([]table(nil), tables...)
			t.Cleanup(func() { tables = saved })
			tables = append([]table(nil), saved...)
			for i := range tables {
				if tables[i].file == "kmask_iq2xs.txt" {
					tc.edit(&tables[i])
				}
			}
			src, err := Generate(dir)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || src != nil {
				t.Fatalf("Generate = %d bytes, error %v; want nothing and an error starting %q", len(src), err, tc.want)
			}
		})
	}
}

// TestGenerateKeepsFullWidth checks that a grid value with its top bit set
// is kept, so the parse width matches the element type.
func TestGenerateKeepsFullWidth(t *testing.T) {
	dir := copyTables(t)
	if err := os.WriteFile(dir+"/iq3s_grid.txt", []byte(strings.Repeat("0x80000001\n", 512)), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "var iq3sGrid = [512]uint32{\n\t0x80000001, 0x80000001,") {
		t.Fatal("iq3sGrid does not hold 0x80000001")
	}
}

// TestRun checks the command's flags, exit codes and output file.
func TestRun(t *testing.T) {
	want, err := os.ReadFile("../../codebooks.go")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := filepath.Abs("../../../testdata/codebooks")
	if err != nil {
		t.Fatal(err)
	}
	// Run from an empty directory: whatever run writes by default (for
	// instance under a mutation of its flag handling) lands there, never
	// in the source tree.
	t.Chdir(t.TempDir())
	dir := t.TempDir()
	out := dir + "/codebooks.go"
	var stderr strings.Builder
	if code := run([]string{"-dir", tables, "-out", out}, &stderr); code != 0 {
		t.Fatalf("run = %d, stderr %q", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("run wrote something other than the committed codebooks.go")
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm()&0o711 != 0o600 {
		t.Fatalf("output file mode %v (%v), want rw for the owner and no execute bits", st.Mode(), err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "gencodebooks: -dir is required"},
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-dir", tables, "-out", dir + "/bad-flag.go", "-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-dir", dir + "/missing"}, 1, "gencodebooks: open " + dir + "/missing/iq1s_delta.txt"},
		{[]string{"-dir", tables, "-out", dir + "/no/such/dir/x.go"}, 1, "gencodebooks: open " + dir + "/no/such/dir/x.go"},
	} {
		stderr.Reset()
		if code := run(tc.args, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}

// TestMainCommand runs main with the process's arguments, as go generate
// does, and reads the status it exits with.
func TestMainCommand(t *testing.T) {
	tables, err := filepath.Abs("../../../testdata/codebooks")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../codebooks.go")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // anything written by default lands here
	out := t.TempDir() + "/codebooks.go"
	savedArgs, savedExit := os.Args, exit
	t.Cleanup(func() { os.Args, exit = savedArgs, savedExit })
	status := -1
	exit = func(code int) { status = code }
	os.Args = []string{"gencodebooks", "-dir", tables, "-out", out}
	main()
	if status != 0 {
		t.Fatalf("main exited with %d, want 0", status)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("main wrote something other than the committed codebooks.go (%v)", err)
	}
}

// copyTables copies testdata/codebooks into a temporary directory.
func copyTables(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../../../testdata/codebooks")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile("../../../testdata/codebooks/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/"+e.Name(), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
