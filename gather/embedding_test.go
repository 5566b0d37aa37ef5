package gather

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gathermut/gguf"
)

// matrixTypes are the table types of the big matrix: the 19 admitted codecs
// and the three float types.
func matrixTypes() []gguf.Type {
	return append(Admitted(), gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16)
}

// matrixWidths are 1, 3 and 5 blocks and 256 and 1024 elements, without
// repeats (1 block of a 256-element codec is 256).
func matrixWidths(blockElems int) []int {
	var ws []int
	for _, w := range []int{blockElems, 3 * blockElems, 5 * blockElems, 256, 1024} {
		if w%blockElems == 0 && !containsInt(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

type idPattern struct {
	name string
	ids  []int64
}

// idPatterns are the selections of the matrix for a table of vocab rows.
func idPatterns(vocab int64) []idPattern {
	var rev []int64
	for id := vocab - 1; id >= 0; id-- {
		rev = append(rev, id)
	}
	return []idPattern{
		{"first", []int64{0}},
		{"middle", []int64{vocab / 2}},
		{"last", []int64{vocab - 1}},
		{"repeated", []int64{3, 3, vocab - 2, 3, 3}},
		{"reversed", rev},
	}
}

// guardByte fills the bytes around and in out before a call.
const guardByte = 0xa5

// TestEmbeddingMatrix gathers every table type x ids type x out type x
// width x selection x byte offset (0-3, applied to the table, ids and out
// buffers alike) through Embedding and compares out's bytes with the scalar
// reference; the bytes before out and the guard after its rows (inside
// out.Data, which may be longer than the tensor) must stay untouched.
func TestEmbeddingMatrix(t *testing.T) {
	const vocab = 16
	rng := rand.New(rand.NewPCG(0x524f434d, 1))
	for _, typ := range matrixTypes() {
		t.Run(typ.String(), func(t *testing.T) {
			tr := traitsOf(t, typ)
			tables := map[int][]byte{}
			for _, w := range matrixWidths(tr.BlockElems) {
				tables[w] = randomTable(t, rng, typ, vocab, w)
			}
			for _, idt := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
				t.Run(idt.String(), func(t *testing.T) {
					for _, bf16 := range []bool{false, true} {
						t.Run(outType(bf16).String(), func(t *testing.T) {
							for _, w := range matrixWidths(tr.BlockElems) {
								t.Run(fmt.Sprintf("w%d", w), func(t *testing.T) {
									for _, pat := range idPatterns(vocab) {
										want := refGather(t, typ, tables[w], w, pat.ids, bf16)
										t.Run(pat.name, func(t *testing.T) {
											for off := range 4 {
												t.Run(fmt.Sprintf("off%d", off), func(t *testing.T) {
													gatherAndCompare(t, typ, tables[w], vocab, w, idt, pat.ids, bf16, off, want)
												})
											}
										})
									}
								})
							}
						})
					}
				})
			}
		})
	}
}

// gatherAndCompare runs one Embedding with every buffer at byte offset off
// and checks out against want and the guard bytes.
func gatherAndCompare(t *testing.T, typ gguf.Type, table []byte, vocab, hidden int, idt gguf.Type, ids []int64, bf16 bool, off int, want []byte) {
	t.Helper()
	const guard = 8
	tdata, _ := atOffset(table, off)
	idata, _ := atOffset(idBytes(ids, idt), off)
	buf := bytes.Repeat([]byte{guardByte}, off+len(want)+guard)
	out := hostTensor(outType(bf16), buf[off:], int64(len(ids)), int64(hidden))
	err := Embedding(out, hostTensor(typ, tdata, int64(vocab), int64(hidden)), hostTensor(idt, idata, int64(len(ids))))
	if err != nil {
		t.Fatalf("Embedding: %v", err)
	}
	if got := buf[off : off+len(want)]; !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Fatalf("out differs from the reference first at byte %d (row %d): got %#x, want %#x",
			i, i/(len(want)/len(ids)), got[i], want[i])
	}
	for i, b := range buf {
		if (i < off || i >= off+len(want)) && b != guardByte {
			t.Fatalf("byte %d outside out's rows was written: %#x", i-off, b)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// valid returns a valid Embedding call on the host: a random Q8_0 table
// [4, 64], ids [2, 0, 3] as I32, out F32.
func valid(t testing.TB) (out, table, ids *Tensor) {
	rng := rand.New(rand.NewPCG(7, 7))
	tb := randomTable(t, rng, gguf.TypeQ8_0, 4, 64)
	table = hostTensor(gguf.TypeQ8_0, tb, 4, 64)
	ids = hostTensor(gguf.TypeI32, idBytes([]int64{2, 0, 3}, gguf.TypeI32), 3)
	out = hostTensor(gguf.TypeF32, make([]byte, 3*64*4), 3, 64)
	return out, table, ids
}

// change edits a valid call.
type change func(out, table, ids *Tensor) (o, tb, i *Tensor)

func setTable(f func(*Tensor)) change {
	return func(o, tb, i *Tensor) (*Tensor, *Tensor, *Tensor) { f(tb); return o, tb, i }
}
func setIDs(f func(*Tensor)) change {
	return func(o, tb, i *Tensor) (*Tensor, *Tensor, *Tensor) { f(i); return o, tb, i }
}
func setOut(f func(*Tensor)) change {
	return func(o, tb, i *Tensor) (*Tensor, *Tensor, *Tensor) { f(o); return o, tb, i }
}

var (
	nilOut   change = func(o, tb, i *Tensor) (*Tensor, *Tensor, *Tensor) { return nil, tb, i }
	nilTable change = func(o, tb, i *Tensor) (*Tensor, *Tensor, *Tensor) { return o, nil, i }
	nilIDs   change = func(o, tb, i *Tensor) (*Tensor, *Tensor, *Tensor) { return o, tb, nil }
)

func shape(s ...int64) func(*Tensor)   { return func(t *Tensor) { t.Shape = s } }
func typ(g gguf.Type) func(*Tensor)    { return func(t *Tensor) { t.Type = g } }
func strides(s ...int64) func(*Tensor) { return func(t *Tensor) { t.Strides = s } }
func device(d Device) func(*Tensor)    { return func(t *Tensor) { t.Device = d } }
func data(n int) func(*Tensor)         { return func(t *Tensor) { t.Data = t.Data[:n] } }

const pre = "gather: Embedding: "

// refusal is a valid call broken by changes, and the error it must get.
type refusal struct {
	name    string
	changes []change
	want    string
}

// validationCases are the refusals of Embedding's own checks (steps 1-8),
// one per rule; a case with two changes breaks an earlier and a later rule
// and must report the earlier.
var validationCases = []refusal{
	{"nil table", []change{nilTable}, pre + "table is nil"},
	{"nil ids", []change{nilIDs}, pre + "ids is nil"},
	{"nil out", []change{nilOut}, pre + "out is nil"},
	{"nil out before rank", []change{nilOut, setTable(shape(4))}, pre + "out is nil"},
	{"table rank 1", []change{setTable(shape(256))}, pre + "table must be 2-D [vocab, hidden], has rank 1"},
	{"table rank 3", []change{setTable(shape(1, 4, 64))}, pre + "table must be 2-D [vocab, hidden], has rank 3"},
	{"ids rank 0", []change{setIDs(shape())}, pre + "ids must be 1-D, has rank 0"},
	{"ids rank 2", []change{setIDs(shape(3, 1))}, pre + "ids must be 1-D, has rank 2"},
	{"out rank 1", []change{setOut(shape(192))}, pre + "out must be 2-D [len(ids), hidden], has rank 1"},
	{"out rank 3", []change{setOut(shape(3, 64, 1))}, pre + "out must be 2-D [len(ids), hidden], has rank 3"},
	{"table negative vocab", []change{setTable(shape(-4, 64))}, pre + "table shape [-4 64] has a negative dimension"},
	{"table negative width", []change{setTable(shape(4, -64)), setOut(shape(3, -64))}, pre + "table shape [4 -64] has a negative dimension"},
	{"ids negative", []change{setIDs(shape(-3)), setOut(shape(-3, 64))}, pre + "ids shape [-3] has a negative dimension"},
	{"out negative", []change{setOut(shape(3, -1))}, pre + "out shape [3 -1] has a negative dimension"},
	{"rank before negative", []change{setTable(shape(-4, 64)), setOut(shape(192))}, pre + "out must be 2-D [len(ids), hidden], has rank 1"},
	{"out rows", []change{setOut(shape(2, 64))}, pre + "out shape [2 64] is not [len(ids), hidden] = [3 64]"},
	{"out width", []change{setOut(shape(3, 32))}, pre + "out shape [3 32] is not [len(ids), hidden] = [3 64]"},
	{"negative before shape", []change{setOut(shape(3, 32)), setIDs(shape(-3))}, pre + "ids shape [-3] has a negative dimension"},
	{"ids F32", []change{setIDs(typ(gguf.TypeF32))}, pre + "ids type F32 is not I32 or I64"},
	{"ids I16", []change{setIDs(typ(gguf.TypeI16))}, pre + "ids type I16 is not I32 or I64"},
	{"shape before ids type", []change{setIDs(typ(gguf.TypeF32)), setOut(shape(2, 64))}, pre + "out shape [2 64] is not [len(ids), hidden] = [3 64]"},
	{"table Q4_1", []change{setTable(typ(gguf.TypeQ4_1))}, pre + "table type Q4_1 is not admitted"},
	{"table F64", []change{setTable(typ(gguf.TypeF64))}, pre + "table type F64 is not admitted"},
	{"table I32", []change{setTable(typ(gguf.TypeI32))}, pre + "table type I32 is not admitted"},
	{"table unknown", []change{setTable(typ(gguf.Type(99)))}, pre + "table type type(99) is not admitted"},
	{"ids type before table type", []change{setTable(typ(gguf.TypeQ4_1)), setIDs(typ(gguf.TypeF32))}, pre + "ids type F32 is not I32 or I64"},
	{"out F16", []change{setOut(typ(gguf.TypeF16))}, pre + "out type F16 is not F32 or BF16"},
	{"out Q8_0", []change{setOut(typ(gguf.TypeQ8_0))}, pre + "out type Q8_0 is not F32 or BF16"},
	{"table type before out type", []change{setOut(typ(gguf.TypeF16)), setTable(typ(gguf.TypeQ4_1))}, pre + "table type Q4_1 is not admitted"},
	{"width not whole Q8_0 blocks", []change{setTable(shape(4, 48)), setOut(shape(3, 48))}, pre + "table width 48 is not whole Q8_0 blocks of 32"},
	{"width one past whole blocks", []change{setTable(shape(4, 33)), setOut(shape(3, 33))}, pre + "table width 33 is not whole Q8_0 blocks of 32"},
	{"width not whole Q4_K blocks", []change{setTable(typ(gguf.TypeQ4_K))}, pre + "table width 64 is not whole Q4_K blocks of 256"},
	{"out type before blocks", []change{setTable(typ(gguf.TypeQ4_K)), setOut(typ(gguf.TypeF16))}, pre + "out type F16 is not F32 or BF16"},
	{"table strided", []change{setTable(strides(128, 1))}, pre + "table is not contiguous (shape [4 64], strides [128 1])"},
	{"table column-major", []change{setTable(strides(1, 4))}, pre + "table is not contiguous (shape [4 64], strides [1 4])"},
	{"table strides length", []change{setTable(strides(1))}, pre + "table is not contiguous (shape [4 64], strides [1])"},
	{"ids strided", []change{setIDs(strides(2))}, pre + "ids is not contiguous (shape [3], strides [2])"},
	{"out strided", []change{setOut(strides(64, 2))}, pre + "out is not contiguous (shape [3 64], strides [64 2])"},
	{"blocks before contiguity", []change{setTable(shape(4, 48)), setOut(shape(3, 48)), setIDs(strides(2))}, pre + "table width 48 is not whole Q8_0 blocks of 32"},
	{"out on gpu", []change{setOut(device(Device{Kind: GPU}))}, pre + "tensors on different devices: table cpu:0, ids cpu:0, out gpu:0"},
	{"ids on another gpu", []change{setTable(device(Device{GPU, 0})), setIDs(device(Device{GPU, 1})), setOut(device(Device{GPU, 0}))},
		pre + "tensors on different devices: table gpu:0, ids gpu:1, out gpu:0"},
	{"table on cpu 1", []change{setTable(device(Device{CPU, 1}))}, pre + "tensors on different devices: table cpu:1, ids cpu:0, out cpu:0"},
	{"ids without device", []change{setIDs(device(Device{}))}, pre + "ids has no device (empty Device.Kind)"},
	{"all without device", []change{setTable(device(Device{})), setIDs(device(Device{})), setOut(device(Device{}))}, pre + "table has no device (empty Device.Kind)"},
	{"contiguity before device", []change{setOut(device(Device{Kind: GPU})), setOut(strides(64, 2))}, pre + "out is not contiguous (shape [3 64], strides [64 2])"},
	{"device before data", []change{setOut(data(0)), setIDs(device(Device{Kind: GPU}))}, pre + "tensors on different devices: table cpu:0, ids gpu:0, out cpu:0"},
}

// providerCases are the refusals of the provider's checks after Embedding's,
// in ROW.md's order: vocab 0, then int64 overflow of out, table and ids,
// then whether Data holds out, table and ids. (An empty request returns nil
// before all of them: see TestEmbeddingEmptyRequests and
// TestCPUProviderChecks.)
var providerCases = []refusal{
	{"vocab 0 before data", []change{setTable(shape(0, 64)), setOut(data(0)), setIDs(data(0))}, pre + "table has no rows (vocab 0), 3 ids requested"},
	{"vocab 0 before out bytes overflow", []change{setTable(shape(0, 1<<62)), setTable(typ(gguf.TypeF32)), setIDs(shape(2)), setOut(shape(2, 1<<62))},
		pre + "table has no rows (vocab 0), 2 ids requested"},
	{"out bytes overflow", []change{setTable(shape(1, 1<<61)), setTable(typ(gguf.TypeBF16)), setIDs(shape(2)), setOut(shape(2, 1<<61))},
		pre + "out: gather: F32 tensor [2 2305843009213693952]: byte size overflows int64"},
	{"table bytes overflow", []change{setTable(shape(1<<58, 64))}, pre + "table: gather: Q8_0 tensor [288230376151711744 64]: byte size overflows int64"},
	{"table bytes overflow before out data", []change{setTable(shape(1<<58, 64)), setOut(data(0))},
		pre + "table: gather: Q8_0 tensor [288230376151711744 64]: byte size overflows int64"},
	{"ids bytes overflow", []change{setTable(shape(4, 1)), setTable(typ(gguf.TypeF32)), setIDs(shape(1 << 61)), setOut(shape(1<<61, 1)), setOut(typ(gguf.TypeBF16))},
		pre + "ids: gather: I32 tensor [2305843009213693952]: byte size overflows int64"},
	{"out data short", []change{setOut(data(0))}, pre + "out data holds 0 bytes, its shape [3 64] of F32 needs 768"},
	{"table data short", []change{setTable(data(4*2*34 - 1))}, pre + "table data holds 271 bytes, its shape [4 64] of Q8_0 needs 272"},
	{"ids data short", []change{setIDs(data(11))}, pre + "ids data holds 11 bytes, its shape [3] of I32 needs 12"},
	{"out data before table data", []change{setOut(data(0)), setTable(data(0))}, pre + "out data holds 0 bytes, its shape [3 64] of F32 needs 768"},
	{"table data before ids data", []change{setIDs(data(0)), setTable(data(0))}, pre + "table data holds 0 bytes, its shape [4 64] of Q8_0 needs 272"},
}

// allRefusals are validationCases, then providerCases.
func allRefusals() []refusal {
	return append(append([]refusal(nil), validationCases...), providerCases...)
}

// TestEmbeddingValidation checks every refusal and its message, that out's
// bytes (filled with guardByte) are untouched, and that the next valid call
// succeeds.
func TestEmbeddingValidation(t *testing.T) {
	for _, c := range allRefusals() {
		t.Run(c.name, func(t *testing.T) {
			o, tb, i := valid(t)
			buf := o.Data // the whole of out's bytes, even where a change shortens Data
			for k := range buf {
				buf[k] = guardByte
			}
			for _, ch := range c.changes {
				o, tb, i = ch(o, tb, i)
			}
			err := Embedding(o, tb, i)
			if err == nil || err.Error() != c.want {
				t.Fatalf("Embedding error:\n got %v\nwant %s", err, c.want)
			}
			if errors.Is(err, ErrDeclined) {
				t.Fatalf("a refusal must not read as a decline: %v", err)
			}
			for k, b := range buf {
				if b != guardByte {
					t.Fatalf("the refused call wrote out's byte %d: %#x", k, b)
				}
			}
			if err := Embedding(valid(t)); err != nil {
				t.Fatalf("valid call after the refusal: %v", err)
			}
		})
	}
}

// badIDCases are out-of-range ids at position 3 of a 5-id request on a
// 128-row table.
var badIDCases = []struct {
	id  int64
	i32 bool // representable as int32
}{
	{-1, true},
	{128, true},
	{129, true},
	{math.MaxInt32, true},
	{math.MinInt32, true},
	{1<<32 + 1, false},
	{1 << 32, false},
	{1<<32 + 127, false},
	{-1 << 32, false},
	{math.MinInt64, false},
	{math.MaxInt64, false},
}

// TestEmbeddingBadIDs refuses each bad id with its position and full value,
// in both id types where it is representable, through every table tier and
// out type; out stays untouched; the next valid call succeeds.
func TestEmbeddingBadIDs(t *testing.T) {
	const vocab, hidden = 128, 32
	rng := rand.New(rand.NewPCG(3, 3))
	for _, tt := range []gguf.Type{gguf.TypeQ8_0, gguf.TypeIQ1_XXXS, gguf.TypeF16} {
		w := int64(max(hidden, traitsOf(t, tt).BlockElems))
		table := hostTensor(tt, randomTable(t, rng, tt, vocab, int(w)), vocab, w)
		for _, c := range badIDCases {
			for _, idt := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
				if idt == gguf.TypeI32 && !c.i32 {
					continue
				}
				for _, bf16 := range []bool{false, true} {
					name := fmt.Sprintf("%v/%v/%v/%d", tt, idt, outType(bf16), c.id)
					t.Run(name, func(t *testing.T) {
						ids := []int64{0, 127, 5, c.id, 1}
						od := bytes.Repeat([]byte{guardByte}, outSize(5, int(w), bf16))
						out := hostTensor(outType(bf16), od, 5, w)
						err := Embedding(out, table, hostTensor(idt, idBytes(ids, idt), 5))
						want := fmt.Sprintf("gather: ids[3] = %d out of range [0, 128)", c.id)
						if err == nil || err.Error() != want {
							t.Fatalf("got %v, want %s", err, want)
						}
						var re *IDRangeError
						if !errors.As(err, &re) || *re != (IDRangeError{Pos: 3, Value: c.id, Vocab: vocab}) {
							t.Fatalf("error %#v is not IDRangeError{3, %d, 128}", err, c.id)
						}
						if bytes.Count(od, []byte{guardByte}) != len(od) {
							t.Fatal("a refused call wrote to out")
						}
						good := []int64{0, 127, 5, 64, 1}
						if err := Embedding(out, table, hostTensor(idt, idBytes(good, idt), 5)); err != nil {
							t.Fatalf("valid call after the refusal: %v", err)
						}
						if want := refGather(t, tt, table.Data, int(w), good, bf16); !bytes.Equal(od, want) {
							t.Fatal("valid call after the refusal: wrong output")
						}
					})
				}
			}
		}
	}
}

// TestEmbeddingFirstBadID reports the first of several bad ids.
func TestEmbeddingFirstBadID(t *testing.T) {
	o, tb, _ := valid(t)
	for _, c := range []struct {
		ids  []int64
		want string
	}{
		{[]int64{4, -1, 9}, "gather: ids[0] = 4 out of range [0, 4)"},
		{[]int64{3, -1, 9}, "gather: ids[1] = -1 out of range [0, 4)"},
		{[]int64{0, 1, 1 << 40}, "gather: ids[2] = 1099511627776 out of range [0, 4)"},
	} {
		err := Embedding(o, tb, hostTensor(gguf.TypeI64, idBytes(c.ids, gguf.TypeI64), 3))
		if err == nil || err.Error() != c.want {
			t.Errorf("ids %v: got %v, want %s", c.ids, err, c.want)
		}
	}
}

// TestCheckIDs covers the exported id check and message.
func TestCheckIDs(t *testing.T) {
	if got, want := IDError(3, 1<<32+1, 128).Error(), "gather: ids[3] = 4294967297 out of range [0, 128)"; got != want {
		t.Fatalf("IDError: got %q, want %q", got, want)
	}
	for _, c := range []struct {
		ids   []int64
		vocab int64
		want  string
	}{
		{nil, 0, ""},
		{nil, 5, ""},
		{[]int64{0, 4, 2}, 5, ""},
		{[]int64{0}, 1, ""},
		{[]int64{0}, 0, "gather: ids[0] = 0 out of range [0, 0)"},
		{[]int64{0, 5}, 5, "gather: ids[1] = 5 out of range [0, 5)"},
		{[]int64{0, 1, 2, -1}, 5, "gather: ids[3] = -1 out of range [0, 5)"},
		{[]int64{1, 2, 3, math.MinInt64}, 128, "gather: ids[3] = -9223372036854775808 out of range [0, 128)"},
		{[]int64{math.MaxInt64, -1}, 128, "gather: ids[0] = 9223372036854775807 out of range [0, 128)"},
		{[]int64{1<<32 + 1}, 1 << 33, ""},
	} {
		err := CheckIDs(c.ids, c.vocab)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckIDs(%v, %d) = %q, want %q", c.ids, c.vocab, got, c.want)
		}
	}
}

// TestEmbeddingEmptyRequests: zero ids or zero width return nil before the
// vocab and id checks, and touch nothing; a non-empty request on vocab 0 is
// refused.
func TestEmbeddingEmptyRequests(t *testing.T) {
	for _, tt := range []gguf.Type{gguf.TypeQ4_K, gguf.TypeBF16} {
		t.Run(tt.String(), func(t *testing.T) {
			w := int64(traitsOf(t, tt).BlockElems)
			cases := []struct {
				name         string
				vocab, width int64
				ids          []int64
				want         string
			}{
				{"no ids, vocab 0", 0, w, nil, ""},
				{"no ids, vocab 3", 3, w, nil, ""},
				{"zero width, vocab 0", 0, 0, []int64{0, 1}, ""},
				{"zero width, bad ids", 2, 0, []int64{5, -1}, ""},
				{"vocab 0", 0, w, []int64{0}, pre + "table has no rows (vocab 0), 1 ids requested"},
				{"vocab 0, bad id", 0, w, []int64{-1, 7}, pre + "table has no rows (vocab 0), 2 ids requested"},
			}
			for _, c := range cases {
				rb, _ := gguf.RowSizeBytes(tt, c.width)
				table := hostTensor(tt, make([]byte, c.vocab*rb), c.vocab, c.width)
				n := int64(len(c.ids))
				for _, bf16 := range []bool{false, true} {
					od := bytes.Repeat([]byte{guardByte}, outSize(int(n), int(c.width), bf16)+2)
					out := hostTensor(outType(bf16), od, n, c.width)
					err := Embedding(out, table, hostTensor(gguf.TypeI64, idBytes(c.ids, gguf.TypeI64), n))
					got := ""
					if err != nil {
						got = err.Error()
					}
					if got != c.want {
						t.Errorf("%s, %v out: got %q, want %q", c.name, outType(bf16), got, c.want)
					}
					if bytes.Count(od, []byte{guardByte}) != len(od) {
						t.Errorf("%s: wrote %x", c.name, od)
					}
				}
			}
		})
	}
}

// TestEmbeddingEmptyAllocatesNothing: an empty request allocates nothing,
// neither through Embedding nor in the provider.
func TestEmbeddingEmptyAllocatesNothing(t *testing.T) {
	for _, tt := range []gguf.Type{gguf.TypeQ8_0, gguf.TypeF32} {
		table := hostTensor(tt, nil, 0, 32)
		out := hostTensor(gguf.TypeBF16, nil, 0, 32)
		ids := hostTensor(gguf.TypeI32, nil, 0)
		p := Providers(opFor(tt), CPU)[0]
		for name, call := range map[string]func() error{
			"Embedding": func() error { return Embedding(out, table, ids) },
			"provider":  func() error { return p.Embedding(out, table, ids) },
		} {
			var err error
			if n := testing.AllocsPerRun(20, func() { err = call() }); n != 0 || err != nil {
				t.Errorf("%v %s: %v allocations, error %v", tt, name, n, err)
			}
		}
	}
}

// bf16Cases are f32 patterns and the bf16 words round-to-nearest-even gives:
// ties to even both ways and both signs, NaN quieted with its top bits kept,
// infinities and rounding up to infinity.
var bf16Cases = []struct{ f32, bf16 uint32 }{
	{0x3f808000, 0x3f80}, // tie, even below
	{0x3f818000, 0x3f82}, // tie, odd below: up
	{0xbf808000, 0xbf80},
	{0xbf818000, 0xbf82},
	{0x3f808001, 0x3f81}, // above the tie
	{0x3f807fff, 0x3f80},
	{0x7f800001, 0x7fc0}, // signalling NaN: quieted
	{0xff810000, 0xffc1},
	{0x7fc00000, 0x7fc0},
	{0x7fffffff, 0x7fff},
	{0x7f800000, 0x7f80}, // +Inf
	{0xff800000, 0xff80},
	{0x7f7fffff, 0x7f80}, // max finite rounds to Inf
	{0x80000000, 0x8000}, // -0
	{0x00008000, 0x0000}, // subnormal tie
	{0x00018000, 0x0002},
}

// TestEmbeddingBF16Rounding runs the bf16 cases through Embedding on an F32
// table, and ties built from F16 and Q8_0 tables.
func TestEmbeddingBF16Rounding(t *testing.T) {
	n := int64(len(bf16Cases))
	var tb, want []byte
	for _, c := range bf16Cases {
		tb = binary.LittleEndian.AppendUint32(tb, c.f32)
		want = binary.LittleEndian.AppendUint16(want, uint16(c.bf16))
	}
	check := func(name string, tt gguf.Type, tb []byte, width int64, want []byte, wantF32 []byte) {
		t.Helper()
		for _, bf16 := range []bool{true, false} {
			w := want
			if !bf16 {
				w = wantF32
			}
			out := hostTensor(outType(bf16), make([]byte, len(w)), 1, width)
			tdata, _ := atOffset(tb, 1)
			if err := Embedding(out, hostTensor(tt, tdata, 1, width), hostTensor(gguf.TypeI32, idBytes([]int64{0}, gguf.TypeI32), 1)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(out.Data, w) {
				t.Errorf("%s %v out:\n got %x\nwant %x", name, outType(bf16), out.Data, w)
			}
		}
	}
	check("F32 table", gguf.TypeF32, tb, n, want, tb)

	// F16 0x3c04 = 1 + 2^-8 widens to the tie 0x3f808000; 0x3c0c to 0x3f818000.
	var h, hw, hf []byte
	for _, c := range []struct {
		f16  uint16
		f32  uint32
		bf16 uint16
	}{
		{0x3c04, 0x3f808000, 0x3f80}, {0x3c0c, 0x3f818000, 0x3f82},
		{0xbc04, 0xbf808000, 0xbf80}, {0xbc0c, 0xbf818000, 0xbf82},
		{0x7c01, 0x7f802000, 0x7fc0}, {0xfe00, 0xffc00000, 0xffc0},
		{0x0001, 0x33800000, 0x3380}, {0x8000, 0x80000000, 0x8000},
	} {
		h = binary.LittleEndian.AppendUint16(h, c.f16)
		hf = binary.LittleEndian.AppendUint32(hf, c.f32)
		hw = binary.LittleEndian.AppendUint16(hw, c.bf16)
	}
	check("F16 table", gguf.TypeF16, h, 8, hw, hf)

	// Q8_0 with d = 1 + 2^-8 (tie below odd? no: 0x3f808000 is even below) and
	// q = 1, -1; d = 1 + 3·2^-8 gives 0x3f818000. The other 30 quants are 0.
	for _, c := range []struct {
		d          uint16
		q          int8
		f32        uint32
		bf16, zero uint16
	}{
		{0x3c04, 1, 0x3f808000, 0x3f80, 0x0000},
		{0x3c04, -1, 0xbf808000, 0xbf80, 0x0000},
		{0x3c0c, 1, 0x3f818000, 0x3f82, 0x0000},
		{0xbc0c, 1, 0xbf818000, 0xbf82, 0x8000},
	} {
		blk := make([]byte, 34)
		binary.LittleEndian.PutUint16(blk, c.d)
		blk[2+5] = byte(c.q)
		var wb, wf []byte
		for e := range 32 {
			if e == 5 {
				wb = binary.LittleEndian.AppendUint16(wb, c.bf16)
				wf = binary.LittleEndian.AppendUint32(wf, c.f32)
			} else {
				wb = binary.LittleEndian.AppendUint16(wb, c.zero)
				wf = binary.LittleEndian.AppendUint32(wf, uint32(c.zero)<<16)
			}
		}
		check(fmt.Sprintf("Q8_0 d=%#x q=%d", c.d, c.q), gguf.TypeQ8_0, blk, 32, wb, wf)
	}
}

// TestEmbeddingNaN: a NaN scale makes NaN outputs; bf16 keeps them NaN with
// the quiet bit set. NaN sign and payload from arithmetic are the platform's,
// so only NaN-ness and quietness are checked.
func TestEmbeddingNaN(t *testing.T) {
	blk := make([]byte, 34)
	binary.LittleEndian.PutUint16(blk, 0x7e00)
	for e := range 32 {
		blk[2+e] = byte(e - 16)
	}
	table := hostTensor(gguf.TypeQ8_0, blk, 1, 32)
	ids := hostTensor(gguf.TypeI32, make([]byte, 4), 1)
	o32 := hostTensor(gguf.TypeF32, make([]byte, 128), 1, 32)
	o16 := hostTensor(gguf.TypeBF16, make([]byte, 64), 1, 32)
	if err := Embedding(o32, table, ids); err != nil {
		t.Fatal(err)
	}
	if err := Embedding(o16, table, ids); err != nil {
		t.Fatal(err)
	}
	for e := range 32 {
		f := binary.LittleEndian.Uint32(o32.Data[4*e:])
		h := binary.LittleEndian.Uint16(o16.Data[2*e:])
		if f&0x7fffffff <= 0x7f800000 {
			t.Errorf("f32 element %d = %#x, want NaN", e, f)
		}
		if h&0x7fff <= 0x7f80 || h&0x0040 == 0 {
			t.Errorf("bf16 element %d = %#x, want a quiet NaN", e, h)
		}
	}
}

// TestEmbeddingBF16TableCopies: a BF16 table to bf16 out copies the words,
// NaN payloads included (a signalling 0x7f81 stays 0x7f81, where
// F32ToBF16(BF16ToF32(w)) would quiet it to 0x7fc1); to f32 out it widens
// exactly.
func TestEmbeddingBF16TableCopies(t *testing.T) {
	words := []uint16{0x7f81, 0xff81, 0x7fc0, 0x3f80, 0x8001, 0x0000, 0x7f80, 0xc2f7}
	var tb, wf []byte
	for _, w := range words {
		tb = binary.LittleEndian.AppendUint16(tb, w)
		wf = binary.LittleEndian.AppendUint32(wf, uint32(w)<<16)
	}
	if F32ToBF16(BF16ToF32(0x7f81)) != 0x7fc1 {
		t.Fatal("premise: the round trip quiets a signalling NaN")
	}
	tdata, _ := atOffset(tb, 3)
	table := hostTensor(gguf.TypeBF16, tdata, 1, int64(len(words)))
	ids := hostTensor(gguf.TypeI64, make([]byte, 8), 1)
	o16 := hostTensor(gguf.TypeBF16, make([]byte, len(tb)), 1, int64(len(words)))
	o32 := hostTensor(gguf.TypeF32, make([]byte, len(wf)), 1, int64(len(words)))
	if err := Embedding(o16, table, ids); err != nil {
		t.Fatal(err)
	}
	if err := Embedding(o32, table, ids); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(o16.Data, tb) {
		t.Errorf("bf16 out %x, want the table's words %x", o16.Data, tb)
	}
	if !bytes.Equal(o32.Data, wf) {
		t.Errorf("f32 out %x, want %x", o32.Data, wf)
	}
}

// TestEmbeddingOracle gathers rows of every oracle table (upstream ggml
// decodes, independent of this package's decoders), the edge-scale cases
// included, in reverse and repeated order through Embedding, into f32 and
// bf16 out, and compares them with the oracle's rows by the oracle's rule:
// bits exactly, signed zeros included, a NaN only as a NaN. Extra codecs
// decode but Embedding refuses them.
func TestEmbeddingOracle(t *testing.T) {
	seen := map[gguf.Type]bool{}
	for _, c := range readOracleIndex(t) {
		t.Run(c.Dir, func(t *testing.T) {
			d := loadOracleCase(t, c)
			tt := gguf.Type(c.GgmlType)
			var ids []int64
			for r := c.Rows - 1; r >= 0; r-- {
				ids = append(ids, int64(r), int64(c.Rows-1))
			}
			n := int64(len(ids))
			tdata, _ := atOffset(d.packed, 1)
			table := hostTensor(tt, tdata, int64(c.Rows), int64(c.Cols))
			for _, idt := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
				for _, bf16 := range []bool{false, true} {
					out := hostTensor(outType(bf16), make([]byte, outSize(int(n), c.Cols, bf16)), n, int64(c.Cols))
					err := Embedding(out, table, hostTensor(idt, idBytes(ids, idt), n))
					if c.Extra {
						want := fmt.Sprintf(pre+"table type %v is not admitted", tt)
						if err == nil || err.Error() != want {
							t.Fatalf("extra codec: got %v, want %s", err, want)
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					var want []byte
					for _, id := range ids {
						for e := range c.Cols {
							k := int(id)*c.Cols + e
							if bf16 {
								want = binary.LittleEndian.AppendUint16(want, d.bf16[k])
							} else {
								want = binary.LittleEndian.AppendUint32(want, d.f32[k])
							}
						}
					}
					if e := oracleMismatch(out.Data, want, bf16); e >= 0 {
						t.Fatalf("%v %v out differs from the oracle at element %d", idt, outType(bf16), e)
					}
				}
			}
			if !c.Extra {
				seen[tt] = true
			}
		})
	}
	for _, a := range Admitted() {
		if !seen[a] {
			t.Errorf("no oracle table gathered for %v", a)
		}
	}
}

// oracleMismatch returns the first element where got differs from want
// (little-endian f32 words, or bf16 words when bf16), or -1: bits must be
// equal unless both are NaN, whose sign and payload are the platform's.
func oracleMismatch(got, want []byte, bf16 bool) int {
	if len(got) != len(want) {
		return 0
	}
	if bf16 {
		for e := range len(want) / 2 {
			g, w := binary.LittleEndian.Uint16(got[2*e:]), binary.LittleEndian.Uint16(want[2*e:])
			if g != w && !(isNaN16(g) && isNaN16(w)) {
				return e
			}
		}
		return -1
	}
	for e := range len(want) / 4 {
		g, w := binary.LittleEndian.Uint32(got[4*e:]), binary.LittleEndian.Uint32(want[4*e:])
		if g != w && !(isNaN32(g) && isNaN32(w)) {
			return e
		}
	}
	return -1
}
