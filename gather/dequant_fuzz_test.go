package gather

import (
	"math"
	"slices"
	"testing"

	"gathermut/gguf"
)

// FuzzDequantize feeds arbitrary bytes, type ids and element counts to
// Dequantize and DequantizeBF16: neither may panic, each refusal must be one
// the rules call for (no decoder, not whole blocks, too few bytes), every
// accepted call must be one they allow, and for a decodable type the bf16
// output must be F32ToBF16 of the f32 output.
func FuzzDequantize(f *testing.F) {
	for _, c := range codecGeometry {
		f.Add(make([]byte, 2*c.Traits.BlockBytes), uint32(c.Type), uint16(2*c.Traits.BlockElems))
		f.Add(make([]byte, c.Traits.BlockBytes-1), uint32(c.Type), uint16(c.Traits.BlockElems))
		f.Add(slices.Repeat([]byte{0xff}, c.Traits.BlockBytes), uint32(c.Type), uint16(c.Traits.BlockElems))
	}
	f.Add([]byte{1, 2, 3, 4}, uint32(gguf.TypeF32), uint16(1))
	f.Add([]byte{}, uint32(99), uint16(0))
	f.Add(make([]byte, 64), uint32(gguf.TypeQ8_0), uint16(33))
	f.Fuzz(func(t *testing.T, packed []byte, id uint32, n uint16) {
		typ := gguf.Type(id)
		f32 := make([]float32, n)
		bf := make([]uint16, n)
		errF := Dequantize(typ, packed, f32)
		errB := DequantizeBF16(typ, packed, bf)
		if (errF == nil) != (errB == nil) || (errF != nil && errF.Error() != errB.Error()) {
			t.Fatalf("Dequantize error %v, DequantizeBF16 error %v", errF, errB)
		}
		tr, known := gguf.FindGgmlTraits(typ)
		allowed := known && Decodes(typ) && int(n)%tr.BlockElems == 0 && len(packed) >= int(n)/tr.BlockElems*tr.BlockBytes
		if allowed != (errF == nil) {
			t.Fatalf("%v, %d bytes, %d elements: error %v, but the rules allow it: %v", typ, len(packed), n, errF, allowed)
		}
		if errF != nil {
			return
		}
		for i, v := range f32 {
			if got, want := bf[i], F32ToBF16(v); got != want {
				t.Fatalf("%v element %d: bf16 %#04x, F32ToBF16(%#08x) = %#04x", typ, i, got, math.Float32bits(v), want)
			}
		}
	})
}
