package gather

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"gathermut/gguf"
)

// Op names an operation that providers implement.
type Op string

// The Embedding operation has one provider tier per table kind.
const (
	OpEmbeddingFloat Op = "EmbeddingFloat" // F32, F16 and BF16 tables
	OpEmbeddingQuant Op = "EmbeddingQuant" // tables in an admitted block codec
)

// Provider serves one operation on one device kind.
type Provider interface {
	// Name identifies the provider in statistics and errors.
	Name() string
	// Supports reports whether the provider serves tables of type table.
	Supports(table gguf.Type) bool
	// Embedding gathers the rows; it returns an error wrapping ErrDeclined to
	// let the next provider registered for the pair try.
	Embedding(out, table, ids *Tensor) error
}

// ErrDeclined is wrapped by a provider's error when it declines a call it
// cannot serve (for example a tensor on a device it cannot address), as
// opposed to refusing bad input.
var ErrDeclined = errors.New("gather: provider declined")

// Stats counts the dispatches of one (operation, device) pair while
// statistics are enabled.
type Stats struct {
	Selections   int64  // calls a provider took (it returned nil or an error other than a decline)
	Declines     int64  // providers that declined a call, or were skipped as not supporting its table type
	Fallbacks    int64  // calls taken by a provider after at least one decline
	LastProvider string // name of the provider most recently selected
}

type pair struct {
	op  Op
	dev DeviceKind
}

// Registry holds providers keyed by (operation, device kind), in
// registration order, and their dispatch statistics. The zero value is an
// empty registry ready to use; the package-level functions use a default
// one, in which the CPU providers register themselves.
type Registry struct {
	mu        sync.RWMutex
	providers map[pair][]Provider // only appended under mu: a reader's slice never changes within its length

	statsOn atomic.Bool
	statsMu sync.Mutex
	stats   map[pair]*Stats
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// registry is the default registry behind the package-level functions.
var registry = NewRegistry()

// requiredTypes returns the table types a provider for op must support, or
// false for an unknown op.
func requiredTypes(op Op) ([]gguf.Type, bool) {
	switch op {
	case OpEmbeddingQuant:
		return Admitted(), true
	case OpEmbeddingFloat:
		return []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16}, true
	}
	return nil, false
}

// Register adds p as the last provider for (op, dev). It refuses a nil
// provider, an empty device kind, an unknown operation, a second provider
// of the same name for the pair, and a provider that does not support every
// table type of its tier: all Admitted() codecs for OpEmbeddingQuant, F32,
// F16 and BF16 for OpEmbeddingFloat. A provider that would be selected for a
// codec it cannot decode is thus impossible.
func (r *Registry) Register(op Op, dev DeviceKind, p Provider) error {
	if p == nil {
		return fmt.Errorf("gather: register %s provider for device %s: provider is nil", op, dev)
	}
	name := p.Name()
	if dev == "" {
		return fmt.Errorf("gather: register %s provider %q: empty device kind", op, name)
	}
	need, ok := requiredTypes(op)
	if !ok {
		return fmt.Errorf("gather: register provider %q for device %s: unknown operation %q", name, dev, op)
	}
	for _, t := range need {
		if !p.Supports(t) {
			return fmt.Errorf("gather: register %s provider %q for device %s: it does not support %v", op, name, dev, t)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := pair{op, dev}
	old := r.providers[k]
	for _, q := range old {
		if q.Name() == name {
			return fmt.Errorf("gather: register %s provider %q for device %s: already registered", op, name, dev)
		}
	}
	if r.providers == nil {
		r.providers = make(map[pair][]Provider)
	}
	r.providers[k] = append(old, p)
	return nil
}

// mustRegister registers p or panics: a registration that fails at init is
// a programming error (a provider claiming a tier whose types it lacks).
func (r *Registry) mustRegister(op Op, dev DeviceKind, p Provider) {
	if err := r.Register(op, dev, p); err != nil {
		panic(err.Error())
	}
}

// Providers returns the providers for (op, dev) in registration order. The
// caller owns the returned slice.
func (r *Registry) Providers(op Op, dev DeviceKind) []Provider {
	return append([]Provider(nil), r.list(op, dev)...)
}

func (r *Registry) list(op Op, dev DeviceKind) []Provider {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.providers[pair{op, dev}]
}

// opFor returns the provider tier that serves tables of type t.
func opFor(t gguf.Type) Op {
	if t.IsFloat() {
		return OpEmbeddingFloat
	}
	return OpEmbeddingQuant
}

// CanGather reports whether a provider registered for dev in the tier of t
// (OpEmbeddingFloat for float types, else OpEmbeddingQuant) supports tables
// of type t.
func (r *Registry) CanGather(dev DeviceKind, t gguf.Type) bool {
	for _, p := range r.list(opFor(t), dev) {
		if p.Supports(t) {
			return true
		}
	}
	return false
}

// EnableStats turns dispatch statistics on or off. While off nothing is
// counted; the counts already taken are kept.
func (r *Registry) EnableStats(on bool) { r.statsOn.Store(on) }

// ReadStats returns the counts of (op, dev); zero for a pair never counted.
func (r *Registry) ReadStats(op Op, dev DeviceKind) Stats {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	if s := r.stats[pair{op, dev}]; s != nil {
		return *s
	}
	return Stats{}
}

// ResetStats zeroes the counts of every pair.
func (r *Registry) ResetStats() {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	r.stats = nil
}

// count records one dispatch of (op, dev): declines providers declined, and
// selected names the provider that took the call ("" when none did).
func (r *Registry) count(k pair, declines int64, selected string) {
	if !r.statsOn.Load() {
		return
	}
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	s := r.stats[k]
	if s == nil {
		if r.stats == nil {
			r.stats = make(map[pair]*Stats)
		}
		s = &Stats{}
		r.stats[k] = s
	}
	s.Declines += declines
	if selected != "" {
		s.Selections++
		s.LastProvider = selected
		if declines > 0 {
			s.Fallbacks++
		}
	}
}

// Embedding validates the arguments, steps 1-8 (see the package-level
// Embedding), and dispatches the call to the providers of r registered for
// the table's tier and device kind. The checks that follow in the order of docs/row.md
// (empty request, vocab 0, sizes, ids) are the provider's, so that a call
// gets the same answer through Embedding as from the provider directly.
func (r *Registry) Embedding(out, table, ids *Tensor) error {
	if err := CheckArgs(out, table, ids); err != nil {
		return err
	}
	return r.dispatch(opFor(table.Type), table.Device.Kind, out, table, ids)
}

// dispatch tries the providers of (op, dev) in registration order. A
// provider that does not support the table type is skipped and, like one
// that returns an error wrapping ErrDeclined, counted as a decline. The
// first provider that returns anything else is selected, and its result
// (nil, or its refusal of the input) is the call's result.
func (r *Registry) dispatch(op Op, dev DeviceKind, out, table, ids *Tensor) error {
	k := pair{op, dev}
	ps := r.list(op, dev)
	if len(ps) == 0 {
		return fmt.Errorf("gather: Embedding: no %s provider for device %s", op, dev)
	}
	var declines int64
	var last error
	for _, p := range ps {
		if !p.Supports(table.Type) {
			declines++
			last = fmt.Errorf("gather: %s does not support %v tables: %w", p.Name(), table.Type, ErrDeclined)
			continue
		}
		err := p.Embedding(out, table, ids)
		if errors.Is(err, ErrDeclined) {
			declines++
			last = err
			continue
		}
		r.count(k, declines, p.Name())
		return err
	}
	r.count(k, declines, "")
	return fmt.Errorf("gather: Embedding: every %s provider for device %s declined; last: %w", op, dev, last)
}

// Register adds p to the default registry; see (*Registry).Register.
func Register(op Op, dev DeviceKind, p Provider) error { return registry.Register(op, dev, p) }

// mustRegister registers p in the default registry or panics.
func mustRegister(op Op, dev DeviceKind, p Provider) { registry.mustRegister(op, dev, p) }

// Providers returns the default registry's providers for (op, dev).
func Providers(op Op, dev DeviceKind) []Provider { return registry.Providers(op, dev) }

// CanGather reports whether the default registry can gather tables of type
// t on dev; see (*Registry).CanGather.
func CanGather(dev DeviceKind, t gguf.Type) bool { return registry.CanGather(dev, t) }

// EnableStats turns the default registry's statistics on or off.
func EnableStats(on bool) { registry.EnableStats(on) }

// ReadStats returns the default registry's counts of (op, dev).
func ReadStats(op Op, dev DeviceKind) Stats { return registry.ReadStats(op, dev) }

// ResetStats zeroes the default registry's counts.
func ResetStats() { registry.ResetStats() }
