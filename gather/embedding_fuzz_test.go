package gather_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// fuzzTypes are the table types the fuzzer picks from: every admitted codec,
// the floats, and types Embedding must refuse (extras, integers, F64).
var fuzzTypes = append(tableTypes(),
	gguf.TypeQ4_1, gguf.TypeQ5_1, gguf.TypeTQ1_0, gguf.TypeTQ2_0, gguf.TypeIQ1_M,
	gguf.TypeI32, gguf.TypeF64, gguf.Type(4), gguf.Type(1000))

// FuzzEmbedding drives Embedding with random packed bytes, table types,
// shapes, ids and out geometry. It must never panic; a refusal is an error
// that leaves out untouched; a success matches the reference row by row
// and only happens for ids that are all in range.
func FuzzEmbedding(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 9))
	i32 := func(ids ...int64) []byte { return gathertest.EncodeIDs(gguf.TypeI32, ids) }
	for k, tt := range []gguf.Type{gguf.TypeQ8_0, gguf.TypeQ4_K, gguf.TypeIQ1_XXXS, gguf.TypeMXFP4, gguf.TypeF16, gguf.TypeBF16} {
		tr, _ := gguf.FindGgmlTraits(tt)
		w := max(tr.BlockElems, 8)
		table, err := gathertest.RandomTable(rng, tt, 4, int64(w))
		if err != nil {
			f.Fatal(err)
		}
		for i, x := range fuzzTypes {
			if x == tt {
				f.Add(table, uint8(i), int8(4), int16(w), i32(3, 0, 2, 2), false, k%2 == 0, int8(4), uint8(k%4))
			}
		}
	}
	// refusals: bad id, short table, wrong out rows, a negative width
	f.Add(make([]byte, 34*2), uint8(2), int8(2), int16(32), gathertest.EncodeIDs(gguf.TypeI64, []int64{0, 2}), true, true, int8(2), uint8(0))
	f.Add(make([]byte, 33), uint8(2), int8(1), int16(32), i32(0), false, false, int8(1), uint8(1))
	f.Add(make([]byte, 34), uint8(2), int8(1), int16(32), i32(0), false, false, int8(2), uint8(2))
	f.Add(make([]byte, 34), uint8(2), int8(1), int16(-32), i32(0), false, false, int8(1), uint8(3))
	f.Fuzz(func(t *testing.T, packed []byte, typeSel uint8, vocab int8, hidden int16, rawIDs []byte, wide, bf16 bool, outRows int8, off uint8) {
		tt := fuzzTypes[int(typeSel)%len(fuzzTypes)]
		h := int64(hidden) % 4096
		size, idt, outType, elem := 4, gguf.TypeI32, gguf.TypeF32, 4
		if wide {
			size, idt = 8, gguf.TypeI64
		}
		if bf16 {
			outType, elem = gguf.TypeBF16, 2
		}
		n := int64(min(len(rawIDs)/size, 64))
		o := int(off % 4)
		table := host(tt, append(make([]byte, o), packed...)[o:], int64(vocab), h)
		ids := host(idt, append(make([]byte, o), rawIDs...)[o:], n)
		rows := int64(outRows)
		ob := 0
		if rows >= 0 && h >= 0 {
			ob = int(rows*h) * elem
		}
		buf := bytes.Repeat([]byte{gathertest.Poison}, ob)
		out := host(outType, buf, rows, h)

		err := gather.Embedding(out, table, ids)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error message")
			}
			if bytes.Count(buf, []byte{gathertest.Poison}) != len(buf) {
				t.Fatalf("a refused call (%v) wrote to out", err)
			}
			return
		}
		// Success: the arguments were valid, so every id is in range unless
		// the request was empty.
		if n == 0 || h == 0 {
			if bytes.Count(buf, []byte{gathertest.Poison}) != len(buf) {
				t.Fatal("an empty request wrote to out")
			}
			return
		}
		var idv []int64
		for i := range n {
			var id int64
			if wide {
				id = int64(binary.LittleEndian.Uint64(rawIDs[8*i:]))
			} else {
				id = int64(int32(binary.LittleEndian.Uint32(rawIDs[4*i:])))
			}
			if id < 0 || id >= int64(vocab) {
				t.Fatalf("accepted id %d at %d for vocab %d", id, i, vocab)
			}
			idv = append(idv, id)
		}
		want, err := gathertest.Reference(tt, packed, h, idv, outType)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, want) {
			t.Fatalf("%v: out differs from the reference", tt)
		}
	})
}
