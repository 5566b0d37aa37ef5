package admit

import "sync/atomic"

var request atomic.Pointer[string]

// Requested returns the host emulation library a test is loading now, and
// whether there is one.
func Requested() (string, bool) {
	if p := request.Load(); p != nil {
		return *p, true
	}
	return "", false
}

// While makes path the requested emulation library while load runs.
func While(path string, load func() error) error {
	request.Store(&path)
	defer request.Store(nil)
	return load()
}
