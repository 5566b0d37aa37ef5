package hipkern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// The benchmark gathers benchIDs rows of width benchHidden to bf16 from a
// table of benchIDs rows, each row once, in a random order.
//
// Effective bytes of one gather: the packed rows read (benchIDs *
// RowSizeBytes) plus the bf16 output written (benchIDs * benchHidden * 2);
// the 256 KiB of ids are not counted. The copy it is compared with moves the
// same count: a device-to-device copy of half as many bytes, read once and
// written once. GB/s is 1e9 bytes per second.
const (
	benchIDs    = 65536
	benchHidden = 4096
)

// benchResult is one codec's row of the table.
type benchResult struct {
	bytes          int64
	gatherMS, cpMS float64 // per operation
}

var benchResults = map[gguf.Type]*benchResult{}

func effectiveBytes(t gguf.Type) int64 {
	rb, err := gguf.RowSizeBytes(t, benchHidden)
	if err != nil {
		panic(err)
	}
	return benchIDs*rb + benchIDs*benchHidden*2
}

// needRealGPU skips a benchmark on the host emulation, which times nothing.
func needRealGPU(b *testing.B) backend {
	lib, info := needGPU(b)
	if info.Emulation() {
		b.Skip("hipkern: the host emulation is not a GPU: nothing to time")
	}
	return lib
}

// BenchmarkGPUGather times the kernel of a 65,536 x 4,096 bf16-out gather
// per codec with device events (b.N launches after one warm-up) and reports
// effective GB/s.
func BenchmarkGPUGather(b *testing.B) {
	lib := needRealGPU(b)
	maxRow := int64(0)
	for _, c := range gather.Admitted() {
		rb, _ := gguf.RowSizeBytes(c, benchHidden)
		maxRow = max(maxRow, rb)
	}
	// One random table big enough for every codec; each uses its prefix.
	// Random scale fields may decode to NaN or Inf: the speed is the same.
	table := make([]byte, benchIDs*maxRow)
	rand.NewChaCha8([32]byte{1}).Read(table)
	ids := make([]int64, benchIDs)
	for i, v := range rand.New(rand.NewPCG(1, 1)).Perm(benchIDs) {
		ids[i] = int64(v)
	}
	tp := upload(b, gpu0, table, 0)
	ip := upload(b, gpu0, encodeIDs(gguf.TypeI32, ids), 0)
	op := newDevBuf(b, gpu0, benchIDs*benchHidden*2).base
	for _, c := range gather.Admitted() {
		b.Run(c.String(), func(b *testing.B) {
			ms, err := lib.benchGather(gatherCall{
				dev: 0, tableType: int(c), table: uint64(tp), vocab: benchIDs, hidden: benchHidden,
				ids: uint64(ip), idBytes: 4, nIDs: benchIDs, out: uint64(op), outBF16: true,
			}, b.N)
			if err != nil {
				b.Fatal(err)
			}
			per := ms / float64(b.N)
			n := effectiveBytes(c)
			b.ReportMetric(float64(n)/(per/1e3)/1e9, "GB/s")
			b.ReportMetric(per, "ms/gather")
			r := benchResults[c]
			if r == nil {
				r = &benchResult{}
				benchResults[c] = r
			}
			r.bytes, r.gatherMS = n, per
		})
	}
}

// BenchmarkGPUCopy times, per codec, a device-to-device copy that moves the
// gather's effective bytes (half of them read, half written), with device
// events, and prints the comparison table.
func BenchmarkGPUCopy(b *testing.B) {
	lib := needRealGPU(b)
	maxBytes := int64(0)
	for _, c := range gather.Admitted() {
		maxBytes = max(maxBytes, effectiveBytes(c)/2)
	}
	src := newDevBuf(b, gpu0, int(maxBytes)).base
	dst := newDevBuf(b, gpu0, int(maxBytes)).base
	for _, c := range gather.Admitted() {
		b.Run(c.String(), func(b *testing.B) {
			n := effectiveBytes(c)
			ms, err := lib.benchCopy(0, uint64(dst), uint64(src), n/2, b.N)
			if err != nil {
				b.Fatal(err)
			}
			per := ms / float64(b.N)
			b.ReportMetric(float64(n)/(per/1e3)/1e9, "GB/s")
			b.ReportMetric(per, "ms/copy")
			r := benchResults[c]
			if r == nil {
				r = &benchResult{}
				benchResults[c] = r
			}
			r.bytes, r.cpMS = n, per
		})
	}
	printBenchTable()
}

// printBenchTable writes the Markdown table EVIDENCE.md quotes.
func printBenchTable() {
	info, _ := Available()
	fmt.Printf("\nhipkern gather %d x %d, bf16 out, on %s (%s)\n\n", benchIDs, benchHidden, info.Name, info.Arch)
	fmt.Println("| codec | effective MB | gather ms | gather GB/s | copy ms | copy GB/s | gather / copy |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, c := range gather.Admitted() {
		r := benchResults[c]
		if r == nil || r.gatherMS == 0 || r.cpMS == 0 {
			continue
		}
		g := float64(r.bytes) / (r.gatherMS / 1e3) / 1e9
		cp := float64(r.bytes) / (r.cpMS / 1e3) / 1e9
		fmt.Printf("| %s | %.1f | %.3f | %.0f | %.3f | %.0f | %.2f |\n", c, float64(r.bytes)/1e6, r.gatherMS, g, r.cpMS, cp, g/cp)
	}
	fmt.Println()
}
