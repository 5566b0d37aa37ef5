package lab

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"gathermut/mutate/report"
)

// describeMachine records where the run happened: host, OS, CPU and GPUs
// (nvidia-smi for NVIDIA, rocminfo for AMD, where present).
func describeMachine() report.Machine {
	host, _ := os.Hostname()
	m := report.Machine{Hostname: host, OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), CPU: cpuModel()}
	m.GPUs = append(m.GPUs, nvidiaGPUs()...)
	m.GPUs = append(m.GPUs, amdGPUs()...)
	if len(m.GPUs) == 0 {
		m.GPUNote = "no nvidia-smi or rocminfo GPU found"
	}
	return m
}

func cpuModel() string { return cpuModelIn("/proc/cpuinfo") }

// cpuModelIn reads the first "model name" of a cpuinfo file; "" without
// one.
func cpuModelIn(cpuinfo string) string {
	f, err := os.Open(cpuinfo)
	if err != nil { //gathermut:equivalent(branch-if) a nil *os.File reads as an error: the scan below finds nothing and returns "" too
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func nvidiaGPUs() []report.GPU {
	if _, err := exec.LookPath("nvidia-smi"); err != nil { //gathermut:equivalent(branch-if) without it on PATH the command below fails to start and returns nil too
		return nil
	}
	out, err := exec.Command("nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader").Output()
	if err != nil {
		return nil
	}
	var gpus []report.GPU
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, capability, _ := strings.Cut(line, ",")
		if name = strings.TrimSpace(name); name != "" {
			gpus = append(gpus, report.GPU{Name: name, Arch: "sm_" + strings.ReplaceAll(strings.TrimSpace(capability), ".", "")})
		}
	}
	return gpus
}

// amdGPUs reads rocminfo's agents: a GPU agent has a "Name: gfx..." line
// and a "Marketing Name:" line.
func amdGPUs() []report.GPU {
	if _, err := exec.LookPath("rocminfo"); err != nil { //gathermut:equivalent(branch-if) without it on PATH the command below fails to start and returns nil too
		return nil
	}
	out, err := exec.Command("rocminfo").Output()
	if err != nil {
		return nil
	}
	var gpus []report.GPU
	var arch string
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Name":
			arch = ""
			if strings.HasPrefix(v, "gfx") {
				arch = v
			}
		case "Marketing Name":
			if arch != "" {
				gpus = append(gpus, report.GPU{Name: v, Arch: arch})
				arch = ""
			}
		}
	}
	return gpus
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}
