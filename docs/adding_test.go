package docs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The fake codec TestAddingACodec admits: Q8_FAKE, a type id GGML does not
// use (50), 32 int8 quants after two f16 fields (d @0, an unused s @2),
// y = qs[e]·d. Nothing of it is committed: it lives in a temporary copy.
const (
	fakeName  = "Q8_FAKE"
	fakeID    = 50
	fakeElems = 32
	fakeBytes = 36
)

// The fake codec's hand edits, one per file, each a text inserted after
// (or before) an anchor that must occur exactly once.
type insertion struct {
	file, anchor, text string
	before             bool
}

var fakeEdits = []insertion{
	{file: "gguf/types.go", anchor: "	TypeIQ1_XS   Type = 64", before: true, text: "	TypeQ8_FAKE  Type = 50 // a test's fake codec\n"},
	{file: "gguf/types.go", anchor: "	TypeIQ1_XS:   {Name: \"IQ1_XS\"", before: true, text: "	TypeQ8_FAKE:  {Name: \"Q8_FAKE\", BlockElems: 32, BlockBytes: 36},\n"},
	{file: "gguf/types_test.go", anchor: "	{66, \"IQ1_XXXS\", 256, 2 + 32 + 4},", text: "\n\t{50, \"Q8_FAKE\", 32, 36},"},
	{file: "gather/codec.go", anchor: "	codecRow(gguf.TypeIQ1_XXXS,", before: true,
		text: "	codecRow(gguf.TypeQ8_FAKE, admittedCodec, decodeQ8_FAKE, f16Scale(\"d\", 0, half2m7)),\n"},
	{file: "gather/legacy.go", anchor: "// decodeQ8_0: d f16 @0", before: true, text: `// decodeQ8_FAKE (a test's fake codec): d f16 @0, s f16 @2, qs[32] int8
// @4. y = qs[e]·d.
func decodeQ8_FAKE(packed []byte, out []float32) {
	for k := range len(out) / 32 {
		b, y := packed[36*k:][:36], out[32*k:][:32]
		d := f16le(b, 0)
		for e, q := range (*[32]byte)(b[4:]) {
			y[e] = float32(int8(q)) * d
		}
	}
}

`},
	{file: "hipkern/decoders.h", anchor: "// IQ4_NL (18 B): d f16 @0", before: true, text: `// Q8_FAKE (36 B, a test's fake codec): d f16 @0, s f16 @2, qs[32] int8 @4.
struct CodecQ8_FAKE : GmGeomQ8_FAKE {
  template <int N, class R>
  static GM_DEV void chunk(const R& b, int e0, float* y) {
    const float d = gm_scale(b.u16(0));
    const uint64_t q8 = gm_take<N>(b, 4 + e0) ^ GM_TOP;  // int8 v as v + 128
#pragma unroll
    for (int k = 0; k < N; ++k) y[k] = gm_bytef(q8, k, 128) * d;
  }
};

`},
	{file: "mutants/catalog.go", anchor: "	{\"Q2_K\", \"decodeQ2_K\", []corruption{", before: true, text: `	{"Q8_FAKE", "decodeQ8_FAKE", []corruption{
		{"scale", "f16le(b, 0)", "2 * f16le(b, 0)"},
		{"payload", "int8(q)", "uint8(q)"},
	}, corruption{"payload", "const uint64_t q8 = gm_take<N>(b, 4 + e0) ^ GM_TOP;", "const uint64_t q8 = gm_take<N>(b, 4 + e0);"}},
`},
	{file: "docs/row.md", anchor: "| IQ1_XXXS | 66 | 256 | 38 |", before: true, text: "| Q8_FAKE | 50 | 32 | 36 |\n"},
	{file: "docs/codecs.md", anchor: "| Q8_0 | 8 | 34 | `d` f16 @0, `qs[32]` int8 @2 |", text: "\n| Q8_FAKE | 50 | 36 | `d` f16 @0, `s` f16 @2, `qs[32]` int8 @4 |"},
}

// docEdit is one row of docs/README.md's table of hand edits.
type docEdit struct {
	what, when string
	where      []string // backquoted paths or globs
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// readAddingACodec returns the table of hand edits of docs/README.md's
// section "What adding a codec takes", the paths the text says the
// commands write, and the commands (the first code block).
func readAddingACodec(t *testing.T) (edits []docEdit, generated, commands []string) {
	t.Helper()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## What adding a codec takes\n")
	if !ok {
		t.Fatal("README.md has no section \"What adding a codec takes\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	before, block, ok := strings.Cut(section, "\n```\n")
	if !ok {
		t.Fatal("the section has no code block of commands")
	}
	block, after, ok := strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatal("the section's code block is not closed")
	}
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			commands = append(commands, l)
		}
	}
	for _, l := range strings.Split(before, "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if !strings.HasPrefix(l, "| ") || len(cells) != 3 || strings.HasPrefix(l, "| edit ") {
			continue
		}
		e := docEdit{what: strings.TrimSpace(cells[0]), when: strings.TrimSpace(cells[2])}
		for _, m := range backquoted.FindAllStringSubmatch(cells[1], -1) {
			e.where = append(e.where, m[1])
		}
		if len(e.where) == 0 {
			t.Fatalf("README.md: the edit %q names no file", e.what)
		}
		edits = append(edits, e)
	}
	if len(edits) == 0 {
		t.Fatal("the section has no table of edits")
	}
	// The paragraph after the commands names what they write: every
	// backquoted path with a file extension.
	for _, m := range backquoted.FindAllStringSubmatch(strings.SplitN(after, "\nWhat a missing edit", 2)[0], -1) {
		if p := m[1]; strings.Contains(p, "/") && path.Ext(p) != "" {
			generated = append(generated, p)
		}
	}
	return edits, generated, commands
}

// matches reports whether the file rel (slash-separated) is named by the
// table entry where: a path, a folder ending in "/", or a glob; "<NAME>"
// stands for the fake codec's name.
func matches(where, rel string) bool {
	where = strings.ReplaceAll(where, "<NAME>", fakeName)
	if strings.HasSuffix(where, "/") {
		return strings.HasPrefix(rel, where)
	}
	ok, _ := path.Match(where, rel)
	return ok
}

// TestAddingACodec admits a fake codec (Q8_FAKE, type 50) in a temporary
// copy of the module with exactly the hand edits docs/README.md lists for a
// codec that is admitted and has a type id new to GGML, but no AVX2 decoder
// and no new lookup table: gguf's traits, the row, the portable decoder,
// its reference vectors, its layout, its device decoder, its catalog
// corruptions and its line in docs/row.md.
// It then runs the section's commands, requires the copy's tests of the
// row's packages to pass (its Go decoder, the kernel's on the host
// emulation, the engine's test models and golden hashes, the catalog, the
// docs), and requires every file the commands changed to be one the
// section says they write: nothing else needs a hand edit. Each row of the
// table that applies must have been needed by one of the fake's edits.
//
// It builds and tests a whole copy of the module: minutes on a small
// machine, so -short skips it.
func TestAddingACodec(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a copy of the module (minutes): not in -short")
	}
	edits, generatedPaths, commands := readAddingACodec(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := copyModule(root, work); err != nil {
		t.Fatal(err)
	}
	before, err := snapshot(work)
	if err != nil {
		t.Fatal(err)
	}

	// The hand edits.
	handEdited := map[string]bool{}
	for _, e := range fakeEdits {
		insert(t, work, e)
		handEdited[e.file] = true
	}
	for _, f := range writeFakeOracle(t, work) {
		handEdited[f] = true
	}
	bumpAdmittedCount(t, work)

	// Every hand-edited file is one the table names for this kind of
	// codec, and no generator writes it.
	applies := func(e docEdit) bool { return e.when == "always" || e.when == "admitted" || e.when == "new type id" }
	used := map[int]bool{}
	for f := range handEdited {
		found := false
		for i, e := range edits {
			for _, w := range e.where {
				if matches(w, f) {
					found = true
					if applies(e) {
						used[i] = true
					} else {
						t.Errorf("the fake's edit of %s falls under %q, which applies only for %q", f, e.what, e.when)
					}
				}
			}
		}
		if !found {
			t.Errorf("the fake codec needed a hand edit of %s, which docs/README.md does not list", f)
		}
		if data, err := os.ReadFile(filepath.Join(work, f)); err == nil && bytes.HasPrefix(data, []byte("// Code generated")) {
			t.Errorf("%s was edited by hand but is generated", f)
		}
	}
	for i, e := range edits {
		if applies(e) && !used[i] {
			t.Errorf("docs/README.md lists %q (%s), which applies to the fake codec, but it did without it", e.what, e.when)
		}
	}

	// The commands, as the section spells them.
	for _, c := range commands {
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			if offline(string(out)) {
				t.Skipf("%s: a module is neither cached nor reachable: %s", c, out)
			}
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
	}

	// What changed besides the hand edits is what the commands write.
	after, err := snapshot(work)
	if err != nil {
		t.Fatal(err)
	}
	for f, sum := range after {
		if before[f] == sum || handEdited[f] {
			continue
		}
		if !slices.Contains(generatedPaths, f) {
			t.Errorf("%s changed, and neither is it one of the fake's hand edits nor does docs/README.md say a command writes it", f)
		}
	}
	for f := range before {
		if _, ok := after[f]; !ok {
			t.Errorf("%s was removed", f)
		}
	}
	for _, g := range generatedPaths {
		if _, ok := after[g]; !ok {
			t.Errorf("docs/README.md says a command writes %s, which is not in the module", g)
		}
	}
	if t.Failed() {
		return
	}

	// The copy's tests (this one excepted) pass with the fake admitted.
	// (Without vet: what it would check is this tree's code, vetted here;
	// in the copy, at a path of its own, nothing is cached.)
	cmd := exec.Command("go", "test", "-count=1", "-vet=off", "-skip", "^TestAddingACodec$",
		"./gguf", "./gather/...", "./engine", "./hipkern", "./mutants", "./docs")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GATHERMUT_HIPKERN_LIB=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the copy's tests with %s admitted: %v\n%s", fakeName, err, out)
	}
}

// offline reports whether a failed command failed for want of a module
// (no cache and no network), not because of the module under test.
func offline(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "module lookup disabled", "connection refused", "i/o timeout", "network is unreachable"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// copyModule copies the module at root into dst: every file but version
// control, hidden folders and build outputs.
func copyModule(root, dst string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (d.Name() != "reports" && skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// snapshot returns the sha256 of every file under root, by slash path.
func snapshot(root string) (map[string][sha256.Size]byte, error) {
	out := map[string][sha256.Size]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = sha256.Sum256(data)
		return nil
	})
	return out, err
}

// insert applies one edit to the copy: its anchor must occur once.
func insert(t *testing.T, root string, e insertion) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(e.file))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if n := strings.Count(s, e.anchor); n != 1 {
		t.Fatalf("%s: the anchor %q occurs %d times, want 1", e.file, e.anchor, n)
	}
	i := strings.Index(s, e.anchor)
	if !e.before {
		i += len(e.anchor)
	}
	s = s[:i] + e.text + s[i:]
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bumpAdmittedCount adds one to the count in docs/row.md's heading of the
// admitted codecs (part of the row.md edit).
func bumpAdmittedCount(t *testing.T, root string) {
	t.Helper()
	p := filepath.Join(root, "docs", "row.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^## The (\d+) admitted codecs$`)
	m := re.FindSubmatch(data)
	if m == nil {
		t.Fatal("docs/row.md has no heading \"## The N admitted codecs\"")
	}
	var n int
	fmt.Sscan(string(m[1]), &n)
	data = re.ReplaceAll(data, []byte(fmt.Sprintf("## The %d admitted codecs", n+1)))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The fake's reference vectors: the five cases every codec has, made by
// this test's own reading of the format (for a fake, there is no upstream
// decoder to run). They follow testdata/oracle/README.md's layout.
var fakeCases = []struct {
	name        string
	rows, width int // rows, blocks per row
}{{"w1", 4, 1}, {"w3", 5, 3}, {"w5", 6, 5}, {"scales", 3, 4}, {"zeros", 2, 8}}

// edgeF16 are the scale steps of a "scales" case (oracle README).
var edgeF16 = []uint16{0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d00}

// writeFakeOracle writes the fake codec's cases into the copy's
// testdata/oracle and appends them to its index; it returns the files it
// wrote or changed.
func writeFakeOracle(t *testing.T, root string) []string {
	t.Helper()
	oracle := filepath.Join(root, "testdata", "oracle")
	rawIndex, err := os.ReadFile(filepath.Join(oracle, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index []map[string]any
	if err := json.Unmarshal(rawIndex, &index); err != nil {
		t.Fatal(err)
	}
	written := []string{"testdata/oracle/index.json"}
	state := uint64(0xfa4e)
	next := func() uint64 { // splitmix64
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for _, c := range fakeCases {
		cols, rowBytes := c.width*fakeElems, c.width*fakeBytes
		packed := make([]byte, c.rows*rowBytes)
		for i := range packed {
			packed[i] = byte(next())
		}
		for k := range c.rows * c.width {
			blk := packed[k*fakeBytes:]
			d := uint16(next()&0x8000) | uint16(0x1c00+next()%0x1000) // ±[2^-8, 2^-4)
			switch c.name {
			case "scales":
				d = edgeF16[k%len(edgeF16)]
			case "zeros":
				d = uint16(k%2)<<15 | 0x2000
				for e := 0; e < fakeElems; e += 2 {
					blk[4+e] = 0
				}
			}
			binary.LittleEndian.PutUint16(blk, d)
		}
		f32 := make([]byte, 0, 4*c.rows*cols)
		bf16 := make([]byte, 0, 2*c.rows*cols)
		for k := range c.rows * c.width {
			blk := packed[k*fakeBytes:]
			d := f16ToF32(binary.LittleEndian.Uint16(blk))
			for e := range fakeElems {
				u := math.Float32bits(float32(int8(blk[4+e])) * d)
				f32 = binary.LittleEndian.AppendUint32(f32, u)
				bf16 = binary.LittleEndian.AppendUint16(bf16, bf16Of(u))
			}
		}
		dir := filepath.Join(oracle, fakeName, c.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		sums := map[string]string{}
		for name, data := range map[string][]byte{"packed.bin": packed, "f32.bin": f32, "bf16.bin": bf16} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			sums[name] = hex.EncodeToString(sum[:])
			written = append(written, path.Join("testdata/oracle", fakeName, c.name, name))
		}
		entry := map[string]any{"dir": fakeName + "/" + c.name, "codec": fakeName, "ggml_type": fakeID, "case": c.name,
			"rows": c.rows, "cols": cols, "extra": false}
		meta := map[string]any{"block_elems": fakeElems, "block_bytes": fakeBytes, "blocks_per_row": c.width,
			"row_bytes": rowBytes, "sha256": sums, "decoder": "docs.TestAddingACodec (a fake codec)"}
		for k, v := range entry {
			if k != "dir" {
				meta[k] = v
			}
		}
		m, err := json.MarshalIndent(meta, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "meta.json"), m, 0o644); err != nil {
			t.Fatal(err)
		}
		written = append(written, path.Join("testdata/oracle", fakeName, c.name, "meta.json"))
		index = append(index, entry)
	}
	out, err := json.MarshalIndent(index, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oracle, "index.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return written
}

// f16ToF32 widens binary16 bits exactly (NaN payloads shifted up).
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp, man := uint32(h>>10&31), uint32(h&1023)
	switch {
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		v := float32(math.Ldexp(float64(man), -24))
		return math.Float32frombits(sign | math.Float32bits(v))
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// bf16Of rounds float32 bits to bf16 by the oracle's rule.
func bf16Of(u uint32) uint16 {
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	return uint16((u + 0x7fff + (u >> 16 & 1)) >> 16)
}
