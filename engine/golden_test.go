package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// logitsFile holds the golden logits: per admitted codec, the sha256 of the
// little-endian float32 logits of goldenPrompt's greedy completion, made on
// amd64 (go test ./engine -run TestGoldenLogits -update rewrites it).
const logitsFile = "../testdata/logits.sha256"

// goldenPrompt is completed for goldenTokens greedy tokens; every step's
// logits go into the hash, in step order.
var goldenPrompt = []int32{1, 0, 63, 127, 63}

const goldenTokens = 4

// goldenLogitsLine returns codec's line of the golden logits list: the hex
// sha256 of its test model's logits, two spaces, the codec.
func goldenLogitsLine(t *testing.T, codec gguf.Type) string {
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
	return fmt.Sprintf("%x  %v", h.Sum(nil), codec)
}

// TestGoldenLogits pins the bits of the engine's logits for every admitted
// codec to hashes made on amd64. CI runs it on amd64 and on arm64 (under
// qemu), where Go may fuse a product and an add into one FMA unless an
// explicit float32() conversion rounds the product first: a fused
// expression anywhere on the path from the packed table to the logits
// (decoders, embedding, forward pass) changes the bits there. Each codec
// is a subtest named as gguf.Type prints it, which compares its own line,
// so that -run '^TestGoldenLogits$/^Q4_K$' checks one codec.
func TestGoldenLogits(t *testing.T) {
	if *update && runtime.GOARCH != "amd64" {
		t.Fatalf("the golden logits are made on amd64, not %s", runtime.GOARCH)
	}
	g := newGoldenList(t, logitsFile, 1, "go test ./engine -run TestGoldenLogits -update on amd64", "the engine makes")
	for i, codec := range gather.Admitted() {
		t.Run(codec.String(), func(t *testing.T) {
			g.check(i, goldenLogitsLine(t, codec), func(got, want string) {
				t.Errorf("%s: logits hash %q, %s has %q", runtime.GOARCH, got, logitsFile, want)
			})
		})
	}
	if g.finish(t) {
		return
	}
	if _, err := hex.DecodeString(strings.Fields(g.want[0])[0]); err != nil {
		t.Errorf("%s: first line %q is not a hex hash", logitsFile, g.want[0])
	}
}

// goldenList is a golden file of hash lines, per admitted codec perLine
// lines in codec order, as a test compares (or with -update, rewrites) it
// a codec at a time.
type goldenList struct {
	file string
	per  int
	want []string // the file's lines, without the empty one after the last newline; nil with -update
	got  []string // the lines the subtests made
}

// newGoldenList reads file, which must hold per lines for each admitted
// codec and end with a newline (create says how to make it, makes what
// the test calls making the lines); with -update it reads nothing.
func newGoldenList(t *testing.T, file string, per int, create, makes string) *goldenList {
	n := per * len(gather.Admitted())
	g := &goldenList{file: file, per: per, got: make([]string, n)}
	if *update {
		return g
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run %s to create it)", err, create)
	}
	lines := strings.Split(string(raw), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%s lists %d lines, %s %d", file, len(lines), makes, n+1)
	}
	if lines[n] != "" {
		t.Errorf("%s: %q after the last line, want nothing", file, lines[n])
	}
	g.want = lines[:n]
	return g
}

// check records line number at of the list (codec number i's lines are
// i*per to i*per+per-1) and, unless updating, reports it through differ
// when it is not the file's.
func (g *goldenList) check(at int, line string, differ func(got, want string)) {
	g.got[at] = line
	if g.want != nil && line != g.want[at] {
		differ(line, g.want[at])
	}
}

// finish rewrites the file with -update, when every line was made (a
// filtered run fails instead of writing part of the list), and reports
// whether it did so.
func (g *goldenList) finish(t *testing.T) bool {
	if !*update {
		return false
	}
	if slices.Contains(g.got, "") {
		t.Fatalf("-update: not every codec's lines were made (a -run filter?); %s left as it was", g.file)
	}
	if err := os.WriteFile(g.file, []byte(strings.Join(g.got, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}
