package hipkern

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// gpuRun gathers n ids (at idsPtr) of the table at tablePtr on dev into a
// fresh poisoned output at byte offset outOff, and returns the output bytes
// and the guard bytes after them.
func gpuRun(t testing.TB, dev gather.Device, typ gguf.Type, vocab, hidden int64, tablePtr uintptr,
	idType gguf.Type, idsPtr uintptr, n int64, outType gguf.Type, outOff int) (out, tail []byte, err error) {
	t.Helper()
	size := int(n*hidden) * outSize(outType)
	outPtr := poisoned(t, dev, size, outOff)
	err = gather.Embedding(
		devTensor(dev, outType, []int64{n, hidden}, outPtr),
		devTensor(dev, typ, []int64{vocab, hidden}, tablePtr),
		devTensor(dev, idType, []int64{n}, idsPtr))
	all := download(t, dev, outPtr, size+guard)
	return all[:size], all[size:], err
}

// tableTypes is every table type the GPU providers serve.
func tableTypes() []gguf.Type {
	return append(gather.Admitted(), gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16)
}

// widthsFor returns the row widths tested for typ: 1, 3 and 5 blocks, 256 and
// 1024 elements (and 33 for float tables, a row with a short last chunk).
func widthsFor(typ gguf.Type) []int64 {
	tr, _ := gguf.FindGgmlTraits(typ)
	be := int64(tr.BlockElems)
	ws := []int64{be, 3 * be, 5 * be, 256, 1024}
	if be == 1 {
		ws = append(ws, 33)
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// TestGPUGatherMatchesCPU: every codec and float type, both id widths, both
// output types, every width of widthsFor and table (and ids) byte offsets
// 0..3, on random tables whose first blocks carry edge scales (withEdges);
// every row is gathered. Each type is a subtest named as gguf.Type prints
// it, with tables from a generator seeded by the type alone, so that
// -run '^TestGPUGatherMatchesCPU$/^Q4_K$' checks one codec as a full run
// does. The GPU output is byte-identical to the CPU
// provider's, and nothing after out is written. Output offsets k*elem for k = 1..3 take the kernel's
// unvectorized store path, offset 0 the 16-byte one.
func TestGPUGatherMatchesCPU(t *testing.T) {
	needGPU(t)
	const vocab, n = 11, 13
	for _, typ := range tableTypes() {
		t.Run(typ.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2+uint64(typ))) // the type's tables, whichever subtests run
			for _, hidden := range widthsFor(typ) {
				table := randomTable(rng, typ, vocab, hidden)
				withEdges(typ, table)
				// Every row, in a random order, then two repeats.
				var ids []int64
				for _, v := range rng.Perm(vocab) {
					ids = append(ids, int64(v))
				}
				ids = append(ids, ids[3], ids[0])
				for _, idType := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
					idBytes := encodeIDs(idType, ids)
					want := map[gguf.Type][]byte{}
					for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
						want[outType] = cpuGather(t, typ, vocab, hidden, table, idType, idBytes, outType)
					}
					for off := range 4 {
						tp := upload(t, gpu0, table, off)
						ip := upload(t, gpu0, idBytes, off)
						for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
							what := fmt.Sprintf("%v width %d, %v ids, %v out, offset %d", typ, hidden, idType, outType, off)
							got, tail, err := gpuRun(t, gpu0, typ, vocab, hidden, tp, idType, ip, n, outType, off*outSize(outType))
							if err != nil {
								t.Fatalf("%s: %v", what, err)
							}
							if d := diff(got, want[outType], outSize(outType)); d != "" {
								t.Fatalf("%s: GPU differs from CPU: %s", what, d)
							}
							checkGuard(t, tail, what)
						}
					}
				}
			}
		})
	}
}

// TestGPUContinuation: a small request gets one workgroup per slot of
// rows (300 rows of 24 chunks: 4 rows a workgroup, 75 workgroups). A
// request with more rows than the grid may hold (the cap, which the
// library reports: the device's resident workgroups times GM_TURNS) must
// have its workgroups take several turns: for 1-block rows (4 chunks: 32
// rows a workgroup) and 3-block rows (12 chunks: 8 rows a workgroup, the
// grid stride then falls inside rows), twice the cap's rows and 17 more.
// Both match the CPU, and the launch used the fewest workgroups that cover
// the rows in the same number of turns each.
func TestGPUContinuation(t *testing.T) {
	lib, _ := needGPU(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const vocab = 1000
	typ := gguf.TypeQ8_0
	small := randomTable(rng, typ, 10, 96)
	smallIDs := encodeIDs(gguf.TypeI64, randomIDs(rng, 300, 10))
	if _, _, err := gpuRun(t, gpu0, typ, 10, 96, upload(t, gpu0, small, 0), gguf.TypeI64,
		upload(t, gpu0, smallIDs, 0), 300, gguf.TypeF32, 0); err != nil {
		t.Fatal(err)
	}
	if p := lib.State(); p.LastGrid != min(75, p.LastGridCap) {
		t.Errorf("300 rows of 24 chunks: launched %d workgroups (cap %d), want 75", p.LastGrid, p.LastGridCap)
	}
	for _, c := range []struct {
		hidden int64
		slots  int64 // rows a workgroup serves at a time
	}{{32, 32}, {96, 8}} {
		table := randomTable(rng, typ, vocab, c.hidden)
		tp := upload(t, gpu0, table, 1)
		// One row, to read the cap of this kernel (Q8_0, bf16 out).
		one := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{7}), 0)
		if _, _, err := gpuRun(t, gpu0, typ, vocab, c.hidden, tp, gguf.TypeI32, one, 1, gguf.TypeBF16, 0); err != nil {
			t.Fatal(err)
		}
		capacity := lib.State().LastGridCap
		if capacity < 1 {
			t.Fatalf("the library reports a grid cap of %d", capacity)
		}
		n := 2*capacity*c.slots + 17
		ids := encodeIDs(gguf.TypeI32, randomIDs(rng, int(n), vocab))
		want := cpuGather(t, typ, vocab, c.hidden, table, gguf.TypeI32, ids, gguf.TypeBF16)
		got, tail, err := gpuRun(t, gpu0, typ, vocab, c.hidden, tp, gguf.TypeI32, upload(t, gpu0, ids, 0), n,
			gguf.TypeBF16, 0)
		if err != nil {
			t.Fatal(err)
		}
		wanted := (n + c.slots - 1) / c.slots
		turns := (wanted + capacity - 1) / capacity
		if grid := lib.State().LastGrid; grid != (wanted+turns-1)/turns || turns != 3 {
			t.Errorf("%d rows of width %d: launched %d workgroups for %d wanted (cap %d), want %d in %d turns",
				n, c.hidden, grid, wanted, capacity, (wanted+turns-1)/turns, turns)
		}
		if d := diff(got, want, 2); d != "" {
			t.Errorf("%d rows of width %d: %s", n, c.hidden, d)
		}
		checkGuard(t, tail, "continuation")
	}
}

// badIDCase is a request whose ids hold bad values at some positions.
type badIDCase struct {
	name   string
	idType gguf.Type
	n      int
	bad    map[int]int64 // position -> bad value
	want   int           // the position the error must name
}

func badIDCases() []badIDCase {
	const vocab = 128
	return []badIDCase{
		{"i64 -1", gguf.TypeI64, 9, map[int]int64{3: -1}, 3},
		{"i64 vocab", gguf.TypeI64, 9, map[int]int64{3: vocab}, 3},
		{"i64 1<<32+1", gguf.TypeI64, 9, map[int]int64{3: 1<<32 + 1}, 3},
		{"i64 MinInt64", gguf.TypeI64, 9, map[int]int64{3: math.MinInt64}, 3},
		{"i64 MaxInt64", gguf.TypeI64, 9, map[int]int64{3: math.MaxInt64}, 3},
		{"i32 -1", gguf.TypeI32, 9, map[int]int64{3: -1}, 3},
		{"i32 vocab", gguf.TypeI32, 9, map[int]int64{3: vocab}, 3},
		{"i32 MinInt32", gguf.TypeI32, 9, map[int]int64{3: math.MinInt32}, 3},
		{"i32 MaxInt32", gguf.TypeI32, 9, map[int]int64{3: math.MaxInt32}, 3},
		{"two bad", gguf.TypeI64, 9, map[int]int64{5: 200, 2: -7}, 2},
		{"last", gguf.TypeI32, 9, map[int]int64{8: vocab}, 8},
		// Bad ids spread over many workgroups: the smallest position wins
		// whichever thread gets there first.
		{"many workgroups", gguf.TypeI64, 20000, map[int]int64{19999: -1, 9000: vocab, 777: 1 << 40, 15000: -2}, 777},
	}
}

// TestGPUBadIDs: each bad id of the CPU suite is reported with
// gather.IDError's exact message at the smallest bad position; after the
// refusal the rows at valid positions hold their values, the rows at bad
// positions are untouched, nothing after out is written, and a valid call
// right after succeeds.
func TestGPUBadIDs(t *testing.T) {
	needGPU(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const vocab, hidden = 128, 64
	for _, typ := range []gguf.Type{gguf.TypeQ4_0, gguf.TypeBF16} {
		table := randomTable(rng, typ, vocab, hidden)
		tp := upload(t, gpu0, table, 3)
		for _, c := range badIDCases() {
			t.Run(typ.String()+"/"+c.name, func(t *testing.T) { badIDRun(t, rng, typ, table, tp, c) })
		}
	}
	// An int32 id is sign-extended before the check: with a claimed vocab
	// above 2^32, -1 read as unsigned would pass and read far outside the
	// table (only row 0 exists; only it may be read).
	table := randomTable(rng, gguf.TypeQ8_0, 1, 32)
	const huge = 1 << 33
	ids := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{0, -1, math.MinInt32}), 0)
	_, _, err := gpuRun(t, gpu0, gguf.TypeQ8_0, huge, 32, upload(t, gpu0, table, 0), gguf.TypeI32, ids, 3, gguf.TypeF32, 0)
	if want := gather.IDError(1, -1, huge); errText(err) != want.Error() {
		t.Errorf("int32 -1 with vocab 2^33: %v, want %v", err, want)
	}
}

// badIDRun runs one bad-id case on a table of typ (128 x 64) uploaded at tp.
func badIDRun(t *testing.T, rng *rand.Rand, typ gguf.Type, table []byte, tp uintptr, c badIDCase) {
	const vocab, hidden = 128, 64
	ids := randomIDs(rng, c.n, vocab)
	good := slices.Clone(ids)
	for pos, v := range c.bad {
		ids[pos] = v
	}
	got, tail, err := gpuRun(t, gpu0, typ, vocab, hidden, tp, c.idType, upload(t, gpu0, encodeIDs(c.idType, ids), 1),
		int64(c.n), gguf.TypeF32, 0)
	wantErr := gather.IDError(int64(c.want), c.bad[c.want], vocab)
	if errText(err) != wantErr.Error() {
		t.Fatalf("got error %v, want %v", err, wantErr)
	}
	var re *gather.IDRangeError
	if !errors.As(err, &re) || re.Pos != int64(c.want) {
		t.Errorf("error %v is not a *gather.IDRangeError at %d", err, c.want)
	}
	ref := cpuGather(t, typ, vocab, hidden, table, c.idType, encodeIDs(c.idType, good), gguf.TypeF32)
	row := hidden * 4
	untouched := bytes.Repeat([]byte{poison}, row)
	for i := range c.n {
		g, w := got[i*row:(i+1)*row], ref[i*row:(i+1)*row]
		_, isBad := c.bad[i]
		if isBad {
			w = untouched
		}
		if d := diff(g, w, 4); d != "" {
			t.Fatalf("row %d (bad: %v) after the refusal: %s", i, isBad, d)
		}
	}
	checkGuard(t, tail, c.name)
	// The next call works.
	got, _, err = gpuRun(t, gpu0, typ, vocab, hidden, tp, c.idType, upload(t, gpu0, encodeIDs(c.idType, good), 0),
		int64(c.n), gguf.TypeF32, 0)
	if err != nil {
		t.Fatalf("valid call after a refusal: %v", err)
	}
	if d := diff(got, ref, 4); d != "" {
		t.Fatalf("valid call after a refusal: %s", d)
	}
}

// TestGPUEmpty: no ids, or zero width, returns nil with no launch and no
// allocation, before the vocab check and before looking at device
// addresses (all zero here); a non-empty request on vocab 0 is refused.
func TestGPUEmpty(t *testing.T) {
	lib, _ := needGPU(t)
	before := lib.State()
	for _, typ := range []gguf.Type{gguf.TypeQ4_K, gguf.TypeBF16} {
		for _, c := range []struct {
			name          string
			vocab, hidden int64
			n             int64
		}{
			{"no ids", 16, 256, 0},
			{"zero width", 16, 0, 5},
			{"no ids, vocab 0", 0, 256, 0},
			{"zero width, vocab 0", 0, 0, 5},
		} {
			err := gather.Embedding(
				devTensor(gpu0, gguf.TypeBF16, []int64{c.n, c.hidden}, 0),
				devTensor(gpu0, typ, []int64{c.vocab, c.hidden}, 0),
				devTensor(gpu0, gguf.TypeI32, []int64{c.n}, 0))
			if err != nil {
				t.Errorf("%v %s: %v", typ, c.name, err)
			}
		}
	}
	// The library itself returns before any device call for an empty
	// request: it binds no device and launches nothing. (An allocation
	// binds device 0 first, so that the reset is seen.)
	newDevBuf(t, gpu0, 8)
	if b := lib.State().BoundDevice; b != 0 {
		t.Errorf("an allocation on device 0 bound device %d", b)
	}
	lib.Reset()
	if b := lib.State().BoundDevice; b != -1 {
		t.Errorf("after resetProbes the bound device is %d, want -1", b)
	}
	for _, g := range []gatherCall{
		{tableType: int(gguf.TypeQ4_K), vocab: 16, hidden: 256, idBytes: 4, nIDs: 0},
		{tableType: int(gguf.TypeQ4_K), vocab: 0, hidden: 0, idBytes: 8, nIDs: 5},
	} {
		if bad, err := lib.gather(g); bad != -1 || err != nil {
			t.Errorf("library gather of %d ids x %d: bad %d, %v", g.nIDs, g.hidden, bad, err)
		}
	}
	if b := lib.State().BoundDevice; b != -1 {
		t.Errorf("an empty request bound device %d", b)
	}
	after := lib.State()
	if after.Launches != before.Launches || after.LiveTemps != before.LiveTemps {
		t.Errorf("empty requests launched %d kernels, left %d temporaries", after.Launches-before.Launches,
			after.LiveTemps-before.LiveTemps)
	}

	ids := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{0, 0, 0}), 0)
	out := poisoned(t, gpu0, 3*256*2, 0)
	table := newDevBuf(t, gpu0, 16).base
	err := gather.Embedding(
		devTensor(gpu0, gguf.TypeBF16, []int64{3, 256}, out),
		devTensor(gpu0, gguf.TypeQ4_K, []int64{0, 256}, table),
		devTensor(gpu0, gguf.TypeI32, []int64{3}, ids))
	want := "gather: Embedding: table has no rows (vocab 0), 3 ids requested"
	if err == nil || err.Error() != want {
		t.Errorf("vocab 0: got %v, want %s", err, want)
	}
	if l := lib.State().Launches; l != after.Launches {
		t.Errorf("vocab 0 launched %d kernels", l-after.Launches)
	}
}

// TestGPUStats: a packed and a float gather on the GPU are served by the
// GPU providers, with no decline and no fallback.
func TestGPUStats(t *testing.T) {
	needGPU(t)
	gather.EnableStats(true)
	defer gather.EnableStats(false)
	gather.ResetStats()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []gguf.Type{gguf.TypeIQ2_XS, gguf.TypeBF16} {
		table := randomTable(rng, typ, 4, 256)
		ids := encodeIDs(gguf.TypeI32, []int64{3, 1})
		if _, _, err := gpuRun(t, gpu0, typ, 4, 256, upload(t, gpu0, table, 0), gguf.TypeI32,
			upload(t, gpu0, ids, 0), 2, gguf.TypeBF16, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		op   gather.Op
		name string
	}{{gather.OpEmbeddingQuant, quantName}, {gather.OpEmbeddingFloat, floatName}} {
		got := gather.ReadStats(c.op, gather.GPU)
		want := gather.Stats{Selections: 1, LastProvider: c.name}
		if got != want {
			t.Errorf("%s on gpu: stats %+v, want %+v", c.op, got, want)
		}
	}
}

// TestDeviceBinding: a gather binds the tensors' device. On any machine the
// library's probe shows the binding; with two or more GPUs the gather also
// runs correctly with the ambient current device set to the other GPU.
func TestDeviceBinding(t *testing.T) {
	lib, info := needGPU(t)
	rng := rand.New(rand.NewPCG(9, 10))
	table := randomTable(rng, gguf.TypeQ6_K, 8, 256)
	ids := encodeIDs(gguf.TypeI64, []int64{7, 0, 5})
	want := cpuGather(t, gguf.TypeQ6_K, 8, 256, table, gguf.TypeI64, ids, gguf.TypeF32)
	run := func(t *testing.T, dev gather.Device) {
		tp, ip := upload(t, dev, table, 2), upload(t, dev, ids, 0)
		out := poisoned(t, dev, len(want), 0)
		lib.Reset()
		err := gather.Embedding(
			devTensor(dev, gguf.TypeF32, []int64{3, 256}, out),
			devTensor(dev, gguf.TypeQ6_K, []int64{8, 256}, tp),
			devTensor(dev, gguf.TypeI64, []int64{3}, ip))
		if bound := lib.State().BoundDevice; bound != dev.Ordinal {
			t.Errorf("the gather bound device %d, want the tensors' %d", bound, dev.Ordinal)
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := diff(download(t, dev, out, len(want)), want, 4); d != "" {
			t.Errorf("on %v: %s", dev, d)
		}
	}
	t.Run("probe", func(t *testing.T) { run(t, gpu0) })
	t.Run("two GPUs", func(t *testing.T) {
		if info.Devices < 2 {
			t.Skipf("needs 2 GPUs, the library sees %d (%s): the binding is shown by the probe only", info.Devices, info.Name)
		}
		for _, c := range []struct{ ambient, tensors int }{{0, 1}, {1, 0}} {
			dev := gather.Device{Kind: gather.GPU, Ordinal: c.tensors}
			// Allocate and upload first: they bind dev themselves.
			tp, ip := upload(t, dev, table, 2), upload(t, dev, ids, 0)
			out := poisoned(t, dev, len(want), 0)
			if err := lib.SetDevice(c.ambient); err != nil {
				t.Fatal(err)
			}
			err := gather.Embedding(
				devTensor(dev, gguf.TypeF32, []int64{3, 256}, out),
				devTensor(dev, gguf.TypeQ6_K, []int64{8, 256}, tp),
				devTensor(dev, gguf.TypeI64, []int64{3}, ip))
			if err != nil {
				t.Fatalf("ambient device %d, tensors on %d: %v", c.ambient, c.tensors, err)
			}
			if d := diff(download(t, dev, out, len(want)), want, 4); d != "" {
				t.Errorf("ambient device %d, tensors on %d: %s", c.ambient, c.tensors, d)
			}
		}
	})
}

// TestGPUTemporariesFreed: the error record is freed after a success, a bad
// id, and a failure injected at each step of the launcher (clear, launch,
// synchronize, read back), each failure reported with its step; the next
// call works.
func TestGPUTemporariesFreed(t *testing.T) {
	lib, _ := needGPU(t)
	rng := rand.New(rand.NewPCG(11, 12))
	const vocab, hidden = 6, 64
	table := randomTable(rng, gguf.TypeIQ4_NL, vocab, hidden)
	tp := upload(t, gpu0, table, 0)
	good := encodeIDs(gguf.TypeI32, []int64{1, 5, 0})
	bad := encodeIDs(gguf.TypeI32, []int64{1, 6, 0})
	want := cpuGather(t, gguf.TypeIQ4_NL, vocab, hidden, table, gguf.TypeI32, good, gguf.TypeBF16)
	gp, bp := upload(t, gpu0, good, 0), upload(t, gpu0, bad, 0)
	for _, c := range []struct {
		name    string
		inject  int
		ids     uintptr
		wantErr string
	}{
		{"success", 0, gp, ""},
		{"bad id", 0, bp, "gather: ids[1] = 6 out of range [0, 6)"},
		{"clear", 1, gp, "hipkern: hip.EmbeddingQuant: hipkern: injected failure at step 1"},
		{"launch", 2, gp, "hipkern: hip.EmbeddingQuant: hipkern: injected failure at step 2"},
		{"sync", 3, gp, "hipkern: hip.EmbeddingQuant: hipkern: injected failure at step 3"},
		{"read back", 4, gp, "hipkern: hip.EmbeddingQuant: hipkern: injected failure at step 4"},
	} {
		before := lib.State().LiveTemps
		lib.InjectFailure(c.inject)
		_, _, err := gpuRun(t, gpu0, gguf.TypeIQ4_NL, vocab, hidden, tp, gguf.TypeI32, c.ids, 3, gguf.TypeBF16, 0)
		lib.InjectFailure(0)
		if got := fmt.Sprint(err); c.wantErr == "" && err != nil || c.wantErr != "" && got != c.wantErr {
			t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
		}
		if live := lib.State().LiveTemps; live != before {
			t.Errorf("%s: %d temporaries live after the call, %d before", c.name, live, before)
		}
		got, _, err := gpuRun(t, gpu0, gguf.TypeIQ4_NL, vocab, hidden, tp, gguf.TypeI32, gp, 3, gguf.TypeBF16, 0)
		if err != nil {
			t.Fatalf("%s: the next call: %v", c.name, err)
		}
		if d := diff(got, want, 2); d != "" {
			t.Errorf("%s: the next call: %s", c.name, d)
		}
	}
}

// TestGPUOutMisaligned: an output address that is not a multiple of its
// element size is refused before any launch.
func TestGPUOutMisaligned(t *testing.T) {
	lib, _ := needGPU(t)
	table := upload(t, gpu0, make([]byte, 2*18), 0)
	ids := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{1}), 0)
	out := newDevBuf(t, gpu0, 256).base
	for _, c := range []struct {
		outType gguf.Type
		off     uintptr
		align   int
	}{{gguf.TypeBF16, 1, 2}, {gguf.TypeF32, 2, 4}} {
		before := lib.State().Launches
		err := gather.Embedding(
			devTensor(gpu0, c.outType, []int64{1, 32}, out+c.off),
			devTensor(gpu0, gguf.TypeQ4_0, []int64{2, 32}, table),
			devTensor(gpu0, gguf.TypeI32, []int64{1}, ids))
		want := fmt.Sprintf("hipkern: hip.EmbeddingQuant: hipkern: out address %#x is not %d-byte aligned", out+c.off, c.align)
		if err == nil || err.Error() != want {
			t.Errorf("%v out at +%d: got %v, want %s", c.outType, c.off, err, want)
		}
		if l := lib.State().Launches; l != before {
			t.Errorf("%v out at +%d: launched", c.outType, c.off)
		}
	}
}

// TestAvailable reports what the library sees.
func TestAvailable(t *testing.T) {
	needGPU(t)
	info, err := Available()
	if err != nil {
		t.Fatal(err)
	}
	if info.Devices < 1 || info.Name == "" || info.Library == "" {
		t.Errorf("Available() = %+v", info)
	}
	switch info.Runtime {
	case "host emulation":
		if info.Name != "host emulation device 0" || info.Arch != "host-emulation" || info.Devices != 2 {
			t.Errorf("the host emulation describes itself as %+v", info)
		}
	case "hip", "cuda":
		if !regexp.MustCompile(`^(sm_[0-9]+|gfx[0-9a-f]+)$`).MatchString(info.Arch) {
			t.Errorf("%s runtime: arch %q is not sm_NN or gfxNNNN", info.Runtime, info.Arch)
		}
	default:
		t.Errorf("unknown runtime %q", info.Runtime)
	}
	t.Logf("%v", info)
}

// oracleCase is one entry of testdata/oracle/index.json.
type oracleCase struct {
	Dir   string `json:"dir"`
	Codec string `json:"codec"`
	Case  string `json:"case"`
	Type  int    `json:"ggml_type"`
	Rows  int64  `json:"rows"`
	Cols  int64  `json:"cols"`
	Extra bool   `json:"extra"`
}

// TestGPUOracle gathers every row of each admitted codec's oracle tables
// (the llama.cpp reference decoders' output), in reverse order, and compares
// the f32 and bf16 output with the oracle's by the oracle's rule (sameBits):
// the random-block cases w1, w3 and w5, and the edge cases scales (zero,
// subnormal, max, infinite and NaN scales) and zeros (signed zero outputs).
// The bf16 output must also be the f32 output rounded by gather.F32ToBF16,
// bit for bit, NaNs included. Each case runs twice: with the table at byte offset 1 (the kernel reads it
// byte by byte) and at offset 0 (it reads aligned words), there over the
// first rows whose bytes are whole words (every row, in all but one case).
// Each case is a subtest named by its codec, as gguf.Type prints it, and
// case ("Q4_K/w1"), so that -run '^TestGPUOracle$/^Q4_K$' runs one codec's
// cases; the index must hold each case once per admitted codec.
func TestGPUOracle(t *testing.T) {
	needGPU(t)
	root := filepath.Join("..", "testdata", "oracle")
	idx, err := os.ReadFile(filepath.Join(root, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []oracleCase
	if err := json.Unmarshal(idx, &cases); err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, c := range cases {
		if c.Extra {
			continue
		}
		listed[c.Case]++
		t.Run(gguf.Type(c.Type).String()+"/"+c.Case, func(t *testing.T) { gpuOracleCase(t, root, c) })
	}
	for _, name := range []string{"w1", "w3", "w5", "scales", "zeros"} {
		if listed[name] != len(gather.Admitted()) {
			t.Errorf("the index lists %d oracle cases %s of admitted codecs, want one per admitted codec (%d)", listed[name], name, len(gather.Admitted()))
		}
	}
}

// gpuOracleCase is TestGPUOracle's check of one oracle case c (under root).
func gpuOracleCase(t *testing.T, root string, c oracleCase) {
	typ := gguf.Type(c.Type)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Dir), name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	packed := read("packed.bin")
	rowBytes := int64(len(packed)) / c.Rows
	for _, off := range []int{1, 0} {
		rows := c.Rows
		if off == 0 {
			for rows > 1 && rows*rowBytes%4 != 0 {
				rows--
			}
		}
		ids := make([]int64, rows)
		for i := range ids {
			ids[i] = rows - 1 - int64(i)
		}
		tp := upload(t, gpu0, packed[:rows*rowBytes], off)
		ip := upload(t, gpu0, encodeIDs(gguf.TypeI64, ids), 0)
		outs := map[gguf.Type][]byte{}
		for _, o := range []struct {
			typ  gguf.Type
			file string
		}{{gguf.TypeF32, "f32.bin"}, {gguf.TypeBF16, "bf16.bin"}} {
			ref := read(o.file)
			row := int(c.Cols) * outSize(o.typ)
			want := make([]byte, 0, len(ref))
			for _, id := range ids {
				want = append(want, ref[int(id)*row:int(id+1)*row]...)
			}
			got, tail, err := gpuRun(t, gpu0, typ, rows, c.Cols, tp, gguf.TypeI64, ip, rows, o.typ, 0)
			if err != nil {
				t.Fatalf("%s %v, table offset %d: %v", c.Dir, o.typ, off, err)
			}
			if d := diffOracle(got, want, outSize(o.typ)); d != "" {
				t.Errorf("%s %v, table offset %d: GPU differs from the oracle: %s", c.Dir, o.typ, off, d)
			}
			checkGuard(t, tail, c.Dir)
			outs[o.typ] = got
		}
		checkBF16OfF32(t, outs[gguf.TypeF32], outs[gguf.TypeBF16], fmt.Sprintf("%s, table offset %d", c.Dir, off))
	}
}

// checkBF16OfF32 checks that the bf16 output is the f32 output rounded by
// gather.F32ToBF16, bit for bit, NaNs included (their top bits kept, quiet
// bit set); it reports the first element that is not.
func checkBF16OfF32(t *testing.T, f32, bf16 []byte, what string) {
	t.Helper()
	for e := 0; 4*e < len(f32); e++ {
		u := binary.LittleEndian.Uint32(f32[4*e:])
		want := gather.F32ToBF16(math.Float32frombits(u))
		if got := binary.LittleEndian.Uint16(bf16[2*e:]); got != want {
			t.Errorf("%s, element %d: bf16 out %#04x, but the f32 out %#08x rounds to %#04x", what, e, got, u, want)
			return
		}
	}
}

// sameBits is the oracle's comparison of one f32 (size 4) or bf16 (size 2)
// value: a NaN matches any NaN (sign and payload depend on the machine),
// anything else, infinities and signed zeros included, matches bit for bit.
func sameBits(got, want []byte, size int) bool {
	var g, w uint32
	var nan func(uint32) bool
	if size == 4 {
		g, w = binary.LittleEndian.Uint32(got), binary.LittleEndian.Uint32(want)
		nan = func(u uint32) bool { return u&0x7fffffff > 0x7f800000 }
	} else {
		g, w = uint32(binary.LittleEndian.Uint16(got)), uint32(binary.LittleEndian.Uint16(want))
		nan = func(u uint32) bool { return u&0x7fff > 0x7f80 }
	}
	if nan(w) {
		return nan(g)
	}
	return g == w
}

// diffOracle describes the first value of got that does not match want by
// sameBits.
func diffOracle(got, want []byte, size int) string {
	for e := 0; e*size < len(want); e++ {
		g, w := got[e*size:(e+1)*size], want[e*size:(e+1)*size]
		if !sameBits(g, w, size) {
			return fmt.Sprintf("first difference at element %d: got % x, want % x", e, g, w)
		}
	}
	return ""
}

// TestLibraryCalls: every entry point of the library reports its failure
// with the library's message (a device that does not exist, an address
// that was never allocated, a table type without a kernel); a failed
// gather reports no bad position; empty copies succeed without touching a
// device; the library lists exactly the admitted codecs and the float
// types, packed codecs first.
func TestLibraryCalls(t *testing.T) {
	lib, info := needGPU(t)
	const bad = 1000 // no machine has this many GPUs
	noDevice := func(what string) string {
		return fmt.Sprintf("hipkern: %s on device %d: invalid device ordinal", what, bad)
	}
	setDev := noDevice("hipSetDevice")
	p, allocErr := lib.alloc(bad, 8)
	_, _, infoErr := lib.deviceInfo(bad)
	badPos, gatherErr := lib.gather(gatherCall{dev: bad, tableType: int(gguf.TypeQ8_0), vocab: 1, hidden: 32, idBytes: 4, nIDs: 1})
	typePos, typeErr := lib.gather(gatherCall{tableType: 99, vocab: 1, hidden: 32, idBytes: 4, nIDs: 1})
	ms, benchErr := lib.bench(gatherCall{tableType: 99, vocab: 1, hidden: 32, idBytes: 4, nIDs: 1}, 1)
	_, copyErr := lib.BenchCopy(bad, 0, 0, 8, 1)
	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"alloc", allocErr, setDev},
		{"free", lib.free(bad, 0), setDev},
		{"copyIn", lib.copyIn(bad, 0, []byte{1}), setDev},
		{"copyOut", lib.copyOut(bad, make([]byte, 1), 0), setDev},
		{"setDevice", lib.SetDevice(bad), setDev},
		{"deviceInfo", infoErr, noDevice("hipGetDeviceProperties")},
		{"gather", gatherErr, setDev},
		{"gather of type 99", typeErr, "hipkern: no kernel for ggml type 99"},
		{"benchGather of type 99", benchErr, "hipkern: no kernel for ggml type 99"},
		{"benchCopy", copyErr, setDev},
		{"empty copyIn", lib.copyIn(bad, 0, nil), ""},
		{"empty copyOut", lib.copyOut(bad, []byte{}, 0), ""},
	} {
		if errText(c.err) != c.want {
			t.Errorf("%s: %v, want %q", c.what, c.err, c.want)
		}
	}
	if p != 0 || badPos != -1 || typePos != -1 || ms != 0 {
		t.Errorf("failed calls returned address %#x, bad positions %d and %d, %v ms; want 0, -1, -1, 0", p, badPos, typePos, ms)
	}
	if info.Emulation() {
		if err := lib.free(0, 0xdead); errText(err) != "hipkern: hipFree on device 0: invalid argument" {
			t.Errorf("free of an address never allocated: %v", err)
		}
		if n, err := lib.deviceCount(); n != 2 || err != nil {
			t.Errorf("deviceCount() = %d, %v; want the emulation's 2", n, err)
		}
		if name, arch, err := lib.deviceInfo(1); name != "host emulation device 1" || arch != "host-emulation" || err != nil {
			t.Errorf("deviceInfo(1) = %q, %q, %v", name, arch, err)
		}
	}
	if info.Devices > 1 {
		if err := lib.SetDevice(1); err != nil {
			t.Fatal(err)
		}
		if d := lib.CurrentDevice(); d != 1 {
			t.Errorf("current device %d after setDevice(1)", d)
		}
		if err := lib.SetDevice(0); err != nil {
			t.Fatal(err)
		}
	}

	all, quant := lib.tableTypes()
	var packed, float []gguf.Type
	for i, v := range all {
		if i < quant {
			packed = append(packed, gguf.Type(v))
		} else {
			float = append(float, gguf.Type(v))
		}
	}
	slices.Sort(packed)
	admitted := slices.Sorted(slices.Values(gather.Admitted()))
	if !slices.Equal(packed, admitted) || !slices.Equal(float, []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16}) {
		t.Errorf("table types: packed %v, float %v; want %v, then F32 F16 BF16", packed, float, admitted)
	}
}

// TestLibraryBench: the benchmark entry points time a valid gather and a
// device copy (some time passes: on a GPU by its events, on the host
// emulation by the host's clock), and refuse a bad id like the gather.
func TestLibraryBench(t *testing.T) {
	lib, info := needGPU(t)
	table := upload(t, gpu0, make([]byte, 4*34), 0) // four Q8_0 rows of one 34-byte block
	ids := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{3, 2, 1, 0}), 0)
	badIDs := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{4, 0, 0, 0}), 0)
	out := newDevBuf(t, gpu0, 4*32*2).base
	g := gatherCall{tableType: int(gguf.TypeQ8_0), table: uint64(table), vocab: 4, hidden: 32, ids: uint64(ids),
		idBytes: 4, nIDs: 4, out: uint64(out), outBF16: true}
	gms, gerr := lib.bench(g, 3)
	cms, cerr := lib.BenchCopy(0, uint64(out), uint64(table), 64, 3)
	if gerr != nil || cerr != nil {
		t.Fatalf("benchGather: %v; benchCopy: %v", gerr, cerr)
	}
	if gms <= 0 || cms <= 0 {
		t.Errorf("on %v: gather %v ms, copy %v ms", info, gms, cms)
	}
	g.ids = uint64(badIDs)
	if _, err := lib.bench(g, 3); errText(err) != "hipkern: benchmark ids[0] out of range" {
		t.Errorf("benchGather of a bad id: %v", err)
	}
}

// TestGPUAfterFailedCall: a runtime call that fails (a bad device ordinal,
// a free of an address the runtime never gave) leaves the runtime's last
// error set; the next request must not report it as its own launch error.
func TestGPUAfterFailedCall(t *testing.T) {
	lib, _ := needGPU(t)
	table := upload(t, gpu0, make([]byte, 2*34), 0) // two Q8_0 rows of one block
	ids := upload(t, gpu0, encodeIDs(gguf.TypeI32, []int64{1, 0}), 0)
	out := newDevBuf(t, gpu0, 2*32*4).base
	g := gatherCall{tableType: int(gguf.TypeQ8_0), table: uint64(table), vocab: 2, hidden: 32, ids: uint64(ids),
		idBytes: 4, nIDs: 2, out: uint64(out)}
	for _, fail := range []struct {
		name string
		call func() error
	}{
		{"bad device", func() error { return lib.SetDevice(1000) }},
		{"bad free", func() error { return lib.free(0, 8) }},
	} {
		if err := fail.call(); err == nil {
			t.Fatalf("%s: no error", fail.name)
		}
		if _, err := lib.gather(g); err != nil {
			t.Errorf("gather after a %s: %v", fail.name, err)
		}
		if err := fail.call(); err == nil {
			t.Fatalf("%s: no error", fail.name)
		}
		if _, err := lib.bench(g, 1); err != nil {
			t.Errorf("benchGather after a %s: %v", fail.name, err)
		}
	}
}
