//go:build !cgo

package hipkern

import "testing"

// TestLoadWithoutCgo: without cgo there is no library to open, and Load
// says why.
func TestLoadWithoutCgo(t *testing.T) {
	resetLoader(t)
	t.Setenv(LibEnv, "/somewhere/libgathermut_hip.so")
	if err := Load(); err != errNoCgo {
		t.Errorf("Load without cgo: %v, want %v", err, errNoCgo)
	}
}
