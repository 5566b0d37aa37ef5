package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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
	dir := validDir(t)
	if err := os.Remove(filepath.Join(dir, "iq1s_grid.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(dir); err == nil || !strings.Contains(err.Error(), "iq1s_grid.txt") {
		t.Errorf("missing iq1s_grid.txt: got %v", err)
	}
}
