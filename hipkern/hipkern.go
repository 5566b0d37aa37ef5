package hipkern

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"gathermut/gather"
)

// LibEnv names the environment variable holding the kernel library's path.
const LibEnv = "GATHERMUT_HIPKERN_LIB"

// DefaultLib is the build script's default output, relative to the module
// root.
const DefaultLib = "hipkern/build/libgathermut_hip.so"

// abiVersion is the launcher ABI this binding speaks (gm_abi_version).
const abiVersion = 1

// Info describes the GPUs the loaded library sees: device 0's name and
// architecture (e.g. "NVIDIA H200", "sm_90"; "gfx1100") and how many
// devices there are.
type Info struct {
	Name, Arch string
	Devices    int
}

// backend is the loaded kernel library: the cgo binding in production, a
// fake in the provider tests. Pointers are device addresses.
type backend interface {
	abiVersion() int
	runtimeName() string
	deviceCount() (int, error)
	deviceInfo(dev int) (name, arch string, err error)
	tableTypes() (all []int, quant int)
	alloc(dev int, n int64) (uint64, error)
	free(dev int, p uint64) error
	copyIn(dev int, dst uint64, src []byte) error
	copyOut(dev int, dst []byte, src uint64) error
	gather(g gatherCall) (badPos int64, err error)
	benchGather(g gatherCall, iters int) (ms float64, err error)
	benchCopy(dev int, dst, src uint64, n int64, iters int) (ms float64, err error)
	probes() probeState
	resetProbes()
	injectFailure(step int)
	setDevice(dev int) error
	currentDevice() int
}

// gatherCall is one gm_gather: table, ids and out are device addresses.
type gatherCall struct {
	dev           int
	tableType     int
	table         uint64
	vocab, hidden int64
	ids           uint64
	idBytes       int
	nIDs          int64
	out           uint64
	outBF16       bool
}

// probeState is what the library's test probes report.
type probeState struct {
	boundDevice int   // the device the last entry point bound, -1 after resetProbes
	launches    int64 // kernels launched since the library was loaded
	lastGrid    int64 // workgroups of the last launch
	liveTemps   int64 // temporaries (error records) allocated and not yet freed
}

var loader struct {
	mu      sync.Mutex
	lib     backend
	info    Info
	runtime string
	fatal   error // a registration that failed: Load cannot be retried
}

// Load opens the kernel library (the path in LibEnv, else DefaultLib under
// the module root), checks that it sees a GPU, and registers the GPU
// providers "hip.EmbeddingQuant" and "hip.EmbeddingFloat" with gather. It is
// idempotent: after a success it does nothing. Its error says what is
// missing: the library (with the path tried and the loader's message), or a
// GPU (with the runtime's message or a device count of 0).
func Load() error {
	loader.mu.Lock()
	defer loader.mu.Unlock()
	if loader.lib != nil {
		return nil
	}
	if loader.fatal != nil {
		return loader.fatal
	}
	path, err := libraryPath()
	if err != nil {
		return err
	}
	lib, err := openLib(path)
	if err != nil {
		if errors.Is(err, errNoCgo) {
			return err
		}
		return fmt.Errorf("hipkern: load %s: %w (build it with bash hipkern/build.sh, or set %s)", path, err, LibEnv)
	}
	info, err := probeDevices(lib, path)
	if err != nil {
		return err
	}
	var errs []error
	register := func(op gather.Op, p *provider) {
		if err := gather.Register(op, gather.GPU, p); err != nil {
			errs = append(errs, err)
		}
	}
	register(gather.OpEmbeddingQuant, newProvider(lib, true, info.Devices))
	register(gather.OpEmbeddingFloat, newProvider(lib, false, info.Devices))
	if err := errors.Join(errs...); err != nil {
		loader.fatal = fmt.Errorf("hipkern: register the GPU providers of %s: %w", path, err)
		return loader.fatal
	}
	loader.lib, loader.info, loader.runtime = lib, info, lib.runtimeName()
	return nil
}

// errNoCgo is Load's error in a build without cgo.
var errNoCgo = errors.New("hipkern: built without cgo")

// probeDevices checks the library's ABI and that it sees a GPU, and returns
// device 0's description.
func probeDevices(lib backend, path string) (Info, error) {
	if v := lib.abiVersion(); v != abiVersion {
		return Info{}, fmt.Errorf("hipkern: %s speaks launcher ABI %d, this binding %d: rebuild it", path, v, abiVersion)
	}
	rt := lib.runtimeName()
	n, err := lib.deviceCount()
	if err != nil {
		return Info{}, fmt.Errorf("hipkern: %s (%s runtime): no GPU: %w", path, rt, err)
	}
	if n == 0 {
		return Info{}, fmt.Errorf("hipkern: %s (%s runtime): no GPU: device count 0", path, rt)
	}
	name, arch, err := lib.deviceInfo(0)
	if err != nil {
		return Info{}, fmt.Errorf("hipkern: %s (%s runtime): device 0: %w", path, rt, err)
	}
	return Info{Name: name, Arch: arch, Devices: n}, nil
}

// libraryPath returns LibEnv's value, else DefaultLib under the module root.
func libraryPath() (string, error) {
	if p := os.Getenv(LibEnv); p != "" {
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("hipkern: no library path: %s is unset and %w", LibEnv, err)
	}
	return filepath.Join(root, filepath.FromSlash(DefaultLib)), nil
}

// moduleRoot finds the directory whose go.mod declares module gathermut,
// walking up from the working directory, then from this source file's
// directory (the build machine's checkout).
func moduleRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		if root, ok := findModule(dir); ok {
			return root, nil
		}
	}
	return "", fmt.Errorf("no go.mod of module gathermut above %s", strings.Join(starts, " or "))
}

func findModule(dir string) (string, bool) {
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && declaresGathermut(b) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func declaresGathermut(gomod []byte) bool {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == "gathermut" {
			return true
		}
	}
	return false
}

// Available loads the library if needed and describes its GPUs; the error
// says what is missing.
func Available() (Info, error) {
	if err := Load(); err != nil {
		return Info{}, err
	}
	loader.mu.Lock()
	defer loader.mu.Unlock()
	return loader.info, nil
}

// loaded returns the library, loading it first if needed.
func loaded() (backend, Info, error) {
	if err := Load(); err != nil {
		return nil, Info{}, err
	}
	loader.mu.Lock()
	defer loader.mu.Unlock()
	return loader.lib, loader.info, nil
}

// device checks that dev is one of the library's GPUs.
func device(dev gather.Device) (backend, error) {
	lib, info, err := loaded()
	if err != nil {
		return nil, err
	}
	if dev.Kind != gather.GPU {
		return nil, fmt.Errorf("hipkern: device %v is not a GPU", dev)
	}
	if dev.Ordinal < 0 || dev.Ordinal >= info.Devices {
		return nil, fmt.Errorf("hipkern: device %v: the library sees %d GPUs", dev, info.Devices)
	}
	return lib, nil
}

// Alloc allocates n bytes of device memory on dev and returns its address
// (for gather.Tensor.DevPtr). n == 0 allocates one byte, so the address is
// a real one that Free accepts.
func Alloc(dev gather.Device, n int) (uintptr, error) {
	lib, err := device(dev)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("hipkern: Alloc on %v: negative size %d", dev, n)
	}
	p, err := lib.alloc(dev.Ordinal, int64(max(n, 1)))
	if err != nil {
		return 0, fmt.Errorf("hipkern: Alloc %d bytes on %v: %w", n, dev, err)
	}
	return uintptr(p), nil
}

// Free releases memory that Alloc returned.
func Free(dev gather.Device, p uintptr) error {
	lib, err := device(dev)
	if err != nil {
		return err
	}
	if err := lib.free(dev.Ordinal, uint64(p)); err != nil {
		return fmt.Errorf("hipkern: Free %#x on %v: %w", p, dev, err)
	}
	return nil
}

// CopyIn copies src to device memory at dst.
func CopyIn(dev gather.Device, dst uintptr, src []byte) error {
	lib, err := device(dev)
	if err != nil {
		return err
	}
	if err := lib.copyIn(dev.Ordinal, uint64(dst), src); err != nil {
		return fmt.Errorf("hipkern: CopyIn %d bytes to %#x on %v: %w", len(src), dst, dev, err)
	}
	return nil
}

// CopyOut copies len(dst) bytes of device memory at src into dst.
func CopyOut(dev gather.Device, dst []byte, src uintptr) error {
	lib, err := device(dev)
	if err != nil {
		return err
	}
	if err := lib.copyOut(dev.Ordinal, dst, uint64(src)); err != nil {
		return fmt.Errorf("hipkern: CopyOut %d bytes from %#x on %v: %w", len(dst), src, dev, err)
	}
	return nil
}
