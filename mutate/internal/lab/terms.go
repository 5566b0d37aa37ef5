package lab

import "fmt"

// rowTerms reports whether the run speaks the row's own terms (mutant
// schemata, switched mutants, catalog mutants): when a catalog is
// configured, as this repository's project file does. Elsewhere the lines
// say the same in plain words.
func (l *lab) rowTerms() bool { return l.cfg.Catalog != "" }

// schemaStartLine announces the schema build.
func (l *lab) schemaStartLine(mutants, mutated, binaries int) string {
	if l.rowTerms() {
		return fmt.Sprintf("mutate: %d mutants; schemata of %d packages, test binaries of %d\n", mutants, mutated, binaries)
	}
	return fmt.Sprintf("mutate: %s in %s; building their test binaries, one per package with all its mutants in it\n",
		plural(mutants, "mutant", "mutants"), plural(mutated, "package", "packages"))
}

// schemaBuiltLine says the schema build is done and how many mutants it
// holds.
func (l *lab) schemaBuiltLine(seconds float64, rounds, switched, runnable int) string {
	if l.rowTerms() {
		return fmt.Sprintf("mutate: schema built in %.1f s (%d round(s)): %d of %d runnable mutants switched\n", seconds, rounds, switched, runnable)
	}
	if switched == runnable {
		return fmt.Sprintf("mutate: test binaries built in %.1f s, with all %s to run in them\n", seconds, plural(runnable, "mutant", "mutants"))
	}
	return fmt.Sprintf("mutate: test binaries built in %.1f s: %d of the %d mutants to run are in them, the others get builds of their own\n",
		seconds, switched, runnable)
}
