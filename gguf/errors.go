package gguf

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every refusal of a malformed file is a *FormatError that
// matches ErrFormat under errors.Is; a cut-off header also matches
// ErrTruncated, and an unknown tensor type ErrUnknownType.
var (
	ErrFormat      = errors.New("gguf: malformed file")
	ErrTruncated   = errors.New("gguf: truncated file")
	ErrUnknownType = errors.New("gguf: unknown ggml type")
)

// FormatError reports a malformed GGUF file: which file, which record, the
// byte offset of the field at fault, and what is wrong with it.
type FormatError struct {
	File    string // the name given to Parse, or the path given to Open
	Subject string // the record at fault: `key "general.alignment"`, `tensor "token_embd.weight"`, or "" for the header
	Offset  int64  // byte offset of the field at fault
	Msg     string // what is wrong
	Err     error  // a more specific sentinel (ErrTruncated, ErrUnknownType), or nil
}

func (e *FormatError) Error() string {
	s := "gguf: " + e.File + ": "
	if e.Subject != "" {
		s += e.Subject + ": "
	}
	return s + e.Msg + fmt.Sprintf(" (at byte %#x)", e.Offset)
}

// Unwrap lets errors.Is see both ErrFormat and the specific sentinel.
func (e *FormatError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrFormat}
	}
	return []error{ErrFormat, e.Err}
}

// UnknownTypeError is a GGML type id the trait table does not hold. It
// matches ErrUnknownType under errors.Is.
type UnknownTypeError struct {
	Type Type
}

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("unknown ggml type id %d", uint32(e.Type))
}

// Is makes errors.Is(err, ErrUnknownType) hold.
func (e *UnknownTypeError) Is(target error) bool { return target == ErrUnknownType }
