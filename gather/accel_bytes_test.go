package gather

import (
	"math"
	"testing"
)

// TestAccelEveryByteValue decodes, with each codec's accelerated and
// portable decoders, a table of 256 blocks in which block v holds the byte
// v at every offset, so that every byte value reaches every code, scale and
// sign position of the block, and requires identical bits.
//
// Random tables reach a given byte value at a given offset only by chance.
// Some arithmetic of the AVX2 decoders differs for one byte value at one
// offset: TQ1_0's digits are ((q·3^n mod 256)·3) >> 8, computed as the
// high half of (q·(256·3^n) mod 65536)·3, and a multiplier one too large
// (256·3+1 for digit 1 of qh[2]) changes the digit only for q = 199, where
// (q·3 mod 256)·3 = 255 and the extra q carries into the kept bits.
func TestAccelEveryByteValue(t *testing.T) {
	if !accelAvailable() {
		t.Skip("no accelerated decoders on this machine")
	}
	defer setAccel(accelAvailable())
	setAccel(true)
	accelerated := 0
	for _, c := range codecTable {
		if c.fast == nil {
			continue
		}
		accelerated++
		t.Run(c.Traits.Name, func(t *testing.T) {
			bb, be := c.Traits.BlockBytes, c.Traits.BlockElems
			packed := make([]byte, 256*bb)
			for i := range packed {
				packed[i] = byte(i / bb)
			}
			n := 256 * be
			want := make([]float32, n)
			got := make([]float32, n)
			c.decode(packed, want)
			c.fast(packed, got)
			for i := range n {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("block of byte %#02x, element %d: accelerated %#08x, portable %#08x",
						i/be, i%be, math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		})
	}
	if accelerated == 0 {
		t.Error("accelerated decoders are available but none is installed")
	}
}
