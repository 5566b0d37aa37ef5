package gather

import (
	"errors"
	"testing"

	"gathermut/gguf"
)

// hostOrderArgs are a valid CPU gather: a Q4_0 table [2, 96] of zero
// blocks, I32 ids {0, 1}, F32 out [2, 96].
func hostOrderArgs() (out, table, ids *Tensor) {
	table = &Tensor{Type: gguf.TypeQ4_0, Shape: []int64{2, 96}, Device: Host, Data: make([]byte, 2*3*18)}
	ids = &Tensor{Type: gguf.TypeI32, Shape: []int64{2}, Device: Host, Data: []byte{0, 0, 0, 0, 1, 0, 0, 0}}
	out = &Tensor{Type: gguf.TypeF32, Shape: []int64{2, 96}, Device: Host, Data: make([]byte, 2*96*4)}
	return out, table, ids
}

// width33 makes the rows 33 wide (not whole Q4_0 blocks); noIDs empties
// the request by its ids.
func width33(out, table *Tensor)  { table.Shape[1], out.Shape[1] = 33, 33 }
func noIDs(out, ids *Tensor)      { ids.Shape[0], out.Shape[0] = 0, 0 }
func vocab0(table *Tensor)        { table.Shape[0] = 0 }
func badID(ids *Tensor, v byte)   { ids.Data[4] = v }
func noTableData(table *Tensor)   { table.Data = nil }
func noOutData(out *Tensor)       { out.Data = nil }
func setIDs(ids *Tensor, n int64) { ids.Shape[0] = n }

const widthError = "gather: Embedding: table width 33 is not whole Q4_0 blocks of 32"

// hostCombinedEdges are two edge inputs at once on the host, and which
// check docs/row.md puts first: whole blocks (CheckArgs step 6) before the
// empty request, the empty request before vocab 0, vocab 0 before the
// data lengths, the data lengths before the ids.
var hostCombinedEdges = []struct {
	name string
	edit func(out, table, ids *Tensor)
	want string
}{
	{"vocab 0 and rows not whole blocks", func(o, tb, _ *Tensor) { vocab0(tb); width33(o, tb) }, widthError},
	{"no ids and rows not whole blocks", func(o, tb, id *Tensor) { noIDs(o, id); width33(o, tb) }, widthError},
	{"no ids on vocab 0 and rows not whole blocks", func(o, tb, id *Tensor) { noIDs(o, id); vocab0(tb); width33(o, tb) }, widthError},
	{"a bad id and rows not whole blocks", func(o, tb, id *Tensor) { badID(id, 7); width33(o, tb) }, widthError},
	{"no table data and rows not whole blocks", func(o, tb, _ *Tensor) { noTableData(tb); width33(o, tb) }, widthError},
	{"no ids and no data", func(o, tb, id *Tensor) { noIDs(o, id); noTableData(tb); noOutData(o) }, ""},
	{"vocab 0 and no table data", func(_, tb, _ *Tensor) { vocab0(tb); noTableData(tb) },
		"gather: Embedding: table has no rows (vocab 0), 2 ids requested"},
	{"a bad id and no table data", func(_, tb, id *Tensor) { badID(id, 7); noTableData(tb) },
		"gather: Embedding: table data holds 0 bytes, its shape [2 96] of Q4_0 needs 108"},
	{"a bad id and no out data", func(o, _, id *Tensor) { badID(id, 7); noOutData(o) },
		"gather: Embedding: out data holds 0 bytes, its shape [2 96] of F32 needs 768"},
	{"more ids than ids data, and a bad id", func(o, _, id *Tensor) { badID(id, 7); setIDs(id, 3); o.Shape[0] = 3 },
		"gather: Embedding: out data holds 768 bytes, its shape [3 96] of F32 needs 1152"},
}

// TestHostCombinedEdgeOrder (check order on edge inputs): Embedding and
// the CPU quant provider called directly, given two edge inputs at once,
// return the error of the check docs/row.md orders first (nil for an empty
// request) and write nothing to out.
func TestHostCombinedEdgeOrder(t *testing.T) {
	calls := []struct {
		name string
		call func(out, table, ids *Tensor) error
	}{{"Embedding", Embedding}, {"cpu-quant", cpuQuant{}.Embedding}}
	for _, c := range hostCombinedEdges {
		for _, call := range calls {
			t.Run(c.name+"/"+call.name, func(t *testing.T) {
				out, table, ids := hostOrderArgs()
				c.edit(out, table, ids)
				for i := range out.Data {
					out.Data[i] = 0xad
				}
				err := call.call(out, table, ids)
				if got := errText(err); got != c.want {
					t.Errorf("error %q, want %q", got, c.want)
				}
				for i, b := range out.Data {
					if b != 0xad {
						t.Fatalf("out byte %d written by a refused call", i)
					}
				}
			})
		}
	}
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// onGPU moves the three tensors to GPU 0 (CheckArgs only asks that they
// share a device).
func onGPU(out, table, ids *Tensor) {
	for _, x := range []*Tensor{out, table, ids} {
		x.Device = Device{Kind: GPU}
	}
}

// TestCPUDeclineOrder (check order on edge inputs): a CPU provider called
// directly with a request it declines for two reasons, or declines and
// finds empty, gives the reason prepareRows checks first: the device, then
// the table type, and both before the empty request (a provider declines
// what it cannot serve even when there is nothing to do, so that the
// registry moves on to one that can).
func TestCPUDeclineOrder(t *testing.T) {
	cases := []struct {
		name string
		p    Provider
		edit func(out, table, ids *Tensor)
		want string
	}{
		{"on a GPU and a quantized table", cpuFloat{}, onGPU,
			"gather: cpu-float: tensors on device gpu:0: gather: provider declined"},
		{"on a GPU, no ids and a quantized table", cpuFloat{},
			func(o, tb, id *Tensor) { onGPU(o, tb, id); noIDs(o, id) },
			"gather: cpu-float: tensors on device gpu:0: gather: provider declined"},
		{"no ids and a quantized table", cpuFloat{}, func(o, _, id *Tensor) { noIDs(o, id) },
			"gather: cpu-float: Q4_0 tables: gather: provider declined"},
		{"no ids on a GPU", cpuQuant{}, func(o, tb, id *Tensor) { onGPU(o, tb, id); noIDs(o, id) },
			"gather: cpu-quant: tensors on device gpu:0: gather: provider declined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, table, ids := hostOrderArgs()
			c.edit(out, table, ids)
			err := c.p.Embedding(out, table, ids)
			if got := errText(err); got != c.want || !errors.Is(err, ErrDeclined) {
				t.Errorf("%s: error %q, want %q (ErrDeclined)", c.p.Name(), got, c.want)
			}
		})
	}
}
