package engine

import (
	"fmt"

	"gathermut/gather"
	"gathermut/gguf"
)

// fixScales overwrites the scale fields of every block of codec in packed
// with the unit values of the codec's row in gather's table, and rewrites
// what the format derives from the payload (Q8_K's block sums), through
// gather.Codec.SetUnitScales: every decoded value of the test model's
// random table is then finite with |x| about 1 or less. Which values those
// are, and where the fields sit, is the codec row's; this package holds no
// per-codec fact. It refuses a codec that is not admitted.
func fixScales(codec gguf.Type, packed []byte) error {
	c, ok := gather.CodecOf(codec)
	if !ok || !c.Admitted {
		return fmt.Errorf("codec %v is not one of the admitted codecs", codec)
	}
	return c.SetUnitScales(packed)
}
