package gather

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"gathermut/gguf"
)

// fake is a provider that supports the listed types (all admitted and float
// types when nil), records its calls and returns result.
type fake struct {
	name   string
	types  []gguf.Type
	result error
	calls  *int
}

func (f fake) Name() string { return f.name }

func (f fake) Supports(t gguf.Type) bool {
	if f.types == nil {
		return t.IsFloat() || isAdmitted(t)
	}
	for _, u := range f.types {
		if u == t {
			return true
		}
	}
	return false
}

func (f fake) Embedding(out, table, ids *Tensor) error {
	if f.calls != nil {
		*f.calls++
	}
	return f.result
}

func newFake(name string, result error) (fake, *int) {
	n := new(int)
	return fake{name: name, result: result, calls: n}, n
}

var errFakeDecline = fmt.Errorf("fake: not today: %w", ErrDeclined)

// except returns the admitted codecs without t.
func except(t gguf.Type) []gguf.Type {
	var ts []gguf.Type
	for _, u := range Admitted() {
		if u != t {
			ts = append(ts, u)
		}
	}
	return ts
}

func mustReg(t *testing.T, r *Registry, op Op, dev DeviceKind, p Provider) {
	t.Helper()
	if err := r.Register(op, dev, p); err != nil {
		t.Fatal(err)
	}
}

// TestRegisterRefuses covers every registration refusal and its message.
func TestRegisterRefuses(t *testing.T) {
	r := NewRegistry()
	ok, _ := newFake("ok", nil)
	mustReg(t, r, OpEmbeddingQuant, GPU, ok)
	cases := []struct {
		name string
		op   Op
		dev  DeviceKind
		p    Provider
		want string
	}{
		{"nil", OpEmbeddingQuant, CPU, nil, "gather: register EmbeddingQuant provider for device cpu: provider is nil"},
		{"empty device", OpEmbeddingQuant, "", ok, `gather: register EmbeddingQuant provider "ok": empty device kind`},
		{"unknown op", "Matmul", CPU, ok, `gather: register provider "ok" for device cpu: unknown operation "Matmul"`},
		{"duplicate", OpEmbeddingQuant, GPU, ok, `gather: register EmbeddingQuant provider "ok" for device gpu: already registered`},
		{"float lacks F16", OpEmbeddingFloat, CPU, fake{name: "f", types: []gguf.Type{gguf.TypeF32, gguf.TypeBF16}},
			`gather: register EmbeddingFloat provider "f" for device cpu: it does not support F16`},
		{"float lacks F32", OpEmbeddingFloat, CPU, fake{name: "f", types: []gguf.Type{gguf.TypeF16, gguf.TypeBF16}},
			`gather: register EmbeddingFloat provider "f" for device cpu: it does not support F32`},
		{"float lacks BF16", OpEmbeddingFloat, CPU, fake{name: "f", types: []gguf.Type{gguf.TypeF32, gguf.TypeF16}},
			`gather: register EmbeddingFloat provider "f" for device cpu: it does not support BF16`},
		{"quant with only floats", OpEmbeddingQuant, CPU, fake{name: "q", types: []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16}},
			`gather: register EmbeddingQuant provider "q" for device cpu: it does not support Q4_0`},
	}
	for _, a := range Admitted() {
		cases = append(cases, struct {
			name string
			op   Op
			dev  DeviceKind
			p    Provider
			want string
		}{"quant lacks " + a.String(), OpEmbeddingQuant, CPU, fake{name: "q", types: except(a)},
			fmt.Sprintf(`gather: register EmbeddingQuant provider "q" for device cpu: it does not support %v`, a)})
	}
	for _, c := range cases {
		err := r.Register(c.op, c.dev, c.p)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.name, err, c.want)
		}
	}
	if got := r.Providers(OpEmbeddingQuant, CPU); len(got) != 0 {
		t.Errorf("refused providers were registered: %v", got)
	}
	if got := r.Providers(OpEmbeddingQuant, GPU); len(got) != 1 {
		t.Errorf("the duplicate was registered: %d providers", len(got))
	}
	// The same name is fine for another pair.
	mustReg(t, r, OpEmbeddingQuant, CPU, ok)
	mustReg(t, r, OpEmbeddingFloat, GPU, ok)
}

// TestRegisterOrderAndCopies: Providers lists in registration order and
// returns a copy.
func TestRegisterOrderAndCopies(t *testing.T) {
	r := NewRegistry()
	for _, n := range []string{"a", "b", "c"} {
		mustReg(t, r, OpEmbeddingFloat, CPU, fake{name: n})
	}
	ps := r.Providers(OpEmbeddingFloat, CPU)
	if len(ps) != 3 || ps[0].Name() != "a" || ps[1].Name() != "b" || ps[2].Name() != "c" {
		t.Fatalf("providers %v", ps)
	}
	ps[0] = fake{name: "x"}
	if r.Providers(OpEmbeddingFloat, CPU)[0].Name() != "a" {
		t.Fatal("Providers returned the registry's own slice")
	}
	if len(r.Providers(OpEmbeddingQuant, CPU)) != 0 || len(r.Providers(OpEmbeddingFloat, GPU)) != 0 {
		t.Fatal("providers leaked into other pairs")
	}
	var zero Registry
	if zero.Providers(OpEmbeddingQuant, CPU) != nil || zero.CanGather(CPU, gguf.TypeQ8_0) {
		t.Fatal("zero registry is not empty")
	}
	mustReg(t, &zero, OpEmbeddingQuant, CPU, fake{name: "z"})
	if !zero.CanGather(CPU, gguf.TypeQ8_0) {
		t.Fatal("zero registry does not register")
	}
}

// TestMustRegisterPanics: a failing registration at init is a programming
// error and panics with the registration error.
func TestMustRegisterPanics(t *testing.T) {
	defer func() {
		got, _ := recover().(string)
		want := `gather: register EmbeddingQuant provider "half" for device cpu: it does not support IQ1_XXXS`
		if got != want {
			t.Fatalf("panic %q, want %q", got, want)
		}
		if len(Providers(OpEmbeddingQuant, CPU)) != 1 {
			t.Fatal("the refused provider was registered")
		}
	}()
	mustRegister(OpEmbeddingQuant, CPU, fake{name: "half", types: except(gguf.TypeIQ1_XXXS)})
}

func TestMustRegisterRegisters(t *testing.T) {
	r := NewRegistry()
	r.mustRegister(OpEmbeddingQuant, GPU, fake{name: "g"})
	if ps := r.Providers(OpEmbeddingQuant, GPU); len(ps) != 1 || ps[0].Name() != "g" {
		t.Fatalf("providers %v", ps)
	}
}

// TestRegisterDefault: the package-level Register adds to the default
// registry, after what is there, and refuses what (*Registry).Register
// refuses, with its error. Its only caller in the row is hipkern.Load,
// whose real registration runs once per process, on the GPU library or on
// the host emulation depending on the machine; this judges Register the
// same on every machine. It registers under a device kind of its own per
// run (go test -count), which no other test or provider uses.
func TestRegisterDefault(t *testing.T) {
	registerDefaultRuns++
	dev := DeviceKind(fmt.Sprintf("test-register-default-%d", registerDefaultRuns))
	for _, name := range []string{"first", "second"} {
		if err := Register(OpEmbeddingQuant, dev, fake{name: name}); err != nil {
			t.Fatalf("Register(%s): %v", name, err)
		}
	}
	want := `gather: register EmbeddingQuant provider "first" for device ` + string(dev) + `: already registered`
	if err := Register(OpEmbeddingQuant, dev, fake{name: "first"}); err == nil || err.Error() != want {
		t.Errorf("Register(first) again: %v\nwant %s", err, want)
	}
	var names []string
	for _, p := range Providers(OpEmbeddingQuant, dev) {
		names = append(names, p.Name())
	}
	if !slices.Equal(names, []string{"first", "second"}) {
		t.Errorf("default registry's providers for %s: %q, want first, second", dev, names)
	}
	if !CanGather(dev, gguf.TypeQ4_K) || CanGather(dev, gguf.TypeF32) {
		t.Errorf("CanGather(%s): Q4_K %v, F32 %v; want true, false", dev, CanGather(dev, gguf.TypeQ4_K), CanGather(dev, gguf.TypeF32))
	}
}

var registerDefaultRuns int

// TestCanGather follows the tier of the type and the provider's Supports.
func TestCanGather(t *testing.T) {
	r := NewRegistry()
	mustReg(t, r, OpEmbeddingQuant, GPU, fake{name: "q", types: append(Admitted(), gguf.TypeQ4_1)})
	for _, c := range []struct {
		dev  DeviceKind
		t    gguf.Type
		want bool
	}{
		{GPU, gguf.TypeQ4_K, true},
		{GPU, gguf.TypeIQ1_XXXS, true},
		{GPU, gguf.TypeQ4_1, true},  // the provider claims an extra
		{GPU, gguf.TypeQ5_1, false}, // it does not claim this one
		{GPU, gguf.TypeF32, false},  // no float provider
		{GPU, gguf.TypeBF16, false},
		{CPU, gguf.TypeQ4_K, false},
	} {
		if got := r.CanGather(c.dev, c.t); got != c.want {
			t.Errorf("before float: CanGather(%s, %v) = %v, want %v", c.dev, c.t, got, c.want)
		}
	}
	// A float provider that also claims Q8_0 does not make Q8_0 a float
	// gather, and the quant provider's claims do not reach floats.
	mustReg(t, r, OpEmbeddingFloat, GPU, fake{name: "f", types: []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ5_1}})
	for _, c := range []struct {
		t    gguf.Type
		want bool
	}{
		{gguf.TypeF32, true}, {gguf.TypeF16, true}, {gguf.TypeBF16, true}, {gguf.TypeQ5_1, false}, {gguf.TypeQ4_K, true},
	} {
		if got := r.CanGather(GPU, c.t); got != c.want {
			t.Errorf("CanGather(gpu, %v) = %v, want %v", c.t, got, c.want)
		}
	}
	// Any one supporting provider suffices.
	r2 := NewRegistry()
	mustReg(t, r2, OpEmbeddingQuant, CPU, fake{name: "a", types: Admitted()})
	mustReg(t, r2, OpEmbeddingQuant, CPU, fake{name: "b", types: append(Admitted(), gguf.TypeTQ2_0)})
	if !r2.CanGather(CPU, gguf.TypeTQ2_0) {
		t.Error("CanGather ignores the second provider")
	}
}

// gpuArgs is a valid call on GPU 0 (no host data).
func gpuArgs(tt gguf.Type) (out, table, ids *Tensor) {
	g := Device{Kind: GPU}
	w := int64(256)
	return &Tensor{Type: gguf.TypeBF16, Shape: []int64{2, w}, Device: g, DevPtr: 0x1000},
		&Tensor{Type: tt, Shape: []int64{8, w}, Device: g, DevPtr: 0x2000},
		&Tensor{Type: gguf.TypeI32, Shape: []int64{2}, Device: g, DevPtr: 0x3000}
}

// TestDispatchStats counts selections, declines, fallbacks and the last
// provider per pair, with fake providers on a private registry.
func TestDispatchStats(t *testing.T) {
	refusal := errors.New("fake: bad input")
	cases := []struct {
		name      string
		providers []fake
		calls     int
		wantErr   string
		wantCalls []int
		stats     Stats
	}{
		{"first serves", []fake{{name: "a"}, {name: "b"}}, 3, "", []int{3, 0}, Stats{Selections: 3, LastProvider: "a"}},
		{"decline then serve", []fake{{name: "a", result: errFakeDecline}, {name: "b"}}, 2, "", []int{2, 2},
			Stats{Selections: 2, Declines: 2, Fallbacks: 2, LastProvider: "b"}},
		{"two declines then serve", []fake{{name: "a", result: errFakeDecline}, {name: "b", result: errFakeDecline}, {name: "c"}}, 1, "", []int{1, 1, 1},
			Stats{Selections: 1, Declines: 2, Fallbacks: 1, LastProvider: "c"}},
		{"refusal ends dispatch", []fake{{name: "a", result: refusal}, {name: "b"}}, 1, "fake: bad input", []int{1, 0},
			Stats{Selections: 1, LastProvider: "a"}},
		{"refusal after decline", []fake{{name: "a", result: errFakeDecline}, {name: "b", result: refusal}, {name: "c"}}, 1, "fake: bad input", []int{1, 1, 0},
			Stats{Selections: 1, Declines: 1, Fallbacks: 1, LastProvider: "b"}},
		{"all decline", []fake{{name: "a", result: errFakeDecline}, {name: "b", result: errFakeDecline}}, 2,
			"gather: Embedding: every EmbeddingQuant provider for device gpu declined; last: fake: not today: gather: provider declined", []int{2, 2},
			Stats{Declines: 4}},
		{"unsupported type skipped", []fake{{name: "a", types: []gguf.Type{gguf.TypeQ8_0}}, {name: "b"}}, 1, "", []int{0, 1},
			Stats{Selections: 1, Declines: 1, Fallbacks: 1, LastProvider: "b"}},
		{"none supports", []fake{{name: "a", types: []gguf.Type{gguf.TypeQ8_0}}}, 1,
			"gather: Embedding: every EmbeddingQuant provider for device gpu declined; last: gather: a does not support Q4_K tables: gather: provider declined", []int{0},
			Stats{Declines: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRegistry()
			r.EnableStats(true)
			counts := make([]*int, len(c.providers))
			for i, f := range c.providers {
				counts[i] = new(int)
				f.calls = counts[i]
				if f.types == nil {
					mustReg(t, r, OpEmbeddingQuant, GPU, f)
				} else {
					// A provider supporting less than its tier cannot register;
					// place it directly to test the dispatcher's Supports skip.
					r.providers = map[pair][]Provider{{OpEmbeddingQuant, GPU}: append(r.list(OpEmbeddingQuant, GPU), f)}
				}
			}
			for range c.calls {
				err := r.Embedding(gpuArgs(gguf.TypeQ4_K))
				got := ""
				if err != nil {
					got = err.Error()
				}
				if got != c.wantErr {
					t.Fatalf("error %q, want %q", got, c.wantErr)
				}
				if strings.Contains(c.wantErr, "declined;") && !errors.Is(err, ErrDeclined) {
					t.Fatalf("all-declined error does not wrap ErrDeclined: %v", err)
				}
				if c.wantErr == refusal.Error() && err != refusal {
					t.Fatalf("the provider's refusal was not returned as is: %v", err)
				}
			}
			for i, n := range counts {
				if *n != c.wantCalls[i] {
					t.Errorf("provider %s called %d times, want %d", c.providers[i].name, *n, c.wantCalls[i])
				}
			}
			if got := r.ReadStats(OpEmbeddingQuant, GPU); got != c.stats {
				t.Errorf("stats %+v, want %+v", got, c.stats)
			}
			for _, k := range []pair{{OpEmbeddingFloat, GPU}, {OpEmbeddingQuant, CPU}} {
				if got := r.ReadStats(k.op, k.dev); got != (Stats{}) {
					t.Errorf("stats leaked into %v: %+v", k, got)
				}
			}
		})
	}
}

// TestStatsSwitch: nothing is counted while stats are off, counts are kept
// when switched off, ResetStats zeroes every pair, and each pair counts on
// its own.
func TestStatsSwitch(t *testing.T) {
	r := NewRegistry()
	mustReg(t, r, OpEmbeddingQuant, GPU, fake{name: "q"})
	mustReg(t, r, OpEmbeddingFloat, GPU, fake{name: "f"})
	call := func(tt gguf.Type) {
		t.Helper()
		if err := r.Embedding(gpuArgs(tt)); err != nil {
			t.Fatal(err)
		}
	}
	call(gguf.TypeQ4_K)
	if got := r.ReadStats(OpEmbeddingQuant, GPU); got != (Stats{}) {
		t.Fatalf("counted while off: %+v", got)
	}
	r.EnableStats(true)
	call(gguf.TypeQ4_K)
	call(gguf.TypeQ4_K)
	call(gguf.TypeBF16)
	if got, want := r.ReadStats(OpEmbeddingQuant, GPU), (Stats{Selections: 2, LastProvider: "q"}); got != want {
		t.Fatalf("quant stats %+v, want %+v", got, want)
	}
	if got, want := r.ReadStats(OpEmbeddingFloat, GPU), (Stats{Selections: 1, LastProvider: "f"}); got != want {
		t.Fatalf("float stats %+v, want %+v", got, want)
	}
	r.EnableStats(false)
	call(gguf.TypeQ4_K)
	if got := r.ReadStats(OpEmbeddingQuant, GPU); got.Selections != 2 {
		t.Fatalf("switching off lost or kept counting: %+v", got)
	}
	r.ResetStats()
	for _, op := range []Op{OpEmbeddingQuant, OpEmbeddingFloat} {
		if got := r.ReadStats(op, GPU); got != (Stats{}) {
			t.Fatalf("%s after reset: %+v", op, got)
		}
	}
	r.EnableStats(true)
	call(gguf.TypeQ4_K)
	if got, want := r.ReadStats(OpEmbeddingQuant, GPU), (Stats{Selections: 1, LastProvider: "q"}); got != want {
		t.Fatalf("after reset %+v, want %+v", got, want)
	}
}

// TestStatsConcurrent: concurrent dispatches all count (run with -race to
// check the locking too).
func TestStatsConcurrent(t *testing.T) {
	r := NewRegistry()
	var mu sync.Mutex
	n := 0
	mustReg(t, r, OpEmbeddingQuant, GPU, fake{name: "d", result: errFakeDecline})
	mustReg(t, r, OpEmbeddingQuant, GPU, lockedFake{name: "s", mu: &mu, n: &n})
	r.EnableStats(true)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if err := r.Embedding(gpuArgs(gguf.TypeQ8_0)); err != nil {
					t.Error(err)
				}
				_ = r.ReadStats(OpEmbeddingQuant, GPU)
			}
		})
	}
	wg.Wait()
	if got, want := r.ReadStats(OpEmbeddingQuant, GPU), (Stats{Selections: 400, Declines: 400, Fallbacks: 400, LastProvider: "s"}); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	if n != 400 {
		t.Fatalf("%d calls", n)
	}
}

type lockedFake struct {
	name string
	mu   *sync.Mutex
	n    *int
}

func (f lockedFake) Name() string              { return f.name }
func (f lockedFake) Supports(t gguf.Type) bool { return isAdmitted(t) }
func (f lockedFake) Embedding(_, _, _ *Tensor) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	*f.n++
	return nil
}

// TestDispatchNoProvider names the tier and device.
func TestDispatchNoProvider(t *testing.T) {
	r := NewRegistry()
	mustReg(t, r, OpEmbeddingQuant, CPU, fake{name: "q"})
	r.EnableStats(true)
	for _, c := range []struct {
		tt   gguf.Type
		want string
	}{
		{gguf.TypeQ4_K, "gather: Embedding: no EmbeddingQuant provider for device gpu"},
		{gguf.TypeF16, "gather: Embedding: no EmbeddingFloat provider for device gpu"},
	} {
		err := r.Embedding(gpuArgs(c.tt))
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
	if got := r.ReadStats(OpEmbeddingQuant, GPU); got != (Stats{}) {
		t.Errorf("stats %+v", got)
	}
}
