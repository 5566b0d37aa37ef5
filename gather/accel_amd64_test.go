package gather

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAccelInUse checks the CPU feature check against the kernel's view
// (/proc/cpuinfo) and that setAccel installs exactly the AVX2 decoders and
// removes them.
func TestAccelInUse(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	var flags []string
	for line := range strings.SplitSeq(string(info), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = strings.Fields(v)
			break
		}
	}
	// Linux lists avx only when it saves the YMM state.
	want := slices.Contains(flags, "avx") && slices.Contains(flags, "avx2") && slices.Contains(flags, "f16c")
	if cpuHasAVX2 != want || accelAvailable() != want {
		t.Fatalf("hasAVX2F16C() = %v, accelAvailable() = %v, /proc/cpuinfo flags say %v", cpuHasAVX2, accelAvailable(), want)
	}
	// As the package loaded (this file's tests run before any other
	// calls setAccel): the AVX2 decoders are installed where the CPU runs
	// them.
	for _, c := range codecTable {
		_, has := avx2Decoders[c.Type]
		if got := c.fast != nil; got != (want && has) {
			t.Fatalf("at load: %v has an accelerated decoder: %v", c.Type, got)
		}
	}
	defer setAccel(cpuHasAVX2)
	for _, on := range []bool{true, false, true} {
		setAccel(on)
		for _, c := range codecTable {
			_, has := avx2Decoders[c.Type]
			if got := c.fast != nil; got != (on && has) {
				t.Fatalf("setAccel(%v): %v has an accelerated decoder: %v", on, c.Type, got)
			}
		}
	}
	if len(avx2Decoders) == 0 {
		t.Error("no AVX2 decoders")
	}
}
