package exitcode

import (
	"errors"
	"fmt"
)

// Exit is an error that ends the command with a code and a one-line
// reason (OK included: every command ends with one).
type Exit struct {
	Code   Code
	Reason string
}

func (e *Exit) Error() string { return e.Reason }

// Fail returns an *Exit with the code and a formatted reason.
func Fail(code Code, format string, args ...any) error {
	return &Exit{Code: code, Reason: fmt.Sprintf(format, args...)}
}

// Of returns the code an error stands for: its *Exit's code, OK for nil,
// and Config for any other error (a failure to read the module or the
// catalog, to write a report).
func Of(err error) Code {
	var e *Exit
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return OK
	}
	return Config
}
