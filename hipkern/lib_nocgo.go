//go:build !cgo

package hipkern

import "errors"

// errNoCgo is Load's error in a build without cgo.
var errNoCgo = errors.New("hipkern: built without cgo")

// openLib needs cgo (dlopen); without it there is no GPU path.
func openLib(path string) (backend, error) { return nil, errNoCgo }
