package hipkern

import (
	"errors"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// orderArgs are TestProviderEmbedding's arguments (std): a Q4_K table
// [100, 512], 3 I64 ids, BF16 out, on gpu:0.
type orderArgs struct{ out, table, ids *gather.Tensor }

// onDevice puts all three tensors on GPU ordinal k.
func (a *orderArgs) onDevice(k int) {
	a.table.Device.Ordinal, a.ids.Device.Ordinal, a.out.Device.Ordinal = k, k, k
}

// noIDs makes the request empty by its ids.
func (a *orderArgs) noIDs() { a.ids.Shape[0], a.out.Shape[0] = 0, 0 }

// badWidth makes the rows 300 wide: not whole Q4_K blocks.
func (a *orderArgs) badWidth() { a.table.Shape[1], a.out.Shape[1] = 300, 300 }

// rowSizeError is the refusal of a width that is not whole blocks.
const rowSizeError = "gather: Embedding: table width 300 is not whole Q4_K blocks of 256"

// combinedEdges are two edge inputs at once, and which check docs/row.md
// puts first: the structural checks (whole blocks is step 6) before the
// empty request, the empty request before vocab 0 and before everything
// the GPU provider checks itself (the device ordinal, the addresses).
var combinedEdges = []struct {
	name string
	edit func(a *orderArgs)
	want string
}{
	{"vocab 0 and rows not whole blocks", func(a *orderArgs) { a.table.Shape[0] = 0; a.badWidth() }, rowSizeError},
	{"no ids and rows not whole blocks", func(a *orderArgs) { a.noIDs(); a.badWidth() }, rowSizeError},
	{"no ids on vocab 0 and rows not whole blocks", func(a *orderArgs) { a.noIDs(); a.table.Shape[0] = 0; a.badWidth() }, rowSizeError},
	{"device 1 and rows not whole blocks", func(a *orderArgs) { a.onDevice(1); a.badWidth() }, rowSizeError},
	{"device 1 and no ids", func(a *orderArgs) { a.onDevice(1); a.noIDs() }, ""},
	{"device -1 and no ids", func(a *orderArgs) { a.onDevice(-1); a.noIDs() }, ""},
	{"device 1 and zero width", func(a *orderArgs) { a.onDevice(1); a.table.Shape[1], a.out.Shape[1] = 0, 0 }, ""},
	{"device 1 on vocab 0", func(a *orderArgs) { a.onDevice(1); a.table.Shape[0] = 0 },
		"gather: Embedding: table has no rows (vocab 0), 3 ids requested"},
	{"no ids and no device addresses", func(a *orderArgs) {
		a.noIDs()
		a.table.DevPtr, a.ids.DevPtr, a.out.DevPtr = 0, 0, 0
	}, ""},
	{"device 1 and no device addresses", func(a *orderArgs) {
		a.onDevice(1)
		a.table.DevPtr = 0
	}, "hipkern: hip.EmbeddingQuant: device gpu:1: the library sees 1 GPUs"},
}

// TestCombinedEdgeOrder (check order on edge inputs): the GPU provider,
// with a fake library of one device, given two edge inputs at once,
// returns the error of the check docs/row.md orders first (nil for an
// empty request), and launches nothing.
func TestCombinedEdgeOrder(t *testing.T) {
	for _, c := range combinedEdges {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeLib()
			o, tb, id := gpuArgs(gguf.TypeQ4_K, 100, 512, 3, gguf.TypeI64, gguf.TypeBF16)
			a := orderArgs{o, tb, id}
			c.edit(&a)
			err := newProvider(f, true, 1).Embedding(a.out, a.table, a.ids)
			if got := errText(err); got != c.want {
				t.Errorf("error %q, want %q", got, c.want)
			}
			if len(f.gathers) != 0 {
				t.Errorf("%d library gathers, want none", len(f.gathers))
			}
		})
	}
}

// TestGPUDeclineOrder (check order on edge inputs): the GPU providers,
// given a request they decline for two reasons, or decline and find
// empty, give the reason Embedding checks first: the device kind, then
// the table type, both before the empty request.
func TestGPUDeclineOrder(t *testing.T) {
	onHost := func(a *orderArgs) {
		a.table.Device, a.ids.Device, a.out.Device = gather.Host, gather.Host, gather.Host
	}
	cases := []struct {
		name  string
		quant bool
		edit  func(a *orderArgs)
		want  string
	}{
		{"on the host and a quantized table", false, onHost,
			"hipkern: hip.EmbeddingFloat: tensors on cpu:0, not a GPU: gather: provider declined"},
		{"no ids and a quantized table", false, func(a *orderArgs) { a.noIDs() },
			"hipkern: hip.EmbeddingFloat: Q4_K tables: gather: provider declined"},
		{"no ids on the host", true, func(a *orderArgs) { onHost(a); a.noIDs() },
			"hipkern: hip.EmbeddingQuant: tensors on cpu:0, not a GPU: gather: provider declined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeLib()
			o, tb, id := gpuArgs(gguf.TypeQ4_K, 100, 512, 3, gguf.TypeI64, gguf.TypeBF16)
			a := orderArgs{o, tb, id}
			c.edit(&a)
			err := newProvider(f, c.quant, 1).Embedding(a.out, a.table, a.ids)
			if got := errText(err); got != c.want || !errors.Is(err, gather.ErrDeclined) {
				t.Errorf("error %q, want %q (ErrDeclined)", got, c.want)
			}
		})
	}
}
