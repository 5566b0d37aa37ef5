package schedule

import "fmt"

// rowTerms reports whether the run speaks the row's own terms (mutant
// schemata, switched mutants, catalog mutants): when a catalog is
// configured, as this repository's project file does. Elsewhere the lines
// say the same in plain words.
func (s *scheduler) rowTerms() bool { return s.cfg.Catalog != "" }

// schemaStartLine announces the schema build.
func (s *scheduler) schemaStartLine(mutants, mutated, binaries int) string {
	if s.rowTerms() {
		return fmt.Sprintf("mutate: %d mutants; schemata of %d packages, test binaries of %d\n", mutants, mutated, binaries)
	}
	return fmt.Sprintf("mutate: %s in %s; building their test binaries, one per package with all its mutants in it\n",
		countOf(mutants, "mutant", "mutants"), countOf(mutated, "package", "packages"))
}

// schemaBuiltLine says the schema build is done and how many mutants it
// holds.
func (s *scheduler) schemaBuiltLine(seconds float64, rounds, switched, runnable int) string {
	if s.rowTerms() {
		return fmt.Sprintf("mutate: schema built in %.1f s (%d round(s)): %d of %d runnable mutants switched\n", seconds, rounds, switched, runnable)
	}
	if switched == runnable {
		return fmt.Sprintf("mutate: test binaries built in %.1f s, with all %s to run in them\n", seconds, countOf(runnable, "mutant", "mutants"))
	}
	return fmt.Sprintf("mutate: test binaries built in %.1f s: %d of the %d mutants to run are in them, the others get builds of their own\n",
		seconds, switched, runnable)
}

// countOf is n with the noun's number: "1 mutant", "3 mutants".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
