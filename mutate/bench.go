package main

import (
	"io"
)

func benchCmd(o options, stdout, stderr io.Writer) error {
	return fail(2, "bench: not yet")
}
