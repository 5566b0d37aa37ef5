// Package gencheck holds no code, only tests: the files the row's
// generators write and the repository commits are exactly what those
// generators write today from the committed sources. gather/internal/asmgen
// (its own module, built on avo) writes gather/decode_amd64.s,
// gather/stubs_amd64.go and gather/accel_table_amd64.go;
// gather/internal/gencodebooks checks its own outputs (TestCommittedOutputs
// there). The check runs the generator as go generate in gather does, in a
// temporary copy, so it needs avo in the module cache or a module proxy to
// fetch it from; without either it skips, saying so.
package gencheck
