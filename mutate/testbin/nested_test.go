package testbin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSplitJoinGoflags(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		join string // JoinGoflags(want)
	}{
		{"", nil, ""},
		{"  \t\n", nil, ""},
		{"-mod=mod", []string{"-mod=mod"}, "-mod=mod"},
		{" -a  -b=1\t-c\n", []string{"-a", "-b=1", "-c"}, "-a -b=1 -c"},
		{`'-ldflags=-s -w' -x`, []string{"-ldflags=-s -w", "-x"}, `'-ldflags=-s -w' -x`},
		{`"-gcflags=all=-N -l"`, []string{"-gcflags=all=-N -l"}, `'-gcflags=all=-N -l'`},
		{`"-x='a b'"`, []string{"-x='a b'"}, `"-x='a b'"`},
		{`-a'b"c`, []string{`-a'b"c`}, `-a'b"c`},
		{`''`, []string{""}, `''`},
		{`'-a'-b`, []string{"-a", "-b"}, "-a -b"},
	} {
		got, err := SplitGoflags(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SplitGoflags(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		join, err := JoinGoflags(c.want)
		if err != nil || join != c.join {
			t.Errorf("JoinGoflags(%q) = %q, %v; want %q", c.want, join, err, c.join)
		}
	}
	for _, bad := range []string{`'-a`, `-a "-b`} {
		if got, err := SplitGoflags(bad); err == nil || !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("SplitGoflags(%q) = %q, %v; want an unterminated string error", bad, got, err)
		}
	}
	if got, err := JoinGoflags([]string{`-x=a' "b`}); err == nil {
		t.Errorf("an element with a space and both quotes joined as %q", got)
	}
	if got, err := JoinGoflags([]string{"'a", `"b`}); err != nil || got != `"'a" '"b'` {
		t.Errorf("elements starting with a quote joined as %q, %v", got, err)
	}
}

// FuzzSplitGoflags: whatever SplitGoflags accepts, JoinGoflags writes back
// to a value that splits into the same elements.
func FuzzSplitGoflags(f *testing.F) {
	for _, s := range []string{"-a -b=1", `'-ldflags=-s -w' -x`, `"a 'b c"`, `-a'b"c`, `''`, "\t-x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flags, err := SplitGoflags(s)
		if err != nil {
			return
		}
		joined, err := JoinGoflags(flags)
		if err != nil {
			t.Fatalf("JoinGoflags(%q) of %q: %v", flags, s, err)
		}
		again, err := SplitGoflags(joined)
		if err != nil || !slices.Equal(again, flags) {
			t.Fatalf("%q -> %q -> %q -> %q, %v", s, flags, joined, again, err)
		}
	})
}

func TestFlagNameAndOverlayOf(t *testing.T) {
	for f, want := range map[string]string{
		"-overlay=/a.json": "overlay", "--overlay=/a.json": "overlay", "-count=1": "count", "-cover": "cover", "overlay": "", "": "",
	} {
		if got := flagName(f); got != want {
			t.Errorf("flagName(%q) = %q, want %q", f, got, want)
		}
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, ""},
		{[]string{"-mod=mod"}, ""},
		{[]string{"-overlay=/a.json", "-x"}, "/a.json"},
		{[]string{"--overlay=/a.json", "-overlay=b.json"}, "b.json"},
	} {
		if got := overlayOf(c.flags); got != c.want {
			t.Errorf("overlayOf(%q) = %q, want %q", c.flags, got, c.want)
		}
	}
}

func TestNestedGoflags(t *testing.T) {
	cover := &nestedCover{packages: []string{"m/a", "m/b"}, profile: "/r/p.gotest"}
	for _, c := range []struct {
		name    string
		user    []string
		overlay string
		cover   *nestedCover
		want    []string
	}{
		{"nothing", nil, "", nil, []string{"-count=1"}},
		{"the binary's overlay", []string{"-mod=mod", "-count=3"}, "/r/o.json", nil, []string{"-mod=mod", "-count=1", "-overlay=/r/o.json"}},
		{"the user's overlay stays without ours", []string{"-overlay=/u.json"}, "", nil, []string{"-overlay=/u.json", "-count=1"}},
		{"ours replaces the user's", []string{"--overlay=/u.json", "-trimpath"}, "/r/o.json", nil, []string{"-trimpath", "-count=1", "-overlay=/r/o.json"}},
		{"coverage", []string{"-cover", "-covermode=atomic", "-coverpkg=x", "-coverprofile=u.out", "-race"}, "", cover,
			[]string{"-race", "-count=1", "-cover", "-covermode=set", "-coverpkg=m/a,m/b", "-coverprofile=/r/p.gotest"}},
		{"the user's coverage flags without ours", []string{"-cover", "-covermode=atomic"}, "/o", nil, []string{"-cover", "-covermode=atomic", "-count=1", "-overlay=/o"}},
	} {
		if got := nestedGoflags(c.user, c.overlay, c.cover); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestChildEnv(t *testing.T) {
	base := []string{"HOME=/h", "GATHERMUT_MUTANT=7", "GOFLAGS=-mod=mod", "GATHERMUT_HITS=/outer/hits", "GATHERMUT_KERNEL_HITS=/k", "GATHERMUT_CACHE=/c", "PATH=/bin"}
	got := childEnv(base, "-count=1 -overlay=/o.json", []string{"GATHERMUT_MUTANT=3"})
	want := []string{"HOME=/h", "GATHERMUT_CACHE=/c", "PATH=/bin", "GOFLAGS=-count=1 -overlay=/o.json", "GATHERMUT_MUTANT=3"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q\nwant %q", got, want)
	}
	if base[1] != "GATHERMUT_MUTANT=7" {
		t.Errorf("childEnv changed its input: %q", base)
	}
}

func TestReadAndMergeOverlay(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "sub", "user.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, `{"Replace": {"a.go": "b.go", "/abs/c.go": "", "/abs/d.go": "/x/d.go"}}`)
	got, err := readOverlay("sub/user.json", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{filepath.Join(dir, "a.go"): filepath.Join(dir, "b.go"), "/abs/c.go": "", "/abs/d.go": "/x/d.go"}
	if len(got) != len(want) {
		t.Errorf("readOverlay = %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("readOverlay[%q] = %q, want %q", k, got[k], v)
		}
	}
	if _, err := readOverlay("missing.json", dir); err == nil || !strings.Contains(err.Error(), "the overlay in GOFLAGS") {
		t.Errorf("a missing overlay file: %v", err)
	}
	write(filepath.Join(dir, "bad.json"), `{"Replace": [1]}`)
	if _, err := readOverlay(filepath.Join(dir, "bad.json"), "/elsewhere"); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("a bad overlay file: %v", err)
	}

	out := filepath.Join(dir, "merged.json")
	if err := writeOverlay(out, got, map[string]string{"/abs/d.go": "/tool/d.go", "/abs/e.go": "/tool/e.go"}); err != nil {
		t.Fatal(err)
	}
	var ov Overlay
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	want["/abs/d.go"], want["/abs/e.go"] = "/tool/d.go", "/tool/e.go"
	if len(ov.Replace) != len(want) {
		t.Errorf("merged overlay %s, want %q", data, want)
	}
	for k, v := range want {
		if ov.Replace[k] != v {
			t.Errorf("merged overlay[%q] = %q, want %q", k, ov.Replace[k], v)
		}
	}
	if err := writeOverlay(filepath.Join(dir, "no", "such", "dir.json"), nil, nil); err == nil {
		t.Errorf("an overlay written into a missing directory")
	}
}

// TestRunNestedBuild: a test that builds its own command with go build
// and runs it. Run with the overlay the test binary was built from, the
// nested build sees the mutant (the test fails); without it, it builds
// the files on disk (the test passes). With NestedCover, the lines the
// built binary ran are in the test's coverage profile, though the test
// binary itself ran none of them.
func TestRunNestedBuild(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module nb\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(add(2, 3)) }\n\nfunc add(a, b int) int { return a + b }\n",
		"main_test.go": `package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

func TestCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nb")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "5\n" {
		t.Errorf("%q %v", out, err)
	}
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	mutantDir := t.TempDir()
	mutated := filepath.Join(mutantDir, "main.go")
	if err := os.WriteFile(mutated, []byte(strings.Replace(files["main.go"], "a + b", "a - b", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(mutantDir, "overlay.json")
	if err := WriteOverlay(overlay, map[string]string{filepath.Join(dir, "main.go"): mutated}); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(mutantDir, "nb.test")
	if _, out, err := Go(ctx, dir, "test", "-c", "-o", bin, "-overlay", overlay, "."); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	opts := Options{Binary: bin, Dir: dir, Package: "nb", Timeout: 10 * time.Minute, Overlay: overlay}
	res, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Tests["TestCommand"]; got == nil || got.Action != "fail" || !strings.Contains(got.Output, `"-1\n"`) {
		t.Errorf("with the overlay in GOFLAGS, the nested build does not see the mutant: %+v", got)
	}
	if !strings.Contains(res.Command, "GOFLAGS=") || !strings.Contains(res.Command, "-overlay="+overlay) {
		t.Errorf("the command line does not show GOFLAGS: %s", res.Command)
	}
	opts.Overlay = ""
	if res, err = Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if got := res.Tests["TestCommand"]; got == nil || got.Action != "pass" {
		t.Errorf("without the overlay, the nested build of the files on disk: %+v", got)
	}
	if strings.Contains(res.Command, "GOFLAGS") {
		t.Errorf("GOFLAGS shown without an overlay: %s", res.Command)
	}
	checkNestedCoverage(t, ctx, dir, mutantDir)
}

// checkNestedCoverage: with NestedCover, the lines the binary a test
// builds ran are added to the test's coverage profile, with one mode line,
// and the nested files are removed.
func checkNestedCoverage(t *testing.T, ctx context.Context, dir, mutantDir string) {
	t.Helper()
	covBin := filepath.Join(mutantDir, "cover.test")
	if _, out, err := Go(ctx, dir, "test", "-c", "-o", covBin, "-cover", "-covermode=set", "-coverpkg=nb", "."); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	profile := filepath.Join(mutantDir, "cover.out")
	res, err := Run(ctx, Options{Binary: covBin, Dir: dir, Package: "nb", Timeout: 10 * time.Minute, Cover: profile, NestedCover: []string{"nb"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Tests["TestCommand"]; got == nil || got.Action != "pass" {
		t.Fatalf("the coverage run: %+v\n%s", got, res.Output)
	}
	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "mode: set" || !slices.Contains(lines, "nb/main.go:7.24,7.40 1 1") || !slices.Contains(lines, "nb/main.go:7.24,7.40 1 0") {
		t.Errorf("profile without the nested binary's hits (and the test binary's own blocks):\n%s", data)
	}
	if strings.Count(string(data), "mode:") != 1 {
		t.Errorf("more than one mode line:\n%s", data)
	}
	for _, left := range []string{profile + ".nested", profile + ".gotest", profile + ".nested.txt"} {
		if _, err := os.Stat(left); err == nil {
			t.Errorf("%s left behind", left)
		}
	}
}

func TestCollectNested(t *testing.T) {
	dir := t.TempDir()
	c := &nestedCover{coverdir: filepath.Join(dir, "cd"), profile: filepath.Join(dir, "p.gotest")}
	if err := os.MkdirAll(c.coverdir, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "p.out")
	// nothing recorded: the profile is not made
	if err := c.collect(context.Background(), profile); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(profile); err == nil {
		t.Errorf("a profile made from nothing")
	}
	// a nested go test's profile, added to an absent test profile
	if err := os.MkdirAll(c.coverdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.profile, []byte("mode: set\nm/a.go:1.1,2.2 1 1\n\nm/a.go:3.1,4.2 1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.collect(context.Background(), profile); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(profile)
	if string(data) != "mode: set\nm/a.go:1.1,2.2 1 1\nm/a.go:3.1,4.2 1 0\n" {
		t.Errorf("profile %q", data)
	}
	if _, err := os.Stat(c.profile); err == nil {
		t.Errorf("the nested profile was not removed")
	}
	// counters without their meta-data file add nothing; a meta-data
	// file that go tool covdata cannot read is an error
	for i, files := range [][]string{{"covcounters.x.1.2"}, {"covmeta.abc", "covcounters.abc.1.2"}} {
		if err := os.MkdirAll(c.coverdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(c.coverdir, f), []byte("junk"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := c.collect(context.Background(), profile)
		if i == 0 && err != nil {
			t.Errorf("counters alone: %v", err)
		}
		if i == 1 && (err == nil || !strings.Contains(err.Error(), "covdata")) {
			t.Errorf("unreadable meta-data: %v", err)
		}
	}
	if again, _ := os.ReadFile(profile); string(again) != string(data) {
		t.Errorf("the profile changed: %q", again)
	}
	if _, err := os.Stat(c.coverdir); err == nil {
		t.Errorf("the coverdir was not removed")
	}
}
