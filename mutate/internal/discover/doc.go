// Package discover is the first step of a run: it finds the mutants.
//
// Run, in order:
//
//   - hashes the whole source tree (the run's safety check, package tree);
//   - answers from the discovery cache (cache.go) when one is there for
//     this tree and these flags: list, diff and run then skip the rest;
//     when the tree differs from a cached one only inside function
//     bodies, in comments, tests or formatting (its shape is the same:
//     reuse.go), keeps the cached mutants of the unchanged packages and
//     makes only the changed packages' again;
//   - otherwise reads the catalog (catalog.go: a program that exists only
//     in an overlay prints it), lists the generic packages less the
//     exclusions (exclude.go: file globs, exactly named packages), loads
//     and type-checks the module (package load), makes the generic
//     mutants (package operator; each type-checked in process, its state
//     Runnable, Unbuildable or Equivalent) and resolves the catalog's
//     entries to exactly one place each (an entry that does not resolve is
//     an Invalid mutant), dropping a generic mutant identical to a
//     catalog one (mutants.go);
//   - lists the files a report's tree hash covers (tree.JudgedFiles) for
//     the whole discovery, before any filter, so shards agree;
//   - filters: --in-diff (indiff.go: lines git diff names), the run/diff
//     id glob, then --shard (shard.go: split by expected work, not by
//     count).
//
// What it returns, a Discovery, is what the schedule step judges.
// Nothing here writes to the source tree.
package discover
