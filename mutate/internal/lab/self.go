package lab

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/load"
)

// Invocation is how the running tool was started, as far as the rerun
// commands in its reports need it.
type Invocation struct {
	Arg0    string // os.Args[0], as the user or the go command typed it
	Cwd     string // the working directory the tool started in
	GoRun   bool   // the binary is go run's, in a go-build temp dir (gone after the run)
	Package string // the tool's main package ("gathermut/mutate")
	Module  string // the module holding it
	Version string // that module's version: a release, a pseudo-version, or "(devel)"
	OnPath  bool   // the binary's name, looked up in PATH, finds this same file
}

// selfInvocation describes this process.
func selfInvocation() Invocation {
	inv := Invocation{Arg0: os.Args[0]}
	inv.Cwd, _ = os.Getwd()
	if exe, err := os.Executable(); err == nil {
		inv.GoRun = goRunBinary(exe, os.Getenv("GOCACHE"))
		inv.OnPath = onPath(exe)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		inv.Package, inv.Module, inv.Version = bi.Path, bi.Main.Path, bi.Main.Version
	}
	return inv
}

// goRunBinary reports whether exe is a binary go run built: it lives in
// <temp>/go-build<N>/b<N>/exe/ and is removed when go run ends, or, as
// newer go commands keep it, in the build cache at
// <GOCACHE>/<xx>/<hash>-d/ (GOCACHE is a go-build folder by default, or
// gocache, the GOCACHE of the environment, when set).
func goRunBinary(exe, gocache string) bool {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build") {
		return true
	}
	cache := filepath.Dir(filepath.Dir(dir))
	return strings.HasSuffix(filepath.Base(dir), "-d") && (filepath.Base(cache) == "go-build" || gocache != "" && cache == filepath.Clean(gocache))
}

// onPath reports whether the go command's way of finding a program by
// name (PATH) finds exe itself: then its bare name reruns it.
func onPath(exe string) bool {
	found, err := exec.LookPath(filepath.Base(exe))
	if err != nil {
		return false
	}
	a, err1 := os.Stat(found)
	b, err2 := os.Stat(exe)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// released reports whether the go command can fetch version v of module
// by its path: a version (not "(devel)", not empty, not a local build's
// "+dirty" stamp) of a module whose path starts with a domain name
// ("gathermut" has none: it is only ever a checkout).
func released(module, v string) bool {
	first, _, _ := strings.Cut(module, "/")
	return strings.Contains(first, ".") && strings.HasPrefix(v, "v") && !strings.Contains(v, "+")
}

// ToolCommand is the command that runs this tool again from the root of
// the module at root (path module), and, where it must name that module
// with --dir, the value: the prefix of every rerun command a report gives.
// In the order tried:
//
//   - go run <./dir of the tool>, when the module under test is the tool's
//     own (this repository: go run ./mutate);
//   - go run <package>, when go run built the tool as a requirement of the
//     module under test (its go.mod requires the tool at the version that
//     ran);
//   - go run <package>@<version>, when go run built a released version
//     (go run example.com/x/mutate@v1.2.0);
//   - go run -C <tool checkout> ./<dir> with --dir <the module>, both
//     relative, when go run built the tool from a checkout of it that is
//     not the module under test (toolRoot: that checkout);
//   - the binary's own name, when it was started by name from PATH, or
//     by a path to the file its name finds on PATH (mutate);
//   - go run <package>@<version>, for a binary of a released version
//     started by a path (a user can paste it anywhere);
//   - else the binary's absolute path (/home/u/bin/mutate): never a path
//     relative to the module, which reads badly in SARIF and annotations.
//
// requires maps the module paths the module under test requires to their
// versions. A go run binary whose checkout is unknown gets the program's
// name, which works once it is built onto PATH.
func (inv Invocation) ToolCommand(root, module, toolRoot string, requires map[string]string) (tool, dir string) {
	pkgDir := "./" + strings.TrimPrefix(strings.TrimPrefix(inv.Package, inv.Module), "/")
	if inv.Package == inv.Module {
		pkgDir = "."
	}
	name := filepath.Base(inv.Arg0)
	if inv.Package != "" {
		name = inv.Package[strings.LastIndex(inv.Package, "/")+1:]
	}
	if inv.GoRun {
		switch {
		case inv.Module != "" && inv.Module == module:
			return "go run " + pkgDir, ""
		case inv.Module != "" && requires[inv.Module] != "" && requires[inv.Module] == inv.Version:
			return "go run " + inv.Package, ""
		case inv.Package != "" && released(inv.Module, inv.Version):
			return "go run " + inv.Package + "@" + inv.Version, ""
		case toolRoot != "":
			there, err1 := filepath.Rel(root, toolRoot)
			back, err2 := filepath.Rel(toolRoot, root)
			if err1 == nil && err2 == nil {
				return "go run -C " + config.ShellWord(filepath.ToSlash(there)) + " " + pkgDir, filepath.ToSlash(back)
			}
		}
		return name, ""
	}
	//gathermut:equivalent(logical) where filepath.Separator is '/' the two tests are one
	if !strings.ContainsRune(inv.Arg0, filepath.Separator) && !strings.ContainsRune(inv.Arg0, '/') {
		return config.ShellWord(inv.Arg0), "" // found on PATH
	}
	if inv.OnPath {
		return config.ShellWord(filepath.Base(inv.Arg0)), ""
	}
	if inv.Package != "" && released(inv.Module, inv.Version) {
		return "go run " + inv.Package + "@" + inv.Version, ""
	}
	abs := inv.Arg0
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(inv.Cwd, abs)
	}
	if !filepath.IsAbs(abs) {
		return name, ""
	}
	return config.ShellWord(filepath.ToSlash(abs)), ""
}

// toolCommand fills in the running tool's command for the module under
// test (Invocation.ToolCommand).
func (l *lab) toolCommand() (tool, dir string) {
	inv := selfInvocation()
	return inv.ToolCommand(l.root, l.module, inv.checkout(l.module), goModRequires(filepath.Join(l.root, "go.mod")))
}

// checkout is the root of the tool's checkout that go run built it from,
// for a run on another module (module): the module at the directory the
// tool started in, when it is the tool's; "" otherwise (not go run, the
// module under test, a released version the go command can fetch).
func (inv Invocation) checkout(module string) string {
	if inv.GoRun && inv.Module != module && !released(inv.Module, inv.Version) && inv.Cwd != "" {
		if r, m, err := load.ModuleRoot(inv.Cwd); err == nil && m == inv.Module {
			return r
		}
	}
	return ""
}

// goModRequires reads the module paths and versions a go.mod requires
// (the require directives, single or in a block); nil when it does not
// read. A replace does not change what "go run <package>" resolves to by
// path, so it is not read.
func goModRequires(gomod string) map[string]string {
	f, err := os.Open(gomod)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case inBlock && fields[0] == ")":
			inBlock = false
		case inBlock && len(fields) >= 2:
			out[strings.Trim(fields[0], `"`)] = fields[1]
		case fields[0] == "require" && len(fields) >= 2 && fields[1] == "(":
			inBlock = true
		case fields[0] == "require" && len(fields) >= 3:
			out[strings.Trim(fields[1], `"`)] = fields[2]
		}
	}
	return out
}
