package gguf

import (
	"bytes"
	"slices"
	"testing"
	"unsafe"
)

// fuzzSeeds are valid files of several shapes, every malformed case and
// every 64-bit boundary case.
func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	seeds = append(seeds, build(t, NewBuilder()), build(t, goldenBuilder(t)))

	small := NewBuilder()
	must(t, small.AddMeta("a", uint32(7)))
	must(t, small.AddTensor("t", TypeF32, []uint64{2}, pattern(8, 0)))
	seeds = append(seeds, build(t, small))

	table := NewBuilder()
	must(t, table.AddMeta("general.architecture", "llama"))
	must(t, table.AddMeta("tokenizer.ggml.tokens", []string{"<s>", "</s>", "a", "b"}))
	must(t, table.AddMeta("tokenizer.ggml.scores", []float32{0, 0, -1, -2}))
	must(t, table.AddTensor("token_embd.weight", TypeQ8_K, []uint64{256, 4}, pattern(4*292, 1)))
	must(t, table.AddTensor("output.weight", TypeBF16, []uint64{8, 4}, pattern(64, 2)))
	seeds = append(seeds, build(t, table))

	aligned := NewBuilder()
	must(t, aligned.AddMeta(alignmentKey, uint32(8)))
	must(t, aligned.AddMeta("deep", nested(15, []string{"x"})))
	must(t, aligned.AddTensor("m", TypeMXFP4, []uint64{32, 1, 1, 3}, pattern(3*17, 3)))
	must(t, aligned.AddTensor("e", TypeIQ1_XXXS, []uint64{0}, nil))
	seeds = append(seeds, build(t, aligned))

	for _, c := range malformedCases() {
		data, _ := c.build()
		seeds = append(seeds, data)
	}
	for _, c := range boundaryCases() {
		seeds = append(seeds, c.data)
	}
	return seeds
}

// FuzzParse: Parse never panics; what it accepts is consistent (every
// tensor's Data lies within the input at its declared offset and has its
// declared size), and the Builder writes it back to a file that Parse reads
// identically.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.gguf", data)
		if err != nil {
			return
		}
		checkParsed(t, file, data)
		if file.Alignment() > 1<<16 {
			// The rewrite pads to the alignment: up to 2 GiB of zeros for a
			// file Parse accepts in 57 bytes. TestBuilderHugeAlignment
			// covers writing such files.
			return
		}
		rebuilt := rebuild(t, file)
		again, err := Parse("rebuilt.gguf", rebuilt)
		if err != nil {
			t.Fatalf("Parse refused the Builder's rewrite: %v", err)
		}
		checkParsed(t, again, rebuilt)
		sameContent(t, file, again)
	})
}

func checkParsed(t *testing.T, f *File, data []byte) {
	t.Helper()
	if a := f.Alignment(); a == 0 || a&(a-1) != 0 || a > 1<<31 {
		t.Fatalf("alignment %d", a)
	}
	if f.Version() != 2 && f.Version() != 3 {
		t.Fatalf("version %d", f.Version())
	}
	if len(f.MetaKeys()) != len(f.meta) {
		t.Fatalf("%d keys, %d metadata entries", len(f.MetaKeys()), len(f.meta))
	}
	for _, ti := range f.Tensors() {
		size, err := tensorBytes(ti.Type, ti.Dims)
		if err != nil {
			t.Fatalf("tensor %q accepted with bad geometry: %v", ti.Name, err)
		}
		if uint64(len(ti.Data)) != size {
			t.Fatalf("tensor %q has %d bytes, declared %d", ti.Name, len(ti.Data), size)
		}
		if ti.Offset%f.Alignment() != 0 {
			t.Fatalf("tensor %q at unaligned offset %d", ti.Name, ti.Offset)
		}
		if size == 0 {
			continue
		}
		start := f.dataStart + ti.Offset
		if start > uint64(len(data)) || size > uint64(len(data))-start {
			t.Fatalf("tensor %q span [%d, +%d) outside the %d-byte input", ti.Name, start, size, len(data))
		}
		if unsafe.SliceData(ti.Data) != &data[start] {
			t.Fatalf("tensor %q Data does not alias the input at byte %d", ti.Name, start)
		}
	}
}

// rebuild writes f again with the Builder.
func rebuild(t *testing.T, f *File) []byte {
	t.Helper()
	b := NewBuilder()
	for _, k := range f.MetaKeys() {
		v, _ := f.Meta(k)
		if err := b.AddMeta(k, v); err != nil {
			t.Fatalf("Builder refused key %q that Parse accepted: %v", k, err)
		}
	}
	for _, ti := range f.Tensors() {
		if err := b.AddTensor(ti.Name, ti.Type, ti.Dims, ti.Data); err != nil {
			t.Fatalf("Builder refused tensor %q that Parse accepted: %v", ti.Name, err)
		}
	}
	var buf bytes.Buffer
	if _, err := b.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameContent(t *testing.T, a, b *File) {
	t.Helper()
	if a.Alignment() != b.Alignment() {
		t.Fatalf("alignment %d, rebuilt %d", a.Alignment(), b.Alignment())
	}
	if ka, kb := a.MetaKeys(), b.MetaKeys(); !slices.Equal(ka, kb) {
		t.Fatalf("keys %q, rebuilt %q", ka, kb)
	}
	for _, k := range a.MetaKeys() {
		va, _ := a.Meta(k)
		vb, ok := b.Meta(k)
		if !ok || !metaEqual(va, vb) {
			t.Fatalf("key %q = %#v, rebuilt %#v", k, va, vb)
		}
	}
	ta, tb := a.Tensors(), b.Tensors()
	if len(ta) != len(tb) {
		t.Fatalf("%d tensors, rebuilt %d", len(ta), len(tb))
	}
	for i := range ta {
		if ta[i].Name != tb[i].Name || ta[i].Type != tb[i].Type || !slices.Equal(ta[i].Dims, tb[i].Dims) || !bytes.Equal(ta[i].Data, tb[i].Data) {
			t.Fatalf("tensor %d %q differs after the rewrite", i, ta[i].Name)
		}
	}
}

// TestSeedsBehave pins the seed corpus: the valid seeds parse, the malformed
// ones do not, so the fuzzer starts from both sides of every check.
func TestSeedsBehave(t *testing.T) {
	seeds := fuzzSeeds(t)
	valid := 5
	for i, s := range seeds {
		_, err := Parse("seed", s)
		if (err == nil) != (i < valid) {
			t.Errorf("seed %d: error %v", i, err)
		}
	}
}
