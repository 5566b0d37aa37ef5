package hipkerntest

import (
	"gathermut/hipkern"
	"gathermut/hipkern/internal/emulation"
)

const (
	// NoEmulationEnv, when set to any value, stops the host emulation: GPU
	// tests then skip on a machine without a GPU.
	NoEmulationEnv = emulation.NoEnv
	// EmulationLibEnv names a host emulation library to run on instead of
	// building one (a mutation run's kernel under test); while it is set
	// and hipkern.LibEnv is not, Load loads it and no other library.
	EmulationLibEnv = emulation.LibEnv
)

// ErrNoEmulation is the error (wrapped) of Load and LoadEmulation when the
// host emulation is not to be used here: NoEmulationEnv is set,
// hipkern.LibEnv names a library under test, the binary has no cgo, or
// bash or c++ is missing to build it. A test skips on it and fails on any
// other error.
var ErrNoEmulation = emulation.ErrNoEmulation

// Load loads what a GPU test runs on and describes it: the library
// EmulationLibEnv names, when it names one and hipkern.LibEnv does not;
// else the GPU library hipkern.Load finds; else the host emulation, built
// once per set of kernel sources into the user cache directory. Log the
// Info: a run on the emulation is not a GPU run.
func Load() (hipkern.Info, error) {
	if err := emulation.ForTest(hipkern.Load, loadedLibrary); err != nil {
		return hipkern.Info{}, err
	}
	return hipkern.Available()
}

// LoadEmulation loads the host emulation alone (EmulationLibEnv's library,
// else the cached build) and registers its providers with gather; it does
// nothing when the emulation is loaded already and refuses when another
// library is.
func LoadEmulation() error {
	return emulation.Load(hipkern.Load, loadedLibrary)
}

// loadedLibrary is the path of the library hipkern has loaded, "" for none.
func loadedLibrary() string {
	info, err := hipkern.Available()
	if err != nil {
		return ""
	}
	return info.Library
}
