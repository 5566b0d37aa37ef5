//go:build !cgo

package hipkern

import "fmt"

// openLib needs cgo (dlopen); without it there is no GPU path.
func openLib(path string) (backend, error) { return nil, errNoCgo }

// errEmulationUnavailable: the host emulation is a library too, so without
// cgo the GPU tests skip instead of failing.
var errEmulationUnavailable = fmt.Errorf("%w: %w", ErrNoEmulation, errNoCgo)
