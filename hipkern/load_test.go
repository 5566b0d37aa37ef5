package hipkern

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
	"gathermut/hipkern/internal/admit"
)

// fakePath is the library path Load is pointed at (LibEnv) in the fake
// load tests; no file is there, openBackend hands out the fake.
const fakePath = "/fake/" + LibName

// fakeLoad makes Load find fakePath (LibEnv), open f there (any other path
// fails as a missing file would) and register into reg, with nothing
// loaded; all is restored when the test ends. It returns the registrations
// Load asked for, in order, and how often it opened the library.
func fakeLoad(t *testing.T, f *fakeLib, reg *gather.Registry) (registered *[]string, opens *int) {
	t.Helper()
	resetLoader(t)
	t.Setenv(LibEnv, fakePath)
	registered, opens = new([]string), new(int)
	oldOpen, oldRegister := openBackend, registerProvider
	t.Cleanup(func() { openBackend, registerProvider = oldOpen, oldRegister })
	openBackend = func(path string) (backend, error) {
		*opens++
		if path != fakePath {
			return nil, fmt.Errorf("hipkern: load %s: no such file", path)
		}
		return f, nil
	}
	registerProvider = func(op gather.Op, dev gather.DeviceKind, p gather.Provider) error {
		*registered = append(*registered, fmt.Sprintf("%s %s %s", op, dev, p.Name()))
		return reg.Register(op, dev, p)
	}
	return registered, opens
}

// providerDevices returns how many GPUs the registered provider of op
// believes the library sees: the first ordinal it refuses as past them
// (a launch on a smaller one reaches the fake library).
func providerDevices(t *testing.T, reg *gather.Registry, op gather.Op) int {
	t.Helper()
	ps := reg.Providers(op, gather.GPU)
	if len(ps) != 1 {
		t.Fatalf("%d %s providers registered for gpu, want 1", len(ps), op)
	}
	table := gguf.TypeQ4_K
	if op == gather.OpEmbeddingFloat {
		table = gguf.TypeF32
	}
	for n := range 8 {
		o, tb, id := gpuArgs(table, 100, 512, 3, gguf.TypeI64, gguf.TypeBF16)
		o.Device.Ordinal, tb.Device.Ordinal, id.Device.Ordinal = n, n, n
		want := fmt.Sprintf("hipkern: %s: device gpu:%d: the library sees %d GPUs", ps[0].Name(), n, n)
		if err := ps[0].Embedding(o, tb, id); errText(err) == want {
			return n
		}
	}
	t.Fatalf("%s refuses no device ordinal below 8", ps[0].Name())
	return 0
}

// TestLoadFake judges Load's own steps with a fake library (openBackend)
// and a registry of the test's (registerProvider), so that they get the
// same verdict on every machine: with a GPU library loaded in the process
// (a GPU machine) the real Load runs once and only on its success path,
// and without one (here, on the host emulation) only through the test
// path's admission. Load opens what locate finds, probes it, registers the
// packed provider then the float one with the library's device count, and
// describes it; a second Load does nothing. A library whose probe fails is
// closed again and Load may be retried; the host emulation is refused
// unless a test requests it (package admit), and then Load opens the
// requested path, not locate's; a failed registration is final.
func TestLoadFake(t *testing.T) {
	fakeInfo := func(f *fakeLib) Info {
		return Info{Name: "Fake GPU", Arch: "fake_arch", Devices: f.devices, Runtime: f.runtime, Library: fakePath}
	}
	t.Run("loads and registers", func(t *testing.T) {
		f := newFakeLib()
		f.devices = 3
		reg := gather.NewRegistry()
		registered, opens := fakeLoad(t, f, reg)
		for range 2 {
			if err := Load(); err != nil {
				t.Fatalf("Load: %v", err)
			}
		}
		if *opens != 1 {
			t.Errorf("two Loads opened the library %d times, want once", *opens)
		}
		want := []string{"EmbeddingQuant gpu hip.EmbeddingQuant", "EmbeddingFloat gpu hip.EmbeddingFloat"}
		if !slices.Equal(*registered, want) {
			t.Errorf("registrations %q, want %q", *registered, want)
		}
		for _, op := range []gather.Op{gather.OpEmbeddingQuant, gather.OpEmbeddingFloat} {
			if n := providerDevices(t, reg, op); n != 3 {
				t.Errorf("the %s provider sees %d GPUs, the library 3", op, n)
			}
		}
		if info, err := Available(); err != nil || info != fakeInfo(f) {
			t.Errorf("Available() = %+v, %v; want %+v", info, err, fakeInfo(f))
		}
		if loader.lib != f || loader.fatal != nil || f.closes != 0 {
			t.Errorf("loaded %v (fatal %v), %d closes; want the fake, no fatal error, no close", loader.lib, loader.fatal, f.closes)
		}
	})
	t.Run("probe fails", func(t *testing.T) {
		f := newFakeLib()
		f.devices = 0
		reg := gather.NewRegistry()
		registered, opens := fakeLoad(t, f, reg)
		want := "hipkern: " + fakePath + " (fake runtime): no GPU: device count 0"
		for i := range 2 {
			if err := Load(); errText(err) != want {
				t.Errorf("Load: %v\nwant %s", err, want)
			}
			if *opens != i+1 || f.closes != i+1 {
				t.Errorf("after %d Loads: %d opens, %d closes; want %d of each (a refused library is unloaded, and Load retries)", i+1, *opens, f.closes, i+1)
			}
		}
		if len(*registered) != 0 || loader.lib != nil || loader.fatal != nil {
			t.Errorf("after a failed probe: registrations %q, loaded %v, fatal %v", *registered, loader.lib, loader.fatal)
		}
	})
	t.Run("host emulation", func(t *testing.T) {
		f := newFakeLib()
		f.runtime = emulationRuntime
		reg := gather.NewRegistry()
		registered, opens := fakeLoad(t, f, reg)
		if err := Load(); errText(err) != emulationRefusal(fakePath) {
			t.Errorf("Load: %v\nwant %s", err, emulationRefusal(fakePath))
		}
		if f.closes != 1 || len(*registered) != 0 || loader.lib != nil {
			t.Errorf("the refused emulation: %d closes, registrations %q, loaded %v", f.closes, *registered, loader.lib)
		}
		// A request admits it, at the requested path: locate's (LibEnv)
		// is not opened.
		t.Setenv(LibEnv, "/elsewhere/"+LibName)
		if err := admit.While(fakePath, Load); err != nil {
			t.Fatalf("Load while the emulation is requested: %v", err)
		}
		if info, err := Available(); err != nil || info != fakeInfo(f) || !info.Emulation() {
			t.Errorf("Available() = %+v, %v; want %+v", info, err, fakeInfo(f))
		}
		if *opens != 2 || len(*registered) != 2 {
			t.Errorf("%d opens, registrations %q; want 2 and both providers", *opens, *registered)
		}
	})
	t.Run("open fails", func(t *testing.T) {
		f := newFakeLib()
		_, opens := fakeLoad(t, f, gather.NewRegistry())
		t.Setenv(LibEnv, "/missing/"+LibName)
		want := "hipkern: load /missing/" + LibName + ": no such file"
		if err := Load(); errText(err) != want || loader.fatal != nil || *opens != 1 {
			t.Errorf("Load: %v (fatal %v, %d opens)\nwant %s, not fatal", err, loader.fatal, *opens, want)
		}
	})
	t.Run("registration fails", func(t *testing.T) {
		// The float tier is taken: the packed provider is registered, the
		// float one refused, and that is final.
		f := newFakeLib()
		reg := gather.NewRegistry()
		if err := reg.Register(gather.OpEmbeddingFloat, gather.GPU, newProvider(newFakeLib(), false, 1)); err != nil {
			t.Fatal(err)
		}
		registered, opens := fakeLoad(t, f, reg)
		want := "hipkern: register the GPU providers of " + fakePath + ": " +
			`gather: register EmbeddingFloat provider "hip.EmbeddingFloat" for device gpu: already registered`
		for name, err := range map[string]error{
			"Load":       Load(),
			"Load again": Load(),
			"Available":  func() error { _, err := Available(); return err }(),
			"Alloc":      allocFails(t, gpu0, 8),
		} {
			if errText(err) != want {
				t.Errorf("%s: %v\nwant %s", name, err, want)
			}
		}
		if *opens != 1 || len(*registered) != 2 || loader.lib != nil {
			t.Errorf("%d opens, registrations %q, loaded %v; want one open, two registrations, nothing loaded", *opens, *registered, loader.lib)
		}
		if ps := reg.Providers(gather.OpEmbeddingQuant, gather.GPU); len(ps) != 1 || ps[0].Name() != quantName {
			t.Errorf("packed providers %v, want the one Load registered", ps)
		}
		if errText(loader.fatal) != want {
			t.Errorf("loader.fatal = %v, want %s", loader.fatal, want)
		}
	})
	t.Run("fatal already", func(t *testing.T) {
		_, opens := fakeLoad(t, newFakeLib(), gather.NewRegistry())
		fatal := errors.New("hipkern: register the GPU providers of /l.so: boom")
		loader.fatal = fatal
		if err := Load(); err != fatal || *opens != 0 {
			t.Errorf("Load after a fatal registration: %v, %d opens; want %v and no open", err, *opens, fatal)
		}
	})
}
