package admit

import (
	"errors"
	"testing"
)

// TestWhile: the request holds while load runs, and only then.
func TestWhile(t *testing.T) {
	if p, ok := Requested(); ok {
		t.Fatalf("a request before any: %q", p)
	}
	stop := errors.New("stop")
	var during string
	var held bool
	err := While("/lib/emu.so", func() error {
		during, held = Requested()
		return stop
	})
	if err != stop || !held || during != "/lib/emu.so" {
		t.Errorf("While: %v, request during load %q %v; want %v, /lib/emu.so true", err, during, held, stop)
	}
	if p, ok := Requested(); ok {
		t.Errorf("request left after While: %q", p)
	}
}
