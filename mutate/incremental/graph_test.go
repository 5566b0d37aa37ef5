package incremental

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gathermut/mutate/mutant"
)

// The module the key tests change one thing at a time in: two "decoders"
// in one table, a shared helper, a caller, a type with a String method,
// an iota group, a test-only helper package and tests in two packages.
var module = map[string]string{
	"go.mod": "module m\n\ngo 1.26\n",
	"p/p.go": `package p

import "fmt"

const (
	A = iota
	B
)

var table = []func(int) int{dec1, dec2}

var built = build()

func build() int { return helper(1) }

func helper(x int) int { return x + 1 }

func dec1(x int) int { return helper(x) * 2 }

func dec2(x int) int { return x * 3 }

// Apply runs the i-th decoder.
func Apply(i, x int) int { return table[i](x) }

type T struct{}

func (T) String() string { return "t" }

func UseT() string { var t T; return fmt.Sprint(t) + fmt.Sprint(B) }
`,
	"p/p_test.go": `package p

import (
	"testing"

	"m/ptest"
)

func TestDec1(t *testing.T) { ptest.Check(t, Apply(0, 1), 4) }

func TestDec2(t *testing.T) { ptest.Check(t, dec2(1), 3) }

func TestUseT(t *testing.T) { ptest.Check(t, len(UseT()), 2) }
`,
	"ptest/ptest.go": `package ptest

import "testing"

// Check is a test helper only tests import.
func Check(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
`,
	"q/q.go": `package q

import "m/p"

func Q() int { return p.Apply(1, 2) }
`,
	"q/q_test.go": `package q

import "testing"

func TestQ(t *testing.T) {
	if Q() != 6 {
		t.Fatal("Q")
	}
}
`,
	"p/testdata/vectors.txt": "1 2 3\n",
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// at makes a mutant that replaces the first occurrence of old (after the
// marker) in file.
func at(t *testing.T, files map[string]string, file, marker, old, repl string) mutant.Mutant {
	t.Helper()
	src := files[file]
	i := strings.Index(src, marker)
	j := strings.Index(src[i:], old)
	if i < 0 || j < 0 {
		t.Fatalf("%s: no %q after %q", file, old, marker)
	}
	off := i + j
	return mutant.Mutant{ID: file + ":" + marker, Kind: mutant.Go, Operator: "test", Package: "m/" + filepath.Dir(file), File: file,
		Edit: &mutant.Edit{Start: off, End: off + len(old), Text: repl}}
}

type keys struct {
	all, killed map[string]string
	identity    map[string]string
}

// keysOf builds the graph of files and the keys of the mutants (made on
// the base module, moved to the same declaration text in files).
func keysOf(t *testing.T, files map[string]string, ms map[string]mutant.Mutant, killers map[string][]string) keys {
	t.Helper()
	dir := writeModule(t, files)
	g, err := Build(dir, "m", append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"), "salt")
	if err != nil {
		t.Fatal(err)
	}
	k := keys{all: map[string]string{}, killed: map[string]string{}, identity: map[string]string{}}
	for name, m := range ms {
		// the edit moves with its text when the file changes above it
		base := module[m.File][m.Edit.Start:m.Edit.End]
		before := module[m.File][:m.Edit.Start]
		shift := len(files[m.File]) - len(module[m.File])
		if strings.HasPrefix(files[m.File], before) {
			shift = 0
		}
		if files[m.File][m.Edit.Start+shift:m.Edit.End+shift] != base {
			t.Fatalf("%s: edit moved in a way the test does not follow", name)
		}
		m.Edit = &mutant.Edit{Start: m.Edit.Start + shift, End: m.Edit.End + shift, Text: m.Edit.Text}
		key, ok := g.Key(m)
		if !ok {
			t.Fatalf("%s: no key", name)
		}
		k.all[name] = key
		k.identity[name] = g.Identity(m)
		if kb := killers[name]; kb != nil {
			if key, ok := g.KilledKey(m, kb); ok {
				k.killed[name] = key
			} else {
				t.Fatalf("%s: no killed key", name)
			}
		}
	}
	return k
}

func change(files map[string]string, file, old, repl string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	out[file] = strings.Replace(out[file], old, repl, 1)
	return out
}

func TestKeysFollowTheCode(t *testing.T) {
	ms := map[string]mutant.Mutant{
		"dec1":   at(t, module, "p/p.go", "func dec1", "* 2", "* 3"),
		"dec2":   at(t, module, "p/p.go", "func dec2", "* 3", "* 4"),
		"helper": at(t, module, "p/p.go", "func helper", "+ 1", "- 1"),
		"string": at(t, module, "p/p.go", "func (T) String", `"t"`, `"u"`),
		"uset":   at(t, module, "p/p.go", "func UseT", "fmt.Sprint(t)", `"x"`),
		"q":      at(t, module, "q/q.go", "func Q", "1, 2", "0, 2"),
	}
	all := []string{"dec1", "dec2", "helper", "string", "uset", "q"}
	killers := map[string][]string{"dec1": {"m/p.TestDec1"}}
	base := keysOf(t, module, ms, killers)
	for _, c := range []struct {
		name         string
		files        map[string]string
		changed      []string // whose Key changes; the others' stays
		killedStays  bool     // dec1's KilledKey (killed by TestDec1) stays
		identityKept bool     // dec1's identity
	}{
		{"nothing", module, nil, true, true},
		{"a sibling decoder", change(module, "p/p.go", "return x * 3", "return x * 3 + 0"), []string{"dec2", "q"}, true, true},
		{"the shared helper", change(module, "p/p.go", "return x + 1", "return x + 1 + 0"), []string{"dec1", "helper", "q"}, false, true},
		{"the caller on the path", change(module, "p/p.go", "return table[i](x)", "return table[i](x) + 0"), []string{"dec1", "dec2", "helper", "q"}, false, true},
		{"a line above, elsewhere in the file", change(module, "p/p.go", "var built", "// a comment\n\nvar built"), nil, true, true},
		{"the test that kills it", change(module, "p/p_test.go", "Apply(0, 1), 4", "Apply(0, 1), 2*2"), []string{"dec1", "dec2", "helper"}, false, true},
		{"another test that reaches it", change(module, "q/q_test.go", `t.Fatal("Q")`, `t.Fatal("q")`), []string{"dec1", "dec2", "helper", "q"}, true, true},
		{"a test-only helper", change(module, "ptest/ptest.go", "got != want", "want != got"), []string{"dec1", "dec2", "helper", "string", "uset"}, false, true},
		{"a new test reaching it", change(module, "p/p_test.go", "func TestDec2", "func TestNew(t *testing.T) { Apply(0, 0) }\n\nfunc TestDec2"), []string{"dec1", "dec2", "helper"}, true, true},
		{"the iota group", change(module, "p/p.go", "A = iota", "Z = iota\n\tA"), []string{"uset"}, true, true},
		{"testdata", change(module, "p/testdata/vectors.txt", "1 2 3", "1 2 4"), all, false, true},
		{"the mutated declaration", change(module, "p/p.go", "return helper(x) * 2", "return 2 * helper(x) * 2"), []string{"dec1", "helper", "q"}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := keysOf(t, c.files, ms, killers)
			for _, name := range all {
				want := contains(c.changed, name)
				if changed := got.all[name] != base.all[name]; changed != want {
					t.Errorf("%s: key changed %v, want %v", name, changed, want)
				}
			}
			if stays := got.killed["dec1"] == base.killed["dec1"]; stays != c.killedStays {
				t.Errorf("dec1's killed key stays %v, want %v", stays, c.killedStays)
			}
			if kept := got.identity["dec1"] == base.identity["dec1"]; kept != c.identityKept {
				t.Errorf("dec1's identity kept %v, want %v", kept, c.identityKept)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestCacheRoundTrip: a stored verdict comes back, marked reused, while
// its key holds, and not after a change; what may not be stored is not.
func TestCacheRoundTrip(t *testing.T) {
	dir := writeModule(t, module)
	env := append(os.Environ(), "GOWORK=off")
	g, err := Build(dir, "m", env, "salt")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub", "cache.json.gz")
	c, err := Open(path)
	if err != nil || len(c.Entries) != 0 {
		t.Fatalf("a missing file: %v, %d entries", err, len(c.Entries))
	}
	killed := mutant.Outcome{Mutant: at(t, module, "p/p.go", "func dec1", "* 2", "* 3"), Result: mutant.Result{Status: mutant.Killed, KilledBy: []string{"m/p.TestDec1"}}}
	survived := mutant.Outcome{Mutant: at(t, module, "p/p.go", "func dec2", "* 3", "* 4"), Result: mutant.Result{Status: mutant.Survived, Why: "every selected test passed (1 ran)"}}
	errored := mutant.Outcome{Mutant: at(t, module, "q/q.go", "func Q", "1, 2", "0, 2"), Result: mutant.Result{Status: mutant.Error, Why: "no test ran"}}
	typeChecked := survived
	typeChecked.Mutant.State, typeChecked.Mutant.Note = mutant.Unbuildable, "does not type-check"
	typeChecked.Result = mutant.Result{Status: mutant.Unviable}
	for _, o := range []mutant.Outcome{killed, survived} {
		if !c.Store(g, o) {
			t.Errorf("%s not stored", o.Mutant.ID)
		}
	}
	for _, o := range []mutant.Outcome{errored, typeChecked, {Mutant: killed.Mutant, Result: mutant.Result{Status: mutant.Interrupted}}} {
		if Cacheable(o) {
			t.Errorf("%s (%s) is cacheable", o.Mutant.ID, o.Result.Status)
		}
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c, err = Open(path)
	if err != nil || len(c.Entries) != 2 {
		t.Fatalf("read back: %v, %d entries", err, len(c.Entries))
	}
	for _, o := range []mutant.Outcome{killed, survived} {
		r, ok := c.Lookup(g, o.Mutant)
		if !ok || !r.Reused || r.Status != o.Result.Status {
			t.Errorf("%s: lookup %v %+v", o.Mutant.ID, ok, r)
		}
	}
	// a new test that reaches both: the survivor runs again, the kill holds
	files := change(module, "p/p_test.go", "func TestDec2", "func TestNew(t *testing.T) { Apply(1, 0) }\n\nfunc TestDec2")
	dir2 := writeModule(t, files)
	g2, err := Build(dir2, "m", env, "salt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup(g2, killed.Mutant); !ok {
		t.Errorf("a kill was undone by a new test elsewhere")
	}
	if _, ok := c.Lookup(g2, survived.Mutant); ok {
		t.Errorf("a survivor was reused although a new test can reach it")
	}
	// another salt (tool, Go, flags): nothing holds
	g3, err := Build(dir, "m", env, "other salt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup(g3, killed.Mutant); ok {
		t.Errorf("a verdict of another tool or flags was reused")
	}
	c.Forget(map[string]bool{"m/p": true}, map[string]bool{g.Identity(killed.Mutant): true})
	if len(c.Entries) != 1 {
		t.Errorf("forget kept %d entries", len(c.Entries))
	}
	os.WriteFile(path, []byte("not gzip"), 0o644)
	if c, err := Open(path); err == nil || len(c.Entries) != 0 {
		t.Errorf("a broken file: %v", err)
	}
}
