package hipkern

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// The anchor shape of issue 14: a table of anchorVocab rows of anchorHidden
// values per codec (a 151,936-token vocabulary, hidden size 4,096),
// anchorIDs uniform random ids (with repeats), bf16 out, int32 and int64
// ids.
//
// Effective bytes of one gather: the packed rows read (anchorIDs *
// RowSizeBytes) plus the bf16 output written (anchorIDs * anchorHidden *
// 2); the ids are not counted. The copy it is compared with is a
// device-to-device copy of the output's bytes (512 MiB), which moves twice
// that (read once, written once). TB/s is 1e12 bytes per second.
const (
	anchorVocab   = 151936
	anchorHidden  = 4096
	anchorIDs     = 65536
	anchorSingles = 21 // single launches timed apart, of which the median is reported
)

// anchorResult is one row of the table: mean of b.N back-to-back launches
// and median of anchorSingles single launches, in microseconds.
type anchorResult struct {
	bytes        int64
	mean, median map[int]float64 // by id width (4, 8); the copy uses 0
}

var anchorResults = map[string]*anchorResult{}

func anchorBytes(t gguf.Type) int64 {
	rb, err := gguf.RowSizeBytes(t, anchorHidden)
	if err != nil {
		panic(err)
	}
	return anchorIDs*rb + anchorIDs*anchorHidden*2
}

// needRealGPU skips a benchmark on the host emulation, which times nothing.
func needRealGPU(b *testing.B) devLib {
	lib, info := needGPU(b)
	if info.Emulation() {
		b.Skip("hipkern: the host emulation is not a GPU: nothing to time")
	}
	return lib
}

// realScales sets every scale field of a random packed table to a normal
// value of either sign with a magnitude in [2^-10, 2^1) (E8M0 exponents 112
// to 130), as gathertest.RandomTable does and as a real model's are, from
// the field's own random bits (fast enough for the 710 MB table): no
// decoded value is a NaN or infinite, as in a real table.
func realScales(typ gguf.Type, table []byte) {
	c, ok := gather.CodecOf(typ)
	if !ok {
		panic(fmt.Sprintf("no codec %v", typ))
	}
	for blk := 0; blk+c.Traits.BlockBytes <= len(table); blk += c.Traits.BlockBytes {
		for _, f := range c.Scales {
			p := table[blk+f.Offset:]
			switch f.Encoding {
			case gather.ScaleF16:
				h := binary.LittleEndian.Uint16(p)
				binary.LittleEndian.PutUint16(p, h&0x83ff|uint16(5+(h>>10&31)%11)<<10)
			case gather.ScaleF32:
				u := binary.LittleEndian.Uint32(p)
				binary.LittleEndian.PutUint32(p, u&0x807fffff|(117+(u>>23&255)%11)<<23)
			case gather.ScaleE8M0:
				p[0] = 112 + p[0]%19
			case gather.ScaleUE4M3:
				p[0] = 1 + p[0]%0x47 // halved values in [2^-10, 2)
			default:
				panic(fmt.Sprintf("%v: no way to set a scale encoded as %v", typ, f.Encoding))
			}
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// BenchmarkGPUAnchor times, at the anchor shape, the device-to-device copy
// of the output's bytes and then every admitted codec's gather with int32
// and int64 ids: the mean of b.N back-to-back launches (device events
// around them, after a warm-up launch) and the median of anchorSingles
// launches timed one by one. It prints the table EVIDENCE.md quotes, in
// microseconds and effective TB/s. Run it with -benchtime Nx (N launches).
func BenchmarkGPUAnchor(b *testing.B) {
	lib := needRealGPU(b)
	maxRow := int64(0)
	for _, c := range gather.Admitted() {
		rb, _ := gguf.RowSizeBytes(c, anchorHidden)
		maxRow = max(maxRow, rb)
	}
	// One random table big enough for every codec; each uses its prefix,
	// its scale fields set to real-model values first.
	table := make([]byte, anchorVocab*maxRow)
	rand.NewChaCha8([32]byte{14}).Read(table)
	rng := rand.New(rand.NewPCG(14, 14))
	ids := make([]int64, anchorIDs)
	for i := range ids {
		ids[i] = rng.Int64N(anchorVocab)
	}
	tbuf := newDevBuf(b, gpu0, len(table))
	idPtr := map[int]uintptr{
		4: upload(b, gpu0, encodeIDs(gguf.TypeI32, ids), 0),
		8: upload(b, gpu0, encodeIDs(gguf.TypeI64, ids), 0),
	}
	const outBytes = anchorIDs * anchorHidden * 2
	out := newDevBuf(b, gpu0, outBytes).base
	src := newDevBuf(b, gpu0, outBytes).base

	b.Run("copy", func(b *testing.B) {
		ms, err := lib.BenchCopy(0, uint64(out), uint64(src), outBytes, b.N)
		if err != nil {
			b.Fatal(err)
		}
		singles := make([]float64, anchorSingles)
		for i := range singles {
			one, err := lib.BenchCopy(0, uint64(out), uint64(src), outBytes, 1)
			if err != nil {
				b.Fatal(err)
			}
			singles[i] = one * 1e3
		}
		r := &anchorResult{bytes: 2 * outBytes, mean: map[int]float64{0: ms / float64(b.N) * 1e3}, median: map[int]float64{0: median(singles)}}
		anchorResults["copy"] = r
		b.ReportMetric(r.mean[0], "µs/copy")
		b.ReportMetric(float64(r.bytes)/r.mean[0]/1e6, "TB/s")
	})
	for _, c := range gather.Admitted() {
		rb, _ := gguf.RowSizeBytes(c, anchorHidden)
		n := anchorVocab * rb
		realScales(c, table[:n])
		if err := lib.copyIn(0, uint64(tbuf.base), table[:n]); err != nil {
			b.Fatal(err)
		}
		r := &anchorResult{bytes: anchorBytes(c), mean: map[int]float64{}, median: map[int]float64{}}
		anchorResults[c.String()] = r
		for _, w := range []int{4, 8} {
			b.Run(fmt.Sprintf("%v/i%d", c, 8*w), func(b *testing.B) {
				call := gatherCall{dev: 0, tableType: int(c), table: uint64(tbuf.base), vocab: anchorVocab,
					hidden: anchorHidden, ids: uint64(idPtr[w]), idBytes: w, nIDs: anchorIDs, out: uint64(out), outBF16: true}
				ms, err := lib.bench(call, b.N)
				if err != nil {
					b.Fatal(err)
				}
				singles := make([]float64, anchorSingles)
				for i := range singles {
					one, err := lib.bench(call, 1)
					if err != nil {
						b.Fatal(err)
					}
					singles[i] = one * 1e3
				}
				r.mean[w], r.median[w] = ms/float64(b.N)*1e3, median(singles)
				b.ReportMetric(r.mean[w], "µs/gather")
				b.ReportMetric(float64(r.bytes)/r.mean[w]/1e6, "TB/s")
			})
		}
	}
	printAnchorTable()
}

// printAnchorTable writes the Markdown table EVIDENCE.md quotes.
func printAnchorTable() {
	info, _ := Available()
	cp := anchorResults["copy"]
	if cp == nil {
		return
	}
	fmt.Printf("\nhipkern anchor gather: %d ids into %d x %d, bf16 out, on %s (%s)\n\n", anchorIDs, anchorVocab,
		anchorHidden, info.Name, info.Arch)
	fmt.Println("| what | effective MB | i32 mean µs | i32 median µs | i64 mean µs | i64 median µs | TB/s (i32 mean) | time / copy (i32 mean) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	fmt.Printf("| device-to-device copy of the output (512 MiB) | %.1f | %.1f | %.1f | | | %.2f | 1.00 |\n",
		float64(cp.bytes)/1e6, cp.mean[0], cp.median[0], float64(cp.bytes)/cp.mean[0]/1e6)
	for _, c := range gather.Admitted() {
		r := anchorResults[c.String()]
		if r == nil || r.mean[4] == 0 || r.mean[8] == 0 {
			continue
		}
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f |\n", c, float64(r.bytes)/1e6,
			r.mean[4], r.median[4], r.mean[8], r.median[8], float64(r.bytes)/r.mean[4]/1e6, r.mean[4]/cp.mean[0])
	}
	fmt.Println()
}

// TestRealScales: the benchmark's tables decode to finite values only (no
// chunk there is a NaN or an infinity, as in a real model's table), for
// every admitted codec, though the payload bytes are random.
func TestRealScales(t *testing.T) {
	for _, c := range gather.Admitted() {
		const hidden = 4096
		rb, _ := gguf.RowSizeBytes(c, hidden)
		table := make([]byte, 16*rb)
		rand.NewChaCha8([32]byte{byte(c)}).Read(table)
		realScales(c, table)
		out := make([]float32, 16*hidden)
		if err := gather.Dequantize(c, table, out); err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				t.Errorf("%v: value %d is %v", c, i, v)
				break
			}
		}
	}
}
