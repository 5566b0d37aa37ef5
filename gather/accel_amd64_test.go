package gather

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cpuInfo returns the first CPU's flags and its "cpuid level" (-1 when
// not listed) from the kernel's /proc/cpuinfo; the test is skipped where
// there is none.
func cpuInfo(t *testing.T) ([]string, int) {
	t.Helper()
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	var flags []string
	level := -1
	for line := range strings.SplitSeq(string(info), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "flags":
			if flags == nil {
				flags = strings.Fields(v)
			}
		case "cpuid level":
			if level < 0 {
				if level, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
					t.Fatalf("/proc/cpuinfo: cpuid level %q: %v", v, err)
				}
			}
		}
	}
	return flags, level
}

// TestCPUWordsMatchCPUInfo checks the words the assembly reads (cpuid,
// xgetbv) against the kernel's view: the highest basic leaf is at least
// its cpuid level, every flag it lists among those below has its bit set in the
// word it comes from, and where it lists avx (which Linux does only when
// the OS saves the YMM state) XCR0 has the XMM and YMM bits.
func TestCPUWordsMatchCPUInfo(t *testing.T) {
	flags, level := cpuInfo(t)
	w := readCPUWords(machineReads)
	// A hypervisor or sandbox may show the kernel a lower level than the
	// instruction returns, never a higher one; leaf 7 holds avx2.
	if level >= 0 && w.maxLeaf < uint32(level) {
		t.Errorf("cpuid(0, 0) EAX = %d, below /proc/cpuinfo's cpuid level %d", w.maxLeaf, level)
	}
	if slices.Contains(flags, "avx2") && w.maxLeaf < 7 {
		t.Errorf("cpuid(0, 0) EAX = %d, below leaf 7, where the avx2 /proc/cpuinfo lists comes from", w.maxLeaf)
	}
	_, _, ecx1, edx1 := cpuid(1, 0)
	if ecx1 != w.leaf1ECX {
		t.Errorf("cpuid(1, 0) ECX = %#x, readCPUWords read %#x", ecx1, w.leaf1ECX)
	}
	_, ebx7, _, _ := cpuid(7, 0)
	if ebx7 != w.leaf7EBX {
		t.Errorf("cpuid(7, 0) EBX = %#x, readCPUWords read %#x", ebx7, w.leaf7EBX)
	}
	bits := []struct {
		flag string
		word uint32
		bit  uint
	}{
		{"sse2", edx1, 26}, {"fxsr", edx1, 24}, {"cmov", edx1, 15}, {"tsc", edx1, 4},
		{"pni", ecx1, 0}, {"ssse3", ecx1, 9}, {"fma", ecx1, 12}, {"sse4_1", ecx1, 19}, {"sse4_2", ecx1, 20},
		{"popcnt", ecx1, 23}, {"xsave", ecx1, 26}, {"avx", ecx1, 28}, {"f16c", ecx1, 29},
		{"fsgsbase", ebx7, 0}, {"bmi1", ebx7, 3}, {"avx2", ebx7, 5}, {"bmi2", ebx7, 8}, {"erms", ebx7, 9},
		{"adx", ebx7, 19}, {"sha_ni", ebx7, 29},
	}
	listed := 0
	for _, b := range bits {
		if !slices.Contains(flags, b.flag) {
			continue
		}
		listed++
		if b.word&(1<<b.bit) == 0 {
			t.Errorf("/proc/cpuinfo lists %s, but its CPUID bit %d is clear in %#x", b.flag, b.bit, b.word)
		}
	}
	if !slices.Contains(flags, "sse2") {
		t.Errorf("/proc/cpuinfo does not list sse2, which every amd64 CPU has: flags %v", flags)
	}
	if slices.Contains(flags, "avx") && w.xcr0&(xcr0SSE|xcr0AVX) != xcr0SSE|xcr0AVX {
		t.Errorf("/proc/cpuinfo lists avx, but XCR0 = %#x lacks the XMM or YMM state", w.xcr0)
	}
	t.Logf("%d flags checked; words %+v", listed, w)
}

// TestReadCPUWords gives readCPUWords made-up reads: it asks leaves 0, 1
// and 7 at subleaf 0, takes EAX, ECX and EBX of them, and reads XCR0
// (XGETBV index 0) only where leaf 1 reports OSXSAVE: XGETBV faults on a
// CPU without it.
func TestReadCPUWords(t *testing.T) {
	cases := []struct {
		name     string
		leaf1ECX uint32
		want     cpuWords
		xgetbv   bool
	}{
		{"OSXSAVE", 1<<27 | 1<<28, cpuWords{maxLeaf: 0x10, leaf1ECX: 1<<27 | 1<<28, xcr0: 0xe7, leaf7EBX: 0x7b}, true},
		{"no OSXSAVE", 1<<26 | 1<<28 | 1<<29, cpuWords{maxLeaf: 0x10, leaf1ECX: 1<<26 | 1<<28 | 1<<29, leaf7EBX: 0x7b}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []string
			xgetbvCalled := false
			r := cpuReads{
				cpuid: func(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32) {
					asked = append(asked, fmt.Sprintf("%d/%d", leaf, subleaf))
					if subleaf != 0 {
						return 0xdead, 0xdead, 0xdead, 0xdead
					}
					switch leaf {
					case 0:
						return 0x10, 0x68747541, 0x444d4163, 0x69746e65
					case 1:
						return 0xb40f81, 0x800, c.leaf1ECX, 0x178bfbff
					case 7:
						return 0x1, 0x7b, 0x2, 0x3
					}
					return 0xbad, 0xbad, 0xbad, 0xbad
				},
				xgetbv: func(index uint32) uint32 {
					xgetbvCalled = true
					if index != 0 {
						t.Errorf("xgetbv(%d), want XCR0 (index 0)", index)
					}
					return 0xe7
				},
			}
			if got := readCPUWords(r); got != c.want {
				t.Errorf("readCPUWords = %+v, want %+v", got, c.want)
			}
			if xgetbvCalled != c.xgetbv {
				t.Errorf("xgetbv called: %v, want %v (leaf 1 ECX %#x)", xgetbvCalled, c.xgetbv, c.leaf1ECX)
			}
			if want := []string{"0/0", "1/0", "7/0"}; !slices.Equal(asked, want) {
				t.Errorf("CPUID leaves asked (leaf/subleaf): %v, want %v", asked, want)
			}
		})
	}
}

// TestAVX2F16CWords gives the decision made-up words, written with the
// bit positions Intel's and AMD's manuals give (leaf 1 ECX: 12 FMA, 27
// OSXSAVE, 28 AVX, 29 F16C; XCR0: 1 XMM, 2 YMM; leaf 7 EBX: 5 AVX2), not with the
// package's constants: all it needs, each missing, neighbouring bits that
// must not count, and the words of real CPUs.
func TestAVX2F16CWords(t *testing.T) {
	const leaf1 = 1<<12 | 1<<27 | 1<<28 | 1<<29
	all := cpuWords{maxLeaf: 7, leaf1ECX: leaf1, xcr0: 1<<1 | 1<<2, leaf7EBX: 1 << 5}
	with := func(f func(*cpuWords)) cpuWords {
		w := all
		f(&w)
		return w
	}
	cases := []struct {
		name string
		w    cpuWords
		want bool
	}{
		{"all", all, true},
		{"a later highest leaf", with(func(w *cpuWords) { w.maxLeaf = 13 }), true},
		{"every other bit set too", cpuWords{maxLeaf: 0xffffffff, leaf1ECX: 0xffffffff, xcr0: 0xffffffff, leaf7EBX: 0xffffffff}, true},
		{"AMD EPYC (family 1Ah, this project's development machine)", cpuWords{maxLeaf: 13, leaf1ECX: 0xfed83203, xcr0: 0xe7, leaf7EBX: 0xf1bb03a9}, true},
		{"highest leaf 6", with(func(w *cpuWords) { w.maxLeaf = 6 }), false},
		{"no FMA", with(func(w *cpuWords) { w.leaf1ECX = 1<<27 | 1<<28 | 1<<29 }), false},
		{"no OSXSAVE", with(func(w *cpuWords) { w.leaf1ECX = 1<<12 | 1<<28 | 1<<29 }), false},
		{"no AVX", with(func(w *cpuWords) { w.leaf1ECX = 1<<12 | 1<<27 | 1<<29 }), false},
		{"no F16C", with(func(w *cpuWords) { w.leaf1ECX = 1<<12 | 1<<27 | 1<<28 }), false},
		{"leaf 1 bits 11 and 13 but not 12", with(func(w *cpuWords) { w.leaf1ECX = 1<<11 | 1<<13 | 1<<27 | 1<<28 | 1<<29 }), false},
		{"leaf 1 bits 26 and 30 but not 27", with(func(w *cpuWords) { w.leaf1ECX = 1<<12 | 1<<26 | 1<<28 | 1<<29 | 1<<30 }), false},
		{"leaf 1 bits 27 and 29, 30 but not 28", with(func(w *cpuWords) { w.leaf1ECX = 1<<12 | 1<<27 | 1<<29 | 1<<30 }), false},
		{"leaf 1 bits 27, 28 and 30 but not 29", with(func(w *cpuWords) { w.leaf1ECX = 1<<12 | 1<<27 | 1<<28 | 1<<30 }), false},
		{"no XMM state", with(func(w *cpuWords) { w.xcr0 = 1<<0 | 1<<2 | 1<<3 }), false},
		{"no YMM state", with(func(w *cpuWords) { w.xcr0 = 1<<0 | 1<<1 | 1<<3 }), false},
		{"x87 and AVX-512 state but no XMM", with(func(w *cpuWords) { w.xcr0 = 1 | 1<<2 | 0xe0 }), false},
		{"no AVX2", with(func(w *cpuWords) { w.leaf7EBX = 0 }), false},
		{"leaf 7 bits 4 and 6 but not 5", with(func(w *cpuWords) { w.leaf7EBX = 1<<4 | 1<<6 }), false},
		{"Sandy Bridge: AVX without F16C and AVX2", cpuWords{maxLeaf: 13, leaf1ECX: 0x1fbae3ff, xcr0: 0x7, leaf7EBX: 0}, false},
		{"nothing", cpuWords{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.w.avx2F16C(); got != c.want {
				t.Errorf("%+v: avx2F16C() = %v, want %v", c.w, got, c.want)
			}
		})
	}
}

// TestAccelInUse checks the CPU feature check against the kernel's view
// (/proc/cpuinfo) and that setAccel installs exactly the AVX2 decoders and
// removes them.
func TestAccelInUse(t *testing.T) {
	flags, _ := cpuInfo(t)
	// Linux lists avx only when it saves the YMM state.
	want := slices.Contains(flags, "avx") && slices.Contains(flags, "avx2") && slices.Contains(flags, "f16c") && slices.Contains(flags, "fma")
	if cpuHasAVX2 != want || accelAvailable() != want {
		t.Fatalf("cpuHasAVX2 = %v, accelAvailable() = %v, /proc/cpuinfo flags say %v", cpuHasAVX2, accelAvailable(), want)
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
