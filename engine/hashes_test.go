package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"
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
// generation gives the same bytes.
func TestModelHashes(t *testing.T) {
	var list strings.Builder
	for _, codec := range gather.Admitted() {
		for _, dense := range []bool{false, true} {
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
			fmt.Fprintf(&list, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		}
	}
	if *update {
		if err := os.WriteFile(hashFile, []byte(list.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(hashFile)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run TestModelHashes -update to create it)", err)
	}
	got := strings.Split(list.String(), "\n")
	exp := strings.Split(string(want), "\n")
	if len(got) != len(exp) {
		t.Fatalf("%s lists %d lines, the generator makes %d", hashFile, len(exp), len(got))
	}
	for i := range got {
		if got[i] != exp[i] {
			t.Errorf("generated %q, %s has %q", got[i], hashFile, exp[i])
		}
	}
}
