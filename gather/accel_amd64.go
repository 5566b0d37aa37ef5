package gather

//go:generate sh -c "cd internal/asmgen && go run . -out ../../decode_amd64.s -stubs ../../stubs_amd64.go -pkg gather -table ../../accel_table_amd64.go"

// cpuHasAVX2 says whether this CPU runs the AVX2 decoders (AVX, AVX2, F16C
// and FMA, with the YMM state saved by the OS; Q4_K's decoder fuses a
// product that is exact). Its initializer decides and
// installs them (installAccel), before any init function runs.
var cpuHasAVX2 = installAccel(machineReads)

// The decision (avx2F16C) is made in Go from the words the assembly reads
// (cpuid, xgetbv in decode_amd64.s), so that a test can give it words, and
// reads, no machine here has.

// cpuReads are the machine reads readCPUWords makes: this CPU's
// (machineReads), or made-up ones in tests.
type cpuReads struct {
	cpuid  func(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
	xgetbv func(index uint32) uint32
}

var machineReads = cpuReads{cpuid: cpuid, xgetbv: xgetbv}

// cpuWords are the CPUID and XCR0 words the accelerated path depends on.
type cpuWords struct {
	maxLeaf  uint32 // leaf 0, EAX: the highest basic leaf
	leaf1ECX uint32 // leaf 1, ECX: FMA, OSXSAVE, AVX, F16C
	xcr0     uint32 // XCR0's low word: the state the OS saves (read only with OSXSAVE)
	leaf7EBX uint32 // leaf 7 subleaf 0, EBX: AVX2
}

// CPUID and XCR0 bits of the check; every leaf is read at subleaf 0
// (leaves 0 and 1 take none), and XCR0 is extended control register 0.
const (
	subleaf0   = 0
	cpuFMA     = 1 << 12 // leaf 1 ECX
	xcr0Index  = 0
	cpuOSXSAVE = 1 << 27 // leaf 1 ECX
	cpuAVX     = 1 << 28 // leaf 1 ECX
	cpuF16C    = 1 << 29 // leaf 1 ECX
	xcr0SSE    = 1 << 1  // XMM state
	xcr0AVX    = 1 << 2  // YMM state
	cpuAVX2    = 1 << 5  // leaf 7 EBX
)

// readCPUWords reads the words through r; XCR0 only where OSXSAVE says
// XGETBV may run. Leaf 7 is read whatever the highest leaf: past it CPUID
// returns another leaf's words (never a fault), and the decision wants
// leaf 7 to exist before it looks at them.
func readCPUWords(r cpuReads) cpuWords {
	var w cpuWords
	w.maxLeaf, _, _, _ = r.cpuid(0, subleaf0)
	_, _, w.leaf1ECX, _ = r.cpuid(1, subleaf0)
	if w.leaf1ECX&cpuOSXSAVE == cpuOSXSAVE {
		w.xcr0 = r.xgetbv(xcr0Index)
	}
	_, w.leaf7EBX, _, _ = r.cpuid(7, subleaf0)
	return w
}

// avx2F16C reports whether words w allow the AVX2 decoders: leaf 7 exists,
// leaf 1 reports FMA, OSXSAVE, AVX and F16C, XCR0 has the XMM and YMM state, and
// leaf 7 reports AVX2.
func (w cpuWords) avx2F16C() bool {
	const leaf1 = cpuFMA | cpuOSXSAVE | cpuAVX | cpuF16C
	const state = xcr0SSE | xcr0AVX
	return w.maxLeaf >= 7 && w.leaf1ECX&leaf1 == leaf1 && w.xcr0&state == state && w.leaf7EBX&cpuAVX2 != 0
}

// avx2Decoders (accel_table_amd64.go) maps each codec that has an AVX2
// decoder to it; internal/asmgen writes it with decode_amd64.s.

// installAccel decides from the words r reads whether the AVX2 decoders
// may run, installs them only if so (removing them otherwise), and returns
// the decision: the install is a function of the decision, so that a test
// can hand it words that say no.
func installAccel(r cpuReads) bool {
	on := readCPUWords(r).avx2F16C()
	setAccel(on)
	return on
}

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
