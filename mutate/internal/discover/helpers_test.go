package discover

import (
	"slices"
	"testing"
)

// TestSmallHelpers: the discover step's list helpers (ported from
// wt-self's internal/lab helpers_test.go, c4515ea).
func TestSmallHelpers(t *testing.T) {
	if got := dedupe([]string{"b", "a", "b", "c", "a"}); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("dedupe %v", got)
	}
	if got := filter([]int{1, 2, 3, 4}, func(i int) bool { return i%2 == 0 }); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("filter %v", got)
	}
	if got := filter([]int{1, 3}, func(i int) bool { return i%2 == 0 }); len(got) != 0 {
		t.Errorf("filter keeping none: %v", got)
	}
	if countOf(1, "file") != "1 file" || countOf(3, "file") != "3 files" || countOf(0, "package") != "0 packages" {
		t.Errorf("countOf")
	}
	if listSome([]string{"a", "b"}, 3) != "a, b" || listSome([]string{"a", "b", "c"}, 3) != "a, b, c" || listSome([]string{"a", "b", "c", "d", "e"}, 3) != "a, b, c and 2 more" {
		t.Errorf("listSome")
	}
}
