package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests run compare with (../testdata/models.sha256, ../testdata/logits.sha256)")

const hashFile = "../testdata/models.sha256"

// maxModelBytes is docs/row.md's size bound for each generated file.
const maxModelBytes = 8 << 20

// modelFileName names a generated file in the hash list.
func modelFileName(codec gguf.Type, dense bool) string {
	if dense {
		return codec.String() + ".dense.gguf"
	}
	return codec.String() + ".packed.gguf"
}

// TestModelHashes regenerates every test model in memory and compares its
// sha256 with testdata/models.sha256 (go test ./engine -run TestModelHashes
// -update rewrites the list). Each file is under 8 MiB and a second
// generation gives the same bytes. Each codec is a subtest named as
// gguf.Type prints it, which compares its two lines (packed, dense), so
// that -run '^TestModelHashes$/^Q4_K$' checks one codec.
func TestModelHashes(t *testing.T) {
	g := newGoldenList(t, hashFile, 2, "go test ./engine -run TestModelHashes -update", "the generator makes")
	for i, codec := range gather.Admitted() {
		t.Run(codec.String(), func(t *testing.T) {
			for d, dense := range []bool{false, true} {
				g.check(2*i+d, modelHashLine(t, codec, dense), func(got, want string) {
					t.Errorf("generated %q, %s has %q", got, hashFile, want)
				})
			}
		})
	}
	g.finish(t)
}

// modelHashLine generates codec's test model twice, checks that the two
// are the same bytes and under maxModelBytes, and returns its line of the
// hash list: the hex sha256, two spaces, the file name.
func modelHashLine(t *testing.T, codec gguf.Type, dense bool) string {
	var a, b bytes.Buffer
	if err := WriteTestModel(&a, codec, dense); err != nil {
		t.Fatal(err)
	}
	if err := WriteTestModel(&b, codec, dense); err != nil {
		t.Fatal(err)
	}
	name := modelFileName(codec, dense)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("%s: two generations differ", name)
	}
	if a.Len() >= maxModelBytes {
		t.Errorf("%s: %d bytes, want under %d", name, a.Len(), maxModelBytes)
	}
	sum := sha256.Sum256(a.Bytes())
	return fmt.Sprintf("%s  %s", hex.EncodeToString(sum[:]), name)
}
