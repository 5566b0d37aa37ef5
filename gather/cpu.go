package gather

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gathermut/gguf"
)

// The CPU providers register themselves in the default registry. Each
// registration is one statement, so that removing one (as the mutation
// catalog does) removes exactly that tier.
func init() {
	mustRegister(OpEmbeddingFloat, CPU, cpuFloat{})
	mustRegister(OpEmbeddingQuant, CPU, cpuQuant{})
}

// cpuQuant gathers rows of packed tables: each selected row's blocks are
// decoded straight from table.Data into out, one row of scratch per worker.
type cpuQuant struct{}

func (cpuQuant) Name() string { return "cpu-quant" }

// Supports is true for the admitted rows of the codec table.
func (cpuQuant) Supports(t gguf.Type) bool { return isAdmitted(t) }

func (p cpuQuant) Embedding(out, table, ids *Tensor) error {
	return cpuEmbedding(p, (*rowJob).quantRows, out, table, ids)
}

// cpuFloat gathers rows of F32, F16 and BF16 tables, widening exactly to f32
// or rounding with F32ToBF16 to bf16. A BF16 table gathered to bf16 out is a
// copy of the words, so NaN payloads (signalling ones too) are kept as
// stored rather than quieted.
type cpuFloat struct{}

func (cpuFloat) Name() string { return "cpu-float" }

func (cpuFloat) Supports(t gguf.Type) bool { return t.IsFloat() }

func (p cpuFloat) Embedding(out, table, ids *Tensor) error {
	return cpuEmbedding(p, (*rowJob).floatRows, out, table, ids)
}

// rowJob is one validated CPU gather: every id has been checked and every
// slice is long enough for the rows it is indexed with, so decoding a row
// cannot fail.
type rowJob struct {
	typ      gguf.Type
	codec    *Codec    // typ's codec row; nil for a float table
	rows     int       // len(ids): the output rows
	hidden   int       // elements per row
	rowBytes int       // bytes per table row: the byte row stride
	outType  gguf.Type // F32 or BF16
	table    []byte
	ids      idView
	out      []byte
}

// bf16 reports whether out is BF16 (else F32).
func (j *rowJob) bf16() bool { return j.outType == gguf.TypeBF16 }

// outRowBytes is the byte size of one output row.
func (j *rowJob) outRowBytes() int {
	if j.bf16() {
		return 2 * j.hidden
	}
	return 4 * j.hidden
}

// idView reads ids by byte assembly: the ids tensor may be unaligned.
type idView struct {
	data []byte
	wide bool // I64, else I32
}

// at returns id i as int64: an I32 id is sign-extended, an I64 id is never
// truncated.
func (v idView) at(i int64) int64 {
	if v.wide {
		return int64(binary.LittleEndian.Uint64(v.data[8*i:]))
	}
	return int64(int32(binary.LittleEndian.Uint32(v.data[4*i:])))
}

// cpuEmbedding runs a CPU gather: prepareRows, then rows over the output
// rows, split across goroutines for a large request (see rowJob.ranges).
func cpuEmbedding(p Provider, rows func(*rowJob, int, int), out, table, ids *Tensor) error {
	j, err := prepareRows(p, out, table, ids)
	if j == nil {
		return err
	}
	runRanges(j.ranges(runtime.GOMAXPROCS(0)), func(lo, hi int) { rows(j, lo, hi) })
	return nil
}

// prepareRows runs the provider-side steps common to both CPU providers:
// Embedding's validation (a provider may be called directly), declining
// what p cannot serve, then, in the order of docs/row.md, the empty
// request, vocab 0, the byte sizes (int64 overflow and Data lengths), and
// every id, all before anything is written, so that after a refused call
// out is untouched. It returns the job, or a nil job with the call's result: nil
// for an empty request (nothing allocated), else the refusal.
func prepareRows(p Provider, out, table, ids *Tensor) (*rowJob, error) {
	if err := CheckArgs(out, table, ids); err != nil {
		return nil, err
	}
	if table.Device.Kind != CPU {
		return nil, fmt.Errorf("gather: %s: tensors on device %v: %w", p.Name(), table.Device, ErrDeclined)
	}
	if !p.Supports(table.Type) {
		return nil, fmt.Errorf("gather: %s: %v tables: %w", p.Name(), table.Type, ErrDeclined)
	}
	if empty, err := CheckRequest(out, table, ids); empty || err != nil {
		return nil, err
	}
	if err := hostData(out, table, ids); err != nil {
		return nil, err
	}
	n, hidden := ids.Shape[0], table.Shape[1]
	// CheckArgs (6) found the traits, and CheckRequest and hostData bounded
	// vocab*rowBytes, so the row size is whole blocks and fits an int.
	tr, _ := gguf.FindGgmlTraits(table.Type)
	j := &rowJob{
		typ: table.Type, codec: codecs[table.Type],
		rows: int(n), hidden: int(hidden), rowBytes: int(hidden) / tr.BlockElems * tr.BlockBytes, outType: out.Type,
		table: table.Data, ids: idView{data: ids.Data, wide: ids.Type == gguf.TypeI64}, out: out.Data,
	}
	if err := checkIDs(n, table.Shape[0], j.ids.at); err != nil {
		return nil, err
	}
	return j, nil
}

// ranges splits the job's output rows for procs processors: one range for
// a small request, else min(procs, rows) even ones (see workersFor).
func (j *rowJob) ranges(procs int) []rowRange {
	return splitRows(j.rows, workersFor(j.rows, j.rows*j.outRowBytes(), procs))
}

// quantRows decodes output rows [lo, hi). Row id's packed bytes are
// table[id*rowBytes:][:rowBytes]; they are decoded into one row of scratch
// and written little-endian into out.
func (j *rowJob) quantRows(lo, hi int) {
	var f []float32
	var h []uint16
	if j.bf16() {
		h = make([]uint16, j.hidden)
	} else {
		f = make([]float32, j.hidden)
	}
	ob := j.outRowBytes()
	for i := lo; i < hi; i++ {
		off := int(j.ids.at(int64(i))) * j.rowBytes
		src := j.table[off : off+j.rowBytes]
		dst := j.out[i*ob : (i+1)*ob]
		if j.bf16() {
			j.codec.decodeRunBF16(src, h)
			for e, w := range h {
				binary.LittleEndian.PutUint16(dst[2*e:], w)
			}
		} else {
			j.codec.decodeRun(src, f)
			for e, v := range f {
				binary.LittleEndian.PutUint32(dst[4*e:], math.Float32bits(v))
			}
		}
	}
}

// floatRows converts output rows [lo, hi) from a float table. Same-type
// rows (F32 to F32, BF16 to BF16) are copied; others are widened exactly to
// f32 and, for bf16 out, rounded with F32ToBF16.
func (j *rowJob) floatRows(lo, hi int) {
	ob := j.outRowBytes()
	same := j.typ == j.outType
	for i := lo; i < hi; i++ {
		off := int(j.ids.at(int64(i))) * j.rowBytes
		src := j.table[off : off+j.rowBytes]
		dst := j.out[i*ob : (i+1)*ob]
		if same {
			copy(dst, src)
			continue
		}
		for e := range j.hidden {
			v := floatAt(j.typ, src, e)
			if j.bf16() {
				binary.LittleEndian.PutUint16(dst[2*e:], F32ToBF16(v))
			} else {
				binary.LittleEndian.PutUint32(dst[4*e:], math.Float32bits(v))
			}
		}
	}
}

// floatAt widens element e of a row of float type t to float32 exactly.
func floatAt(t gguf.Type, row []byte, e int) float32 {
	switch t {
	case gguf.TypeF16:
		return f16le(row, 2*e)
	case gguf.TypeBF16:
		return BF16ToF32(binary.LittleEndian.Uint16(row[2*e:]))
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(row[4*e:]))
}

// Parallel decoding pays for its goroutines only on large requests: at
// least parallelMinRows rows and parallelMinBytes bytes of output. Smaller
// requests run serially on the caller's goroutine.
const (
	parallelMinRows  = 64
	parallelMinBytes = 1 << 20
)

// workersFor returns how many goroutines decode a request of rows rows and
// outBytes bytes of output with procs processors: 1 for a small request,
// else min(procs, rows).
func workersFor(rows, outBytes, procs int) int {
	if rows < parallelMinRows || outBytes < parallelMinBytes {
		return 1
	}
	return min(procs, rows)
}

// rowRange is the half-open range of output rows [lo, hi).
type rowRange struct{ lo, hi int }

// splitRows splits rows rows into min(parts, rows) contiguous ranges, in
// order, whose sizes differ by at most one (the larger ones first). It
// returns nil for no rows and one range for parts < 1.
func splitRows(rows, parts int) []rowRange {
	if rows <= 0 {
		return nil
	}
	parts = max(1, min(parts, rows))
	base, extra := rows/parts, rows%parts
	rs := make([]rowRange, parts)
	lo := 0
	for k := range rs {
		size := base
		if k < extra {
			size++
		}
		rs[k] = rowRange{lo, lo + size}
		lo += size
	}
	return rs
}

// runRanges runs do over every range and returns when all are done: on the
// caller's goroutine for a single range (no goroutine, no allocation), else
// one goroutine per range.
func runRanges(rs []rowRange, do func(lo, hi int)) {
	if len(rs) == 1 {
		do(rs[0].lo, rs[0].hi)
		return
	}
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Go(func() { do(r.lo, r.hi) })
	}
	wg.Wait()
}
