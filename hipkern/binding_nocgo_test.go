//go:build !cgo

package hipkern

import (
	"errors"
	"testing"
)

// TestLoadWithoutCgo: without cgo there is no library to open, and Load
// says why.
func TestLoadWithoutCgo(t *testing.T) {
	resetLoader(t)
	if err := Load(); err != errNoCgo {
		t.Errorf("Load without cgo: %v, want %v", err, errNoCgo)
	}
}

// TestLoadEmulationWithoutCgo: the emulation is a library too, so without
// cgo it is "not here" (the GPU tests skip), not a failure.
func TestLoadEmulationWithoutCgo(t *testing.T) {
	resetLoader(t)
	if err := LoadEmulation(); !errors.Is(err, ErrNoEmulation) {
		t.Errorf("LoadEmulation without cgo: %v, want ErrNoEmulation", err)
	}
}
