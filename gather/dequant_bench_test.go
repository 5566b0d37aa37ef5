package gather

import (
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// benchDump names a directory where BenchmarkDequantize writes, per codec,
// its packed table (<codec>.packed) and this package's decode of it
// (<codec>.f32, little-endian float32), so that another decoder can be
// timed on the same tables and checked against the same bits.
var benchDump = flag.String("gather.benchdump", "", "directory for BenchmarkDequantize's packed tables and their f32 decodes")

// The benchmark tables: benchRows rows of benchCols elements per codec.
const benchRows, benchCols = 4096, 256

// benchTable returns c's benchmark table: bytes from splitmix64 seeded by
// the type id, then every scale field of every block overwritten with a
// finite value (f16 and f32 magnitudes in [2^-10, 2^1), either sign; E8M0
// exponents 112..130), so that every decoded value is finite.
func benchTable(c Codec) []byte {
	packed := make([]byte, benchRows*benchCols/c.Traits.BlockElems*c.Traits.BlockBytes)
	s := splitMix{state: 0x9e3779b97f4a7c15 ^ uint64(c.Type)}
	for i := 0; i < len(packed); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], s.next())
		copy(packed[i:], w[:])
	}
	for b := 0; b < len(packed); b += c.Traits.BlockBytes {
		blk := packed[b : b+c.Traits.BlockBytes]
		for _, f := range c.Scales {
			x := s.next()
			h := uint16(x&1)<<15 | uint16(5+x>>1%11)<<10 | uint16(x>>8&0x3ff)
			switch f.Encoding {
			case ScaleF16:
				binary.LittleEndian.PutUint16(blk[f.Offset:], h)
			case ScaleF32:
				u := uint32(x&1)<<31 | uint32(117+x>>1%11)<<23 | uint32(x>>8&0x7fffff)
				binary.LittleEndian.PutUint32(blk[f.Offset:], u)
			case ScaleE8M0:
				blk[f.Offset] = byte(112 + x>>1%19)
			case ScaleUE4M3:
				blk[f.Offset] = byte(1 + x>>1%0x47) // ue4m3Half in [2^-10, 2)
			case ScaleF16Nibbles:
				for i := range 4 {
					w := binary.LittleEndian.Uint16(blk[f.Offset+2*i:])
					binary.LittleEndian.PutUint16(blk[f.Offset+2*i:], w&0x0fff|(h>>(4*i))<<12)
				}
			}
		}
	}
	return packed
}

// splitMix is the splitmix64 generator.
type splitMix struct{ state uint64 }

func (s *splitMix) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// BenchmarkDequantize decodes each codec's benchmark table (4,096 rows of
// 256 elements) in one call per iteration and reports decoded elements per
// second (Gelem/s). With -gather.benchdump it first writes the tables and
// their decodes.
func BenchmarkDequantize(b *testing.B) {
	for _, c := range codecGeometry {
		packed := benchTable(c)
		out := make([]float32, benchRows*benchCols)
		if *benchDump != "" {
			if err := Dequantize(c.Type, packed, out); err != nil {
				b.Fatal(err)
			}
			dumpBenchTable(b, c.Traits.Name, packed, out)
		}
		b.Run(c.Traits.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Dequantize(c.Type, packed, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out))*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}

// dumpBenchTable writes a codec's table and decode into benchDump.
func dumpBenchTable(b *testing.B, name string, packed []byte, out []float32) {
	b.Helper()
	f32 := make([]byte, 4*len(out))
	for i, v := range out {
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(v))
	}
	for file, data := range map[string][]byte{name + ".packed": packed, name + ".f32": f32} {
		if err := os.WriteFile(filepath.Join(*benchDump, file), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDequantizeBF16 is BenchmarkDequantize with bf16 output.
func BenchmarkDequantizeBF16(b *testing.B) {
	for _, c := range codecGeometry {
		packed := benchTable(c)
		out := make([]uint16, benchRows*benchCols)
		b.Run(c.Traits.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := DequantizeBF16(c.Type, packed, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out))*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}
