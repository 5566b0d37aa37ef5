package discover

import (
	"fmt"
	"path"
	"strings"

	"gathermut/mutate/config"
	"gathermut/mutate/operator"
)

// exclusion decides which files the generic operators skip: those matching
// a glob of the configuration (the project file's exclude, --exclude),
// except in packages the command line names exactly (a pattern without
// "..."): naming a package asks for all of it.
type exclusion struct {
	globs []string
	whole map[string]bool // module-relative directories of exactly named packages
	files int             // files skipped so far
	pkgs  []string        // packages left out whole
}

// newExclusion resolves the exactly named packages of the configuration.
func (x *discoverer) newExclusion() (*exclusion, error) {
	e := &exclusion{globs: x.cfg.Exclude, whole: map[string]bool{}}
	if len(e.globs) == 0 || !x.cfg.Given.Packages {
		return e, nil
	}
	var exact []string
	for _, p := range x.cfg.Patterns {
		if !strings.Contains(p, "...") {
			exact = append(exact, p)
		}
	}
	if len(exact) == 0 {
		return e, nil
	}
	pkgs, err := ListPackages(x.cfg.Dir, exact)
	if err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		e.whole[x.relDir(p)] = true
	}
	return e, nil
}

// relDir is the module-relative directory of a package of the module ("" for
// the root package).
func (x *discoverer) relDir(importPath string) string {
	if importPath == x.Module {
		return ""
	}
	return strings.TrimPrefix(importPath, x.Module+"/")
}

// excluded reports whether the generic operators skip the module-relative
// file rel.
func (e *exclusion) excluded(rel string) bool {
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	if len(e.globs) == 0 || e.whole[dir] {
		return false
	}
	for _, g := range e.globs {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// packages drops the packages whose directory a glob excludes as a whole
// (so they are not even loaded), keeping exactly named ones.
func (e *exclusion) packages(x *discoverer, pkgs []string) []string {
	return filter(pkgs, func(p string) bool {
		dir := x.relDir(p)
		if len(e.globs) == 0 || dir == "" || e.whole[dir] {
			return true
		}
		for _, g := range e.globs {
			if config.MatchGlob(g, dir) {
				e.pkgs = append(e.pkgs, p)
				return false
			}
		}
		return true
	})
}

// files wraps a file filter (nil: every file) with the exclusion, counting
// the files it skips.
func (e *exclusion) filesFilter(keep func(string) bool) func(string) bool {
	if len(e.globs) == 0 {
		return keep
	}
	return func(rel string) bool {
		if keep != nil && !keep(rel) {
			return false
		}
		if e.excluded(rel) {
			e.files++
			return false
		}
		return true
	}
}

// reportExclusions says on stderr what the exclusions and //gathermut:ignore
// directives left out, when they left out anything.
func (x *discoverer) reportExclusions(e *exclusion, st operator.Stats) {
	var parts []string
	if n := len(e.pkgs); n > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", countOf(n, "package"), listSome(e.pkgs, 3)))
	}
	if e.files > 0 {
		parts = append(parts, countOf(e.files, "file")+" by exclude globs")
	}
	if n := st.IgnoredFiles; n > 0 {
		parts = append(parts, countOf(n, "file")+" by "+operator.IgnorePrefix)
	}
	if n := st.IgnoredDecls; n > 0 {
		parts = append(parts, countOf(n, "declaration")+" by "+operator.IgnorePrefix)
	}
	if len(parts) > 0 {
		x.progressf("mutate: no generic mutants in %s\n", strings.Join(parts, ", "))
	}
}

// listSome joins the first n items and says how many more there are.
func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}

// countOf is "1 file", "2 files".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
