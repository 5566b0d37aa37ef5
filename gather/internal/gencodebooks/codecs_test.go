package main

import (
	"path/filepath"
	"strings"
	"testing"

	"gathermut/gather"
)

// TestCodecTableAsGatherHasIt: the rows the generator reads from
// gather/codec.go are gather.Codecs(), in order, with the same admission
// and geometry, and the header lists exactly the admitted ones.
func TestCodecTableAsGatherHasIt(t *testing.T) {
	rows, err := readCodecTable(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	want := gather.Codecs()
	if len(rows) != len(want) {
		t.Fatalf("read %d rows, gather has %d", len(rows), len(want))
	}
	for i, r := range rows {
		w := want[i]
		if r.typ != w.Type || r.name != w.Traits.Name || r.elems != w.Traits.BlockElems || r.bytes != w.Traits.BlockBytes || r.admitted != w.Admitted {
			t.Errorf("row %d: read %+v, gather has %v %+v admitted %v", i, r, w.Type, w.Traits, w.Admitted)
		}
	}
	h := string(writeCodecs(rows))
	for _, w := range want {
		if got := strings.Contains(h, "  X("+w.Traits.Name+")"); got != w.Admitted {
			t.Errorf("%v: in GM_ADMITTED_CODECS %v, admitted %v", w.Type, got, w.Admitted)
		}
	}
	if n := strings.Count(h, "struct GmGeom"); n != len(gather.Admitted()) {
		t.Errorf("%d geometry structs, want one per admitted codec (%d)", n, len(gather.Admitted()))
	}
}

// TestReadCodecTableRefuses: a table the generator cannot read row by row
// is refused with the file and line, never guessed at.
func TestReadCodecTableRefuses(t *testing.T) {
	head := "package gather\n\n"
	for _, c := range []struct {
		name, src, want string
	}{
		{"no table", head + "var other = 1\n", "no variable codecTable"},
		{"not a literal", head + "var codecTable = rows()\n", "codecTable is not a composite literal"},
		{"empty", head + "var codecTable = []Codec{}\n", "codecTable has no rows"},
		{"not a call", head + "var codecTable = []Codec{\n\tCodec{},\n}\n", ":4: a row of codecTable is not a call of codecRow"},
		{"other function", head + "var codecTable = []Codec{\n\trow(gguf.TypeQ4_0, admittedCodec),\n}\n", ":4: a row of codecTable is not a call of codecRow"},
		{"few arguments", head + "var codecTable = []Codec{\n\tcodecRow(gguf.TypeQ4_0),\n}\n", ":4: codecRow has 1 arguments"},
		{"type not from gguf", head + "var codecTable = []Codec{\n\tcodecRow(TypeQ4_0, admittedCodec),\n}\n", ":4: the type of a row is not written gguf.Type<NAME>"},
		{"other package", head + "var codecTable = []Codec{\n\tcodecRow(x.TypeQ4_0, admittedCodec),\n}\n", ":4: the type of a row is not written gguf.Type<NAME>"},
		{"unknown type", head + "var codecTable = []Codec{\n\tcodecRow(gguf.TypeQ9_9, admittedCodec),\n}\n", ":4: gguf has no type named Q9_9"},
		{"not a type name", head + "var codecTable = []Codec{\n\tcodecRow(gguf.RowSize, admittedCodec),\n}\n", ":4: the type of a row is not written gguf.Type<NAME>"},
		{"unknown type after an F32 row", head + "var codecTable = []Codec{\n\tcodecRow(gguf.TypeF32, admittedCodec),\n\tcodecRow(gguf.TypeQ9_9, admittedCodec),\n}\n", ":5: gguf has no type named Q9_9"},
		{"twice", head + "var codecTable = []Codec{\n\tcodecRow(gguf.TypeQ4_0, admittedCodec),\n\tcodecRow(gguf.TypeQ4_0, extraCodec),\n}\n", ":5: Q4_0 has a second row"},
		{"admission", head + "var codecTable = []Codec{\n\tcodecRow(gguf.TypeQ4_0, true),\n}\n", ":4: the admission of Q4_0 is not admittedCodec or extraCodec"},
		{"method on a non-row", head + "var codecTable = []Codec{\n\tother(gguf.TypeQ4_0, admittedCodec).withDerived(f),\n}\n", ":4: a row of codecTable is not a call of codecRow"},
		{"no value", head + "var codecTable []Codec\n", "codecTable is declared without a value"},
		{"no value, second name", head + "var other, codecTable []Codec\n", "codecTable is declared without a value"},
		{"second name", head + "var other, codecTable = 1, []Codec{}\n", "codecTable has no rows"},
		{"parenthesized function", head + "var codecTable = []Codec{\n\t(codecRow)(gguf.TypeQ4_0, admittedCodec),\n}\n", ":4: a row of codecTable is not a call of codecRow"},
		{"computed function", head + "var codecTable = []Codec{\n\trows[0](gguf.TypeQ4_0, admittedCodec).withDerived(f),\n}\n", ":4: a row of codecTable is not a call of codecRow"},
		{"package not an identifier", head + "var codecTable = []Codec{\n\tcodecRow(x.gguf.TypeQ4_0, admittedCodec),\n}\n", ":4: the type of a row is not written gguf.Type<NAME>"},
		{"syntax", head + "var codecTable = []Codec{\n", "expected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "codec.go")
			writeFile(t, file, c.src)
			rows, err := readCodecTable(file)
			if err == nil || !strings.HasPrefix(err.Error(), "gencodebooks: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("rows %v, error %v; want one containing %q", rows, err, c.want)
			}
			if rows != nil {
				t.Errorf("refused with rows %v", rows)
			}
		})
	}
	// Method calls on a row are read through, and extras are read but not
	// listed.
	file := filepath.Join(t.TempDir(), "codec.go")
	writeFile(t, file, head+"var codecTable = []Codec{\n\tcodecRow(gguf.TypeQ8_K, admittedCodec, d, s).withDerived(f),\n\tcodecRow(gguf.TypeQ4_1, extraCodec, d, s),\n}\n")
	h, err := GenerateCodecs(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "struct GmGeomQ8_K {\n  static const int type = 15, elems = 256, bytes = 292;\n};") ||
		strings.Contains(string(h), "Q4_1") || !strings.Contains(string(h), "#define GM_ADMITTED_CODECS(X) \\\n  X(Q8_K)\n") {
		t.Errorf("header:\n%s", h)
	}
}
