package gathertest_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// cpu returns the registered CPU provider of op.
func cpu(t *testing.T, op gather.Op) gather.Provider {
	t.Helper()
	ps := gather.Providers(op, gather.CPU)
	if len(ps) != 1 {
		t.Fatalf("%d %s providers on the CPU", len(ps), op)
	}
	return ps[0]
}

func subject(p gather.Provider, op gather.Op) gathertest.Subject {
	return gathertest.Subject{Provider: p, Op: op, Memory: gathertest.Host{}, AnyOutAddress: true}
}

// TestCPUProvidersPass: the CPU providers, which keep the contract, pass
// the whole suite.
func TestCPUProvidersPass(t *testing.T) {
	for _, op := range []gather.Op{gather.OpEmbeddingQuant, gather.OpEmbeddingFloat} {
		if err := gathertest.TestProvider(subject(cpu(t, op), op)); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
}

// broken is a CPU provider with one fault: call replaces its Embedding,
// supports (when set) its Supports.
type broken struct {
	inner    gather.Provider
	call     func(inner gather.Provider, out, table, ids *gather.Tensor) error
	supports func(t gguf.Type) bool
}

func (b broken) Name() string { return "broken " + b.inner.Name() }

func (b broken) Supports(t gguf.Type) bool {
	if b.supports != nil {
		return b.supports(t)
	}
	return b.inner.Supports(t)
}

func (b broken) Embedding(out, table, ids *gather.Tensor) error {
	return b.call(b.inner, out, table, ids)
}

// outBytes is the byte size of out's rows.
func outBytes(out *gather.Tensor) int {
	n, _ := out.Bytes()
	return int(n)
}

// declined is an error that reads as a decline with another error's text.
type declined struct{ error }

func (declined) Is(target error) bool { return target == gather.ErrDeclined }

func (d declined) Unwrap() error { return d.error }

// idsOf reads the ids of a host tensor.
func idsOf(ids *gather.Tensor) []int64 {
	var v []int64
	for i := range ids.Shape[0] {
		if ids.Type == gguf.TypeI64 {
			v = append(v, int64(binary.LittleEndian.Uint64(ids.Data[8*i:])))
		} else {
			v = append(v, int64(int32(binary.LittleEndian.Uint32(ids.Data[4*i:]))))
		}
	}
	return v
}

// faults are providers that each break one rule, the check that must see
// it, and a piece of the failure it must report.
func faults(t *testing.T) []struct {
	name  string
	op    gather.Op
	p     gather.Provider
	check func(gathertest.Subject) error
	want  string
} {
	q, f := cpu(t, gather.OpEmbeddingQuant), cpu(t, gather.OpEmbeddingFloat)
	wrap := func(inner gather.Provider, call func(gather.Provider, *gather.Tensor, *gather.Tensor, *gather.Tensor) error) gather.Provider {
		return broken{inner: inner, call: call}
	}
	after := func(inner gather.Provider, then func(out, table, ids *gather.Tensor, err error) error) gather.Provider {
		return wrap(inner, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			return then(out, table, ids, p.Embedding(out, table, ids))
		})
	}
	var stuck bool
	type fault = struct {
		name  string
		op    gather.Op
		p     gather.Provider
		check func(gathertest.Subject) error
		want  string
	}
	return []fault{
		{"flips a byte", gather.OpEmbeddingQuant, after(q, func(out, _, _ *gather.Tensor, err error) error {
			if err == nil && outBytes(out) > 0 {
				out.Data[0] ^= 1
			}
			return err
		}), gathertest.CheckGathers, "out row 0 differs at byte 0"},
		{"flips a float byte", gather.OpEmbeddingFloat, after(f, func(out, _, _ *gather.Tensor, err error) error {
			if err == nil && outBytes(out) > 0 {
				out.Data[outBytes(out)-1] ^= 0x80
			}
			return err
		}), gathertest.CheckGathers, "differs at byte"},
		{"writes past out", gather.OpEmbeddingQuant, after(q, func(out, _, _ *gather.Tensor, err error) error {
			if err == nil {
				out.Data[outBytes(out)] = 0
			}
			return err
		}), gathertest.CheckGathers, "byte 0 after out was written"},
		{"prefixes its refusals", gather.OpEmbeddingQuant, after(q, func(_, _, _ *gather.Tensor, err error) error {
			if err != nil {
				return fmt.Errorf("mine: %w", err)
			}
			return nil
		}), gathertest.CheckRefusals, `nil table: error "mine: gather: Embedding: table is nil", want "gather: Embedding: table is nil"`},
		{"accepts a malformed call", gather.OpEmbeddingQuant, after(q, func(out, _, _ *gather.Tensor, err error) error {
			if out != nil && len(out.Shape) == 1 {
				return nil
			}
			return err
		}), gathertest.CheckRefusals, `out rank 1: accepted, want "gather: Embedding: out must be 2-D [len(ids), hidden], has rank 1"`},
		{"declines its refusals", gather.OpEmbeddingFloat, after(f, func(_, _, _ *gather.Tensor, err error) error {
			if err != nil {
				return declined{err}
			}
			return nil
		}), gathertest.CheckRefusals, "the refusal reads as a decline"},
		{"touches out when refusing", gather.OpEmbeddingQuant, wrap(q, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if out != nil && len(out.Data) > 0 && (table == nil || len(table.Shape) != 2 || table.Shape[0] == 0) {
				out.Data[0] = 0
			}
			return p.Embedding(out, table, ids)
		}), gathertest.CheckRefusals, "the refused call touched out: out row 0 differs at byte 0"},
		{"stays broken after a refusal", gather.OpEmbeddingQuant, wrap(q, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if stuck {
				stuck = false
				return errors.New("still failing")
			}
			err := p.Embedding(out, table, ids)
			stuck = err != nil
			return err
		}), gathertest.CheckRefusals, "the valid call after the refusal: still failing"},
		{"declines before validating", gather.OpEmbeddingQuant, wrap(q, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if table != nil && table.Device.Kind != gather.CPU {
				return fmt.Errorf("not mine: %w", gather.ErrDeclined)
			}
			return p.Embedding(out, table, ids)
		}), gathertest.CheckDeclines, "a malformed call on gathertest-elsewhere:0: not mine: gather: provider declined, want the refusal"},
		{"refuses other devices", gather.OpEmbeddingFloat, wrap(f, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if table != nil && table.Device.Kind != gather.CPU {
				return errors.New("wrong device")
			}
			return p.Embedding(out, table, ids)
		}), gathertest.CheckDeclines, "tensors on gathertest-elsewhere:0: wrong device, want a decline"},
		{"serves the other tier", gather.OpEmbeddingFloat, wrap(f, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if table != nil && !table.Type.IsFloat() {
				return nil
			}
			return p.Embedding(out, table, ids)
		}), gathertest.CheckDeclines, "a Q8_0 table: <nil>, want a decline"},
		{"touches out when declining", gather.OpEmbeddingQuant, wrap(q, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if table != nil && table.Type.IsFloat() && out != nil && out.Data != nil {
				out.Data[5] = 0
			}
			return p.Embedding(out, table, ids)
		}), gathertest.CheckDeclines, "the declined call touched out: out row 0 differs at byte 5"},
		{"supports an extra codec", gather.OpEmbeddingQuant, broken{inner: q, call: gather.Provider.Embedding,
			supports: func(t gguf.Type) bool { return t == gguf.TypeQ4_1 || q.Supports(t) }},
			gathertest.CheckDeclines, "supports Q4_1, which Embedding refuses"},
		{"lacks a codec", gather.OpEmbeddingQuant, broken{inner: q, call: gather.Provider.Embedding,
			supports: func(t gguf.Type) bool { return t != gguf.TypeQ6_K && q.Supports(t) }},
			gathertest.CheckDeclines, "does not support Q6_K, a type of its tier"},
		{"refuses empty requests", gather.OpEmbeddingFloat, after(f, func(out, table, ids *gather.Tensor, err error) error {
			if err == nil && (ids.Shape[0] == 0 || table.Shape[1] == 0) {
				return errors.New("nothing to do")
			}
			return err
		}), gathertest.CheckEmpty, "no ids, vocab 0, BF16 table, F32 out: nothing to do, want nil"},
		{"writes on an empty request", gather.OpEmbeddingQuant, after(q, func(out, table, ids *gather.Tensor, err error) error {
			if err == nil && (ids.Shape[0] == 0 || table.Shape[1] == 0) {
				out.Data[0] = 0
			}
			return err
		}), gathertest.CheckEmpty, "byte 0 after out was written"},
		{"truncates ids to int32", gather.OpEmbeddingQuant, wrap(q, func(p gather.Provider, out, table, ids *gather.Tensor) error {
			if ids != nil && ids.Type == gguf.TypeI64 && ids.Data != nil {
				cut := *ids
				cut.Data = make([]byte, len(ids.Data))
				for i, id := range idsOf(ids) {
					binary.LittleEndian.PutUint64(cut.Data[8*i:], uint64(int64(int32(id))))
				}
				ids = &cut
			}
			return p.Embedding(out, table, ids)
		}), gathertest.CheckBadIDs, "I64 4294967297, F32 out: error <nil>, want gather: ids[3] = 4294967297 out of range [0, 128)"},
		{"names the wrong position", gather.OpEmbeddingFloat, after(f, func(_, _, _ *gather.Tensor, err error) error {
			var re *gather.IDRangeError
			if errors.As(err, &re) {
				return gather.IDError(re.Pos+1, re.Value, re.Vocab)
			}
			return err
		}), gathertest.CheckBadIDs, "want gather: ids[3] = -1 out of range [0, 128)"},
		{"loses the error's type", gather.OpEmbeddingQuant, after(q, func(_, _, _ *gather.Tensor, err error) error {
			var re *gather.IDRangeError
			if errors.As(err, &re) {
				return errors.New(err.Error())
			}
			return err
		}), gathertest.CheckBadIDs, "is not the *gather.IDRangeError"},
		{"declines bad ids", gather.OpEmbeddingQuant, after(q, func(_, _, _ *gather.Tensor, err error) error {
			var re *gather.IDRangeError
			if errors.As(err, &re) {
				return declined{err}
			}
			return err
		}), gathertest.CheckBadIDs, "the refusal reads as a decline"},
		{"writes rows before a bad id", gather.OpEmbeddingQuant, partialRows(q), gathertest.CheckBadIDs,
			"after the refusal: out row 0 differs"},
		{"declines valid calls", gather.OpEmbeddingQuant, after(q, func(_, _, _ *gather.Tensor, err error) error {
			if err == nil {
				return fmt.Errorf("not today: %w", gather.ErrDeclined)
			}
			return err
		}), gathertest.CheckStats, "a valid call through the registry: gather: Embedding: every EmbeddingQuant provider for device cpu declined"},
		{"cannot be registered", gather.OpEmbeddingFloat, broken{inner: f, call: gather.Provider.Embedding,
			supports: func(t gguf.Type) bool { return t != gguf.TypeBF16 && f.Supports(t) }},
			gathertest.CheckStats, "registering: gather: register EmbeddingFloat provider"},
	}
}

// partialRows is the quant provider as a GPU behaves: before it reports a
// bad id it has written the rows at the valid positions.
func partialRows(q gather.Provider) gather.Provider {
	return broken{inner: q, call: func(p gather.Provider, out, table, ids *gather.Tensor) error {
		err := p.Embedding(out, table, ids)
		var re *gather.IDRangeError
		if !errors.As(err, &re) {
			return err
		}
		row, width := outBytes(out)/int(out.Shape[0]), 4
		if ids.Type == gguf.TypeI64 {
			width = 8
		}
		for i, id := range idsOf(ids) {
			if id < 0 || id >= table.Shape[0] {
				continue
			}
			one := &gather.Tensor{Type: ids.Type, Shape: []int64{1}, Device: ids.Device, Data: ids.Data[i*width:]}
			o := &gather.Tensor{Type: out.Type, Shape: []int64{1, out.Shape[1]}, Device: out.Device, Data: out.Data[i*row:]}
			if err := p.Embedding(o, table, one); err != nil {
				return err
			}
		}
		return err
	}}
}

// TestSuiteFindsFaults: each broken provider fails the check that looks
// for its fault, with a message that says what is wrong.
func TestSuiteFindsFaults(t *testing.T) {
	for _, c := range faults(t) {
		t.Run(c.name, func(t *testing.T) {
			err := c.check(subject(c.p, c.op))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

// TestProviderRunsEveryCheck: a provider with a fault for each check fails
// TestProvider with every check's report.
func TestProviderRunsEveryCheck(t *testing.T) {
	q := cpu(t, gather.OpEmbeddingQuant)
	p := broken{inner: q,
		supports: func(t gguf.Type) bool { return t == gguf.TypeQ4_1 || t != gguf.TypeQ6_K && q.Supports(t) },
		call: func(p gather.Provider, out, table, ids *gather.Tensor) error {
			err := p.Embedding(out, table, ids)
			switch {
			case err != nil:
				return fmt.Errorf("mine: %w", err)
			case ids.Shape[0] == 0 || table.Shape[1] == 0:
				return errors.New("nothing to do")
			}
			out.Data[0] ^= 1
			return nil
		}}
	err := gathertest.TestProvider(subject(p, gather.OpEmbeddingQuant))
	for _, check := range []string{"declines", "refusals", "empty requests", "bad ids", "gathers", "stats"} {
		if err == nil || !strings.Contains(err.Error(), "gathertest: "+check+" (broken cpu-quant on EmbeddingQuant on cpu:0):") {
			t.Errorf("TestProvider's error has no %s report: %v", check, err)
		}
	}
}

// TestPartialRows: a provider that writes the rows at valid positions
// before it reports a bad id passes the bad-id check when the subject
// allows it (a GPU), and only then.
func TestPartialRows(t *testing.T) {
	s := subject(partialRows(cpu(t, gather.OpEmbeddingQuant)), gather.OpEmbeddingQuant)
	s.PartialRows = true
	if err := gathertest.CheckBadIDs(s); err != nil {
		t.Fatal(err)
	}
	// The CPU provider writes nothing, which a GPU subject must not do: a
	// valid row left untouched is wrong there.
	s = subject(cpu(t, gather.OpEmbeddingQuant), gather.OpEmbeddingQuant)
	s.PartialRows = true
	if err := gathertest.CheckBadIDs(s); err == nil || !strings.Contains(err.Error(), "after the refusal: out row 0 differs") {
		t.Fatalf("an untouched out with PartialRows: %v", err)
	}
}

// TestReportIsBounded: a provider wrong everywhere gets a bounded report
// that says how many failures it left out.
func TestReportIsBounded(t *testing.T) {
	c := faults(t)[0] // flips a byte of every out
	err := gathertest.CheckGathers(subject(c.p, c.op))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[0], "gathertest: gathers (broken cpu-quant on EmbeddingQuant on cpu:0):") ||
		!strings.HasPrefix(lines[9], "\t(and ") {
		t.Fatalf("report of %d lines:\n%v", len(lines), err)
	}
}

// failingMemory fails every allocation, or every read back.
type failingMemory struct{ readOnly bool }

func (failingMemory) Device() gather.Device { return gather.Host }

func (m failingMemory) Alloc(data []byte) (gathertest.Buffer, error) {
	if m.readOnly {
		b, _ := gathertest.Host{}.Alloc(data)
		return unreadable{b}, nil
	}
	return nil, errors.New("out of memory")
}

type unreadable struct{ gathertest.Buffer }

func (unreadable) Bytes() ([]byte, error) { return nil, errors.New("cannot read") }

// TestUnusableSubjects: a subject without a provider or memory, with an
// unknown operation, or whose memory fails, fails every check saying why.
func TestUnusableSubjects(t *testing.T) {
	q := cpu(t, gather.OpEmbeddingQuant)
	checks := map[string]func(gathertest.Subject) error{
		"declines": gathertest.CheckDeclines, "refusals": gathertest.CheckRefusals, "empty requests": gathertest.CheckEmpty,
		"bad ids": gathertest.CheckBadIDs, "gathers": gathertest.CheckGathers, "stats": gathertest.CheckStats,
	}
	for _, c := range []struct {
		name string
		s    gathertest.Subject
		want string // in every check's report, after its name
	}{
		{"no provider", gathertest.Subject{Op: gather.OpEmbeddingQuant, Memory: gathertest.Host{}},
			"(<nil provider> on EmbeddingQuant on cpu:0):\n\tthe subject needs a provider and a memory"},
		{"no memory", gathertest.Subject{Provider: q, Op: gather.OpEmbeddingQuant},
			"(cpu-quant on EmbeddingQuant on no memory):\n\tthe subject needs a provider and a memory"},
		{"unknown operation", gathertest.Subject{Provider: q, Op: "EmbeddingSome", Memory: gathertest.Host{}},
			`(cpu-quant on EmbeddingSome on cpu:0):` + "\n\t" + `gathertest: unknown operation "EmbeddingSome"`},
		{"memory full", gathertest.Subject{Provider: q, Op: gather.OpEmbeddingQuant, Memory: failingMemory{}},
			"out of memory"},
	} {
		for name, check := range checks {
			err := check(c.s)
			if err == nil || !strings.Contains(err.Error(), "gathertest: "+name+" ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v\nwant %q", c.name, name, err, c.want)
			}
		}
	}
	s := gathertest.Subject{Provider: q, Op: gather.OpEmbeddingQuant, Memory: failingMemory{readOnly: true}}
	for name, check := range checks {
		if name == "stats" {
			continue // reads nothing back
		}
		if err := check(s); err == nil || !strings.Contains(err.Error(), "reading out back: cannot read") {
			t.Errorf("%s with an unreadable memory: %v", name, err)
		}
	}
}
