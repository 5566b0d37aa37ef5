package tree

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gathermut/mutate/load"
)

// judgedModule is a small module: a is mutated; b is what a imports, c
// what only a's tests import, d a package whose tests observe a, e a
// package nobody judged imports, cat the catalog with its vocabulary
// under tool/ (as gathermut/mutate/catalog is), tool/testdata the tool's
// fixtures.
var judgedModule = map[string]string{
	"go.mod":                     "module m\n\ngo 1.22\n",
	".gathermut.json":            `{"packages": ["./a"]}`,
	"README.md":                  "# m\n",
	"testdata/root.txt":          "root data\n",
	"a/a.go":                     "package a\n\nimport \"m/b\"\n\nfunc A() int { return b.B() + 1 }\n",
	"a/a_test.go":                "package a\n\nimport (\n\t\"testing\"\n\n\t\"m/c\"\n)\n\nfunc TestA(t *testing.T) { _ = c.C }\n",
	"a/kern.hip":                 "// a kernel source next to the package\n",
	"a/notes.txt":                "not a source\n",
	"a/testdata/in.txt":          "a's data\n",
	"b/b.go":                     "package b\n\nfunc B() int { return 1 }\n",
	"b/b_test.go":                "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
	"c/c.go":                     "package c\n\nconst C = 3\n",
	"c/testdata/x.txt":           "c's data\n",
	"d/d.go":                     "package d\n\nimport \"m/a\"\n\nfunc D() int { return a.A() }\n",
	"d/d_test.go":                "package d\n\nimport \"testing\"\n\nfunc TestD(t *testing.T) { _ = D() }\n",
	"e/e.go":                     "package e\n\nfunc E() {}\n",
	"e/e_test.go":                "package e\n\nimport \"testing\"\n\nfunc TestE(t *testing.T) {}\n",
	"e/testdata/y.txt":           "e's data\n",
	"cat/cat.go":                 "package cat\n\nimport \"m/tool/vocab\"\n\nvar Entries = []vocab.Entry{{ID: \"x\"}}\n",
	"cat/cat_test.go":            "package cat\n\nimport \"testing\"\n\nfunc TestCat(t *testing.T) {}\n",
	"tool/vocab/vocab.go":        "package vocab\n\ntype Entry struct{ ID string }\n",
	"tool/testdata/fixture/f.go": "package fixture\n",
	"k/kernel.cu":                "// the kernel\n",
}

var judgedScope = Scope{Mutated: []string{"m/a"}, Catalog: "m/cat", Kernel: []string{"k/kernel.cu"}, Tool: "m/tool", Project: ".gathermut.json"}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// judgedHash is what the mutate command records: the whole tree hashed
// with the kernel and project file, and the subset the scope judges.
func judgedHash(t *testing.T, dir string) (judged, whole string, files []string) {
	t.Helper()
	prog, err := load.LoadGraph(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err = JudgedFiles(prog, judgedScope)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := HashTree(dir, []string{"k/kernel.cu", ".gathermut.json"})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Subset(files).Hash, tr.Hash, files
}

func TestJudgedFiles(t *testing.T) {
	dir := writeModule(t, judgedModule)
	_, _, files := judgedHash(t, dir)
	want := []string{
		".gathermut.json", "a/a.go", "a/a_test.go", "a/kern.hip", "a/testdata/in.txt", "b/b.go", "c/c.go", "c/testdata/x.txt",
		"cat/cat.go", "d/d.go", "d/d_test.go", "go.mod", "k/kernel.cu", "testdata/root.txt",
	}
	if !slices.Equal(files, want) {
		t.Errorf("judged files\n got %s\nwant %s", strings.Join(files, " "), strings.Join(want, " "))
	}
}

// TestJudgedHash edits one file at a time and checks that the report's
// hash changes exactly for the judged files, while the whole tree's hash
// (the run's safety check) changes for every source file.
func TestJudgedHash(t *testing.T) {
	base := writeModule(t, judgedModule)
	judged0, whole0, _ := judgedHash(t, base)
	for _, c := range []struct {
		file        string
		judged      bool // the report's hash changes
		wholeSource bool // the whole tree's hash changes
	}{
		{"tool/testdata/fixture/f.go", false, true},
		{"README.md", false, false},
		{".gathermut.json", true, true},
		{"a/a.go", true, true},
		{"a/kern.hip", true, true},
		{"b/b.go", true, true},
		{"b/b_test.go", false, true},
		{"c/testdata/x.txt", true, true},
		{"testdata/root.txt", true, true},
		{"e/e.go", false, true},
		{"e/testdata/y.txt", false, true},
		{"cat/cat.go", true, true},
		{"cat/cat_test.go", false, true},
		{"tool/vocab/vocab.go", false, true},
		{"k/kernel.cu", true, true},
	} {
		t.Run(c.file, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range judgedModule {
				files[k] = v
			}
			if strings.HasSuffix(c.file, ".go") {
				files[c.file] += "\n// edited\n"
			} else if strings.HasSuffix(c.file, ".json") {
				files[c.file] = `{"packages": ["./a"], "comment": "edited"}`
			} else {
				files[c.file] += "edited\n"
			}
			judged, whole, _ := judgedHash(t, writeModule(t, files))
			if (judged != judged0) != c.judged {
				t.Errorf("report hash changed: %v, want %v", judged != judged0, c.judged)
			}
			if (whole != whole0) != c.wholeSource {
				t.Errorf("whole tree hash changed: %v, want %v", whole != whole0, c.wholeSource)
			}
		})
	}
}

func TestSubsetAbsent(t *testing.T) {
	tr := Tree{Files: map[string]string{"a.go": "1", "b.go": "2"}}
	with := tr.Subset([]string{"a.go", "b.go"})
	tr2 := Tree{Files: map[string]string{"a.go": "1"}}
	without := tr2.Subset([]string{"a.go", "b.go"})
	if with.Hash == without.Hash || without.Files["b.go"] != "absent" {
		t.Errorf("a judged file removed does not change the hash: %+v", without)
	}
	if tr.Subset([]string{"a.go"}).Hash == with.Hash {
		t.Errorf("the subset's hash does not depend on its files")
	}
}
