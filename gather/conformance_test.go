package gather_test

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// The CPU providers run the provider suite of package gathertest, called
// directly and through gather.Embedding, as a user reaches them.

// cpuSubjects are the two registered CPU providers, called directly.
func cpuSubjects(t *testing.T) []gathertest.Subject {
	t.Helper()
	var ss []gathertest.Subject
	for _, op := range []gather.Op{gather.OpEmbeddingQuant, gather.OpEmbeddingFloat} {
		ps := gather.Providers(op, gather.CPU)
		if len(ps) != 1 {
			t.Fatalf("%d %s providers on the CPU, want 1", len(ps), op)
		}
		ss = append(ss, gathertest.Subject{Provider: ps[0], Op: op, Memory: gathertest.Host{}, AnyOutAddress: true})
	}
	return ss
}

// viaEmbedding is a provider whose calls go through gather.Embedding (the
// default registry, so its validation and dispatch) to the provider it
// names.
type viaEmbedding struct{ gather.Provider }

func (v viaEmbedding) Name() string { return "Embedding to " + v.Provider.Name() }

func (viaEmbedding) Embedding(out, table, ids *gather.Tensor) error {
	return gather.Embedding(out, table, ids)
}

// embeddingSubjects are cpuSubjects reached through gather.Embedding.
func embeddingSubjects(t *testing.T) []gathertest.Subject {
	ss := cpuSubjects(t)
	for i := range ss {
		ss[i].Provider = viaEmbedding{ss[i].Provider}
	}
	return ss
}

// run runs check on every subject and reports its failures.
func run(t *testing.T, ss []gathertest.Subject, check func(gathertest.Subject) error) {
	t.Helper()
	for _, s := range ss {
		if err := check(s); err != nil {
			t.Error(err)
		}
	}
}

// TestEmbeddingMatrix gathers every table type x id type x out type x width
// x selection x byte offset (0-3, of the table, ids and out alike) through
// Embedding, and compares out with the reference; nothing before or after
// out's rows may change (gathertest.CheckGathers). Each table type is a
// subtest named as gguf.Type prints it ("Q4_K", "BF16"), so that
// -run '^TestEmbeddingMatrix$/^Q4_K$' checks one codec
// (gathertest.CheckGathersOf).
func TestEmbeddingMatrix(t *testing.T) {
	for _, s := range embeddingSubjects(t) {
		types, err := gathertest.TierTypes(s.Op)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range types {
			t.Run(typ.String(), func(t *testing.T) {
				if err := gathertest.CheckGathersOf(s, typ); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestEmbeddingValidation: every refusal of the table, through Embedding,
// with its exact error, out untouched and the next call working
// (gathertest.CheckRefusals).
func TestEmbeddingValidation(t *testing.T) { run(t, embeddingSubjects(t), gathertest.CheckRefusals) }

// TestEmbeddingBadIDs refuses each bad id with its position and full value,
// in both id types where it fits, through both table tiers and out types;
// out stays untouched and the next call works (gathertest.CheckBadIDs).
func TestEmbeddingBadIDs(t *testing.T) { run(t, embeddingSubjects(t), gathertest.CheckBadIDs) }

// TestEmbeddingEmptyRequests: zero ids or zero width return nil before the
// vocab, size and id checks, and touch nothing (gathertest.CheckEmpty).
func TestEmbeddingEmptyRequests(t *testing.T) { run(t, embeddingSubjects(t), gathertest.CheckEmpty) }

// TestCPUProviderChecks calls the CPU providers directly: they decline
// only what they cannot serve and only after validating, refuse every case
// of the refusal table exactly as Embedding does, answer empty requests and
// bad ids alike, and count in a registry's statistics as they should.
func TestCPUProviderChecks(t *testing.T) {
	for _, check := range []func(gathertest.Subject) error{
		gathertest.CheckDeclines, gathertest.CheckRefusals, gathertest.CheckEmpty, gathertest.CheckBadIDs, gathertest.CheckStats,
	} {
		run(t, cpuSubjects(t), check)
	}
}

// counter is a provider that serves every admitted and float table type,
// counts its calls and answers nil.
type counter struct{ calls *int }

func (counter) Name() string { return "counter" }

func (counter) Supports(t gguf.Type) bool {
	return t.IsFloat() || slices.Contains(gather.Admitted(), t)
}

func (c counter) Embedding(out, table, ids *gather.Tensor) error {
	*c.calls++
	return nil
}

// TestEmbeddingValidatesBeforeDispatch: a call refused by Embedding's own
// checks (gather.CheckArgs) never reaches a provider; the refusals after
// them (vocab 0, sizes, Data) are the provider's, so those calls reach it
// and get its answer.
func TestEmbeddingValidatesBeforeDispatch(t *testing.T) {
	for _, base := range []gguf.Type{gguf.TypeQ8_0, gguf.TypeF32} {
		calls := new(int)
		r := gather.NewRegistry()
		for _, op := range []gather.Op{gather.OpEmbeddingQuant, gather.OpEmbeddingFloat} {
			if err := r.Register(op, gather.CPU, counter{calls}); err != nil {
				t.Fatal(err)
			}
		}
		cases, err := gathertest.Refusals(base, gather.Host)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			call, _, _, err := gathertest.ValidCall(gathertest.Host{}, base)
			if err != nil {
				t.Fatal(err)
			}
			c.Edit(&call)
			before := *calls
			err = r.Embedding(call.Out, call.Table, call.IDs)
			switch reached := *calls - before; {
			case c.Step < gathertest.ProviderStep && (err == nil || err.Error() != c.Want || reached != 0):
				t.Errorf("%v %s: %v after %d provider calls, want %q and none", base, c.Name, err, reached, c.Want)
			case c.Step == gathertest.ProviderStep && (err != nil || reached != 1):
				t.Errorf("%v %s: %v after %d provider calls, want the provider's nil after one", base, c.Name, err, reached)
			}
		}
	}
}

// host is a host tensor over data, its shape as given.
func host(t gguf.Type, data []byte, shape ...int64) *gather.Tensor {
	return &gather.Tensor{Type: t, Shape: shape, Device: gather.Host, Data: data}
}

// tableTypes are the admitted codecs and the float types.
func tableTypes() []gguf.Type {
	return append(gather.Admitted(), gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16)
}

// TestParallelMatchesSerial: for every table type and both out types, a
// request decoded in 1..9 row ranges gives the reference's bytes; and a
// large request through Embedding (which goes parallel) matches the
// reference with GOMAXPROCS 1 and 4.
func TestParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	const vocab, hidden, n = 24, 256, 70
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(rng.IntN(vocab))
	}
	idData := gathertest.EncodeIDs(gguf.TypeI32, ids)
	for _, tt := range tableTypes() {
		data, err := gathertest.RandomTable(rng, tt, vocab, hidden)
		if err != nil {
			t.Fatal(err)
		}
		table := host(tt, data, vocab, hidden)
		op := gather.OpEmbeddingQuant
		if tt.IsFloat() {
			op = gather.OpEmbeddingFloat
		}
		p := gather.Providers(op, gather.CPU)[0]
		for _, outType := range []gguf.Type{gguf.TypeF32, gguf.TypeBF16} {
			want, err := gathertest.Reference(tt, data, hidden, ids, outType)
			if err != nil {
				t.Fatal(err)
			}
			for workers := 1; workers <= 9; workers++ {
				out := host(outType, make([]byte, len(want)), n, hidden)
				if err := gather.GatherInRanges(p, out, table, host(gguf.TypeI32, idData, n), workers); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Data, want) {
					t.Fatalf("%v %v in %d ranges differs from the reference", tt, outType, workers)
				}
			}
		}
	}

	// Large enough to go parallel: 64 rows of 4096 f32 is 1 MiB.
	const big = 4096
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	bigIDs := make([]int64, 64)
	for i := range bigIDs {
		bigIDs[i] = int64((i * 5) % 8)
	}
	for _, tt := range []gguf.Type{gguf.TypeQ4_K, gguf.TypeMXFP4, gguf.TypeBF16} {
		data, err := gathertest.RandomTable(rng, tt, 8, big)
		if err != nil {
			t.Fatal(err)
		}
		want, err := gathertest.Reference(tt, data, big, bigIDs, gguf.TypeF32)
		if err != nil {
			t.Fatal(err)
		}
		if gather.WorkersFor(64, len(want), 4) != 4 {
			t.Fatal("premise: this request goes parallel")
		}
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			out := host(gguf.TypeF32, make([]byte, len(want)), 64, big)
			ids := host(gguf.TypeI64, gathertest.EncodeIDs(gguf.TypeI64, bigIDs), 64)
			if err := gather.Embedding(out, host(tt, data, 8, big), ids); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Data, want) {
				t.Fatalf("%v with GOMAXPROCS %d differs from the reference", tt, procs)
			}
		}
	}
}
