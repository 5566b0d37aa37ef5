package hipkerntest_test

import (
	"errors"
	"os"
	"testing"

	"gathermut/hipkern"
	"gathermut/hipkern/hipkerntest"
)

// TestLoad: with no variable of the test path set, Load gives a GPU
// library or the host emulation, and says which; LoadEmulation then
// succeeds only when the emulation is what is loaded.
func TestLoad(t *testing.T) {
	if os.Getenv(hipkerntest.NoEmulationEnv) != "" || os.Getenv(hipkern.LibEnv) != "" || os.Getenv(hipkerntest.EmulationLibEnv) != "" {
		t.Skip("a variable of the test path is set: this test loads what the environment does not choose")
	}
	info, err := hipkerntest.Load()
	if errors.Is(err, hipkerntest.ErrNoEmulation) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if info.Library == "" || info.Devices < 1 {
		t.Errorf("Load: %+v", info)
	}
	t.Logf("on %v", info)
	if again, err := hipkerntest.Load(); err != nil || again != info {
		t.Errorf("Load again: %+v, %v; want %+v", again, err, info)
	}
	err = hipkerntest.LoadEmulation()
	if info.Emulation() != (err == nil) {
		t.Errorf("LoadEmulation with %v loaded: %v", info, err)
	}
}

// TestLoadEmulationOff: NoEmulationEnv makes LoadEmulation refuse with
// ErrNoEmulation, before anything is built or loaded.
func TestLoadEmulationOff(t *testing.T) {
	t.Setenv(hipkerntest.NoEmulationEnv, "1")
	t.Setenv(hipkern.LibEnv, "")
	err := hipkerntest.LoadEmulation()
	if !errors.Is(err, hipkerntest.ErrNoEmulation) {
		t.Errorf("LoadEmulation with %s set: %v, want ErrNoEmulation", hipkerntest.NoEmulationEnv, err)
	}
}
