package gathertest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gathermut/gather"
	"gathermut/gguf"
)

// Subject is a provider under test, the tier it is registered for, and the
// memory its tensors live in.
type Subject struct {
	Provider gather.Provider
	Op       gather.Op // gather.OpEmbeddingQuant or gather.OpEmbeddingFloat
	Memory   Memory
	// PartialRows says what out may hold after a bad id: when false (the
	// CPU), out is untouched; when true (a GPU, whose other workgroups
	// cannot be stopped), every row at a valid position may already hold
	// its right values, while the rows at bad positions are untouched. In
	// both cases nothing outside out is written.
	PartialRows bool
	// AnyOutAddress says out may start at any byte address (the CPU reads
	// and writes by byte assembly); otherwise out is placed only at
	// multiples of its element size, as a GPU requires.
	AnyOutAddress bool
}

// Poison is the byte every out buffer starts as, and Guard how many such
// bytes follow out: a provider must write out's rows and nothing else.
const (
	Poison = 0xa5
	Guard  = 64
)

// TestProvider runs every check of the suite against s, and returns an
// error describing every failure (at most a few per check), or nil.
func TestProvider(s Subject) error {
	return errors.Join(
		CheckDeclines(s),
		CheckRefusals(s),
		CheckEmpty(s),
		CheckBadIDs(s),
		CheckGathers(s),
		CheckStats(s),
	)
}

// TierTypes returns the table types of op's tier: the admitted codecs for
// gather.OpEmbeddingQuant, F32, F16 and BF16 for gather.OpEmbeddingFloat.
func TierTypes(op gather.Op) ([]gguf.Type, error) {
	switch op {
	case gather.OpEmbeddingQuant:
		return gather.Admitted(), nil
	case gather.OpEmbeddingFloat:
		return []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16}, nil
	}
	return nil, fmt.Errorf("gathertest: unknown operation %q", op)
}

// baseType is the table type of the suite's standard valid call for op.
func baseType(op gather.Op) gguf.Type {
	if op == gather.OpEmbeddingFloat {
		return gguf.TypeF32
	}
	return gguf.TypeQ8_0
}

// maxReported is how many failures a check describes before it only counts
// them.
const maxReported = 8

// report collects one check's failures.
type report struct {
	name   string
	failed []string
	more   int
}

func newReport(s Subject, check string) *report {
	name := "<nil provider>"
	if s.Provider != nil {
		name = s.Provider.Name()
	}
	return &report{name: fmt.Sprintf("gathertest: %s (%s on %v on %s)", check, name, s.Op, deviceOf(s))}
}

func deviceOf(s Subject) string {
	if s.Memory == nil {
		return "no memory"
	}
	return s.Memory.Device().String()
}

func (r *report) errorf(format string, args ...any) {
	if len(r.failed) < maxReported {
		r.failed = append(r.failed, fmt.Sprintf(format, args...))
		return
	}
	r.more++
}

func (r *report) err() error {
	if len(r.failed) == 0 {
		return nil
	}
	msg := r.name + ":\n\t" + strings.Join(r.failed, "\n\t")
	if r.more > 0 {
		msg += fmt.Sprintf("\n\t(and %d more)", r.more)
	}
	return errors.New(msg)
}

// check runs one check of s: body records its failures in a report, and
// returns early when it cannot go on; it is not run at all when s cannot be
// tested.
func check(s Subject, name string, body func(r *report)) error {
	r := newReport(s, name)
	if r.usable(s) {
		body(r)
	}
	return r.err()
}

// usable reports whether s can be tested at all, saying why not.
func (r *report) usable(s Subject) bool {
	if s.Provider == nil || s.Memory == nil {
		r.errorf("the subject needs a provider and a memory")
		return false
	}
	if _, err := TierTypes(s.Op); err != nil {
		r.errorf("%v", err)
		return false
	}
	return true
}

// placed is a tensor in a fresh buffer, and the buffer.
type placed struct {
	t   *gather.Tensor
	buf Buffer
	off int // where the tensor starts in buf
}

// place copies data into a new buffer of m at byte offset off (the bytes
// before it are Poison) and describes it as a tensor.
func place(m Memory, t gguf.Type, shape []int64, data []byte, off int) (placed, error) {
	b, err := m.Alloc(append(bytes.Repeat([]byte{Poison}, off), data...))
	if err != nil {
		return placed{}, fmt.Errorf("allocating %d bytes: %w", off+len(data), err)
	}
	return placed{t: b.Tensor(t, shape, off), buf: b, off: off}, nil
}

// placeOut places a poisoned out of n rows of hidden elements of type t at
// off, followed by Guard poisoned bytes.
func placeOut(m Memory, t gguf.Type, n, hidden int64, off int) (placed, error) {
	size := int(n*hidden)*elemSize(t) + Guard
	return place(m, t, []int64{n, hidden}, bytes.Repeat([]byte{Poison}, size), off)
}

// checkOut reads an out back and reports how it differs from want (the
// rows' bytes; nil entries of rows mark rows that must be untouched), or
// "" when it does not. Every byte before and after out must be Poison.
func checkOut(o placed, rowBytes int, rows [][]byte) string {
	got, err := o.buf.Bytes()
	if err != nil {
		return fmt.Sprintf("reading out back: %v", err)
	}
	for i := range o.off {
		if got[i] != Poison {
			return fmt.Sprintf("byte %d before out was written (%#x)", o.off-i, got[i])
		}
	}
	body := got[o.off:]
	for i, want := range rows {
		row := body[i*rowBytes : (i+1)*rowBytes]
		if want == nil {
			want = bytes.Repeat([]byte{Poison}, rowBytes)
		}
		if k := firstDiff(row, want); k >= 0 {
			return fmt.Sprintf("out row %d differs at byte %d: got %#x, want %#x", i, k, row[k], want[k])
		}
	}
	for i, c := range body[len(rows)*rowBytes:] {
		if c != Poison {
			return fmt.Sprintf("byte %d after out was written (%#x)", i, c)
		}
	}
	return ""
}

// firstDiff is the first index where a and b (of one length) differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// splitRows cuts b into n rows.
func splitRows(b []byte, n int) [][]byte {
	rows := make([][]byte, n)
	if n == 0 {
		return rows
	}
	w := len(b) / n
	for i := range rows {
		rows[i] = b[i*w : (i+1)*w]
	}
	return rows
}

// ValidCall places the suite's standard valid call on m: a random [4, 64]
// table of type base, ids [2, 0, 3] as I32, and a poisoned F32 out [3, 64]
// followed by Guard poisoned bytes. It returns the call, out's buffer, and
// the bytes out must then hold.
func ValidCall(m Memory, base gguf.Type) (Call, Buffer, []byte, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	table, err := RandomTable(rng, base, 4, 64)
	if err != nil {
		return Call{}, nil, nil, err
	}
	ids := []int64{2, 0, 3}
	want, err := Reference(base, table, 64, ids, gguf.TypeF32)
	if err != nil {
		return Call{}, nil, nil, err
	}
	tp, err := place(m, base, []int64{4, 64}, table, 0)
	if err != nil {
		return Call{}, nil, nil, err
	}
	ip, err := place(m, gguf.TypeI32, []int64{3}, EncodeIDs(gguf.TypeI32, ids), 0)
	if err != nil {
		return Call{}, nil, nil, err
	}
	op, err := placeOut(m, gguf.TypeF32, 3, 64, 0)
	if err != nil {
		return Call{}, nil, nil, err
	}
	return Call{Out: op.t, Table: tp.t, IDs: ip.t}, op.buf, want, nil
}

// CheckRefusals calls the provider directly with every case of Refusals
// (for the subject's base type and device; the cases that edit Data only on
// host memory): each must be refused with exactly the case's error, which
// must not read as a decline, with out untouched; and the valid call right
// after must succeed.
func CheckRefusals(s Subject) error {
	return check(s, "refusals", func(r *report) {
		base := baseType(s.Op)
		cases, err := Refusals(base, s.Memory.Device())
		if err != nil {
			r.errorf("%v", err)
			return
		}
		for _, c := range cases {
			call, outBuf, _, err := ValidCall(s.Memory, base)
			if err != nil {
				r.errorf("%s: %v", c.Name, err)
				return
			}
			if c.HostOnly && call.Out.Data == nil {
				continue
			}
			c.Edit(&call)
			err = s.Provider.Embedding(call.Out, call.Table, call.IDs)
			switch {
			case err == nil:
				r.errorf("%s: accepted, want %q", c.Name, c.Want)
			case err.Error() != c.Want:
				r.errorf("%s: error %q, want %q", c.Name, err, c.Want)
			case errors.Is(err, gather.ErrDeclined):
				r.errorf("%s: the refusal reads as a decline: %v", c.Name, err)
			}
			if d := checkOut(placed{buf: outBuf}, 64*4, make([][]byte, 3)); d != "" {
				r.errorf("%s: the refused call touched out: %s", c.Name, d)
			}
			call, outBuf, want, err := ValidCall(s.Memory, base)
			if err != nil {
				r.errorf("%s: %v", c.Name, err)
				return
			}
			if err := s.Provider.Embedding(call.Out, call.Table, call.IDs); err != nil {
				r.errorf("%s: the valid call after the refusal: %v", c.Name, err)
			} else if d := checkOut(placed{buf: outBuf}, 64*4, splitRows(want, 3)); d != "" {
				r.errorf("%s: the valid call after the refusal: %s", c.Name, d)
			}
		}
	})
}

// CheckDeclines checks what the provider takes and leaves: it supports
// every table type of its tier and none that Embedding refuses (extra
// codecs, integer and unknown types); it declines (an error wrapping
// gather.ErrDeclined) tensors on a device of another kind, and a table of
// the other tier; and it declines only after gather.CheckArgs, so a call
// that is also malformed is refused instead.
func CheckDeclines(s Subject) error {
	return check(s, "declines", func(r *report) {
		p := s.Provider
		types, _ := TierTypes(s.Op)
		for _, t := range types {
			if !p.Supports(t) {
				r.errorf("does not support %v, a type of its tier", t)
			}
		}
		for _, t := range []gguf.Type{gguf.TypeQ4_1, gguf.TypeQ5_1, gguf.TypeIQ1_M, gguf.TypeTQ1_0, gguf.TypeTQ2_0,
			gguf.TypeI32, gguf.TypeI64, gguf.TypeF64, gguf.Type(99)} {
			if p.Supports(t) {
				r.errorf("supports %v, which Embedding refuses", t)
			}
		}

		elsewhere := gather.Device{Kind: "gathertest-elsewhere"}
		foreign := func(outShape ...int64) Call {
			at := func(t gguf.Type, shape ...int64) *gather.Tensor {
				return &gather.Tensor{Type: t, Shape: shape, Device: elsewhere, DevPtr: 0x1000}
			}
			return Call{Out: at(gguf.TypeF32, outShape...), Table: at(baseType(s.Op), 4, 64), IDs: at(gguf.TypeI32, 3)}
		}
		c := foreign(3, 64)
		if err := p.Embedding(c.Out, c.Table, c.IDs); !errors.Is(err, gather.ErrDeclined) {
			r.errorf("tensors on %v: %v, want a decline", elsewhere, err)
		}
		c = foreign(192)
		want := "gather: Embedding: out must be 2-D [len(ids), hidden], has rank 1"
		if err := p.Embedding(c.Out, c.Table, c.IDs); err == nil || err.Error() != want {
			r.errorf("a malformed call on %v: %v, want the refusal %q before any decline", elsewhere, err, want)
		}

		other := gguf.TypeF32
		if s.Op == gather.OpEmbeddingFloat {
			other = gguf.TypeQ8_0
		}
		call, outBuf, _, err := ValidCall(s.Memory, other)
		if err != nil {
			r.errorf("%v", err)
			return
		}
		if err := p.Embedding(call.Out, call.Table, call.IDs); !errors.Is(err, gather.ErrDeclined) {
			r.errorf("a %v table: %v, want a decline", other, err)
		}
		if d := checkOut(placed{buf: outBuf}, 64*4, make([][]byte, 3)); d != "" {
			r.errorf("the declined call touched out: %s", d)
		}
	})
}

// CheckEmpty checks that an empty request (no ids, or rows of zero width)
// returns nil before any other check, whatever the vocab, the ids or the
// bytes behind the tensors, and writes nothing.
func CheckEmpty(s Subject) error {
	return check(s, "empty requests", func(r *report) {
		types, _ := TierTypes(s.Op)
		tt := types[len(types)-1] // IQ1_XXXS, or BF16
		tr, _ := gguf.FindGgmlTraits(tt)
		w := int64(tr.BlockElems)
		// The table and ids are described over one tiny buffer: none of their
		// bytes may be read.
		tiny, err := s.Memory.Alloc([]byte{Poison})
		if err != nil {
			r.errorf("allocating: %v", err)
			return
		}
		for _, c := range []struct {
			name         string
			vocab, width int64
			n            int64
			ids          []int64
		}{
			{"no ids, vocab 0", 0, w, 0, nil},
			{"no ids, vocab 3", 3, w, 0, nil},
			{"no ids, table bytes missing", 1 << 20, w, 0, nil},
			{"zero width, vocab 0", 0, 0, 2, nil},
			{"zero width, bad ids", 2, 0, 2, []int64{5, -1}},
			{"zero width, ids bytes overflow", 4, 0, 1 << 62, nil},
		} {
			for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
				what := fmt.Sprintf("%s, %v table, %v out", c.name, tt, outType)
				idsT := tiny.Tensor(gguf.TypeI64, []int64{c.n}, 0)
				if c.ids != nil {
					ip, err := place(s.Memory, gguf.TypeI64, []int64{c.n}, EncodeIDs(gguf.TypeI64, c.ids), 0)
					if err != nil {
						r.errorf("%s: %v", what, err)
						return
					}
					idsT = ip.t
				}
				o, err := placeOut(s.Memory, outType, 0, 0, 0) // Guard bytes, no rows
				if err != nil {
					r.errorf("%s: %v", what, err)
					return
				}
				o.t.Shape = []int64{c.n, c.width}
				if err := s.Provider.Embedding(o.t, tiny.Tensor(tt, []int64{c.vocab, c.width}, 0), idsT); err != nil {
					r.errorf("%s: %v, want nil", what, err)
				}
				if d := checkOut(o, 0, nil); d != "" {
					r.errorf("%s: %s", what, d)
				}
			}
		}
	})
}

// badIDValues are out-of-range ids for a 128-row table, each marked when
// an I32 can hold it: below 0, at and past the vocab, the int32 extremes,
// and int64 values that a truncation to 32 bits would turn into valid ones
// (1<<32 + 1 would read as 1) or that are the int64 extremes.
var badIDValues = []struct {
	id  int64
	i32 bool
}{
	{-1, true}, {128, true}, {129, true}, {math.MaxInt32, true}, {math.MinInt32, true},
	{1<<32 + 1, false}, {1 << 32, false}, {1<<32 + 127, false}, {-1 << 32, false},
	{math.MinInt64, false}, {math.MaxInt64, false},
}

// badIDCase is a request with bad ids at some positions, and the position
// the error must name.
type badIDCase struct {
	name   string
	idType gguf.Type
	n      int
	bad    map[int]int64
	first  int
}

func badIDCases() []badIDCase {
	var cs []badIDCase
	for _, v := range badIDValues {
		for _, t := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
			if t == gguf.TypeI32 && !v.i32 {
				continue
			}
			cs = append(cs, badIDCase{fmt.Sprintf("%v %d", t, v.id), t, 5, map[int]int64{3: v.id}, 3})
		}
	}
	return append(cs,
		badIDCase{"two bad", gguf.TypeI64, 9, map[int]int64{5: 200, 2: -7}, 2},
		badIDCase{"last", gguf.TypeI32, 9, map[int]int64{8: 128}, 8},
		badIDCase{"first", gguf.TypeI32, 9, map[int]int64{0: -1, 1: 128}, 0},
		// Bad ids far apart in a long request: the first is reported
		// whichever part of the request is checked first.
		badIDCase{"many", gguf.TypeI64, 20000, map[int]int64{19999: -1, 9000: 128, 777: 1 << 40, 15000: -2}, 777},
	)
}

// CheckBadIDs checks every bad id, at its position, in both id types where
// it fits, into both out types, on two table types of the tier (a float
// tier's also at a width of 3 values, whose row one lane serves): the error
// is gather.IDError's for the first bad position (a *gather.IDRangeError,
// not a decline); out holds what Subject.PartialRows allows; and the same
// request with the bad ids made good succeeds at once with the right rows.
func CheckBadIDs(s Subject) error {
	return check(s, "bad ids", func(r *report) {
		const vocab = 128
		tierTables := map[gather.Op][]gguf.Type{
			gather.OpEmbeddingQuant: {gguf.TypeQ8_0, gguf.TypeIQ1_XXXS},
			gather.OpEmbeddingFloat: {gguf.TypeF16, gguf.TypeBF16},
		}
		rng := rand.New(rand.NewPCG(3, 3))
		type badTable struct {
			t      gguf.Type
			hidden int64
		}
		var tables []badTable
		for _, tt := range tierTables[s.Op] {
			tr, _ := gguf.FindGgmlTraits(tt)
			tables = append(tables, badTable{tt, int64(max(32, tr.BlockElems))})
			if tr.BlockElems == 1 {
				// a row of 3 values: one chunk, served by one lane
				tables = append(tables, badTable{tt, 3})
			}
		}
		for _, bt := range tables {
			tt, hidden := bt.t, bt.hidden
			table, err := RandomTable(rng, tt, vocab, hidden)
			if err != nil {
				r.errorf("%v", err)
				return
			}
			tp, err := place(s.Memory, tt, []int64{vocab, hidden}, table, 3)
			if err != nil {
				r.errorf("%v: %v", tt, err)
				return
			}
			for _, c := range badIDCases() {
				outTypes := []gguf.Type{gguf.TypeF32, gguf.TypeBF16}
				if c.n > 9 {
					outTypes = outTypes[:1]
				}
				for _, outType := range outTypes {
					what := fmt.Sprintf("%v table of width %d, %s, %v out", tt, hidden, c.name, outType)
					if !badIDRun(s, r, what, tp.t, table, c, outType, rng) {
						return
					}
				}
			}
		}
	})
}

// badIDRun runs one bad-id case; it returns false when the memory fails.
func badIDRun(s Subject, r *report, what string, table *gather.Tensor, tableBytes []byte, c badIDCase, outType gguf.Type, rng *rand.Rand) bool {
	vocab, hidden := table.Shape[0], table.Shape[1]
	good := make([]int64, c.n)
	for i := range good {
		good[i] = rng.Int64N(vocab)
	}
	ids := slices.Clone(good)
	for pos, v := range c.bad {
		ids[pos] = v
	}
	want, err := Reference(table.Type, tableBytes, hidden, good, outType)
	if err != nil {
		r.errorf("%s: %v", what, err)
		return false
	}
	rows := splitRows(want, c.n)
	ip, err := place(s.Memory, c.idType, []int64{int64(c.n)}, EncodeIDs(c.idType, ids), 1)
	if err != nil {
		r.errorf("%s: %v", what, err)
		return false
	}
	o, err := placeOut(s.Memory, outType, int64(c.n), hidden, 0)
	if err != nil {
		r.errorf("%s: %v", what, err)
		return false
	}
	err = s.Provider.Embedding(o.t, table, ip.t)
	wantErr := gather.IDError(int64(c.first), c.bad[c.first], vocab)
	var re *gather.IDRangeError
	switch {
	case err == nil || err.Error() != wantErr.Error():
		r.errorf("%s: error %v, want %v", what, err, wantErr)
	case !errors.As(err, &re) || *re != *wantErr.(*gather.IDRangeError):
		r.errorf("%s: error %v is not the *gather.IDRangeError %+v", what, err, wantErr)
	case errors.Is(err, gather.ErrDeclined):
		r.errorf("%s: the refusal reads as a decline: %v", what, err)
	}
	after := make([][]byte, c.n) // untouched
	if s.PartialRows {
		after = slices.Clone(rows)
		for pos := range c.bad {
			after[pos] = nil
		}
	}
	if d := checkOut(o, len(want)/c.n, after); d != "" {
		r.errorf("%s: after the refusal: %s", what, d)
	}
	ip, err = place(s.Memory, c.idType, []int64{int64(c.n)}, EncodeIDs(c.idType, good), 0)
	if err != nil {
		r.errorf("%s: %v", what, err)
		return false
	}
	o, err = placeOut(s.Memory, outType, int64(c.n), hidden, 0)
	if err != nil {
		r.errorf("%s: %v", what, err)
		return false
	}
	if err := s.Provider.Embedding(o.t, table, ip.t); err != nil {
		r.errorf("%s: the valid call after the refusal: %v", what, err)
	} else if d := checkOut(o, len(want)/c.n, rows); d != "" {
		r.errorf("%s: the valid call after the refusal: %s", what, d)
	}
	return true
}

// gatherWidths are the row widths the gathers use for a block of be
// elements: 1, 3 and 5 blocks, 256 and 1024 elements, and for a float
// table 33 (a width that is no multiple of a vector) and 4100 (an F32 row
// of 16,400 bytes, more than a GPU's 128 lanes cover with one 128-byte
// line each).
func gatherWidths(be int) []int64 {
	ws := []int64{int64(be), 3 * int64(be), 5 * int64(be), 256, 1024}
	if be == 1 {
		ws = append(ws, 33, 4100)
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// idPatterns are the selections the gathers make from vocab rows.
func idPatterns(rng *rand.Rand, vocab int64) map[string][]int64 {
	var rev []int64
	for id := vocab - 1; id >= 0; id-- {
		rev = append(rev, id)
	}
	var all []int64
	for _, v := range rng.Perm(int(vocab)) {
		all = append(all, int64(v))
	}
	all = append(all, all[3], all[0])
	return map[string][]int64{
		"first":    {0},
		"middle":   {vocab / 2},
		"last":     {vocab - 1},
		"repeated": {3, 3, vocab - 2, 3, 3},
		"reversed": rev,
		"shuffled": all,
	}
}

// CheckGathers gathers from random tables of every type of the tier, whose
// first blocks carry edge scales (WithEdges), at every width of
// gatherWidths, with every selection of idPatterns, with both id types,
// into both out types, with the table and the ids at byte offsets 0 to 3
// and out likewise (at that many elements when not AnyOutAddress); out
// must hold exactly Reference's bytes, and nothing around it may change.
// Each type's tables come from a generator seeded by the type alone, so
// CheckGathersOf checks one type with the same tables.
func CheckGathers(s Subject) error {
	return check(s, "gathers", func(r *report) {
		types, _ := TierTypes(s.Op)
		for _, tt := range types {
			if !gathersOf(s, r, tt) {
				return
			}
		}
	})
}

// CheckGathersOf is CheckGathers for one table type t of s's tier (a
// test names a subtest per type with it); a type of no tier, or of the
// other one, fails.
func CheckGathersOf(s Subject, t gguf.Type) error {
	return check(s, "gathers", func(r *report) {
		if types, _ := TierTypes(s.Op); !slices.Contains(types, t) {
			r.errorf("%v is not a table type of %v", t, s.Op)
			return
		}
		gathersOf(s, r, t)
	})
}

// gathersVocab is the rows of every table CheckGathers gathers from.
const gathersVocab = 16

// gathersOf runs CheckGathers for table type tt; it returns false when the
// check cannot go on.
func gathersOf(s Subject, r *report, tt gguf.Type) bool {
	patterns := idPatterns(rand.New(rand.NewPCG(0x524f434d, 1)), gathersVocab)
	rng := rand.New(rand.NewPCG(0x524f434d, 0x100+uint64(tt)))
	tr, _ := gguf.FindGgmlTraits(tt)
	for _, hidden := range gatherWidths(tr.BlockElems) {
		table, err := RandomTable(rng, tt, gathersVocab, hidden)
		if err != nil {
			r.errorf("%v", err)
			return false
		}
		WithEdges(tt, table)
		if !gathersOfTable(s, r, tt, table, hidden, patterns) {
			return false
		}
	}
	return true
}

// gathersOfTable gathers every selection of patterns from table (of type
// tt, hidden wide) at each byte offset, with both id types into both out
// types; it returns false when the check cannot go on.
func gathersOfTable(s Subject, r *report, tt gguf.Type, table []byte, hidden int64, patterns map[string][]int64) bool {
	names := slices.Sorted(maps.Keys(patterns))
	wants := map[string][]byte{} // by selection and out type
	for off := range 4 {
		tp, err := place(s.Memory, tt, []int64{gathersVocab, hidden}, table, off)
		if err != nil {
			r.errorf("%v: %v", tt, err)
			return false
		}
		for _, name := range names {
			ids := patterns[name]
			for _, idType := range []gguf.Type{gguf.TypeI32, gguf.TypeI64} {
				ip, err := place(s.Memory, idType, []int64{int64(len(ids))}, EncodeIDs(idType, ids), off)
				if err != nil {
					r.errorf("%v: %v", tt, err)
					return false
				}
				for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
					what := fmt.Sprintf("%v width %d, %s %v ids, %v out, offset %d", tt, hidden, name, idType, outType, off)
					key := name + outType.String()
					if wants[key] == nil {
						if wants[key], err = Reference(tt, table, hidden, ids, outType); err != nil {
							r.errorf("%s: %v", what, err)
							return false
						}
					}
					if !gatherOnce(s, r, what, tp, ip, wants[key], outType, off) {
						return false
					}
				}
			}
		}
	}
	return true
}

// gatherOnce runs one gather of CheckGathers; it returns false when the
// memory fails.
func gatherOnce(s Subject, r *report, what string, tp, ip placed, want []byte, outType gguf.Type, off int) bool {
	n, hidden := ip.t.Shape[0], tp.t.Shape[1]
	outOff := off * elemSize(outType)
	if s.AnyOutAddress {
		outOff = off
	}
	o, err := placeOut(s.Memory, outType, n, hidden, outOff)
	if err != nil {
		r.errorf("%s: %v", what, err)
		return false
	}
	if err := s.Provider.Embedding(o.t, tp.t, ip.t); err != nil {
		r.errorf("%s: %v", what, err)
		return true
	}
	if d := checkOut(o, len(want)/int(n), splitRows(want, int(n))); d != "" {
		r.errorf("%s: %s", what, d)
	}
	return true
}

// decliner declines every call; CheckStats registers it ahead of the
// subject to make the registry fall back.
type decliner struct{ types []gguf.Type }

func (decliner) Name() string { return "gathertest-decliner" }

func (d decliner) Supports(t gguf.Type) bool { return slices.Contains(d.types, t) }

func (decliner) Embedding(out, table, ids *gather.Tensor) error {
	return fmt.Errorf("gathertest-decliner: %w", gather.ErrDeclined)
}

// CheckStats registers the provider in fresh registries and checks what
// their statistics say of it: the registration is accepted; a call it
// serves, and a call it refuses (a bad id), each count as one selection of
// it, with no decline and no fallback; behind a provider that declines, it
// is selected as a fallback after one decline.
func CheckStats(s Subject) error {
	return check(s, "stats", func(r *report) {
		p, dev := s.Provider, s.Memory.Device()
		types, _ := TierTypes(s.Op)
		base := baseType(s.Op)

		reg := gather.NewRegistry()
		if err := reg.Register(s.Op, dev.Kind, p); err != nil {
			r.errorf("registering: %v", err)
			return
		}
		reg.EnableStats(true)
		call, _, _, err := ValidCall(s.Memory, base)
		if err != nil {
			r.errorf("%v", err)
			return
		}
		if err := reg.Embedding(call.Out, call.Table, call.IDs); err != nil {
			r.errorf("a valid call through the registry: %v", err)
		}
		want := gather.Stats{Selections: 1, LastProvider: p.Name()}
		if got := reg.ReadStats(s.Op, dev.Kind); got != want {
			r.errorf("after a valid call: stats %+v, want %+v", got, want)
		}
		bad, err := place(s.Memory, gguf.TypeI32, []int64{3}, EncodeIDs(gguf.TypeI32, []int64{0, 4, 0}), 0)
		if err != nil {
			r.errorf("%v", err)
			return
		}
		if err := reg.Embedding(call.Out, call.Table, bad.t); err == nil {
			r.errorf("a bad id through the registry was accepted")
		}
		want.Selections = 2
		if got := reg.ReadStats(s.Op, dev.Kind); got != want {
			r.errorf("after a refused call: stats %+v, want %+v (a refusal is a selection)", got, want)
		}

		behind := gather.NewRegistry()
		for _, q := range []gather.Provider{decliner{types}, p} {
			if err := behind.Register(s.Op, dev.Kind, q); err != nil {
				r.errorf("registering behind a decliner: %v", err)
				return
			}
		}
		behind.EnableStats(true)
		if err := behind.Embedding(call.Out, call.Table, call.IDs); err != nil {
			r.errorf("a valid call behind a decliner: %v", err)
		}
		want = gather.Stats{Selections: 1, Declines: 1, Fallbacks: 1, LastProvider: p.Name()}
		if got := behind.ReadStats(s.Op, dev.Kind); got != want {
			r.errorf("behind a decliner: stats %+v, want %+v", got, want)
		}
	})
}
