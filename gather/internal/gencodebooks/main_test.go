package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// The committed tables and outputs, seen from this package's directory.
var (
	tablesDir = filepath.Join("..", "..", "..", "testdata", "codebooks")
	goFile    = filepath.Join("..", "..", "codebooks.go")
	cFile     = filepath.Join("..", "..", "..", "hipkern", "codebooks.h")
	tableFile = filepath.Join("..", "..", "codec.go")
	codecsH   = filepath.Join("..", "..", "..", "hipkern", "codecs.h")
)

// TestCommittedOutputs requires gather/codebooks.go and hipkern/codebooks.h
// to be exactly what the committed text tables generate, so that neither
// output can drift from the tables or from the other, and hipkern/codecs.h
// to be what gather's codec table generates.
func TestCommittedOutputs(t *testing.T) {
	goSrc, cSrc, err := Generate(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	codecsSrc, err := GenerateCodecs(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []byte
	}{{goFile, goSrc}, {cFile, cSrc}, {codecsH, codecsSrc}} {
		got, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s is not what the tables generate: run go generate in gather", c.path)
		}
	}
}

// copyTables copies the committed tables into a temporary directory and
// applies edits (file name to new content; "" removes the file).
func copyTables(t testing.TB, edits map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(tablesDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, e.Name()), string(data))
	}
	for name, content := range edits {
		p := filepath.Join(dir, name)
		if content == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		writeFile(t, p, content)
	}
	return dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lines returns n copies of v, one a line.
func lines(v string, n int) string { return strings.Repeat(v+"\n", n) }

// TestGenerateRefuses: every check refuses its bad input with an error
// naming the file (and line), and Generate then returns no output.
func TestGenerateRefuses(t *testing.T) {
	grid32 := lines("0x01010101", 511) // iq3s_grid.txt holds 512
	for _, c := range []struct {
		name, file, content, want string
	}{
		{"short table", "kmask_iq2xs.txt", "1\n2\n", "gencodebooks: kmask_iq2xs.txt: 2 values, want 8"},
		{"long table", "kmask_iq2xs.txt", lines("1", 9), "gencodebooks: kmask_iq2xs.txt: 9 values, want 8"},
		{"no final newline", "kmask_iq2xs.txt", "1\n2\n4\n8\n16\n32\n64\n128", "gencodebooks: kmask_iq2xs.txt: does not end with a newline"},
		{"empty file", "kmask_iq2xs.txt", "\n", "gencodebooks: kmask_iq2xs.txt line 1: empty"},
		{"empty line", "kmask_iq2xs.txt", "1\n2\n\n8\n16\n32\n64\n128\n", "gencodebooks: kmask_iq2xs.txt line 3: empty"},
		{"hex without 0x", "iq3s_grid.txt", grid32 + "01010101\n",
			`gencodebooks: iq3s_grid.txt line 512: "01010101" is not 0x and 8 lowercase hex digits (uint32)`},
		{"hex too short", "iq3s_grid.txt", "0x0101010\n" + grid32,
			`gencodebooks: iq3s_grid.txt line 1: "0x0101010" is not 0x and 8 lowercase hex digits (uint32)`},
		{"hex too wide", "iq3s_grid.txt", "0x0101010101010101\n" + grid32,
			`gencodebooks: iq3s_grid.txt line 1: "0x0101010101010101" is not 0x and 8 lowercase hex digits (uint32)`},
		{"hex uppercase", "iq3s_grid.txt", "0x0101010F\n" + grid32,
			`gencodebooks: iq3s_grid.txt line 1: "0x0101010F" is not 0x and 8 lowercase hex digits (uint32)`},
		{"hex not a digit", "iq3s_grid.txt", "0x0101010g\n" + grid32,
			`gencodebooks: iq3s_grid.txt line 1: "0x0101010g" is not 0x and 8 lowercase hex digits (uint32)`},
		{"hex with a space", "iq3s_grid.txt", "0x010101 1\n" + grid32,
			`gencodebooks: iq3s_grid.txt line 1: "0x010101 1" is not 0x and 8 lowercase hex digits (uint32)`},
		{"uint64 grid in decimal", "iq2xxs_grid.txt", lines("12", 256),
			`gencodebooks: iq2xxs_grid.txt line 1: "12" is not 0x and 16 lowercase hex digits (uint64)`},
		{"uint8 too large", "ksigns_iq2xs.txt", "0\n255\n256\n" + lines("0", 125), `gencodebooks: ksigns_iq2xs.txt line 3: "256" is not a decimal uint8`},
		{"uint8 negative", "ksigns_iq2xs.txt", "-1\n" + lines("0", 127), `gencodebooks: ksigns_iq2xs.txt line 1: "-1" is not a decimal uint8`},
		{"uint8 in hex", "ksigns_iq2xs.txt", "0x10\n" + lines("0", 127), `gencodebooks: ksigns_iq2xs.txt line 1: "0x10" is not a decimal uint8`},
		{"int8 too large", "kvalues_iq4nl.txt", lines("127", 15) + "128\n", `gencodebooks: kvalues_iq4nl.txt line 16: "128" is not a decimal int8`},
		{"int8 too small", "kvalues_iq4nl.txt", "-129\n" + lines("-128", 15), `gencodebooks: kvalues_iq4nl.txt line 1: "-129" is not a decimal int8`},
		{"int8 with spaces", "kvalues_mxfp4.txt", " 1\n" + lines("0", 15), `gencodebooks: kvalues_mxfp4.txt line 1: " 1" is not a decimal int8`},
		{"two deltas", "iq1s_delta.txt", "0.125\n0.5\n", "gencodebooks: iq1s_delta.txt: 2 values, want 1"},
		{"delta not a number", "iq1s_delta.txt", "x\n", `gencodebooks: iq1s_delta.txt: "x" is not a finite float32`},
		{"delta beyond float32", "iq1s_delta.txt", "1e39\n", `gencodebooks: iq1s_delta.txt: "1e39" is not a finite float32`},
		{"delta infinite", "iq1s_delta.txt", "-inf\n", `gencodebooks: iq1s_delta.txt: "-inf" is not a finite float32`},
		{"delta NaN", "iq1m_delta.txt", "NaN\n", `gencodebooks: iq1m_delta.txt: "NaN" is not a finite float32`},
		{"second delta two values", "iq1m_delta.txt", "0.125\n0.125\n", "gencodebooks: iq1m_delta.txt: 2 values, want 1"},
		{"second delta no newline", "iq1m_delta.txt", "0.125", "gencodebooks: iq1m_delta.txt: does not end with a newline"},
		{"deltas differ", "iq1m_delta.txt", "0.25\n",
			"gencodebooks: iq1s_delta.txt holds 0.125 and iq1m_delta.txt 0.25: ggml's IQ1_M decoder uses IQ1S_DELTA, so they must agree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTables(t, map[string]string{c.file: c.content})
			goSrc, cSrc, err := Generate(dir)
			if err == nil || err.Error() != c.want {
				t.Fatalf("Generate error:\n got %v\nwant %s", err, c.want)
			}
			if goSrc != nil || cSrc != nil {
				t.Errorf("Generate returned %d and %d bytes with its error", len(goSrc), len(cSrc))
			}
		})
	}
}

// TestGenerateRefusesMissingFiles: each kind of file (the delta, the delta
// it must agree with, a table) is read, and its absence reported.
func TestGenerateRefusesMissingFiles(t *testing.T) {
	for _, file := range []string{"iq1s_delta.txt", "iq1m_delta.txt", "iq1s_grid.txt", "kvalues_mxfp4.txt"} {
		dir := copyTables(t, map[string]string{file: ""})
		goSrc, cSrc, err := Generate(dir)
		want := "gencodebooks: open " + filepath.Join(dir, file) + ": no such file or directory"
		if err == nil || err.Error() != want || goSrc != nil || cSrc != nil {
			t.Errorf("without %s: %d and %d bytes, error %v; want nothing and %s", file, len(goSrc), len(cSrc), err, want)
		}
	}
}

// TestGenerateValueRange: each element type takes its whole range, and
// both outputs hold every value as the file writes it (hex grids with their
// C suffix).
func TestGenerateValueRange(t *testing.T) {
	dir := copyTables(t, map[string]string{
		"kvalues_iq4nl.txt": "-128\n127\n" + lines("0", 14),
		"ksigns_iq2xs.txt":  "255\n" + lines("0", 127),
		"iq3s_grid.txt":     "0xffffffff\n" + lines("0x00000000", 511),
		"iq2s_grid.txt":     "0xffffffffffffffff\n" + lines("0x0000000000000000", 1023),
	})
	goSrc, cSrc, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"var kvaluesIQ4NL = [16]int8{\n\t-128, 127, 0, 0,",
		"var ksignsIQ2XS = [128]uint8{\n\t255, 0, 0,",
		"var iq3sGrid = [512]uint32{\n\t0xffffffff, 0x00000000,",
		"var iq2sGrid = [1024]uint64{\n\t0xffffffffffffffff, 0x0000000000000000,",
	} {
		if !strings.Contains(string(goSrc), want) {
			t.Errorf("the Go source lacks %q", want)
		}
	}
	for _, want := range []string{
		"GM_TABLE int8_t gm_kvalues_iq4nl[16] = {\n    -128, 127, 0, 0,",
		"GM_TABLE uint8_t gm_ksigns_iq2xs[128] = {\n    255, 0, 0,",
		"GM_TABLE uint32_t gm_iq3s_grid[512] = {\n    0xffffffffu, 0x00000000u,",
		"GM_TABLE uint64_t gm_iq2s_grid[1024] = {\n    0xffffffffffffffffull, 0x0000000000000000ull,",
	} {
		if !strings.Contains(string(cSrc), want) {
			t.Errorf("the C header lacks %q", want)
		}
	}
}

// TestGenerateDeltaLiteral: equal deltas written differently agree, and the
// value is written in a form both languages read as a floating constant.
func TestGenerateDeltaLiteral(t *testing.T) {
	for _, c := range []struct{ s, m, goLit, cLit string }{
		{"0.125", "0.1250", "const iq1sDelta = 0.125\n", "#define GM_IQ1S_DELTA 0.125f\n"},
		{"1", "1.0", "const iq1sDelta = 1.0\n", "#define GM_IQ1S_DELTA 1.0f\n"},
		{"0.00001", "1e-5", "const iq1sDelta = 1e-05\n", "#define GM_IQ1S_DELTA 1e-05f\n"},
		{"-2", "-2", "const iq1sDelta = -2.0\n", "#define GM_IQ1S_DELTA -2.0f\n"},
	} {
		dir := copyTables(t, map[string]string{"iq1s_delta.txt": c.s + "\n", "iq1m_delta.txt": c.m + "\n"})
		goSrc, cSrc, err := Generate(dir)
		if err != nil {
			t.Errorf("deltas %s and %s: %v", c.s, c.m, err)
			continue
		}
		if !strings.Contains(string(goSrc), c.goLit) || !strings.Contains(string(cSrc), c.cLit) {
			t.Errorf("deltas %s and %s: want %q and %q in the outputs", c.s, c.m, c.goLit, c.cLit)
		}
	}
}

// TestGenerateRecordsSums: both outputs record the sha256 of every file
// they were made from, as it is now.
func TestGenerateRecordsSums(t *testing.T) {
	dir := copyTables(t, map[string]string{"iq1m_delta.txt": "0.1250\n", "kmask_iq2xs.txt": lines("1", 8)})
	goSrc, cSrc, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	sumRE := regexp.MustCompile(`// (\S+\.txt) sha256 ([0-9a-f]{64})\n`)
	for name, src := range map[string][]byte{"Go": goSrc, "C": cSrc} {
		got := map[string]string{}
		for _, m := range sumRE.FindAllStringSubmatch(string(src), -1) {
			got[m[1]] = m[2]
		}
		files := []string{"iq1s_delta.txt", "iq1m_delta.txt"}
		for _, tb := range tables {
			files = append(files, tb.file)
		}
		if len(got) != len(files) {
			t.Errorf("%s output records %d sums, want %d", name, len(got), len(files))
		}
		for _, f := range files {
			if want := fileSum(t, filepath.Join(dir, f)); got[f] != want {
				t.Errorf("%s output records sha256 %q for %s, want %s", name, got[f], f, want)
			}
		}
	}
}

// TestGenerateRefusesBadGoName: a table name that is not a Go identifier
// makes the Go source unparsable, and Generate says so instead of writing
// it.
func TestGenerateRefusesBadGoName(t *testing.T) {
	saved := tables
	t.Cleanup(func() { tables = saved })
	tables = append([]table(nil), saved...)
	tables[len(tables)-1].goName = "kvalues-MXFP4"
	goSrc, cSrc, err := Generate(tablesDir)
	if err == nil || !strings.HasPrefix(err.Error(), "gencodebooks: formatting the Go source: ") || goSrc != nil || cSrc != nil {
		t.Errorf("Generate = %d and %d bytes, %v; want nothing and a formatting error", len(goSrc), len(cSrc), err)
	}
}

// moduleLike makes a temporary directory laid out like the module root
// (testdata/codebooks, gather/, hipkern/) and changes into it.
func moduleLike(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := copyTables(t, nil)
	if err := os.MkdirAll(filepath.Join(root, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, filepath.Join(root, "testdata", "codebooks")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"gather", "hipkern"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	table, err := os.ReadFile(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "gather", "codec.go"), string(table))
	t.Chdir(root)
	return root
}

// TestRun: with no flags the command reads testdata/codebooks and writes
// both outputs at their places under the module root, readable by all; the
// flags move each; bad usage exits 2; a failure exits 1, says why and
// leaves every output as it was, with no temporary file behind.
func TestRun(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	wantGo, wantC, err := Generate(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	wantCodecs, err := GenerateCodecs(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	tableSrc := mustRead(t, tableFile)
	bad := copyTables(t, map[string]string{"kmask_iq2xs.txt": "1\n"})
	root := moduleLike(t)
	var stderr bytes.Buffer
	if code := run(nil, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("run() = %d, stderr %q", code, stderr.String())
	}
	checkOutput(t, filepath.Join(root, "gather", "codebooks.go"), wantGo)
	checkOutput(t, filepath.Join(root, "hipkern", "codebooks.h"), wantC)
	checkOutput(t, filepath.Join(root, "hipkern", "codecs.h"), wantCodecs)

	other := t.TempDir()
	goOut, cOut, hOut := filepath.Join(other, "a.go"), filepath.Join(other, "b.h"), filepath.Join(other, "c.h")
	moved := filepath.Join(other, "table.go")
	writeFile(t, moved, string(tableSrc))
	if code := run([]string{"-dir", filepath.Join(root, "testdata", "codebooks"), "-go", goOut, "-header", cOut,
		"-codecs", moved, "-codecs-header", hOut}, &stderr); code != 0 {
		t.Fatalf("run with flags = %d, stderr %q", code, stderr.String())
	}
	checkOutput(t, goOut, wantGo)
	checkOutput(t, cOut, wantC)
	checkOutput(t, hOut, wantCodecs)
	if entries, _ := os.ReadDir(other); len(entries) != 4 {
		t.Errorf("%s holds %d files after a run, want the table and the 3 outputs", other, len(entries))
	}

	// Failures: the outputs in other stay as they are.
	writeFile(t, goOut, "old go")
	writeFile(t, cOut, "old c")
	writeFile(t, hOut, "old h")
	badTable := filepath.Join(other, "bad.go")
	writeFile(t, badTable, "package gather\n\nvar codecTable = []Codec{\n\tcodecRow(gguf.TypeQ4_2, admittedCodec, nil),\n}\n")
	if err := os.Mkdir(filepath.Join(other, "dir.h"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(root, "missing")
	for _, c := range []struct {
		args []string
		code int
		msg  string // stderr, or its start for a usage error
	}{
		{[]string{"-bogus"}, 2, "flag provided but not defined: -bogus\nUsage of gencodebooks:\n"},
		{[]string{"-go", goOut, "extra"}, 2, "gencodebooks: unexpected argument \"extra\"\n"},
		{[]string{"-dir", missing, "-go", goOut, "-header", cOut}, 1,
			"gencodebooks: open " + filepath.Join(missing, "iq1s_delta.txt") + ": no such file or directory\n"},
		{[]string{"-dir", bad, "-go", goOut, "-header", cOut}, 1, "gencodebooks: kmask_iq2xs.txt: 1 values, want 8\n"},
		{[]string{"-go", goOut, "-header", filepath.Join(missing, "x.h")}, 1,
			"gencodebooks: writing " + filepath.Join(missing, "x.h") + ": open " + filepath.Join(missing, ".x.h.new") + ": no such file or directory\n"},
		{[]string{"-go", filepath.Join(missing, "x.go"), "-header", cOut}, 1,
			"gencodebooks: writing " + filepath.Join(missing, "x.go") + ": open " + filepath.Join(missing, ".x.go.new") + ": no such file or directory\n"},
		{[]string{"-go", goOut, "-header", cOut, "-codecs-header", filepath.Join(missing, "c.h")}, 1,
			"gencodebooks: writing " + filepath.Join(missing, "c.h") + ": open " + filepath.Join(missing, ".c.h.new") + ": no such file or directory\n"},
		{[]string{"-go", goOut, "-header", cOut, "-codecs", filepath.Join(missing, "t.go"), "-codecs-header", hOut}, 1,
			"gencodebooks: open " + filepath.Join(missing, "t.go") + ": no such file or directory\n"},
		{[]string{"-go", goOut, "-header", cOut, "-codecs", badTable, "-codecs-header", hOut}, 1,
			"gencodebooks: " + badTable + ":4: gguf has no type named Q4_2\n"},
	} {
		stderr.Reset()
		code := run(c.args, &stderr)
		if code != c.code || !strings.HasPrefix(stderr.String(), c.msg) || c.code == 1 && stderr.String() != c.msg {
			t.Errorf("run(%q) = %d, stderr %q; want %d, %q", c.args, code, stderr.String(), c.code, c.msg)
		}
		checkOutput(t, goOut, []byte("old go"))
		checkOutput(t, cOut, []byte("old c"))
		checkOutput(t, hOut, []byte("old h"))
	}
	// A destination that cannot be replaced (a directory) fails the rename;
	// no temporary file stays.
	stderr.Reset()
	dirH := filepath.Join(other, "dir.h")
	if code := run([]string{"-go", goOut, "-header", dirH, "-codecs-header", hOut}, &stderr); code != 1 || !strings.HasPrefix(stderr.String(), "gencodebooks: writing "+dirH+": rename ") {
		t.Errorf("run onto a directory = %d, stderr %q", code, stderr.String())
	}
	for _, e := range mustReadDir(t, other) {
		if strings.HasSuffix(e, ".new") {
			t.Errorf("temporary file %s left in %s", e, other)
		}
	}
}

// checkOutput requires path to hold want, with mode 0644.
func checkOutput(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s does not hold what was expected (%v)", path, err)
		return
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, %v; want 0644", path, fi.Mode().Perm(), err)
	}
}

// mustRead returns the bytes of path.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fileSum is the sha256 of a file's bytes, in hex.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestMainCommand runs main as go generate does, with the process's arguments,
// and reads the status it exits with.
func TestMainCommand(t *testing.T) {
	wantGo, wantC, err := Generate(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	wantCodecs, err := GenerateCodecs(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	root := moduleLike(t)
	savedArgs, savedExit := os.Args, exit
	t.Cleanup(func() { os.Args, exit = savedArgs, savedExit })
	status := -1
	exit = func(code int) { status = code }
	os.Args = []string{"gencodebooks"}
	main()
	if status != 0 {
		t.Fatalf("main exited with %d, want 0", status)
	}
	for path, want := range map[string][]byte{"gather/codebooks.go": wantGo, "hipkern/codebooks.h": wantC, "hipkern/codecs.h": wantCodecs} {
		if got, err := os.ReadFile(filepath.Join(root, path)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("main wrote something other than the generated %s (%v)", path, err)
		}
	}
	os.Args = []string{"gencodebooks", "-dir", "nowhere"}
	main()
	if status != 1 {
		t.Errorf("main with a missing directory exited with %d, want 1", status)
	}
}

// FuzzGenerate feeds arbitrary bytes to the generator as a byte table, a
// grid and the delta: it must never panic, and whatever it accepts it
// writes into both outputs as the file holds it.
func FuzzGenerate(f *testing.F) {
	f.Add([]byte("1\n2\n4\n8\n16\n32\n64\n128\n"), []byte("0.125\n"), uint8(0))
	f.Add([]byte("1\n2\n"), []byte("1e39\n"), uint8(1))
	f.Add([]byte("-1\n\n"), []byte("0.125"), uint8(2))
	dir := copyTables(f, nil)
	files := []string{"kmask_iq2xs.txt", "kvalues_mxfp4.txt", "iq3s_grid.txt"}
	orig := map[string][]byte{}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		orig[name] = b
	}
	f.Fuzz(func(t *testing.T, table, delta []byte, which uint8) {
		file := files[int(which)%len(files)]
		write := map[string][]byte{"iq1s_delta.txt": delta, "iq1m_delta.txt": delta}
		for _, name := range files {
			write[name] = orig[name]
		}
		write[file] = table
		for name, data := range write {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		goSrc, cSrc, err := Generate(dir)
		if err != nil {
			if goSrc != nil || cSrc != nil || !strings.HasPrefix(err.Error(), "gencodebooks: ") {
				t.Fatalf("refused with output, or an unprefixed error: %v", err)
			}
			return
		}
		for _, v := range strings.Split(strings.TrimSuffix(string(table), "\n"), "\n") {
			if !strings.Contains(string(goSrc), v) || !strings.Contains(string(cSrc), v) {
				t.Fatalf("accepted value %q is missing from an output", v)
			}
		}
	})
}
