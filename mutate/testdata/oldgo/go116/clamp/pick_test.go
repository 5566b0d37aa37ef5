package clamp_test

import (
	"testing"

	"example.com/go116/clamp"
)

func TestPick(t *testing.T) {
	if clamp.Pick(true, 1, 2) != 1 || clamp.Pick(false, 1, 2) != 2 {
		t.Error("Pick picks the wrong one")
	}
}
