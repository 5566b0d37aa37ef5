package exitcode

import "testing"

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  string
	}{
		{"", 5, "\n"},
		{"  a   b  ", 10, "a b\n"},
		{"aa bb", 5, "aa bb\n"},
		{"aa bb", 4, "aa\nbb\n"},
		{"abcdef", 3, "abcdef\n"},
		{"abc de", 3, "abc\nde\n"},
		{"aaa bb cc", 5, "aaa\nbb cc\n"},
		{"a b c d e", 3, "a b\nc d\ne\n"},
	} {
		if got := wrap(c.text, c.width); got != c.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}
