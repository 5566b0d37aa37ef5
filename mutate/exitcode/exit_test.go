package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Code
	}{
		{nil, OK},
		{Fail(Baseline, "red: %d tests", 2), Baseline},
		{fmt.Errorf("wrapped: %w", Fail(Catalog, "x")), Catalog},
		{&Exit{Code: OK, Reason: "listed"}, OK},
		{errors.New("plain"), Config},
	} {
		if got := Of(c.err); got != c.want {
			t.Errorf("Of(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if err := Fail(Usage, "bad %s", "flag"); err.Error() != "bad flag" {
		t.Errorf("reason %q", err.Error())
	}
}
