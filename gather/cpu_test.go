package gather

import (
	"bytes"
	"errors"
	"math/rand/v2"
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
	o, tb, i := valid(t)
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

// TestCPUProviderChecks calls the CPU providers directly: they validate
// like Embedding and give the same answer to every refusal of
// TestEmbeddingValidation, decline what they cannot serve, and do the
// provider-side checks in order (empty request, vocab 0, overflow of
// out/table/ids, Data of out/table/ids, ids).
func TestCPUProviderChecks(t *testing.T) {
	q, f := cpuQuant{}, cpuFloat{}
	for _, c := range allRefusals() {
		o, tb, i := valid(t)
		for _, ch := range c.changes {
			o, tb, i = ch(o, tb, i)
		}
		var p Provider = q
		if tb != nil && tb.Type.IsFloat() {
			p = f
		}
		if err := p.Embedding(o, tb, i); err == nil || err.Error() != c.want {
			t.Errorf("%s %s: got %v, want %s", p.Name(), c.name, err, c.want)
		}
	}
	o, tb, i := valid(t)
	for _, c := range []struct {
		name string
		p    Provider
		args func() (*Tensor, *Tensor, *Tensor)
		want string // "declined" means: wraps ErrDeclined with this text
	}{
		{"quant on gpu", q, func() (*Tensor, *Tensor, *Tensor) { return gpuArgs(gguf.TypeQ8_0) },
			"gather: cpu-quant: tensors on device gpu:0: gather: provider declined"},
		{"float on gpu", f, func() (*Tensor, *Tensor, *Tensor) { return gpuArgs(gguf.TypeF32) },
			"gather: cpu-float: tensors on device gpu:0: gather: provider declined"},
		{"quant given a float table", q, func() (*Tensor, *Tensor, *Tensor) {
			return o, hostTensor(gguf.TypeF32, make([]byte, 4*64*4), 4, 64), i
		}, "gather: cpu-quant: F32 tables: gather: provider declined"},
		{"float given a packed table", f, func() (*Tensor, *Tensor, *Tensor) { return o, tb, i },
			"gather: cpu-float: Q8_0 tables: gather: provider declined"},
	} {
		err := c.p.Embedding(c.args())
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrDeclined) {
			t.Errorf("%s: got %v, want a decline %q", c.name, err, c.want)
		}
	}

	// Sizes: every overflow (out, table, ids), then every Data (out,
	// table, ids), all before the ids check.
	badIDs := idBytes([]int64{0, -1, 0}, gguf.TypeI32)
	for _, c := range []struct {
		name            string
		out, table, ids *Tensor
		want            string
	}{
		{"vocab 0 before sizes", hostTensor(gguf.TypeF32, nil, 3, 64), hostTensor(gguf.TypeQ8_0, nil, 0, 64), hostTensor(gguf.TypeI32, nil, 3),
			pre + "table has no rows (vocab 0), 3 ids requested"},
		{"out short", hostTensor(gguf.TypeF32, make([]byte, 767), 3, 64), hostTensor(gguf.TypeQ8_0, nil, 4, 64), hostTensor(gguf.TypeI32, nil, 3),
			pre + "out data holds 767 bytes, its shape [3 64] of F32 needs 768"},
		{"out overflow", hostTensor(gguf.TypeF32, nil, 1<<41, 1<<20), hostTensor(gguf.TypeQ8_0, make([]byte, 34<<15), 1, 1<<20), hostTensor(gguf.TypeI32, nil, 1<<41),
			pre + "out: gather: F32 tensor [2199023255552 1048576]: byte size overflows int64"},
		{"table short", o, hostTensor(gguf.TypeQ8_0, tb.Data[:271], 4, 64), hostTensor(gguf.TypeI32, nil, 3),
			pre + "table data holds 271 bytes, its shape [4 64] of Q8_0 needs 272"},
		{"table overflow", o, hostTensor(gguf.TypeQ8_0, nil, 1<<60, 64), hostTensor(gguf.TypeI32, nil, 3),
			pre + "table: gather: Q8_0 tensor [1152921504606846976 64]: byte size overflows int64"},
		{"table overflow before out short", hostTensor(gguf.TypeF32, nil, 3, 64), hostTensor(gguf.TypeQ8_0, nil, 1<<60, 64), hostTensor(gguf.TypeI32, nil, 3),
			pre + "table: gather: Q8_0 tensor [1152921504606846976 64]: byte size overflows int64"},
		{"ids overflow before out short", hostTensor(gguf.TypeBF16, nil, 1<<61, 1), hostTensor(gguf.TypeF32, nil, 4, 1), hostTensor(gguf.TypeI32, nil, 1<<61),
			pre + "ids: gather: I32 tensor [2305843009213693952]: byte size overflows int64"},
		{"ids short", o, tb, hostTensor(gguf.TypeI32, badIDs[:11], 3),
			pre + "ids data holds 11 bytes, its shape [3] of I32 needs 12"},
		{"ids I64 short", o, tb, hostTensor(gguf.TypeI64, make([]byte, 23), 3),
			pre + "ids data holds 23 bytes, its shape [3] of I64 needs 24"},
		{"bad id", o, tb, hostTensor(gguf.TypeI32, badIDs, 3), "gather: ids[1] = -1 out of range [0, 4)"},
	} {
		var p Provider = q
		if c.table.Type.IsFloat() {
			p = f
		}
		err := p.Embedding(c.out, c.table, c.ids)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}

	// Empty requests return nil before anything else is looked at, from the
	// provider and through Embedding alike.
	for _, c := range []struct {
		name            string
		out, table, ids *Tensor
	}{
		{"no ids, vocab 0", hostTensor(gguf.TypeF32, nil, 0, 64), hostTensor(gguf.TypeQ8_0, nil, 0, 64), hostTensor(gguf.TypeI32, nil, 0)},
		{"zero width, vocab 0, data missing", hostTensor(gguf.TypeF32, nil, 3, 0), hostTensor(gguf.TypeQ8_0, nil, 0, 0), hostTensor(gguf.TypeI32, nil, 3)},
		{"no ids, table data missing", hostTensor(gguf.TypeF32, nil, 0, 64), hostTensor(gguf.TypeQ8_0, nil, 4, 64), hostTensor(gguf.TypeI32, nil, 0)},
		{"zero width, ids bytes overflow", hostTensor(gguf.TypeF32, nil, 1<<62, 0), hostTensor(gguf.TypeQ8_0, nil, 4, 0), hostTensor(gguf.TypeI32, nil, 1<<62)},
	} {
		if err := q.Embedding(c.out, c.table, c.ids); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if err := Embedding(c.out, c.table, c.ids); err != nil {
			t.Errorf("Embedding %s: %v", c.name, err)
		}
		c.table.Type = gguf.TypeF32
		if err := f.Embedding(c.out, c.table, c.ids); err != nil {
			t.Errorf("float %s: %v", c.name, err)
		}
	}
}

// TestCPUProviderWritesOnlyRows: the provider, called directly with out.Data
// longer than out, writes exactly out's rows.
func TestCPUProviderWritesOnlyRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tt := range []gguf.Type{gguf.TypeQ5_0, gguf.TypeQ3_K, gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		w := 256
		table := hostTensor(tt, randomTable(t, rng, tt, 8, w), 8, int64(w))
		ids := []int64{7, 1, 1, 0}
		for _, bf16 := range []bool{false, true} {
			want := refGather(t, tt, table.Data, w, ids, bf16)
			buf := bytes.Repeat([]byte{guardByte}, len(want)+64)
			out := hostTensor(outType(bf16), buf, 4, int64(w))
			p := Providers(opFor(tt), CPU)[0]
			if err := p.Embedding(out, table, hostTensor(gguf.TypeI64, idBytes(ids, gguf.TypeI64), 4)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf[:len(want)], want) {
				t.Errorf("%v %v: wrong rows", tt, outType(bf16))
			}
			if bytes.Count(buf[len(want):], []byte{guardByte}) != 64 {
				t.Errorf("%v %v: wrote past out's rows", tt, outType(bf16))
			}
		}
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
	o, tb, i := valid(t)
	if err := Embedding(o, tb, i); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS is %d after a gather, was 3", n)
	}
}

// TestParallelMatchesSerial: for every admitted codec and both out types, a
// request decoded with 1..9 workers gives the same bytes as the serial
// decode and the reference; and a large request through Embedding (which
// goes parallel) matches the reference with GOMAXPROCS 1 and 4.
func TestParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	const vocab, hidden, n = 24, 256, 70
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(rng.IntN(vocab))
	}
	for _, tt := range matrixTypes() {
		table := hostTensor(tt, randomTable(t, rng, tt, vocab, hidden), vocab, hidden)
		p := Providers(opFor(tt), CPU)[0]
		rows := (*rowJob).quantRows
		if tt.IsFloat() {
			rows = (*rowJob).floatRows
		}
		for _, bf16 := range []bool{false, true} {
			want := refGather(t, tt, table.Data, hidden, ids, bf16)
			for workers := 1; workers <= 9; workers++ {
				out := hostTensor(outType(bf16), make([]byte, len(want)), n, hidden)
				j, err := prepareRows(p, out, table, hostTensor(gguf.TypeI32, idBytes(ids, gguf.TypeI32), n))
				if err != nil {
					t.Fatal(err)
				}
				runRanges(splitRows(n, workers), func(lo, hi int) { rows(j, lo, hi) })
				if !bytes.Equal(out.Data, want) {
					t.Fatalf("%v %v with %d workers differs from the serial reference", tt, outType(bf16), workers)
				}
			}
		}
	}

	// Large enough to go parallel: 64 rows of 4096 f32 is 1 MiB.
	const big = 4096
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tt := range []gguf.Type{gguf.TypeQ4_K, gguf.TypeMXFP4, gguf.TypeBF16} {
		table := hostTensor(tt, randomTable(t, rng, tt, 8, big), 8, big)
		bigIDs := make([]int64, 64)
		for i := range bigIDs {
			bigIDs[i] = int64((i * 5) % 8)
		}
		want := refGather(t, tt, table.Data, big, bigIDs, false)
		if workersFor(64, len(want), 4) != 4 {
			t.Fatal("premise: this request goes parallel")
		}
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			out := hostTensor(gguf.TypeF32, make([]byte, len(want)), 64, big)
			if err := Embedding(out, table, hostTensor(gguf.TypeI64, idBytes(bigIDs, gguf.TypeI64), 64)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Data, want) {
				t.Fatalf("%v with GOMAXPROCS %d differs from the reference", tt, procs)
			}
		}
	}
}
