package mutants

import "gathermut/mutate/catalog"

// The accelerated decoders' tests.
const (
	testAccelInUse   = pkgGather + ".TestAccelInUse"
	testAccelMatches = pkgGather + ".TestAccelMatchesPortable"
)

// asmEntries are class 14: the AVX2 decoders (gather/decode_amd64.s)
// not installed, installed for the wrong codec, chosen by an inverted
// CPU check, and one routine's instruction sequence corrupted. The
// generic assembly operators mutate every routine; these name the test
// that must catch each way the choice of routine can go wrong.
func asmEntries() []catalog.Entry {
	return []catalog.Entry{
		{
			ID: "asm-decoders-not-installed", Class: 14, Operator: catalog.ReplaceExpr,
			Target:      catalog.Target{Package: pkgGather, Func: "setAccel", Match: "avx2Decoders[c.Type]"},
			Replacement: "nil",
			Killers:     []string{testAccelInUse},
			Reason:      "no codec gets its AVX2 decoder: every decode takes the portable path on a CPU that runs the accelerated one",
		},
		{
			ID: "asm-routine-of-another-codec", Class: 14, Operator: catalog.ReplaceValue,
			Target:      catalog.Target{Package: pkgGather, Func: "avx2Decoders", Match: "gguf.TypeQ4_1"},
			Replacement: "decodeQ4_0AVX2",
			Killers:     []string{testAccelMatches},
			Reason:      "Q4_1 blocks are decoded by the Q4_0 routine: the accelerated output differs from the portable decoder's",
		},
		{
			ID: "asm-feature-check-inverted", Class: 14, Operator: catalog.ReplaceValue,
			Target:      catalog.Target{Package: pkgGather, Func: "cpuHasAVX2"},
			Replacement: "!installAccel(machineReads)",
			Killers:     []string{testAccelInUse},
			Reason:      "the CPU check's answer is reported backwards: the package says the AVX2 decoders are off where the CPU runs them (and on where it cannot), so every setAccel(accelAvailable()) installs them against the check",
		},
		{
			ID: "asm-iq4nl-codebook-skipped", Class: 14, Operator: catalog.AsmText,
			Target: catalog.Target{Package: pkgGather, File: "gather/decode_amd64.s",
				Match: "\tVMOVDQU      kvIQ4NL<>+0(SB), X3\n\tVPSHUFB      X2, X3, X2\n\tVPSHUFB      X1, X3, X1\n"},
			Replacement: "\tVMOVDQU      kvIQ4NL<>+0(SB), X3\n",
			Killers:     []string{testAccelMatches},
			Reason:      "the AVX2 IQ4_NL routine converts the raw nibbles instead of looking them up in the codebook",
		},
	}
}
