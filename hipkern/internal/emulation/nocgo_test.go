//go:build !cgo

package emulation

import (
	"errors"
	"testing"
)

// TestLoadWithoutCgo: the emulation is a library too, so without cgo it is
// "not here" (the GPU tests skip), not a failure, and load is never called.
func TestLoadWithoutCgo(t *testing.T) {
	called := false
	err := Load(func() error { called = true; return nil }, func() string { return "" })
	if !errors.Is(err, ErrNoEmulation) || errText(err) != "hipkern: no host emulation here: hipkern: built without cgo" || called {
		t.Errorf("Load without cgo: %v (load called %v), want ErrNoEmulation", err, called)
	}
}
