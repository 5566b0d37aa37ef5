package hipkern

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gathermut/gather"
)

// gfx1100Kernel is what the compile check reads about one kernel: its
// descriptor (.amdhsa_kernel block) and its metadata (amdhsa.kernels entry).
type gfx1100Kernel struct {
	name     string
	desc     map[string]string // .amdhsa_* directives
	metadata map[string]string // .key: value at the entry's top level
}

// TestGfx1100Compile compiles gather.hip for gfx1100 device code only, with
// no device library (hipcc -nogpulib --cuda-device-only -S), and checks the
// assembly: the target is gfx1100, there is one kernel per codec and float
// type and output type, each kernel is wave32 with 128-thread workgroups,
// uses no scratch (private segment 0, no spills, no dynamic stack) and calls
// no function. It logs each kernel's VGPR count.
func TestGfx1100Compile(t *testing.T) {
	hipcc, err := exec.LookPath("hipcc")
	if err != nil {
		t.Skip("hipkern: hipcc not found on PATH: gfx1100 compile check not run (install hipcc libamdhip64-dev)")
	}
	asm := filepath.Join(t.TempDir(), "gather.s")
	cmd := exec.Command(hipcc, "--offload-arch=gfx1100", "-nogpulib", "--cuda-device-only", "-S",
		"-ffp-contract=off", "-O2", "-o", asm, "gather.hip")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	t.Logf("compiled: %s", strings.Join(cmd.Args, " "))
	text, err := os.ReadFile(asm)
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	if !strings.Contains(s, `.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"`) {
		t.Fatalf("assembly has no gfx1100 target directive")
	}
	if strings.Contains(s, "s_swappc_b64") || strings.Contains(s, "s_setpc_b64") {
		t.Errorf("device code calls a function: with -nogpulib every call must have been inlined")
	}
	kernels, err := parseGfx1100(s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, c := range gather.Admitted() {
		for _, bf16 := range []int{0, 1} {
			want[fmt.Sprintf("Codec%sLb%dE", c, bf16)] = true
		}
	}
	for _, ft := range []int{0, 1, 30} {
		for _, bf16 := range []int{0, 1} {
			want[fmt.Sprintf("gm_float_kernelILi%dELb%dE", ft, bf16)] = true
		}
	}
	if len(kernels) != len(want) {
		t.Errorf("%d kernels in the assembly, want %d", len(kernels), len(want))
	}
	for _, k := range kernels {
		key := kernelKey(k.name)
		if !want[key] {
			t.Errorf("unexpected kernel %s", k.name)
		}
		delete(want, key)
		for _, c := range []struct {
			m         map[string]string
			key, want string
		}{
			{k.desc, ".amdhsa_wavefront_size32", "1"},
			{k.desc, ".amdhsa_private_segment_fixed_size", "0"},
			{k.metadata, ".wavefront_size", "32"},
			{k.metadata, ".private_segment_fixed_size", "0"},
			{k.metadata, ".vgpr_spill_count", "0"},
			{k.metadata, ".sgpr_spill_count", "0"},
			{k.metadata, ".uses_dynamic_stack", "false"},
			{k.metadata, ".max_flat_workgroup_size", "128"},
		} {
			if got := c.m[c.key]; got != c.want {
				t.Errorf("%s: %s is %q, want %s", k.name, c.key, got, c.want)
			}
		}
		t.Logf("%-24s vgpr_count %s, sgpr_count %s", key, k.metadata[".vgpr_count"], k.metadata[".sgpr_count"])
	}
	for key := range want {
		t.Errorf("no kernel %s in the assembly", key)
	}
}

var kernelKeyRE = regexp.MustCompile(`Codec[A-Z0-9_]+?Lb[01]E|gm_float_kernelILi[0-9]+ELb[01]E`)

// kernelKey shortens a mangled kernel name to its template arguments.
func kernelKey(mangled string) string {
	if m := kernelKeyRE.FindString(mangled); m != "" {
		// The mangled codec name carries its length: "9CodecQ4_0".
		return m
	}
	return mangled
}

// parseGfx1100 reads the kernel descriptors and the metadata entries of an
// AMDGPU assembly file and joins them by kernel name.
func parseGfx1100(s string) ([]gfx1100Kernel, error) {
	desc := map[string]map[string]string{}
	var order []string
	var cur map[string]string
	var meta []map[string]string
	inMeta := false
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, ".amdhsa_kernel "):
			name := strings.TrimSpace(strings.TrimPrefix(trimmed, ".amdhsa_kernel "))
			cur = map[string]string{}
			desc[name] = cur
			order = append(order, name)
		case trimmed == ".end_amdhsa_kernel":
			cur = nil
		case cur != nil && strings.HasPrefix(trimmed, ".amdhsa_"):
			if f := strings.Fields(trimmed); len(f) == 2 {
				cur[f[0]] = f[1]
			}
		case trimmed == "amdhsa.kernels:":
			inMeta = true
		case inMeta && strings.HasPrefix(line, "  - "):
			meta = append(meta, map[string]string{})
		case inMeta && len(meta) > 0 && strings.HasPrefix(line, "    .") && !strings.HasPrefix(line, "     "):
			k, v, ok := strings.Cut(trimmed, ":")
			if ok {
				meta[len(meta)-1][k] = strings.TrimSpace(v)
			}
		case inMeta && line != "" && !strings.HasPrefix(line, " "):
			inMeta = false
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	byName := map[string]map[string]string{}
	for _, m := range meta {
		byName[m[".name"]] = m
	}
	var ks []gfx1100Kernel
	for _, name := range order {
		m, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("kernel %s has a descriptor but no metadata entry", name)
		}
		ks = append(ks, gfx1100Kernel{name: name, desc: desc[name], metadata: m})
	}
	if len(ks) != len(meta) {
		return nil, fmt.Errorf("%d kernel descriptors, %d metadata entries", len(ks), len(meta))
	}
	return ks, nil
}
