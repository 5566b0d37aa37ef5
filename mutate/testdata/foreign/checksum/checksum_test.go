package checksum

import (
	"errors"
	"testing"
)

func TestSum(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want int
	}{
		{[]byte{1}, 1},
		{[]byte{1, 1}, 4},
		{[]byte{2, 1, 1, 1}, 21},
		{[]byte{100}, 3},
		// the 17th byte wraps to the first weight
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}, 5},
	} {
		got, err := Sum(c.data)
		if err != nil || got != c.want {
			t.Errorf("Sum(%v) = %d, %v; want %d", c.data, got, err, c.want)
		}
	}
	if n, err := Sum(nil); n != 0 || !errors.Is(err, ErrEmpty) {
		t.Errorf("Sum(nil) = %d, %v", n, err)
	}
}

func TestValid(t *testing.T) {
	if !Valid([]byte{1, 1}, 4) || Valid([]byte{1, 1}, 5) || Valid(nil, 0) {
		t.Errorf("Valid")
	}
}
