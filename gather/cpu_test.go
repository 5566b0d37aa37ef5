package gather

import (
	"reflect"
	"runtime"
	"sync"
	"testing"

	"gathermut/gguf"
)

// TestCPUProvidersRegistered: the init registers exactly the two CPU
// providers, and they cover every admitted codec and float type, and no
// extra codec.
func TestCPUProvidersRegistered(t *testing.T) {
	for _, c := range []struct {
		op   Op
		name string
	}{{OpEmbeddingQuant, "cpu-quant"}, {OpEmbeddingFloat, "cpu-float"}} {
		ps := Providers(c.op, CPU)
		if len(ps) != 1 || ps[0].Name() != c.name {
			t.Fatalf("%s providers on cpu: %v, want one %q", c.op, ps, c.name)
		}
	}
	for _, a := range Admitted() {
		if !CanGather(CPU, a) {
			t.Errorf("CanGather(cpu, %v) = false", a)
		}
		if !Decodes(a) {
			t.Errorf("admitted codec %v has no decoder", a)
		}
	}
	for _, f := range []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		if !CanGather(CPU, f) {
			t.Errorf("CanGather(cpu, %v) = false", f)
		}
	}
	for _, x := range []gguf.Type{gguf.TypeQ4_1, gguf.TypeQ5_1, gguf.TypeTQ1_0, gguf.TypeIQ1_M, gguf.TypeF64, gguf.TypeI32, gguf.Type(99)} {
		if CanGather(CPU, x) {
			t.Errorf("CanGather(cpu, %v) = true", x)
		}
	}
	for _, a := range Admitted() {
		if CanGather(GPU, a) {
			t.Errorf("CanGather(gpu, %v) = true with no GPU provider", a)
		}
	}
	q, f := cpuQuant{}, cpuFloat{}
	for _, x := range []gguf.Type{gguf.TypeF32, gguf.TypeQ4_1, gguf.TypeI32} {
		if q.Supports(x) {
			t.Errorf("cpu-quant supports %v", x)
		}
	}
	for _, x := range []gguf.Type{gguf.TypeQ8_0, gguf.TypeI32, gguf.TypeF64} {
		if f.Supports(x) {
			t.Errorf("cpu-float supports %v", x)
		}
	}
}

// TestCPUQuantNeedsDecoders: the quant provider supports an admitted codec
// only while the codec index has its row, so registration refuses it
// otherwise.
func TestCPUQuantNeedsDecoders(t *testing.T) {
	row := codecs[gguf.TypeQ6_K]
	delete(codecs, gguf.TypeQ6_K)
	defer func() { codecs[gguf.TypeQ6_K] = row }()
	if (cpuQuant{}).Supports(gguf.TypeQ6_K) {
		t.Fatal("supports a codec without a decoder")
	}
	err := NewRegistry().Register(OpEmbeddingQuant, CPU, cpuQuant{})
	want := `gather: register EmbeddingQuant provider "cpu-quant" for device cpu: it does not support Q6_K`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// TestCPUStats: calls through the default registry are counted for the CPU
// providers: selections, no declines, no fallbacks.
func TestCPUStats(t *testing.T) {
	EnableStats(true)
	defer EnableStats(false)
	ResetStats()
	defer ResetStats()
	o, tb, i := valid()
	for range 3 {
		if err := Embedding(o, tb, i); err != nil {
			t.Fatal(err)
		}
	}
	fl := hostTensor(gguf.TypeF16, make([]byte, 4*64*2), 4, 64)
	if err := Embedding(o, fl, i); err != nil {
		t.Fatal(err)
	}
	// A refused call is still taken by the provider.
	bad := hostTensor(gguf.TypeI32, idBytes([]int64{0, 9, 0}, gguf.TypeI32), 3)
	if err := Embedding(o, tb, bad); err == nil {
		t.Fatal("bad id accepted")
	}
	if got, want := ReadStats(OpEmbeddingQuant, CPU), (Stats{Selections: 4, LastProvider: "cpu-quant"}); got != want {
		t.Errorf("quant stats %+v, want %+v", got, want)
	}
	if got, want := ReadStats(OpEmbeddingFloat, CPU), (Stats{Selections: 1, LastProvider: "cpu-float"}); got != want {
		t.Errorf("float stats %+v, want %+v", got, want)
	}
	ResetStats()
	if got := ReadStats(OpEmbeddingQuant, CPU); got != (Stats{}) {
		t.Errorf("after reset %+v", got)
	}
}

// TestSplitRows: contiguous, in order, covering, sizes within one, at most
// parts ranges.
func TestSplitRows(t *testing.T) {
	for _, c := range []struct {
		rows, parts int
		want        []rowRange
	}{
		{0, 4, nil},
		{-1, 4, nil},
		{1, 4, []rowRange{{0, 1}}},
		{5, 0, []rowRange{{0, 5}}},
		{5, -2, []rowRange{{0, 5}}},
		{5, 1, []rowRange{{0, 5}}},
		{10, 3, []rowRange{{0, 4}, {4, 7}, {7, 10}}},
		{9, 3, []rowRange{{0, 3}, {3, 6}, {6, 9}}},
		{3, 8, []rowRange{{0, 1}, {1, 2}, {2, 3}}},
		{11, 4, []rowRange{{0, 3}, {3, 6}, {6, 9}, {9, 11}}},
	} {
		if got := splitRows(c.rows, c.parts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitRows(%d, %d) = %v, want %v", c.rows, c.parts, got, c.want)
		}
	}
	for rows := 1; rows < 200; rows += 7 {
		for parts := 1; parts < 40; parts += 3 {
			rs := splitRows(rows, parts)
			if len(rs) != min(rows, parts) {
				t.Fatalf("splitRows(%d, %d): %d ranges", rows, parts, len(rs))
			}
			lo, small, big := 0, rows, 0
			for _, r := range rs {
				if r.lo != lo || r.hi <= r.lo {
					t.Fatalf("splitRows(%d, %d) = %v: not contiguous", rows, parts, rs)
				}
				small, big = min(small, r.hi-r.lo), max(big, r.hi-r.lo)
				lo = r.hi
			}
			if lo != rows || big-small > 1 {
				t.Fatalf("splitRows(%d, %d) = %v: uneven or short", rows, parts, rs)
			}
		}
	}
}

// TestWorkersFor: small requests are serial; large ones use every
// processor, never more goroutines than rows.
func TestWorkersFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ rows, bytes, procs, want int }{
		{63, 1 << 30, 8, 1},
		{64, mib - 1, 8, 1},
		{64, mib, 8, 8},
		{64, mib, 1, 1},
		{64, mib, 2, 2},
		{64, mib, 100, 64},
		{1 << 16, 512 * mib, 16, 16},
		{0, 0, 8, 1},
	} {
		if got := workersFor(c.rows, c.bytes, c.procs); got != c.want {
			t.Errorf("workersFor(%d, %d, %d) = %d, want %d", c.rows, c.bytes, c.procs, got, c.want)
		}
	}
}

// TestRunRanges: every row runs exactly once, whether the rows are one
// range or several, and all have run when runRanges returns. A single range
// runs on the caller's goroutine: it allocates nothing, where a goroutine
// per range does.
func TestRunRanges(t *testing.T) {
	for _, parts := range []int{1, 2, 7} {
		rs := splitRows(100, parts)
		var mu sync.Mutex
		seen := make([]int, 100)
		runRanges(rs, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("%d ranges: row %d ran %d times", len(rs), i, n)
			}
		}
	}
	nop := func(lo, hi int) {}
	one, two := splitRows(100, 1), splitRows(100, 2)
	if n := testing.AllocsPerRun(20, func() { runRanges(one, nop) }); n != 0 {
		t.Errorf("one range: %v allocations, want 0 (the caller's goroutine)", n)
	}
	if n := testing.AllocsPerRun(20, func() { runRanges(two, nop) }); n == 0 {
		t.Error("premise: two ranges allocate (their goroutines)")
	}
}

// TestRowJobRanges: a validated job is split by its row count and output
// bytes (n * hidden * 4 for f32, * 2 for bf16) as workersFor decides, and
// the CPU gather leaves GOMAXPROCS as it found it.
func TestRowJobRanges(t *testing.T) {
	const vocab = 4
	for _, c := range []struct {
		rows, hidden int
		bf16         bool
		procs, want  int
	}{
		{64, 4096, false, 4, 4}, // 1 MiB of f32
		{64, 4096, true, 4, 1},  // 512 KiB of bf16
		{64, 8192, true, 4, 4},  // 1 MiB of bf16
		{63, 8192, false, 4, 1}, // too few rows
		{64, 4096, false, 1, 1},
		{70, 4096, false, 100, 70},
	} {
		ids := make([]int64, c.rows)
		out := hostTensor(outType(c.bf16), make([]byte, outSize(c.rows, c.hidden, c.bf16)), int64(c.rows), int64(c.hidden))
		table := hostTensor(gguf.TypeF32, make([]byte, vocab*c.hidden*4), vocab, int64(c.hidden))
		j, err := prepareRows(cpuFloat{}, out, table, hostTensor(gguf.TypeI64, idBytes(ids, gguf.TypeI64), int64(c.rows)))
		if err != nil {
			t.Fatal(err)
		}
		if got := j.ranges(c.procs); !reflect.DeepEqual(got, splitRows(c.rows, c.want)) {
			t.Errorf("%d rows of %d %v, %d procs: ranges %v, want %d even ones", c.rows, c.hidden, outType(c.bf16), c.procs, got, c.want)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	o, tb, i := valid()
	if err := Embedding(o, tb, i); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS is %d after a gather, was 3", n)
	}
}
