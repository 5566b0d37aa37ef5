package gather

//go:generate sh -c "cd internal/asmgen && go run . -out ../../decode_amd64.s -stubs ../../stubs_amd64.go -pkg gather -table ../../accel_table_amd64.go"

// cpuHasAVX2 says whether this CPU runs the AVX2 decoders (AVX, AVX2 and
// F16C, with the YMM state saved by the OS).
var cpuHasAVX2 = hasAVX2F16C()

// avx2Decoders (accel_table_amd64.go) maps each codec that has an AVX2
// decoder to it; internal/asmgen writes it with decode_amd64.s.

func init() { setAccel(cpuHasAVX2) }

// accelAvailable reports whether this machine has accelerated decoders.
func accelAvailable() bool { return cpuHasAVX2 }

// setAccel installs the AVX2 decoders in the codec table when on, and
// removes them otherwise (tests run both ways).
func setAccel(on bool) {
	for i := range codecTable {
		c := &codecTable[i]
		c.fast = nil
		if on {
			c.fast = avx2Decoders[c.Type]
		}
	}
}
