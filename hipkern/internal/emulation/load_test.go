package emulation

import (
	"errors"
	"slices"
	"testing"

	"gathermut/hipkern/internal/admit"
)

// fakeHipkern stands in for hipkern.Load and the loaded library's path: it
// records each load with the emulation request it saw, and loads the
// requested emulation, or the GPU library when there is one.
type fakeHipkern struct {
	gpu     string // the GPU library load finds, "" for none
	gpuErr  error  // load's error without a request and a GPU
	loads   []string
	current string
}

func (f *fakeHipkern) load() error {
	req, ok := admit.Requested()
	f.loads = append(f.loads, req)
	if f.current != "" {
		return nil
	}
	switch {
	case ok:
		f.current = req
	case f.gpu != "":
		f.current = f.gpu
	default:
		return f.gpuErr
	}
	return nil
}

func (f *fakeHipkern) loaded() string { return f.current }

// TestForTest: the order the tests load in. EmulationLibEnv alone names the
// only library a test may run on (a GPU library that load would find is
// never tried); otherwise the GPU library first, the emulation after it,
// and an emulation that is not to be had here is ErrNoEmulation, naming
// why the GPU library was not loaded.
func TestForTest(t *testing.T) {
	if !haveCgo {
		t.Skip("no cgo: Load refuses first (TestLoadWithoutCgo)")
	}
	noGPU := errors.New("hipkern: no kernel library")
	for _, c := range []struct {
		name             string
		emuLib, gpuLib   string // LibEnv, gpuLibEnv
		noEmu            string // NoEnv
		gpu              string
		wantLoads        []string
		wantLoaded, want string
		noEmulation      bool
	}{
		{name: "emulation named, GPU there", emuLib: "/emu.so", gpu: "/gpu.so", wantLoads: []string{"/emu.so"}, wantLoaded: "/emu.so"},
		{name: "emulation named, turned off", emuLib: "/emu.so", noEmu: "1", gpu: "/gpu.so",
			want:        "GATHERMUT_HIPKERN_EMULATION names the library under test: hipkern: no host emulation here: GATHERMUT_NO_EMULATION is set",
			noEmulation: true},
		{name: "emulation and GPU library named", emuLib: "/emu.so", gpuLib: "/gpu.so", gpu: "/gpu.so", wantLoads: []string{""}, wantLoaded: "/gpu.so"},
		{name: "GPU there", gpu: "/gpu.so", wantLoads: []string{""}, wantLoaded: "/gpu.so"},
		{name: "no GPU, emulation off", noEmu: "1", wantLoads: []string{""},
			want:        "no GPU library: hipkern: no kernel library; the host emulation: hipkern: no host emulation here: GATHERMUT_NO_EMULATION is set",
			noEmulation: true},
		{name: "no GPU, library under test", gpuLib: "/x.so", wantLoads: []string{""},
			want:        "no GPU library: hipkern: no kernel library; the host emulation: hipkern: no host emulation here: GATHERMUT_HIPKERN_LIB names /x.so, the library under test",
			noEmulation: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(LibEnv, c.emuLib)
			t.Setenv(gpuLibEnv, c.gpuLib)
			t.Setenv(NoEnv, c.noEmu)
			f := &fakeHipkern{gpu: c.gpu, gpuErr: noGPU}
			err := ForTest(f.load, f.loaded)
			if errText(err) != c.want || errors.Is(err, ErrNoEmulation) != c.noEmulation {
				t.Errorf("ForTest: %v\nwant %q (ErrNoEmulation %v)", err, c.want, c.noEmulation)
			}
			if !slices.Equal(f.loads, c.wantLoads) || f.current != c.wantLoaded {
				t.Errorf("loads %q, loaded %q; want %q, %q", f.loads, f.current, c.wantLoads, c.wantLoaded)
			}
			if p, ok := admit.Requested(); ok {
				t.Errorf("request left after ForTest: %q", p)
			}
		})
	}
}

// TestLoadChecksLoaded: a load that leaves another library loaded (one was
// loaded before) is an error, not ErrNoEmulation.
func TestLoadChecksLoaded(t *testing.T) {
	if !haveCgo {
		t.Skip("no cgo")
	}
	t.Setenv(LibEnv, "/emu.so")
	t.Setenv(gpuLibEnv, "")
	t.Setenv(NoEnv, "")
	f := &fakeHipkern{current: "/gpu.so"}
	err := Load(f.load, f.loaded)
	if want := "hipkern: host emulation not loaded: /gpu.so is loaded already"; errText(err) != want || errors.Is(err, ErrNoEmulation) {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
}
