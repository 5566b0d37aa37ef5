package docs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"gathermut/gather"
)

// layoutRow is one row of a layout table of codecs.md: "| NAME[ (extra)] |
// id | bytes | fields |".
type layoutRow struct {
	name         string
	extra        bool
	id, bytes    int
	fields, line string
}

// readLayouts returns the layout rows of codecs.md (in the given text).
func readLayouts(text string) []layoutRow {
	var rows []layoutRow
	for _, l := range strings.Split(text, "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if !strings.HasPrefix(l, "| ") || len(cells) != 4 {
			continue
		}
		id, err1 := strconv.Atoi(strings.TrimSpace(cells[1]))
		bytes, err2 := strconv.Atoi(strings.TrimSpace(cells[2]))
		if err1 != nil || err2 != nil {
			continue // a header or another table
		}
		name, extra := strings.CutSuffix(strings.TrimSpace(cells[0]), " (extra)")
		rows = append(rows, layoutRow{name: name, extra: extra, id: id, bytes: bytes, fields: cells[3], line: l})
	}
	return rows
}

// TestCodecsDocumented: codecs.md has one layout row per row of gather's
// codec table, with its type id and block bytes, marked "(extra)" exactly
// when the codec is not admitted, naming the byte offset of each scale
// field; and no layout row for a type the table does not decode.
func TestCodecsDocumented(t *testing.T) {
	raw, err := os.ReadFile("codecs.md")
	if err != nil {
		t.Fatal(err)
	}
	layouts := map[string][]layoutRow{}
	for _, r := range readLayouts(string(raw)) {
		layouts[r.name] = append(layouts[r.name], r)
	}
	for _, c := range gather.Codecs() {
		rows := layouts[c.Traits.Name]
		delete(layouts, c.Traits.Name)
		if len(rows) != 1 {
			t.Errorf("%v: %d layout rows in codecs.md, want 1", c.Type, len(rows))
			continue
		}
		r := rows[0]
		if r.id != int(c.Type) || r.bytes != c.Traits.BlockBytes || r.extra == c.Admitted {
			t.Errorf("codecs.md: %q: want id %d, %d bytes, extra %v", r.line, uint32(c.Type), c.Traits.BlockBytes, !c.Admitted)
		}
		for _, f := range c.Scales {
			if !strings.Contains(r.fields, fmt.Sprintf("@%d", f.Offset)) {
				t.Errorf("codecs.md: %q does not place scale field %s at @%d", r.line, f.Name, f.Offset)
			}
		}
	}
	for name := range layouts {
		t.Errorf("codecs.md has a layout for %s, which gather does not decode", name)
	}
}
