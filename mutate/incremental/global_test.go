package incremental

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGlobalHash: every verdict's key holds the salt, the module path,
// go.mod, go.sum and every regular file under a testdata directory of
// the module; nothing under a directory the go tool ignores (starting
// with . or _), nothing of a nested module, no other file.
func TestGlobalHash(t *testing.T) {
	base := map[string]string{
		"go.mod":               "module m\n",
		"go.sum":               "x v1 h1:a\n",
		"p/p.go":               "package p\n",
		"p/testdata/in.txt":    "1\n",
		"testdata/top.txt":     "t\n",
		"p/testdata/d/deep":    "d\n",
		"_skip/testdata/a.txt": "a\n",
		".hid/testdata/a.txt":  "a\n",
		"sub/go.mod":           "module m/sub\n",
		"sub/testdata/a.txt":   "a\n",
		"p/notes.txt":          "n\n",
		"p/mytestdata/a.txt":   "a\n",
		"p/testdata.txt":       "a\n",
	}
	hash := func(t *testing.T, files map[string]string, module, salt string, links ...string) [32]byte {
		dir := writeModule(t, files)
		for _, l := range links {
			if err := os.Symlink(filepath.Join(dir, "p", "notes.txt"), filepath.Join(dir, filepath.FromSlash(l))); err != nil {
				t.Fatal(err)
			}
		}
		g := &Graph{root: dir, module: module}
		g.globalHash(salt)
		return g.global
	}
	with := func(name, text string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		if text == "\x00" {
			delete(out, name)
		} else {
			out[name] = text
		}
		return out
	}
	want := hash(t, base, "m", "salt")
	if again := hash(t, base, "m", "salt"); again != want {
		t.Fatal("the same module hashes apart in another directory")
	}
	for _, c := range []struct {
		name    string
		files   map[string]string
		module  string
		salt    string
		links   []string
		changes bool
	}{
		{"another salt", base, "m", "other", nil, true},
		{"another module path", base, "m2", "salt", nil, true},
		{"go.mod", with("go.mod", "module m\n\ngo 1.26\n"), "m", "salt", nil, true},
		{"go.sum", with("go.sum", "x v1 h1:b\n"), "m", "salt", nil, true},
		{"no go.sum", with("go.sum", "\x00"), "m", "salt", nil, true},
		{"a package's testdata", with("p/testdata/in.txt", "2\n"), "m", "salt", nil, true},
		{"testdata at the root", with("testdata/top.txt", "u\n"), "m", "salt", nil, true},
		{"deep in testdata", with("p/testdata/d/deep", "e\n"), "m", "salt", nil, true},
		{"a new testdata file", with("p/testdata/new.txt", ""), "m", "salt", nil, true},
		{"a testdata file renamed", with("p/testdata/in.txt", "\x00"), "m", "salt", nil, true},
		{"under _skip", with("_skip/testdata/a.txt", "b\n"), "m", "salt", nil, false},
		{"under .hid", with(".hid/testdata/a.txt", "b\n"), "m", "salt", nil, false},
		{"a nested module's testdata", with("sub/testdata/a.txt", "b\n"), "m", "salt", nil, false},
		{"a file outside testdata", with("p/notes.txt", "m\n"), "m", "salt", nil, false},
		{"a directory named like testdata", with("p/mytestdata/a.txt", "b\n"), "m", "salt", nil, false},
		{"a file named testdata.txt", with("p/testdata.txt", "b\n"), "m", "salt", nil, false},
		{"Go code", with("p/p.go", "package p\n\nvar X = 1\n"), "m", "salt", nil, false},
		{"a symbolic link in testdata", base, "m", "salt", []string{"p/testdata/link"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hash(t, c.files, c.module, c.salt, c.links...); (got != want) != c.changes {
				t.Errorf("the global hash changed %v, want %v", got != want, c.changes)
			}
		})
	}
}

// TestHashFiles: a package's assembly and C sources hash without their
// comments and formatting, other files (embedded, syso) byte for byte;
// the names and the order of the files count; a missing file hashes as
// its name.
func TestHashFiles(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"a.s": "TEXT ·f(SB), $0\n\tRET\n", "a2.s": "// f\nTEXT   ·f(SB), $0\n\n\tRET // done\n", "b.s": "TEXT ·f(SB), $8\n\tRET\n",
		"w.txt": "a  b\n", "w2.txt": "a b\n", "w3.txt": "a  b\n",
	})
	h := func(lists ...[]string) [32]byte { return hashFiles(dir, lists...) }
	for _, c := range []struct {
		name string
		a, b [][]string
		same bool
	}{
		{"an assembly comment and blanks", [][]string{{"a.s"}}, [][]string{{"a2.s"}}, false}, // the name differs
		{"the same text under the same name", [][]string{{"w.txt"}}, [][]string{{"w.txt"}}, true},
		{"an embedded file's blanks", [][]string{{"w.txt"}}, [][]string{{"w2.txt"}}, false},
		{"order", [][]string{{"a.s", "w.txt"}}, [][]string{{"w.txt", "a.s"}}, false},
		{"split into lists", [][]string{{"a.s", "w.txt"}}, [][]string{{"a.s"}, {"w.txt"}}, true},
		{"a missing file", [][]string{{"gone.s"}}, [][]string{{}}, false},
		{"nothing", [][]string{}, [][]string{{}}, true},
	} {
		if got := h(c.a...) == h(c.b...); got != c.same {
			t.Errorf("%s: equal %v, want %v", c.name, got, c.same)
		}
	}
	// the same file name in two directories: text normalized, others not
	other := writeModule(t, map[string]string{"a.s": "// f\nTEXT   ·f(SB), $0\n\n\tRET // done\n", "w.txt": "a b\n"})
	if hashFiles(dir, []string{"a.s"}) != hashFiles(other, []string{"a.s"}) {
		t.Error("an assembly file's comments and blanks change its hash")
	}
	if hashFiles(dir, []string{"w.txt"}) == hashFiles(other, []string{"w.txt"}) {
		t.Error("an embedded file's blanks do not change its hash")
	}
	if hashFiles(dir, []string{"a.s"}) == hashFiles(dir, []string{"b.s"}) {
		t.Error("b.s hashes as a.s")
	}
}
