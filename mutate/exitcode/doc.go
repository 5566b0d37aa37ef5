// Package exitcode is the one home of the mutate command's exit statuses:
// their values, what each means, which wins when several apply, and the
// text that the usage message and the command's package doc show for them
// (both are rendered from the table here; a test in package main checks
// that mutate/doc.go carries the rendered text), and Exit, the error
// every step of a run returns to end the command with a code and its
// one-line reason.
package exitcode
