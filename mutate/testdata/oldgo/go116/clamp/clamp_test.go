package clamp

import "testing"

func TestClamp(t *testing.T) {
	for _, c := range []struct{ in, want int }{{-1, 0}, {0, 0}, {5, 5}, {10, 10}, {11, 10}} {
		if got := Clamp(c.in); got != c.want {
			t.Errorf("Clamp(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestSum(t *testing.T) {
	if got := Sum([]int{1, 2, 3}); got != 6 {
		t.Errorf("Sum = %d, want 6", got)
	}
}
