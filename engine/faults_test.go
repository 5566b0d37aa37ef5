package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// faultMemory is host memory that fails the operations a test names (the
// n-th call of a kind, counted from 1) and keeps account of what it holds,
// so that the engine's handling of device faults is tested without a device.
type faultMemory struct {
	hostMemory
	failHold     bool
	failAlloc    int
	failWrite    int
	corruptWrite int // write the ids as -1 instead
	failRead     int
	failFree     int

	allocs        []allocCall
	writes, reads int // calls so far
	frees         int // calls so far
	live          int // tensors held or allocated and not freed
}

// allocCall is one alloc request.
type allocCall struct {
	typ   gguf.Type
	shape []int64
	bytes int
}

func (m *faultMemory) hold(typ gguf.Type, shape []int64, host []byte) (gather.Tensor, error) {
	if m.failHold {
		return gather.Tensor{}, errors.New("fake hold failed")
	}
	m.live++
	return m.hostMemory.hold(typ, shape, host)
}

func (m *faultMemory) alloc(typ gguf.Type, shape []int64, bytes int) (gather.Tensor, error) {
	m.allocs = append(m.allocs, allocCall{typ, slices.Clone(shape), bytes})
	if len(m.allocs) == m.failAlloc {
		return gather.Tensor{}, fmt.Errorf("fake alloc %d failed", len(m.allocs))
	}
	m.live++
	return m.hostMemory.alloc(typ, shape, bytes)
}

func (m *faultMemory) write(dst *gather.Tensor, src []byte) error {
	m.writes++
	switch m.writes {
	case m.failWrite:
		return fmt.Errorf("fake write %d failed", m.writes)
	case m.corruptWrite:
		for i := range src {
			dst.Data[i] = 0xff
		}
		return nil
	}
	return m.hostMemory.write(dst, src)
}

func (m *faultMemory) read(dst []byte, src *gather.Tensor) error {
	m.reads++
	if m.reads == m.failRead {
		return fmt.Errorf("fake read %d failed", m.reads)
	}
	return m.hostMemory.read(dst, src)
}

// free releases a tensor once: freeing it again (its Data cleared) is a
// no-op, as with a device address cleared by its free. A failed free keeps
// the tensor.
func (m *faultMemory) free(t *gather.Tensor) error {
	if t.Data == nil {
		return nil
	}
	m.frees++
	if m.frees == m.failFree {
		return fmt.Errorf("fake free %d failed", m.frees)
	}
	t.Data = nil
	m.live--
	return nil
}

// buildWith loads the tiny Q4_0 model through build on mem.
func buildWith(t *testing.T, path string, mem deviceMemory) (*Engine, error) {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := build(f, mem)
	if err != nil {
		f.Close()
	}
	return e, err
}

// TestEmbedDeviceFaults: a device fault anywhere in the embed step fails
// CompleteTokens with the device's error (no tokens), after the embed
// step's buffers have been released; a failure to release them is reported
// when nothing failed before, and never replaces an earlier error. Every
// embed buffer is exactly the bytes of its ids or rows.
func TestEmbedDeviceFaults(t *testing.T) {
	path := writeModelFile(t, testModel(t, gguf.TypeQ4_0, false))
	ref, err := buildWith(t, path, &faultMemory{})
	if err != nil {
		t.Fatal(err)
	}
	refToks, _ := complete(t, ref, basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
	ref.Close()
	tests := []struct {
		name string
		mem  faultMemory
		want string // "": the tokens of ref
		live int    // tensors left allocated: the table, plus those whose free failed
	}{
		{"no fault", faultMemory{}, "", 1},
		{"ids alloc", faultMemory{failAlloc: 1}, "engine: embed: fake alloc 1 failed", 1},
		{"rows alloc", faultMemory{failAlloc: 2}, "engine: embed: fake alloc 2 failed", 1},
		{"rows alloc and ids free", faultMemory{failAlloc: 2, failFree: 1}, "engine: embed: fake alloc 2 failed\nfake free 1 failed", 2},
		{"prefill write", faultMemory{failWrite: 1}, "engine: embed: fake write 1 failed", 1},
		{"step write", faultMemory{failWrite: 2}, "engine: embed: fake write 2 failed", 1},
		{"prefill read", faultMemory{failRead: 1}, "engine: embed: fake read 1 failed", 1},
		{"step read", faultMemory{failRead: 3}, "engine: embed: fake read 3 failed", 1},
		{"ids corrupted", faultMemory{corruptWrite: 2}, "engine: embed: gather: ids[0] = -1 out of range [0, 128)", 1},
		{"release", faultMemory{failFree: 2}, "engine: embed: fake free 2 failed", 2},
		{"write and release", faultMemory{failWrite: 2, failFree: 1}, "engine: embed: fake write 2 failed", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := tt.mem
			e, err := buildWith(t, path, &mem)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			toks, err := e.CompleteTokens(basePrompt, Sampling{MaxTokens: 3, IgnoreEOS: true})
			switch {
			case tt.want == "" && (err != nil || !slices.Equal(toks, refToks)):
				t.Errorf("tokens %v, %v; want %v", toks, err, refToks)
			case tt.want != "" && (err == nil || err.Error() != tt.want || toks != nil):
				t.Errorf("tokens %v, error %q; want error %q", toks, err, tt.want)
			}
			if mem.live != tt.live {
				t.Errorf("%d tensors left allocated, want %d", mem.live, tt.live)
			}
		})
	}
	// Each call allocates its ids and rows at exactly their size.
	mem := &faultMemory{}
	e, err := buildWith(t, path, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, n := range []int{5, 1} {
		mem.allocs = nil
		complete(t, e, basePrompt[:n], Sampling{MaxTokens: 2, IgnoreEOS: true})
		want := []allocCall{
			{gguf.TypeI32, []int64{int64(n)}, 4 * n},
			{gguf.TypeBF16, []int64{int64(n), 256}, 2 * 256 * n},
		}
		if !slices.EqualFunc(mem.allocs, want, func(a, b allocCall) bool {
			return a.typ == b.typ && slices.Equal(a.shape, b.shape) && a.bytes == b.bytes
		}) {
			t.Errorf("prompt of %d: allocations %v, want %v", n, mem.allocs, want)
		}
	}
}

// TestBuildHoldFault: a table the device cannot hold fails the load, named.
func TestBuildHoldFault(t *testing.T) {
	path := writeModelFile(t, testModel(t, gguf.TypeQ4_0, false))
	e, err := buildWith(t, path, &faultMemory{failHold: true})
	if want := `tensor "token_embd.weight": fake hold failed`; err == nil || err.Error() != want || e != nil {
		t.Errorf("build: %v, %v; want error %q", e, err, want)
	}
}

// TestCloseFaults: Close frees the table once and reports a failure to;
// a second Close does nothing.
func TestCloseFaults(t *testing.T) {
	path := writeModelFile(t, testModel(t, gguf.TypeQ4_0, false))
	for _, failFree := range []int{0, 1} {
		mem := &faultMemory{failFree: failFree}
		e, err := buildWith(t, path, mem)
		if err != nil {
			t.Fatal(err)
		}
		err = e.Close()
		if want := fmt.Sprintf("fake free %d failed", failFree); (failFree == 0) != (err == nil) || err != nil && err.Error() != want {
			t.Errorf("failFree %d: Close: %v", failFree, err)
		}
		if err := e.Close(); err != nil || mem.frees != 1 {
			t.Errorf("failFree %d: second Close: %v after %d frees, want nil after 1", failFree, err, mem.frees)
		}
	}
}
