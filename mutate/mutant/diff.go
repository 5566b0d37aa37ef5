package mutant

import (
	"fmt"
	"strings"
)

// Diff returns a unified diff of one file from a to b with three lines of
// context, or "" when they are equal. A mutant changes one region of a file,
// so the diff is the single hunk between the first and the last differing
// line.
func Diff(path string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	const context = 3
	start := max(pre-context, 0)
	aEnd := min(len(al)-suf+context, len(al))
	bEnd := min(len(bl)-suf+context, len(bl))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", path, path)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(start, aEnd), hunkRange(start, bEnd))
	for i := start; i < pre; i++ {
		sb.WriteString(" " + al[i] + "\n")
	}
	for i := pre; i < len(al)-suf; i++ {
		sb.WriteString("-" + al[i] + "\n")
	}
	for i := pre; i < len(bl)-suf; i++ {
		sb.WriteString("+" + bl[i] + "\n")
	}
	for i := len(al) - suf; i < aEnd; i++ {
		sb.WriteString(" " + al[i] + "\n")
	}
	return sb.String()
}

// hunkRange formats the 1-based start and the length of lines [from, to).
func hunkRange(from, to int) string {
	n := to - from
	if n == 0 {
		return fmt.Sprintf("%d,0", from)
	}
	if n == 1 {
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, n)
}

// splitLines splits text into its lines, without their newlines: "" has
// none, "\n" one empty line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
