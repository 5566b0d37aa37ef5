// Package tree hashes a module's source tree: the sha256 of every source
// file under the module root (Go, assembly, C/C++, HIP/CUDA, shell, syso,
// go.mod, go.sum, anything under a testdata directory, and the catalog's
// kernel sources), skipping directories that start with "." or "_".
// Reports are not sources, so writing them into the tree does not change
// it. The mutate command hashes the tree before and after a run and fails
// the run if they differ: that is its safety check, over the whole tree.
//
// A report's tree hash is narrower: the Subset of the files the run judged
// (JudgedFiles: the mutated packages, the tests that observe them and what
// those import, the catalog, kernel sources, the testdata those packages'
// directories can reach, go.mod, go.sum and the project file). A change
// elsewhere, in the docs or in the tool's own fixtures, leaves a report
// current.
package tree
