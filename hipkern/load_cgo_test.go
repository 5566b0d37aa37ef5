//go:build cgo

package hipkern

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// gpuArch is what a GPU library names a device's architecture.
var gpuArch = regexp.MustCompile(`^(sm_[0-9]+|gfx[0-9a-f]+)$`)

// TestLoadRealLibrary checks, on the GPU library that Load finds here
// (locate: GATHERMUT_HIPKERN_LIB, beside the executable, the user cache,
// build/ beside this package), the facts TestLoadFake checks on a fake:
// it skips, saying so, only where no library is found or the one found is
// the host emulation. Where one is present, the GPU tests must run on it:
// a Load that fails on it fails this test (the other GPU tests would skip
// with the emulation turned off, as on a GPU session, or run on the
// emulation). Its devices answer one by one (a name, an sm_NN or gfxNNNN
// architecture), the first past them is refused with the runtime's
// wording; then Load runs again on it from an empty loader, into a
// registry of the test's, so that this test runs Load's success path
// itself (in a mutation run's one-process baseline it would otherwise count
// for the first GPU test alone): Info is device 0's name and architecture,
// the device count, runtime and path; the packed provider is registered
// first, then the float one, both with the library's device count; Alloc
// refuses the first ordinal past the devices.
func TestLoadRealLibrary(t *testing.T) {
	path, err := locate()
	if err != nil {
		t.Skipf("no GPU library here: %v", err)
	}
	// The process keeps its own reference (loadForTests), so that the
	// references this test opens and closes never unload a GPU runtime.
	loadErr := loadForTests()
	count, open := openState()
	if count > 0 && open != path {
		t.Fatalf("the library %s is present, but %s is loaded in this process (the tests' load: %v)", path, open, loadErr)
	}
	raw, err := openLib(path)
	if err != nil {
		t.Fatalf("the library %s is present and does not open: %v", path, err)
	}
	defer raw.close()
	rt := raw.runtimeName()
	if rt == emulationRuntime {
		t.Skipf("the library %s is the host emulation, not a GPU library: nothing here to check", path)
	}
	if loadErr != nil || loadedLibrary() != path {
		t.Fatalf("the GPU library %s (%s runtime) is present, but the tests' load gave %q with %q loaded", path, rt, errText(loadErr), loadedLibrary())
	}
	n, err := raw.deviceCount()
	if err != nil || n < 1 {
		t.Fatalf("%s (%s runtime): device count %d, %v; Load succeeded on it", path, rt, n, err)
	}
	var name0, arch0 string
	for dev := range n {
		name, arch, err := raw.deviceInfo(dev)
		if err != nil || name == "" || !gpuArch.MatchString(arch) {
			t.Errorf("device %d of %d: %q, %q, %v; want a name and sm_NN or gfxNNNN", dev, n, name, arch, err)
		}
		if dev == 0 {
			name0, arch0 = name, arch
		}
		if smi := smiNames(t); strings.HasPrefix(arch, "sm_") && smi != nil && !slices.Contains(smi, name) {
			t.Errorf("device %d: name %q is none of nvidia-smi's %q", dev, name, smi)
		}
	}
	name, arch, err := raw.deviceInfo(n)
	if want := fmt.Sprintf("hipkern: hipGetDeviceProperties on device %d: invalid device ordinal", n); name != "" || arch != "" || errText(err) != want {
		t.Errorf("deviceInfo(%d), past the devices: %q, %q, %v\nwant no name and %s", n, name, arch, err, want)
	}
	t.Logf("%s: %s runtime, %d device(s), device 0 %s (%s)", path, rt, n, name0, arch0)

	reg := gather.NewRegistry()
	var registered []string
	oldRegister := registerProvider
	resetLoader(t)
	t.Cleanup(func() { registerProvider = oldRegister })
	registerProvider = func(op gather.Op, dev gather.DeviceKind, p gather.Provider) error {
		registered = append(registered, fmt.Sprintf("%s %s %s", op, dev, p.Name()))
		return reg.Register(op, dev, p)
	}
	if err := Load(); err != nil {
		t.Fatalf("Load from an empty loader: %v", err)
	}
	t.Cleanup(func() {
		loader.mu.Lock()
		defer loader.mu.Unlock()
		loader.lib.close() // the reference this Load opened; resetLoader's cleanup restores the process's
	})
	want := Info{Name: name0, Arch: arch0, Devices: n, Runtime: rt, Library: path}
	if info, err := Available(); err != nil || info != want || info.Emulation() {
		t.Errorf("Available() = %+v, %v; want %+v", info, err, want)
	}
	if wantReg := []string{"EmbeddingQuant gpu hip.EmbeddingQuant", "EmbeddingFloat gpu hip.EmbeddingFloat"}; !slices.Equal(registered, wantReg) {
		t.Errorf("registrations %q, want %q", registered, wantReg)
	}
	for _, c := range []struct {
		op    gather.Op
		table gguf.Type
	}{{gather.OpEmbeddingQuant, gguf.TypeQ4_K}, {gather.OpEmbeddingFloat, gguf.TypeF32}} {
		ps := reg.Providers(c.op, gather.GPU)
		if len(ps) != 1 {
			t.Errorf("%d %s providers registered, want 1", len(ps), c.op)
			continue
		}
		// No device addresses: a provider that took ordinal n for one of
		// its GPUs refuses the addresses next, before any launch.
		for _, dev := range []int{n - 1, n} {
			o, tb, id := gpuArgs(c.table, 100, 512, 3, gguf.TypeI64, gguf.TypeBF16)
			o.Device.Ordinal, tb.Device.Ordinal, id.Device.Ordinal = dev, dev, dev
			tb.DevPtr = 0
			want := fmt.Sprintf("hipkern: %s: table has no device address", ps[0].Name())
			if dev == n {
				want = fmt.Sprintf("hipkern: %s: device gpu:%d: the library sees %d GPUs", ps[0].Name(), n, n)
			}
			if err := ps[0].Embedding(o, tb, id); errText(err) != want {
				t.Errorf("%s on gpu:%d: %v\nwant %s", ps[0].Name(), dev, err, want)
			}
		}
	}
	past := gather.Device{Kind: gather.GPU, Ordinal: n}
	if err := allocFails(t, past, 8); errText(err) != fmt.Sprintf("hipkern: device %v: the library sees %d GPUs", past, n) {
		t.Errorf("Alloc on %v: %v", past, err)
	}
}

// smiNames are the GPU names nvidia-smi lists (the CUDA runtime names a
// device alike), nil where there is no nvidia-smi: a device name cut or
// shifted by the binding then differs from all of them.
func smiNames(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		return nil
	}
	out, err := exec.Command("nvidia-smi", "--query-gpu=name", "--format=csv,noheader").Output()
	if err != nil {
		t.Logf("nvidia-smi: %v: the device names are not compared with it", err)
		return nil
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		names = append(names, strings.TrimSpace(line))
	}
	return names
}
