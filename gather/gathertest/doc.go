// Package gathertest checks that an Embedding provider keeps the row's
// contract, the way testing/fstest checks any fs.FS: TestProvider runs the
// whole suite against a provider and the memory its tensors live in, and
// returns an error describing what is wrong. Package gather runs it against
// the CPU providers, package hipkern against the GPU providers (on a GPU,
// or on its host emulation); a new device's provider passes it before it
// is registered anywhere.
//
// The suite, each part also callable on its own:
//
//   - CheckDeclines: the provider supports every table type of its tier
//     and none that Embedding refuses; it declines (gather.ErrDeclined)
//     tensors on another kind of device and tables of the other tier, but
//     only after gather.CheckArgs, so a malformed call is refused instead.
//   - CheckRefusals: the refusal table (Refusals), every rule of
//     gather.CheckArgs and of the provider's own checks, in their order: a
//     call breaking two rules is refused for the earlier. The error is
//     exactly gather's (the same on every device), never a decline; out is
//     untouched; the next call works.
//   - CheckEmpty: an empty request returns nil before any other check.
//   - CheckBadIDs: every out-of-range id (negative, at and past the vocab,
//     int32 and int64 extremes, values a 32-bit truncation would make
//     valid) is reported with gather.IDError at the first bad position;
//     out then holds what Subject.PartialRows allows; the next call works.
//   - CheckGathers: random tables of every type of the tier (with edge
//     scales in their first blocks), many widths and selections, both id
//     and out types, unaligned tables and ids; out must be exactly
//     Reference's bytes, and nothing around out may change. Each type's
//     tables depend on the type alone, and CheckGathersOf checks one type
//     (of TierTypes), so that a test can run a subtest per table type.
//   - CheckStats: in a registry, the provider's calls and refusals count
//     as selections, and behind a declining provider as a fallback.
//
// The pieces the suite is made of are exported for other tests: the
// refusal table and its standard valid call (Refusals, ValidCall), random
// tables and their edge scales (RandomTable, WithEdges), the reference
// gather (Reference) and the id encoding (EncodeIDs). The rules themselves
// are written down in docs/row.md.
package gathertest
