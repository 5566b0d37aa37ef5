package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"gathermut/gather"
)

// logitsFile holds the golden logits: per admitted codec, the sha256 of the
// little-endian float32 logits of goldenPrompt's greedy completion, made on
// amd64 (go test ./engine -run TestGoldenLogits -update rewrites it).
const logitsFile = "../testdata/logits.sha256"

// goldenPrompt is completed for goldenTokens greedy tokens; every step's
// logits go into the hash, in step order.
var goldenPrompt = []int32{1, 0, 63, 127, 63}

const goldenTokens = 4

// goldenLogits returns the hash list of the test models' logits, one line
// per admitted codec: the hex sha256, two spaces, the codec.
func goldenLogits(t *testing.T) string {
	var list strings.Builder
	for _, codec := range gather.Admitted() {
		e := mustLoad(t, writeModelFile(t, testModel(t, codec, false)))
		h := sha256.New()
		var buf []byte
		_, err := e.CompleteTokens(goldenPrompt, Sampling{MaxTokens: goldenTokens, IgnoreEOS: true,
			Logits: func(_ int, logits []float32) {
				buf = buf[:0]
				for _, v := range logits {
					buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
				}
				h.Write(buf)
			}})
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		fmt.Fprintf(&list, "%x  %v\n", h.Sum(nil), codec)
	}
	return list.String()
}

// TestGoldenLogits pins the bits of the engine's logits for every admitted
// codec to hashes made on amd64. CI runs it on amd64 and on arm64 (under
// qemu), where Go may fuse a product and an add into one FMA unless an
// explicit float32() conversion rounds the product first: a fused
// expression anywhere on the path from the packed table to the logits
// (decoders, embedding, forward pass) changes the bits there.
func TestGoldenLogits(t *testing.T) {
	got := goldenLogits(t)
	if *update {
		if runtime.GOARCH != "amd64" {
			t.Fatalf("the golden logits are made on amd64, not %s", runtime.GOARCH)
		}
		if err := os.WriteFile(logitsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(logitsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run TestGoldenLogits -update on amd64 to create it)", err)
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("%s lists %d lines, the engine makes %d", logitsFile, len(wantLines), len(gotLines))
	}
	for i := range gotLines {
		if gotLines[i] != wantLines[i] {
			t.Errorf("%s: logits hash %q, %s has %q", runtime.GOARCH, gotLines[i], logitsFile, wantLines[i])
		}
	}
	if _, err := hex.DecodeString(strings.Fields(wantLines[0])[0]); err != nil {
		t.Errorf("%s: first line %q is not a hex hash", logitsFile, wantLines[0])
	}
}
