package hipkern

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// place is one place Load looks for the library: a rule and the path it
// gives ("" when the rule gives none here, with why in rule).
type place struct {
	rule, path string
}

// locate returns the library Load opens: LibEnv's path whenever it is set
// (even if nothing is there: the dynamic loader's error then names it),
// else the first of places that holds a file. Its error names every place
// tried.
func locate() (string, error) {
	if p := os.Getenv(LibEnv); p != "" {
		return p, nil
	}
	return firstFile(places())
}

// places are the places after LibEnv, in order: beside the executable
// (a program shipped with its library), the user cache directory (where a
// user of another module installs it: build.sh --out), and only in a test
// binary the build directory beside this package's source, build.sh's
// default output in the checkout the test was built from.
func places() []place {
	var ps []place
	if exe, err := executable(); err == nil {
		ps = append(ps, place{"beside the executable", filepath.Join(filepath.Dir(exe), LibName)})
	} else {
		ps = append(ps, place{"beside the executable (" + err.Error() + ")", ""})
	}
	if cache, err := os.UserCacheDir(); err == nil {
		ps = append(ps, place{"the user cache directory", filepath.Join(cache, "gathermut", LibName)})
	} else {
		ps = append(ps, place{"the user cache directory (" + err.Error() + ")", ""})
	}
	if testing.Testing() {
		if file, ok := sourceFile(); ok && filepath.IsAbs(file) {
			ps = append(ps, place{"tests only: build.sh's default output", filepath.Join(filepath.Dir(file), "build", LibName)})
		}
	}
	return ps
}

// executable is os.Executable, a variable so that a test can make it fail.
var executable = os.Executable

// sourceFile is thisFile, a variable so that a test can stand in for a
// -trimpath build, whose path is relative to the module
// ("gathermut/hipkern/locate.go") and names no build directory.
var sourceFile = thisFile

// thisFile returns this file's path as the binary was built with it
// (runtime.Caller), and whether it is known.
func thisFile() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	return file, ok
}

// firstFile returns the path of the first place that holds a regular file
// (or a link to one).
func firstFile(ps []place) (string, error) {
	var tried []string
	for _, p := range ps {
		if p.path == "" {
			tried = append(tried, p.rule)
			continue
		}
		fi, err := os.Stat(p.path)
		if err == nil && fi.Mode().IsRegular() {
			return p.path, nil
		}
		why := "not a file"
		if err != nil {
			why = "missing"
			if !errors.Is(err, fs.ErrNotExist) {
				why = err.Error()
			}
		}
		tried = append(tried, fmt.Sprintf("%s (%s: %s)", p.path, p.rule, why))
	}
	return "", fmt.Errorf("hipkern: no kernel library: %s is unset and none of these holds it: %s "+
		"(build it with bash hipkern/build.sh --out PATH)", LibEnv, strings.Join(tried, "; "))
}
