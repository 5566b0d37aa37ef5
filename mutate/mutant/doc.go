// Package mutant defines the two values the mutation pipeline passes along:
// a Mutant (one rewrite of one file, with a stable id) and its Result (the
// verdict and the evidence for it).
//
// Ids have the form "<operator>:<file>:<line>:<col>:<hash>", where file is
// module-relative, line:col is the start of the mutated node in the original
// file and hash is the first 8 hex digits of the sha256 of the replacement
// snippet. Catalog mutants use their catalog entry's id. Both forms depend
// only on the source, so reruns, shards and reports line up.
package mutant
