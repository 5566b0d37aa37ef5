package gathertest

import (
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// Call is the three arguments of one Embedding call.
type Call struct {
	Out, Table, IDs *gather.Tensor
}

// Refusal is a valid call broken by Edit, and the error every provider, and
// gather.Embedding, must return for it. The valid call (see ValidCall) is a
// [4, 64] table of the base type, ids [2, 0, 3] as I32 and an F32 out [3,
// 64], on one device.
type Refusal struct {
	Name string
	Edit func(*Call)
	Want string // the exact error text
	// Step is the step of gather.CheckArgs that refuses the call (1-8; 0
	// for a nil argument), or 9 when the arguments pass CheckArgs and the
	// provider's own checks refuse it (gather.CheckRequest, or Data too
	// short on the host).
	Step int
	// HostOnly marks an edit of Data: it means something only for tensors
	// whose bytes are on the host.
	HostOnly bool
}

// ProviderStep is Refusal.Step for the checks that follow gather.CheckArgs.
const ProviderStep = 9

// The edits the refusals are made of.
func nilTable(c *Call) { c.Table = nil }
func nilIDs(c *Call)   { c.IDs = nil }
func nilOut(c *Call)   { c.Out = nil }

// edit returns an Edit that makes each change, in order.
func edit(changes ...func(*Call)) func(*Call) {
	return func(c *Call) {
		for _, ch := range changes {
			ch(c)
		}
	}
}

// onTable, onIDs and onOut apply a change to one argument.
func onTable(f func(*gather.Tensor)) func(*Call) { return func(c *Call) { f(c.Table) } }
func onIDs(f func(*gather.Tensor)) func(*Call)   { return func(c *Call) { f(c.IDs) } }
func onOut(f func(*gather.Tensor)) func(*Call)   { return func(c *Call) { f(c.Out) } }

func shape(s ...int64) func(*gather.Tensor)       { return func(t *gather.Tensor) { t.Shape = s } }
func typ(g gguf.Type) func(*gather.Tensor)        { return func(t *gather.Tensor) { t.Type = g } }
func strides(s ...int64) func(*gather.Tensor)     { return func(t *gather.Tensor) { t.Strides = s } }
func device(d gather.Device) func(*gather.Tensor) { return func(t *gather.Tensor) { t.Device = d } }
func dataLen(n int) func(*gather.Tensor)          { return func(t *gather.Tensor) { t.Data = t.Data[:n] } }
func noDevice() func(*gather.Tensor)              { return device(gather.Device{}) }
func onDevice(k gather.DeviceKind, o int) func(*gather.Tensor) {
	return device(gather.Device{Kind: k, Ordinal: o})
}

// otherKind is a device kind other than k, for calls whose tensors are on
// two devices.
func otherKind(k gather.DeviceKind) gather.DeviceKind {
	if k == gather.CPU {
		return gather.GPU
	}
	return gather.CPU
}

// Refusals returns the refusal table for valid calls whose table has type
// base (an admitted codec whose block fits a 64-wide row, or a float type)
// on device dev: every rule of gather.CheckArgs, in its order (a case that
// breaks two rules must be refused for the earlier), then the provider's
// checks in theirs. Cases that only a table of a given block size can
// reach are there for that base only.
func Refusals(base gguf.Type, dev gather.Device) ([]Refusal, error) {
	tr, ok := gguf.FindGgmlTraits(base)
	if !ok || 64%tr.BlockElems != 0 {
		return nil, fmt.Errorf("gathertest: refusals for base %v: want a type whose blocks fit a 64-wide row", base)
	}
	rowBytes, _ := gguf.RowSizeBytes(base, 64)
	x := otherKind(dev.Kind)
	d, x0, x1 := dev.String(), gather.Device{Kind: x}.String(), gather.Device{Kind: x, Ordinal: 1}.String()
	next := gather.Device{Kind: dev.Kind, Ordinal: dev.Ordinal + 1}
	const pre = "gather: Embedding: "
	rs := []Refusal{
		{Name: "nil table", Edit: nilTable, Want: pre + "table is nil"},
		{Name: "nil ids", Edit: nilIDs, Want: pre + "ids is nil"},
		{Name: "nil out", Edit: nilOut, Want: pre + "out is nil"},
		{Name: "nil out before rank", Edit: edit(onTable(shape(4)), nilOut), Want: pre + "out is nil"},

		{Name: "table rank 1", Step: 1, Edit: onTable(shape(256)), Want: pre + "table must be 2-D [vocab, hidden], has rank 1"},
		{Name: "table rank 3", Step: 1, Edit: onTable(shape(1, 4, 64)), Want: pre + "table must be 2-D [vocab, hidden], has rank 3"},
		{Name: "ids rank 0", Step: 1, Edit: onIDs(shape()), Want: pre + "ids must be 1-D, has rank 0"},
		{Name: "ids rank 2", Step: 1, Edit: onIDs(shape(3, 1)), Want: pre + "ids must be 1-D, has rank 2"},
		{Name: "out rank 1", Step: 1, Edit: onOut(shape(192)), Want: pre + "out must be 2-D [len(ids), hidden], has rank 1"},
		{Name: "out rank 3", Step: 1, Edit: onOut(shape(3, 64, 1)), Want: pre + "out must be 2-D [len(ids), hidden], has rank 3"},
		{Name: "table negative vocab", Step: 1, Edit: onTable(shape(-4, 64)), Want: pre + "table shape [-4 64] has a negative dimension"},
		{Name: "table negative width", Step: 1, Edit: edit(onTable(shape(4, -64)), onOut(shape(3, -64))), Want: pre + "table shape [4 -64] has a negative dimension"},
		{Name: "ids negative", Step: 1, Edit: edit(onIDs(shape(-3)), onOut(shape(-3, 64))), Want: pre + "ids shape [-3] has a negative dimension"},
		{Name: "out negative", Step: 1, Edit: onOut(shape(3, -1)), Want: pre + "out shape [3 -1] has a negative dimension"},
		{Name: "rank before negative", Step: 1, Edit: edit(onTable(shape(-4, 64)), onOut(shape(192))), Want: pre + "out must be 2-D [len(ids), hidden], has rank 1"},

		{Name: "out rows", Step: 2, Edit: onOut(shape(2, 64)), Want: pre + "out shape [2 64] is not [len(ids), hidden] = [3 64]"},
		{Name: "out width", Step: 2, Edit: onOut(shape(3, 32)), Want: pre + "out shape [3 32] is not [len(ids), hidden] = [3 64]"},
		{Name: "negative before shape", Step: 1, Edit: edit(onOut(shape(3, 32)), onIDs(shape(-3))), Want: pre + "ids shape [-3] has a negative dimension"},

		{Name: "ids F32", Step: 3, Edit: onIDs(typ(gguf.TypeF32)), Want: pre + "ids type F32 is not I32 or I64"},
		{Name: "ids I16", Step: 3, Edit: onIDs(typ(gguf.TypeI16)), Want: pre + "ids type I16 is not I32 or I64"},
		{Name: "shape before ids type", Step: 2, Edit: edit(onIDs(typ(gguf.TypeF32)), onOut(shape(2, 64))), Want: pre + "out shape [2 64] is not [len(ids), hidden] = [3 64]"},

		{Name: "table Q4_1", Step: 4, Edit: onTable(typ(gguf.TypeQ4_1)), Want: pre + "table type Q4_1 is not admitted"},
		{Name: "table F64", Step: 4, Edit: onTable(typ(gguf.TypeF64)), Want: pre + "table type F64 is not admitted"},
		{Name: "table I32", Step: 4, Edit: onTable(typ(gguf.TypeI32)), Want: pre + "table type I32 is not admitted"},
		{Name: "table unknown", Step: 4, Edit: onTable(typ(gguf.Type(99))), Want: pre + "table type type(99) is not admitted"},
		{Name: "ids type before table type", Step: 3, Edit: edit(onTable(typ(gguf.TypeQ4_1)), onIDs(typ(gguf.TypeF32))), Want: pre + "ids type F32 is not I32 or I64"},

		{Name: "out F16", Step: 5, Edit: onOut(typ(gguf.TypeF16)), Want: pre + "out type F16 is not F32 or BF16"},
		{Name: "out Q8_0", Step: 5, Edit: onOut(typ(gguf.TypeQ8_0)), Want: pre + "out type Q8_0 is not F32 or BF16"},
		{Name: "table type before out type", Step: 4, Edit: edit(onOut(typ(gguf.TypeF16)), onTable(typ(gguf.TypeQ4_1))), Want: pre + "table type Q4_1 is not admitted"},

		{Name: "width not whole Q4_K blocks", Step: 6, Edit: onTable(typ(gguf.TypeQ4_K)), Want: pre + "table width 64 is not whole Q4_K blocks of 256"},
		{Name: "out type before blocks", Step: 5, Edit: edit(onTable(typ(gguf.TypeQ4_K)), onOut(typ(gguf.TypeF16))), Want: pre + "out type F16 is not F32 or BF16"},
	}
	if tr.BlockElems > 1 {
		rs = append(rs,
			Refusal{Name: "width not whole blocks", Step: 6, Edit: edit(onTable(shape(4, 48)), onOut(shape(3, 48))),
				Want: fmt.Sprintf(pre+"table width 48 is not whole %v blocks of %d", base, tr.BlockElems)},
			Refusal{Name: "width one past whole blocks", Step: 6, Edit: edit(onTable(shape(4, 65)), onOut(shape(3, 65))),
				Want: fmt.Sprintf(pre+"table width 65 is not whole %v blocks of %d", base, tr.BlockElems)},
		)
	}
	rs = append(rs, []Refusal{
		{Name: "table strided", Step: 7, Edit: onTable(strides(128, 1)), Want: pre + "table is not contiguous (shape [4 64], strides [128 1])"},
		{Name: "table column-major", Step: 7, Edit: onTable(strides(1, 4)), Want: pre + "table is not contiguous (shape [4 64], strides [1 4])"},
		{Name: "table strides length", Step: 7, Edit: onTable(strides(1)), Want: pre + "table is not contiguous (shape [4 64], strides [1])"},
		{Name: "ids strided", Step: 7, Edit: onIDs(strides(2)), Want: pre + "ids is not contiguous (shape [3], strides [2])"},
		{Name: "out strided", Step: 7, Edit: onOut(strides(64, 2)), Want: pre + "out is not contiguous (shape [3 64], strides [64 2])"},
		{Name: "blocks before contiguity", Step: 6, Edit: edit(onTable(typ(gguf.TypeQ4_K)), onIDs(strides(2))), Want: pre + "table width 64 is not whole Q4_K blocks of 256"},

		{Name: "out on another kind of device", Step: 8, Edit: onOut(onDevice(x, 0)),
			Want: fmt.Sprintf(pre+"tensors on different devices: table %s, ids %s, out %s", d, d, x0)},
		{Name: "ids on another device of that kind", Step: 8, Edit: edit(onTable(onDevice(x, 0)), onIDs(onDevice(x, 1)), onOut(onDevice(x, 0))),
			Want: fmt.Sprintf(pre+"tensors on different devices: table %s, ids %s, out %s", x0, x1, x0)},
		{Name: "table on the next device", Step: 8, Edit: onTable(device(next)),
			Want: fmt.Sprintf(pre+"tensors on different devices: table %s, ids %s, out %s", next, d, d)},
		{Name: "ids without device", Step: 8, Edit: onIDs(noDevice()), Want: pre + "ids has no device (empty Device.Kind)"},
		{Name: "all without device", Step: 8, Edit: edit(onTable(noDevice()), onIDs(noDevice()), onOut(noDevice())), Want: pre + "table has no device (empty Device.Kind)"},
		{Name: "contiguity before device", Step: 7, Edit: edit(onOut(onDevice(x, 0)), onOut(strides(64, 2))), Want: pre + "out is not contiguous (shape [3 64], strides [64 2])"},
		{Name: "device before data", Step: 8, HostOnly: true, Edit: edit(onOut(dataLen(0)), onIDs(onDevice(x, 0))),
			Want: fmt.Sprintf(pre+"tensors on different devices: table %s, ids %s, out %s", d, x0, d)},

		{Name: "vocab 0", Step: ProviderStep, Edit: onTable(shape(0, 64)), Want: pre + "table has no rows (vocab 0), 3 ids requested"},
		{Name: "vocab 0 before data", Step: ProviderStep, HostOnly: true, Edit: edit(onTable(shape(0, 64)), onOut(dataLen(0)), onIDs(dataLen(0))),
			Want: pre + "table has no rows (vocab 0), 3 ids requested"},
		{Name: "vocab 0 before out bytes overflow", Step: ProviderStep, Edit: edit(onTable(shape(0, 1<<62)), onIDs(shape(2)), onOut(shape(2, 1<<62))),
			Want: pre + "table has no rows (vocab 0), 2 ids requested"},
		{Name: "out bytes overflow", Step: ProviderStep, Edit: edit(onTable(shape(1, 1<<61)), onIDs(shape(2)), onOut(shape(2, 1<<61))),
			Want: pre + "out: gather: F32 tensor [2 2305843009213693952]: byte size overflows int64"},
		{Name: "bf16 out bytes overflow", Step: ProviderStep, Edit: edit(onTable(shape(1, 1<<62)), onIDs(shape(2)), onOut(shape(2, 1<<62)), onOut(typ(gguf.TypeBF16))),
			Want: pre + "out: gather: BF16 tensor [2 4611686018427387904]: byte size overflows int64"},
		{Name: "table bytes overflow", Step: ProviderStep, Edit: onTable(shape(1<<58, 64)),
			Want: fmt.Sprintf(pre+"table: gather: %v tensor [288230376151711744 64]: byte size overflows int64", base)},
		{Name: "table bytes overflow before out data", Step: ProviderStep, HostOnly: true, Edit: edit(onTable(shape(1<<58, 64)), onOut(dataLen(0))),
			Want: fmt.Sprintf(pre+"table: gather: %v tensor [288230376151711744 64]: byte size overflows int64", base)},
	}...)
	if tr.BlockElems == 1 {
		// Only a one-element-wide row lets the ids outgrow out: with rows of
		// a whole block, out has more bytes than ids.
		idsOverflow := edit(onTable(shape(4, 1)), onIDs(shape(1<<61)), onOut(shape(1<<61, 1)), onOut(typ(gguf.TypeBF16)))
		rs = append(rs,
			Refusal{Name: "ids bytes overflow", Step: ProviderStep, Edit: idsOverflow,
				Want: pre + "ids: gather: I32 tensor [2305843009213693952]: byte size overflows int64"},
			Refusal{Name: "ids bytes overflow before out data", Step: ProviderStep, HostOnly: true, Edit: edit(idsOverflow, onOut(dataLen(0))),
				Want: pre + "ids: gather: I32 tensor [2305843009213693952]: byte size overflows int64"},
		)
	}
	tableBytes := 4 * int(rowBytes)
	rs = append(rs, []Refusal{
		{Name: "out data short", Step: ProviderStep, HostOnly: true, Edit: onOut(dataLen(767)), Want: pre + "out data holds 767 bytes, its shape [3 64] of F32 needs 768"},
		{Name: "table data short", Step: ProviderStep, HostOnly: true, Edit: onTable(dataLen(tableBytes - 1)),
			Want: fmt.Sprintf(pre+"table data holds %d bytes, its shape [4 64] of %v needs %d", tableBytes-1, base, tableBytes)},
		{Name: "ids data short", Step: ProviderStep, HostOnly: true, Edit: onIDs(dataLen(11)), Want: pre + "ids data holds 11 bytes, its shape [3] of I32 needs 12"},
		{Name: "I64 ids data short", Step: ProviderStep, HostOnly: true, Edit: onIDs(typ(gguf.TypeI64)), Want: pre + "ids data holds 12 bytes, its shape [3] of I64 needs 24"},
		{Name: "out data before table data", Step: ProviderStep, HostOnly: true, Edit: edit(onOut(dataLen(0)), onTable(dataLen(0))),
			Want: pre + "out data holds 0 bytes, its shape [3 64] of F32 needs 768"},
		{Name: "table data before ids data", Step: ProviderStep, HostOnly: true, Edit: edit(onIDs(dataLen(0)), onTable(dataLen(0))),
			Want: fmt.Sprintf(pre+"table data holds 0 bytes, its shape [4 64] of %v needs %d", base, tableBytes)},
	}...)
	return rs, nil
}
