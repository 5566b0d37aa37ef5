//go:build !cgo

package hipkern

// openLib needs cgo (dlopen); without it there is no GPU path.
func openLib(path string) (backend, error) { return nil, errNoCgo }
