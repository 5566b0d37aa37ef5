package hipkern

import (
	"errors"
	"os"
	"testing"

	"gathermut/hipkern/internal/emulation"
)

// loadEmulation loads the host emulation as hipkerntest.LoadEmulation does.
func loadEmulation() error { return emulation.Load(Load, loadedLibrary) }

// TestLoadEmulation: with neither emulation.NoEnv nor LibEnv set,
// emulation.Load through Load loads the emulation (again: it does
// nothing), which describes itself as such; NoEnv or LibEnv make it refuse
// with emulation.ErrNoEmulation; another library loaded, or a fatal registration,
// make it fail; and Load alone refuses the same library afterwards.
func TestLoadEmulation(t *testing.T) {
	if os.Getenv(emulation.NoEnv) != "" || os.Getenv(LibEnv) != "" || os.Getenv(emulation.LibEnv) != "" {
		t.Skipf("%s, %s or %s is set: the host emulation is not built and loaded in this process", emulation.NoEnv, LibEnv, emulation.LibEnv)
	}
	if info, err := Available(); err == nil && info.Arch != "host-emulation" {
		t.Skipf("a GPU library is loaded (%s): the host emulation is not opened beside it", info.Name)
	}
	for range 2 {
		if err := loadEmulation(); errors.Is(err, emulation.ErrNoEmulation) {
			t.Skip(err) // no cgo, or no bash or c++ to build it
		} else if err != nil {
			t.Fatalf("loadEmulation: %v", err)
		}
	}
	emu, err := emulation.Library()
	if err != nil {
		t.Fatal(err)
	}
	info, err := Available()
	want := Info{Name: "host emulation device 0", Arch: "host-emulation", Devices: 2, Runtime: "host emulation", Library: emu}
	if err != nil || info != want || !info.Emulation() {
		t.Errorf("Available() = %+v, %v; want %+v", info, err, want)
	}
	if s := "the host emulation, not a GPU: host emulation device 0 (host-emulation), 2 device(s), host emulation runtime, library " + emu; info.String() != s {
		t.Errorf("Info.String() = %q, want %q", info.String(), s)
	}

	for _, c := range []struct{ noEmu, lib, want string }{
		{"1", "", "hipkern: no host emulation here: GATHERMUT_NO_EMULATION is set"},
		{"", "/x/lib.so", "hipkern: no host emulation here: GATHERMUT_HIPKERN_LIB names /x/lib.so, the library under test"},
	} {
		t.Setenv(emulation.NoEnv, c.noEmu)
		t.Setenv(LibEnv, c.lib)
		if err := loadEmulation(); !errors.Is(err, emulation.ErrNoEmulation) || err.Error() != c.want {
			t.Errorf("%s=%q, %s=%q: %v\nwant %s", emulation.NoEnv, c.noEmu, LibEnv, c.lib, err, c.want)
		}
	}
	t.Setenv(emulation.NoEnv, "")
	t.Setenv(LibEnv, "")

	t.Run("another library loaded", func(t *testing.T) {
		withLoader(t, newFakeLib(), Info{Name: "Fake GPU", Arch: "fake_arch", Devices: 1, Runtime: "fake", Library: "/fake.so"})
		want := "hipkern: host emulation not loaded: /fake.so is loaded already"
		if err := loadEmulation(); errText(err) != want || errors.Is(err, emulation.ErrNoEmulation) {
			t.Errorf("LoadEmulation: %v\nwant %s", err, want)
		}
	})
	t.Run("Load refuses the emulation afterwards", func(t *testing.T) {
		// LoadEmulation's admission ends with it: Load on its own refuses
		// the same library.
		resetLoader(t)
		t.Setenv(LibEnv, emu)
		if err := Load(); errText(err) != emulationRefusal(emu) {
			t.Errorf("Load with %s=%s after LoadEmulation: %v\nwant %s", LibEnv, emu, err, emulationRefusal(emu))
		}
	})
	t.Run("providers registered twice", func(t *testing.T) {
		// The emulation's providers are registered: loading it again into
		// an empty loader fails to register them, and that is final.
		resetLoader(t)
		want := "hipkern: register the GPU providers of " + emu + ": " +
			`gather: register EmbeddingQuant provider "hip.EmbeddingQuant" for device gpu: already registered` + "\n" +
			`gather: register EmbeddingFloat provider "hip.EmbeddingFloat" for device gpu: already registered`
		for name, err := range map[string]error{
			"loadEmulation":       loadEmulation(),
			"Load":                Load(),
			"Available":           func() error { _, err := Available(); return err }(),
			"Alloc":               allocFails(t, gpu0, 8),
			"Free":                Free(gpu0, 0x1000),
			"CopyIn":              CopyIn(gpu0, 0x1000, []byte{1}),
			"CopyOut":             CopyOut(gpu0, make([]byte, 1), 0x1000),
			"loadEmulation again": loadEmulation(),
		} {
			if errText(err) != want {
				t.Errorf("%s: %v\nwant %s", name, err, want)
			}
		}
		if loader.lib != nil {
			t.Errorf("a library whose registration failed is loaded")
		}
	})
	t.Run("fatal", func(t *testing.T) {
		resetLoader(t)
		fatal := errors.New("hipkern: register the GPU providers of /l.so: boom")
		loader.fatal = fatal
		if err := loadEmulation(); err != fatal || loader.lib != nil {
			t.Errorf("LoadEmulation after a fatal registration: %v (loaded %v), want %v", err, loader.lib, fatal)
		}
	})
}
