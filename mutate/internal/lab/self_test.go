package lab

import (
	"os"
	"path/filepath"
	"testing"
)

// TestToolCommand: the rerun commands' prefix is one that works from the
// root of the module under test, however the tool was started.
func TestToolCommand(t *testing.T) {
	const root = "/home/u/src/app"
	row := Invocation{Package: "gathermut/mutate", Module: "gathermut", Version: "(devel)", GoRun: true, Arg0: "/tmp/go-build1/b001/exe/mutate", Cwd: "/home/u/src/gathermut"}
	for _, c := range []struct {
		name             string
		inv              Invocation
		module, toolRoot string
		requires         map[string]string
		tool, dir        string
	}{
		{"go run in the tool's own module", row, "gathermut", "", nil, "go run ./mutate", ""},
		{"go run of a released version", Invocation{Package: "example.com/gm/mutate", Module: "example.com/gm", Version: "v0.3.0", GoRun: true},
			"example.com/app", "", nil, "go run example.com/gm/mutate@v0.3.0", ""},
		{"go run of the version the module requires", Invocation{Package: "example.com/gm/mutate", Module: "example.com/gm", Version: "v0.3.0", GoRun: true},
			"example.com/app", "", map[string]string{"example.com/gm": "v0.3.0"}, "go run example.com/gm/mutate", ""},
		{"go run of another version than the one required", Invocation{Package: "example.com/gm/mutate", Module: "example.com/gm", Version: "v0.4.0", GoRun: true},
			"example.com/app", "", map[string]string{"example.com/gm": "v0.3.0"}, "go run example.com/gm/mutate@v0.4.0", ""},
		{"go run from a checkout, on another module", row, "example.com/app", "/home/u/src/gathermut", nil, "go run -C ../gathermut ./mutate", "../app"},
		{"go run from a dirty checkout", Invocation{Package: "gathermut/mutate", Module: "gathermut", Version: "v0.0.0-20260101-abcdef+dirty", GoRun: true},
			"example.com/app", "/home/u/tools/gm", nil, "go run -C ../../tools/gm ./mutate", "../../src/app"},
		{"go run, checkout unknown", row, "example.com/app", "", nil, "mutate", ""},
		{"go run, checkout unknown, named by its package", Invocation{Package: "example.com/gm/cmd/gm", Module: "example.com/gm", GoRun: true, Arg0: "/tmp/go-build1/b001/exe/x"},
			"example.com/app", "", nil, "gm", ""},
		{"go run, no build info", Invocation{GoRun: true, Arg0: "/tmp/go-build1/b001/exe/tool"}, "example.com/app", "", nil, "tool", ""},
		{"go run of an unstamped build the module does not require", Invocation{Package: "example.com/gm/mutate", Module: "example.com/gm", GoRun: true},
			"example.com/app", "", map[string]string{"example.com/other": ""}, "mutate", ""},
		{"go run in the tool's own module, main package at its root", Invocation{Package: "example.com/gm", Module: "example.com/gm", GoRun: true},
			"example.com/gm", "", nil, "go run .", ""},
		{"go run from a checkout the module root cannot name", row, "example.com/app", "gm", nil, "mutate", ""},
		{"go run of a stamped version of a module no proxy serves", Invocation{Package: "gathermut/mutate", Module: "gathermut", Version: "v0.0.0-20260101000000-abcdef123456", GoRun: true},
			"example.com/app", "/home/u/src/gathermut", nil, "go run -C ../gathermut ./mutate", "../app"},
		{"a binary on PATH", Invocation{Arg0: "mutate", Package: "gathermut/mutate", Module: "gathermut", Cwd: "/elsewhere"}, "example.com/app", "", nil, "mutate", ""},
		{"a binary renamed on PATH", Invocation{Arg0: "gm-mutate", Package: "gathermut/mutate", Module: "gathermut"}, "example.com/app", "", nil, "gm-mutate", ""},
		// a binary started by a path: its name where PATH finds the same
		// file, a released version's go run, else its absolute path
		{"a binary by relative path", Invocation{Arg0: "bin/mutate", Cwd: root}, "example.com/app", "", nil, root + "/bin/mutate", ""},
		{"a binary by relative path from a subdirectory", Invocation{Arg0: "../bin/mutate", Cwd: root + "/pkg"}, "example.com/app", "", nil, root + "/bin/mutate", ""},
		{"a binary in the module root", Invocation{Arg0: "./mutate", Cwd: root}, "example.com/app", "", nil, root + "/mutate", ""},
		{"a binary by absolute path", Invocation{Arg0: "/opt/gm/mutate", Cwd: "/"}, "example.com/app", "", nil, "/opt/gm/mutate", ""},
		{"a binary by a path relative to the module's parent", Invocation{Arg0: "../../mutate", Cwd: root}, "example.com/app", "", nil, "/home/u/mutate", ""},
		{"a path that needs quotes", Invocation{Arg0: "/home/u/my tools/mutate", Cwd: "/"}, "example.com/app", "", nil, "'/home/u/my tools/mutate'", ""},
		{"a binary by path that PATH also finds", Invocation{Arg0: "../../mutate", Cwd: root, OnPath: true}, "example.com/app", "", nil, "mutate", ""},
		{"a released binary by path", Invocation{Arg0: "/tmp/x/mutate", Package: "example.com/gm/mutate", Module: "example.com/gm", Version: "v0.3.0"},
			"example.com/app", "", nil, "go run example.com/gm/mutate@v0.3.0", ""},
		{"a local build by path", Invocation{Arg0: "/tmp/x/mutate", Package: "example.com/gm/mutate", Module: "example.com/gm", Version: "v0.3.1-0.20260101000000-abcdef123456+dirty"},
			"example.com/app", "", nil, "/tmp/x/mutate", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool, dir := c.inv.ToolCommand(root, c.module, c.toolRoot, c.requires)
			if tool != c.tool || dir != c.dir {
				t.Errorf("%q --dir %q, want %q --dir %q", tool, dir, c.tool, c.dir)
			}
		})
	}
	// a binary whose path cannot be made absolute: its name
	if tool, dir := (Invocation{Arg0: "bin/gm"}).ToolCommand("app", "example.com/app", "", nil); tool != "gm" || dir != "" {
		t.Errorf("binary path with no working directory: %q --dir %q, want gm", tool, dir)
	}
	// relative paths, where only one way between them is known: no -C
	if tool, dir := row.ToolCommand("app", "example.com/app", "../gm", nil); tool != "mutate" || dir != "" {
		t.Errorf("relative root and checkout: %q --dir %q, want mutate", tool, dir)
	}
}

func TestGoRunBinary(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build123/b001/exe/mutate":          true,
		"/home/u/.tmp/go-build9/b001/exe/mutate":    true,
		"/home/u/bin/mutate":                        false,
		"/home/u/exe/mutate":                        false,
		"/tmp/gathermut-1/go/go-build5/b001/exe/mu": true,
		// a go run binary the build cache keeps (newer go commands)
		"/root/.cache/go-build/8a/8aaf9628-d/mutate": true,
		"/root/.cache/other/8a/8aaf9628-d/mutate":    false,
		"/root/.cache/go-build/8a/8aaf9628/mutate":   false,
	} {
		if got := goRunBinary(path, ""); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	// a GOCACHE of another name, set in the environment
	for path, want := range map[string]bool{
		"/tmp/gocache/8a/8aaf9628-d/mutate": true,
		"/tmp/other/8a/8aaf9628-d/mutate":   false,
		"/tmp/gocache/8a/8aaf9628/mutate":   false,
	} {
		if got := goRunBinary(path, "/tmp/gocache/"); got != want {
			t.Errorf("GOCACHE=/tmp/gocache/: %s: %v, want %v", path, got, want)
		}
	}
}

func TestGoModRequires(t *testing.T) {
	gomod := filepath.Join(t.TempDir(), "go.mod")
	data := "module example.com/app\n\ngo 1.22\n\nrequire example.com/one v1.2.3\n\nrequire (\n\texample.com/gm v0.3.0 // indirect\n\t\"example.com/quoted\" v0.0.1\n\tbroken\n)\n\nreplace example.com/gm => ../gm\n" +
		// neither an exclude block nor a malformed require names a requirement
		"exclude (\n\texample.com/ex v1.0.0\n)\nrequire\nrequire example.com/noversion\n"
	if err := os.WriteFile(gomod, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got := goModRequires(gomod)
	want := map[string]string{"example.com/one": "v1.2.3", "example.com/gm": "v0.3.0", "example.com/quoted": "v0.0.1"}
	if len(got) != len(want) {
		t.Errorf("requires %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if goModRequires(filepath.Join(t.TempDir(), "none")) != nil {
		t.Errorf("a missing go.mod gave requirements")
	}
}

// TestCheckout: the tool's checkout is the module go run was started in,
// when that module is the tool's and not the one under test, and the
// version is not one the go command can fetch.
func TestCheckout(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs(filepath.Join(wd, "..", "..", ".."))
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	devel := Invocation{GoRun: true, Module: "gathermut", Package: "gathermut/mutate", Version: "(devel)", Cwd: wd}
	with := func(f func(*Invocation)) Invocation { inv := devel; f(&inv); return inv }
	for _, c := range []struct {
		name   string
		inv    Invocation
		module string
		want   string
	}{
		{"go run from the checkout, on another module", devel, "example.com/app", repo},
		{"the module under test is the tool's", devel, "gathermut", ""},
		{"not go run", with(func(i *Invocation) { i.GoRun = false }), "example.com/app", ""},
		{"a released version", with(func(i *Invocation) { i.Module, i.Version = "example.com/gm", "v1.0.0" }), "example.com/app", ""},
		{"no working directory", with(func(i *Invocation) { i.Cwd = "" }), "example.com/app", ""},
		{"started in another module", with(func(i *Invocation) { i.Cwd = other }), "example.com/app", ""},
		{"started outside any module", with(func(i *Invocation) { i.Cwd = t.TempDir() }), "example.com/app", ""},
	} {
		if got := c.inv.checkout(c.module); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestOnPath: a binary's bare name reruns it only where PATH finds that
// same file, not another of the same name.
func TestOnPath(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	exe := filepath.Join(dir, "gm-tool")
	for _, p := range []string{exe, filepath.Join(other, "gm-tool")} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, path string
		want       bool
	}{
		{"PATH finds it", dir, true},
		{"PATH finds another file of that name", other, false},
		{"PATH does not find the name", t.TempDir(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PATH", c.path)
			if got := onPath(exe); got != c.want {
				t.Errorf("onPath %v, want %v", got, c.want)
			}
		})
	}
}
