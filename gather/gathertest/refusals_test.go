package gathertest_test

import (
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gather/gathertest"
	"gathermut/gguf"
)

// TestRefusals: the table is built for a base whose blocks fit a 64-wide
// row; each case has its own name; the cases a block size makes reachable
// are there for that base only; the device cases name the base device and
// another; only the cases marked HostOnly touch Data, so the others apply
// to tensors without host bytes.
func TestRefusals(t *testing.T) {
	for _, bad := range []gguf.Type{gguf.TypeQ4_K, gguf.Type(99)} {
		if _, err := gathertest.Refusals(bad, gather.Host); err == nil ||
			err.Error() != "gathertest: refusals for base "+bad.String()+": want a type whose blocks fit a 64-wide row" {
			t.Errorf("base %v: %v", bad, err)
		}
	}
	gpu := gather.Device{Kind: gather.GPU, Ordinal: 2}
	for _, c := range []struct {
		base       gguf.Type
		dev        gather.Device
		has, lacks []string
	}{
		{gguf.TypeQ8_0, gather.Host, []string{"width not whole blocks", "width one past whole blocks"}, []string{"ids bytes overflow"}},
		{gguf.TypeF32, gpu, []string{"ids bytes overflow", "ids bytes overflow before out data"}, []string{"width not whole blocks"}},
	} {
		rs, err := gathertest.Refusals(c.base, c.dev)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]gathertest.Refusal{}
		for _, r := range rs {
			if _, dup := names[r.Name]; dup {
				t.Errorf("%v: two cases named %q", c.base, r.Name)
			}
			names[r.Name] = r
			if r.Step < 0 || r.Step > gathertest.ProviderStep || !strings.HasPrefix(r.Want, "gather: Embedding: ") {
				t.Errorf("%v %s: step %d, want %q", c.base, r.Name, r.Step, r.Want)
			}
			if !r.HostOnly {
				call := gathertest.Call{
					Out:   &gather.Tensor{Type: gguf.TypeF32, Shape: []int64{3, 64}, Device: c.dev, DevPtr: 1},
					Table: &gather.Tensor{Type: c.base, Shape: []int64{4, 64}, Device: c.dev, DevPtr: 2},
					IDs:   &gather.Tensor{Type: gguf.TypeI32, Shape: []int64{3}, Device: c.dev, DevPtr: 3},
				}
				r.Edit(&call) // must not need host bytes
			}
		}
		for _, n := range c.has {
			if _, ok := names[n]; !ok {
				t.Errorf("%v: no case %q", c.base, n)
			}
		}
		for _, n := range c.lacks {
			if _, ok := names[n]; ok {
				t.Errorf("%v: a case %q", c.base, n)
			}
		}
		if c.dev == gpu {
			for name, want := range map[string]string{
				"out on another kind of device":      "table gpu:2, ids gpu:2, out cpu:0",
				"ids on another device of that kind": "table cpu:0, ids cpu:1, out cpu:0",
				"table on the next device":           "table gpu:3, ids gpu:2, out gpu:2",
				"table bytes overflow":               "table: gather: F32 tensor [288230376151711744 64]",
			} {
				if !strings.Contains(names[name].Want, want) {
					t.Errorf("%s: %q, want it to say %q", name, names[name].Want, want)
				}
			}
		}
	}
}
