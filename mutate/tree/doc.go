// Package tree hashes a module's source tree: the sha256 of every source
// file under the module root (Go, assembly, C/C++, HIP/CUDA, shell, syso,
// go.mod, go.sum, anything under a testdata directory, and the catalog's
// kernel sources), skipping directories that start with "." or "_".
// Reports are not sources, so writing them into the tree does not change
// it. The mutate command hashes the tree before and after a run and fails
// the run if they differ.
package tree
