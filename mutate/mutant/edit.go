package mutant

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Edit is a mutant's change to its file: the bytes [Start, End) of the
// file on disk are replaced by Text. Positions and diffs therefore refer
// to the file as it is on disk, whatever its formatting.
type Edit struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Apply returns orig with the edit made.
func (e Edit) Apply(orig []byte) ([]byte, error) {
	if e.Start < 0 || e.End < e.Start || e.End > len(orig) {
		return nil, fmt.Errorf("mutant: edit [%d, %d) outside a file of %d bytes", e.Start, e.End, len(orig))
	}
	out := make([]byte, 0, len(orig)-(e.End-e.Start)+len(e.Text))
	out = append(out, orig[:e.Start]...)
	out = append(out, e.Text...)
	return append(out, orig[e.End:]...), nil
}

// Minimize trims the bytes the replacement shares with the replaced text
// at either end, so an operator swap edits only the operator.
func (e Edit) Minimize(orig []byte) Edit {
	old := orig[e.Start:e.End]
	p := 0
	for p < len(old) && p < len(e.Text) && old[p] == e.Text[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(e.Text)-p && old[len(old)-1-s] == e.Text[len(e.Text)-1-s] {
		s++
	}
	return Edit{Start: e.Start + p, End: e.End - s, Text: e.Text[p : len(e.Text)-s]}
}

// Apply returns the whole mutated file, given the original.
func (m Mutant) Apply(orig []byte) ([]byte, error) {
	if m.Edit == nil {
		return nil, fmt.Errorf("mutant %s has no edit", m.ID)
	}
	return m.Edit.Apply(orig)
}

// Hash is the hex sha256 of data, cut to 16 digits: enough to tell
// sources apart.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// EditDiff returns the unified diff of applying e to orig, with three lines
// of context, computed around the edit only.
func EditDiff(path string, orig []byte, e Edit) string {
	src := string(orig)
	// the whole lines the edit touches: [ls, le), the line after the edit
	// included when the edit ends at a line's start (the text before it
	// joins that line unless it ends in a newline)
	ls := strings.LastIndexByte(src[:e.Start], '\n') + 1
	le := len(src)
	if i := strings.IndexByte(src[e.End:], '\n'); i >= 0 {
		le = e.End + i + 1
	}
	oldBlock := src[ls:le]
	newBlock := src[ls:e.Start] + e.Text + src[e.End:le]
	if oldBlock == newBlock {
		return ""
	}
	oldLines, newLines := splitLines(oldBlock), splitLines(newBlock)
	// trim lines the two blocks share, so context lines are printed once
	for len(oldLines) > 0 && len(newLines) > 0 && oldLines[0] == newLines[0] {
		oldLines, newLines = oldLines[1:], newLines[1:]
		ls += strings.IndexByte(src[ls:], '\n') + 1
	}
	for len(oldLines) > 0 && len(newLines) > 0 && oldLines[len(oldLines)-1] == newLines[len(newLines)-1] {
		oldLines, newLines = oldLines[:len(oldLines)-1], newLines[:len(newLines)-1]
	}
	first := strings.Count(src[:ls], "\n") // 0-based line of the first changed line
	all := splitLines(src)
	const context = 3
	start := max(first-context, 0)
	aEnd := min(first+len(oldLines)+context, len(all))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", path, path)
	newCount := (aEnd - start) - len(oldLines) + len(newLines)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(start, aEnd), hunkRange(start, start+newCount))
	for i := start; i < first; i++ {
		sb.WriteString(" " + all[i] + "\n")
	}
	for _, l := range oldLines {
		sb.WriteString("-" + l + "\n")
	}
	for _, l := range newLines {
		sb.WriteString("+" + l + "\n")
	}
	for i := first + len(oldLines); i < aEnd; i++ {
		sb.WriteString(" " + all[i] + "\n")
	}
	return sb.String()
}
