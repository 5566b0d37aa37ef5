package schedule

import "strings"

// raceArgs are the go test -c flags that build the test binary of the
// package at import path pkg with the race detector: ["-race"] where one
// of race (the project file's "race": package patterns relative to the
// module root, "./x" or "./x/..."; config.Config.Race) names it, else
// none. Every build of that package's test binary takes them (the schema
// binary, the plain baseline's, a mutant's own), so that its baseline and
// its mutants run under the same detector, and a race the detector
// reports fails the test it happens in (the testing package does so),
// which kills the mutant like any other failure.
func raceArgs(race []string, module, pkg string) []string {
	for _, pat := range race {
		rel := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(pat, "."), "/"), "/")
		path := module
		if rel != "" {
			path = module + "/" + rel
		}
		if base, ok := strings.CutSuffix(path, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return []string{"-race"}
			}
			continue
		}
		if pkg == path {
			return []string{"-race"}
		}
	}
	return nil
}
