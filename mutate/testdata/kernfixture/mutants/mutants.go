// Package mutants is the kernel fixture's catalog: no entries, the recipe
// that builds its kernel (kernel.hip) as the host emulation.
package mutants

import "gathermut/mutate/catalog"

// Catalog returns the fixture's kernel recipe. No GPU compiler exists
// (Tools names one that is never installed), so the emulation judges.
func Catalog() catalog.Catalog {
	return catalog.Catalog{
		Kernel: &catalog.Kernel{
			Sources:        []string{"kern/*.hip", "kern/*.h"},
			Entry:          "kern/kernel.hip",
			Build:          []string{"kernfixture-gpu-cc-never-installed", "{src}", "{out}"},
			LibEnv:         "FIXTURE_KERN_GPU",
			Package:        "kernfixture/kern",
			Tools:          []string{"kernfixture-gpu-cc-never-installed"},
			Emulation:      []string{"c++", "-x", "c++", "-O1", "-o", "{out}", "{src}/kern/kernel.hip"},
			EmulationTools: []string{"c++"},
			EmulationEnv:   "FIXTURE_KERN",
		},
	}
}
