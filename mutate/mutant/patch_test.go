package mutant

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// applyHunk applies a unified diff of one hunk, as Diff and EditDiff
// write it, to a: the hunk's "-" and " " lines must be a's lines at the
// header's position. It returns the patched text.
func applyHunk(t *testing.T, a, diff string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		t.Fatalf("diff header:\n%s", diff)
	}
	aStart, aLen, bStart, bLen := hunkHeader(t, lines[2])
	al := splitLines(a)
	// a range of length 0 names the line before it
	at := aStart - 1
	if aLen == 0 {
		at = aStart
	}
	if bStart != aStart && !(aLen == 0 || bLen == 0) {
		t.Errorf("hunk %q: the ranges start apart", lines[2])
	}
	var out []string
	out = append(out, al[:at]...)
	i := at
	nA, nB, leading, trailing := 0, 0, 0, 0
	changed := false
	for _, l := range lines[3:] {
		switch l[0] {
		case ' ':
			if i >= len(al) || al[i] != l[1:] {
				t.Fatalf("context line %q is not line %d of the original", l, i+1)
			}
			out = append(out, l[1:])
			i++
			nA++
			nB++
			if changed {
				trailing++
			} else {
				leading++
			}
		case '-':
			if i >= len(al) || al[i] != l[1:] {
				t.Fatalf("removed line %q is not line %d of the original", l, i+1)
			}
			i++
			nA++
			changed = true
		case '+':
			out = append(out, l[1:])
			nB++
			changed = true
		default:
			t.Fatalf("diff line %q", l)
		}
	}
	if nA != aLen || nB != bLen {
		t.Errorf("hunk %q: %d and %d lines", lines[2], nA, nB)
	}
	if leading > 3 || trailing > 3 || (leading < 3 && at-leading > 0 && leading != at) || (trailing < 3 && i < len(al)) {
		t.Errorf("hunk %q: %d lines of context before, %d after", lines[2], leading, trailing)
	}
	out = append(out, al[i:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// hunkHeader reads "@@ -a,n +b,m @@" (a count of 1 may be left out).
func hunkHeader(t *testing.T, header string) (aStart, aLen, bStart, bLen int) {
	t.Helper()
	parse := func(s string) (int, int) {
		start, n, ok := strings.Cut(s, ",")
		st, err := strconv.Atoi(start)
		if err != nil {
			t.Fatalf("hunk range %q", s)
		}
		if !ok {
			return st, 1
		}
		c, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("hunk range %q", s)
		}
		return st, c
	}
	var ar, br string
	if _, err := fmt.Sscanf(header, "@@ -%s +%s @@", &ar, &br); err != nil {
		t.Fatalf("hunk header %q", header)
	}
	aStart, aLen = parse(ar)
	bStart, bLen = parse(br)
	return aStart, aLen, bStart, bLen
}

// TestDiffsApply: the diff of every edit, over many random edits of
// several files, applies to the original and gives the mutated file, with
// three lines of context where the file has them; EditDiff, which looks
// only around the edit, writes what Diff writes over the whole file.
func TestDiffsApply(t *testing.T) {
	sources := []string{
		"package p\n\nfunc F(a, b int) int {\n\tx := a + b\n\tif x > 3 {\n\t\tx++\n\t}\n\treturn x\n}\n\nfunc G() {}\n",
		"one\ntwo\nthree\n",
		"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n",
		"x\n",
	}
	rng := rand.New(rand.NewSource(1))
	texts := []string{"", "Z", "\n", "y\n", "q\nr\n", "a", "\nnew\n"}
	n := 0
	for _, src := range sources {
		for k := 0; k < 300; k++ {
			s := rng.Intn(len(src) + 1)
			e := Edit{Start: s, End: s + rng.Intn(len(src)-s+1), Text: texts[rng.Intn(len(texts))]}
			mutated, err := e.Apply([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			// a diff of whole lines: the mutated file must end in a newline
			if len(mutated) > 0 && mutated[len(mutated)-1] != '\n' {
				continue
			}
			d := Diff("p.go", []byte(src), mutated)
			ed := EditDiff("p.go", []byte(src), e)
			if ed != d {
				t.Errorf("%q edit %+v: EditDiff\n%s\nDiff\n%s", src, e, ed, d)
				continue
			}
			if d == "" {
				if string(mutated) != src {
					t.Errorf("%q edit %+v: no diff for a change", src, e)
				}
				continue
			}
			if got := applyHunk(t, src, d); got != string(mutated) {
				t.Errorf("%q edit %+v: the diff gives %q, want %q\n%s", src, e, got, mutated, d)
			}
			n++
		}
	}
	if n < 500 {
		t.Errorf("only %d diffs checked", n)
	}
}

func TestHunkRange(t *testing.T) {
	for _, c := range []struct {
		from, to int
		want     string
	}{{0, 0, "0,0"}, {3, 3, "3,0"}, {0, 1, "1"}, {4, 5, "5"}, {0, 2, "1,2"}, {2, 9, "3,7"}} {
		if got := hunkRange(c.from, c.to); got != c.want {
			t.Errorf("hunkRange(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

func TestMinimize(t *testing.T) {
	orig := []byte("abc aab xyz")
	for _, c := range []struct {
		e, want Edit
	}{
		{Edit{0, 3, "abc"}, Edit{3, 3, ""}},
		{Edit{0, 3, "xbc"}, Edit{0, 1, "x"}},
		{Edit{0, 3, "abx"}, Edit{2, 3, "x"}},
		{Edit{4, 7, "aaab"}, Edit{6, 6, "a"}},
		{Edit{4, 7, "ab"}, Edit{5, 6, ""}},
		{Edit{8, 11, ""}, Edit{8, 11, ""}},
		{Edit{8, 8, "q"}, Edit{8, 8, "q"}},
	} {
		if got := c.e.Minimize(orig); got != c.want {
			t.Errorf("Minimize(%+v) = %+v, want %+v", c.e, got, c.want)
		}
		a, _ := c.e.Apply(orig)
		b, _ := c.e.Minimize(orig).Apply(orig)
		if string(a) != string(b) {
			t.Errorf("%+v: minimized, the edit makes %q, not %q", c.e, b, a)
		}
	}
	for _, bad := range []Edit{{-1, 2, ""}, {3, 2, ""}, {0, 12, ""}} {
		if _, err := bad.Apply(orig); err == nil || !strings.Contains(err.Error(), "outside a file of 11 bytes") {
			t.Errorf("Apply(%+v): %v", bad, err)
		}
	}
	if got, err := (Edit{11, 11, "!"}).Apply(orig); err != nil || string(got) != "abc aab xyz!" {
		t.Errorf("an edit at the end: %q %v", got, err)
	}
}

func TestBackendAndHash(t *testing.T) {
	for _, c := range []struct {
		m    Mutant
		r    Result
		want string
	}{
		{Mutant{File: "p/p.go"}, Result{}, "go"},
		{Mutant{File: "p/decode_amd64.s"}, Result{}, "asm-amd64"},
		{Mutant{File: "p/x_arm64.s"}, Result{}, "asm-arm64"},
		{Mutant{File: "p/any.s"}, Result{}, "asm-any"},
		{Mutant{File: "asm.s"}, Result{}, "asm-any"},
		{Mutant{File: "k/k.hip", Kind: Kernel}, Result{}, "kernel"},
		{Mutant{File: "k/k.hip", Kind: Kernel}, Result{Backend: "kernel-gpu"}, "kernel-gpu"},
		{Mutant{File: "p/p.go"}, Result{Backend: "go"}, "go"},
	} {
		if got := BackendOf(c.m, c.r); got != c.want {
			t.Errorf("BackendOf(%s, %q) = %q, want %q", c.m.File, c.r.Backend, got, c.want)
		}
	}
	if h := Hash([]byte("x")); len(h) != 16 || h != "2d711642b726b044" || Hash(nil) == h {
		t.Errorf("Hash = %q", h)
	}
	if (Mutant{File: "a.s.go"}).Assembly() || !(Mutant{File: "a.s"}).Assembly() {
		t.Errorf("Assembly")
	}
	var s *Site
	if s.Switched() || (&Site{}).Switched() || !(&Site{Kind: ExprSite}).Switched() {
		t.Errorf("Switched")
	}
}
