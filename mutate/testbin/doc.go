// Package testbin runs the go command and compiled test binaries for the
// mutation pipeline: every child in its own process group (a timeout or an
// interrupt kills it and everything it started), test binaries under the Go
// distribution's test2json, whose events are parsed into one outcome per
// top-level test, and -overlay files. A test process gets the environment
// a go command it runs needs to build what its binary was built from
// (nested.go: GOFLAGS with the binary's overlay, and without schemata the
// coverage of what it builds).
package testbin
