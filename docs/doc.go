// Package docs holds the project's documents, in Markdown: the behaviour
// contract of the gather row (row.md), the codec layouts (codecs.md), the
// provenance of the lookup tables (codebooks.md) and the mutation tool's
// book (mutate/, a page per topic); README.md lists them with the others
// the repository keeps beside its data. It has no code. Its test reads
// every Go comment, Markdown file, C or HIP source and script of the
// repository and fails on a reference to a document that is not in it, or
// to a path outside it (the contract once lived beside the checkout, where
// a clone could not follow it); others keep the exit codes of the README
// and the book equal to package exitcode's, and every page of the book
// linked from the README.
package docs
