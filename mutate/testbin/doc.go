// Package testbin runs the go command and compiled test binaries for the
// mutation pipeline: every child in its own process group (a timeout or an
// interrupt kills it and everything it started), test binaries under the Go
// distribution's test2json, whose events are parsed into one outcome per
// top-level test, and -overlay files.
package testbin
