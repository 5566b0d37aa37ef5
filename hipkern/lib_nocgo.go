//go:build !cgo

package hipkern

import (
	"errors"
	"fmt"
)

// errNoCgo is Load's error in a build without cgo.
var errNoCgo = errors.New("hipkern: built without cgo")

// openLib needs cgo (dlopen); without it there is no GPU path.
func openLib(path string) (backend, error) { return nil, errNoCgo }

// errEmulationUnavailable: the host emulation is a library too, so without
// cgo the GPU tests skip instead of failing.
var errEmulationUnavailable = fmt.Errorf("%w: %w", ErrNoEmulation, errNoCgo)
