package gather

import "testing"

// fixedReads returns reads that report leaf 1 ECX ecx1, leaf 7 EBX ebx7,
// highest leaf 7 and XCR0 xcr0, whatever this machine has.
func fixedReads(ecx1, ebx7, xcr0 uint32) cpuReads {
	return cpuReads{
		cpuid: func(leaf, _ uint32) (eax, ebx, ecx, edx uint32) {
			switch leaf {
			case 0:
				return 7, 0, 0, 0
			case 1:
				return 0, 0, ecx1, 0
			case 7:
				return 0, ebx7, 0, 0
			}
			return 0, 0, 0, 0
		},
		xgetbv: func(uint32) uint32 { return xcr0 },
	}
}

// noAVX2Reads are words that forbid the AVX2 decoders, each for one
// reason; all other bits are those a machine with AVX2 reports.
var noAVX2Reads = []struct {
	name string
	r    cpuReads
}{
	{"leaf 7 without AVX2", fixedReads(1<<12|1<<27|1<<28|1<<29, 0, 6)},
	{"no F16C", fixedReads(1<<12|1<<27|1<<28, 1<<5, 6)},
	{"no FMA", fixedReads(1<<27|1<<28|1<<29, 1<<5, 6)},
	{"YMM state not saved", fixedReads(1<<12|1<<27|1<<28|1<<29, 1<<5, 2)},
	{"no OSXSAVE", fixedReads(1<<12|1<<28|1<<29, 1<<5, 6)},
}

// TestInstallObeysNoAVX2: installAccel handed words that say no installs
// no accelerated decoder, even over installed ones, and reports false; a
// decode through Dequantize then runs the portable decoder (a stand-in
// accelerated decoder placed in the table before would write 42s). Where
// the machine has AVX2, words that say yes install exactly the AVX2 table.
func TestInstallObeysNoAVX2(t *testing.T) {
	defer setAccel(cpuHasAVX2)
	for _, c := range noAVX2Reads {
		t.Run(c.name, func(t *testing.T) {
			setAccel(cpuHasAVX2)
			first := &codecTable[0]
			first.fast = func(_ []byte, o []float32) {
				for i := range o {
					o[i] = 42
				}
			}
			if installAccel(c.r) {
				t.Fatal("installAccel = true on words without AVX2")
			}
			for _, k := range codecTable {
				if k.fast != nil {
					t.Fatalf("%v: an accelerated decoder is installed against a no-AVX2 decision", k.Type)
				}
			}
			out := make([]float32, first.Traits.BlockElems)
			if err := Dequantize(first.Type, make([]byte, first.Traits.BlockBytes), out); err != nil {
				t.Fatal(err)
			}
			if out[0] == 42 {
				t.Fatal("Dequantize ran the accelerated decoder after a no-AVX2 decision")
			}
		})
	}
	if !cpuHasAVX2 {
		return
	}
	if !installAccel(fixedReads(1<<12|1<<27|1<<28|1<<29, 1<<5, 6)) {
		t.Fatal("installAccel = false on words with AVX2, AVX, F16C, FMA, OSXSAVE and the YMM state")
	}
	for _, k := range codecTable {
		if _, has := avx2Decoders[k.Type]; has != (k.fast != nil) {
			t.Fatalf("%v: accelerated decoder installed %v, the AVX2 table has one: %v", k.Type, k.fast != nil, has)
		}
	}
}
