package gather

import (
	"runtime"
	"testing"
)

// xinuseAVX is bit 2 of XINUSE (XGETBV with ECX = 1): the upper halves of
// the YMM registers are not in their initial (zero) state.
const xinuseAVX = 1 << 2

// hasXINUSE says whether XGETBV with ECX = 1 reads XINUSE here:
// CPUID.(EAX=0DH, ECX=1):EAX bit 2, where the OS enabled XSAVE (OSXSAVE)
// and the CPU has leaf 0DH.
func hasXINUSE() bool {
	w := readCPUWords(machineReads)
	if w.maxLeaf < 0xd || w.leaf1ECX&cpuOSXSAVE == 0 {
		return false
	}
	eax, _, _, _ := cpuid(0xd, 1)
	return eax&(1<<2) != 0
}

// TestAVX2LeavesUpperClean (state left behind after the loop,
// docs/faults.md class 2): every AVX2 decoder returns with the upper
// halves of the YMM registers in their initial state, that is with a
// VZEROUPPER after its last 256-bit instruction. A decoder that leaves
// them dirty gives the same results, but every legacy-SSE instruction the
// Go code after it runs (the compiler's floating point) pays the
// SSE/AVX transition or a false dependency on the upper halves; upstream
// ggml ends its AVX paths the same way. XINUSE bit 2 says whether the
// upper halves are dirty: the test reads it right after each decode, on a
// thread of its own, where no VEX-256 instruction runs in between (the Go
// compiler's code is legacy SSE, which leaves the bit alone, and the
// runtime's AVX routines end with VZEROUPPER themselves). A descheduling
// in between could only clear the bit (the runtime's preemption and the
// thread's new state), never set it, so the test can miss a dirty
// decoder, not accuse a clean one; it decodes several times to miss none.
func TestAVX2LeavesUpperClean(t *testing.T) {
	if !accelAvailable() {
		t.Skip("no AVX2 decoders on this machine")
	}
	if !hasXINUSE() {
		t.Skip("XGETBV with ECX=1 (XINUSE) is not supported here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range codecTable {
		c := &codecTable[i]
		dec, ok := avx2Decoders[c.Type]
		if !ok {
			continue
		}
		t.Run(c.Traits.Name, func(t *testing.T) {
			packed := randomBlocks(c, faultBlocks, 0x7a11)
			out := make([]float32, faultBlocks*c.Traits.BlockElems)
			for try := range 4 {
				dec(packed, out)
				if xgetbv(1)&xinuseAVX != 0 {
					t.Fatalf("decode %d: XINUSE bit 2 set after the decoder returned: the upper halves of the YMM registers are dirty (no VZEROUPPER)", try)
				}
			}
		})
	}
}
