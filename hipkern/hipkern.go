package hipkern

import (
	"errors"
	"fmt"
	"sync"

	"gathermut/gather"
	"gathermut/hipkern/internal/admit"
)

// LibEnv names the environment variable holding the kernel library's path.
const LibEnv = "GATHERMUT_HIPKERN_LIB"

// LibName is the kernel library's file name in the places Load looks
// (locate).
const LibName = "libgathermut_hip.so"

// abiVersion is the launcher ABI this binding speaks (gm_abi_version).
const abiVersion = 1

// Info describes the loaded library and the GPUs it sees: device 0's name
// and architecture (e.g. "NVIDIA H200", "sm_90"; "gfx1100"), how many
// devices there are, the runtime the library was built for ("hip", "cuda";
// "host emulation") and the library's path.
type Info struct {
	Name, Arch string
	Devices    int
	Runtime    string
	Library    string
}

// Emulation reports whether the library is the host emulation, whose
// devices are the CPU: nothing that runs on it is evidence about a GPU.
func (i Info) Emulation() bool { return i.Runtime == emulationRuntime }

// String describes the devices for a log, saying plainly when they are the
// host emulation.
func (i Info) String() string {
	s := fmt.Sprintf("%s (%s), %d device(s), %s runtime, library %s", i.Name, i.Arch, i.Devices, i.Runtime, i.Library)
	if i.Emulation() {
		return "the host emulation, not a GPU: " + s
	}
	return "GPU " + s
}

// backend is the loaded kernel library: the cgo binding in production, a
// fake in the provider tests. Pointers are device addresses. It is the
// production ABI only; the library's test probes and benchmarks are
// reached by the tests through hipkern/internal/probe.
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
	close() // after a refused probe: nothing else uses the library
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

var loader struct {
	mu    sync.Mutex
	lib   backend
	info  Info
	fatal error // a registration that failed: Load cannot be retried
}

// Load's library opener and provider registration are variables so that a
// test can stand a fake library and a registry of its own in for them:
// Load's own decisions (admission, refusal and unloading, registration,
// the final error) are then judged the same on a machine with a GPU and
// without one (TestLoadFake), where a test on the library actually present
// would take one branch on one machine and another elsewhere.
var (
	openBackend      = openLib
	registerProvider = gather.Register
)

// emulationRuntime is the runtime the host emulation names (compat.h's
// GM_RUNTIME): a library that answers it runs the kernels on the CPU.
const emulationRuntime = "host emulation"

// Load opens the kernel library (the first that locate finds), checks that
// it is a GPU library that sees a GPU, and registers the GPU providers
// "hip.EmbeddingQuant" and "hip.EmbeddingFloat" with gather. It is
// idempotent: after a success it does nothing. Its error says what is
// missing: the library (every place tried, or the path and the dynamic
// loader's message), or a GPU (the runtime's message or a device count of
// 0); a host emulation library is refused, since it is not a GPU (only a
// test's request, package admit, gets one past it).
func Load() error {
	loader.mu.Lock()
	defer loader.mu.Unlock()
	if loader.lib != nil {
		return nil
	}
	if loader.fatal != nil {
		return loader.fatal
	}
	path, emulation := admit.Requested()
	if !emulation {
		var err error
		if path, err = locate(); err != nil {
			return err
		}
	}
	lib, err := openBackend(path)
	if err != nil {
		return err
	}
	info, err := probeDevices(lib, path, emulation)
	if err != nil {
		// Nothing uses the library: unload it, so that the process may
		// open another (the emulation, for the tests) afterwards.
		lib.close()
		return err
	}
	var errs []error // errors.Join drops the nil ones
	register := func(op gather.Op, p *provider) {
		errs = append(errs, registerProvider(op, gather.GPU, p))
	}
	register(gather.OpEmbeddingQuant, newProvider(lib, true, info.Devices))
	register(gather.OpEmbeddingFloat, newProvider(lib, false, info.Devices))
	if err := errors.Join(errs...); err != nil {
		// The other provider may be registered already: no retry.
		loader.fatal = fmt.Errorf("hipkern: register the GPU providers of %s: %w", path, err)
		return loader.fatal
	}
	loader.lib, loader.info = lib, info
	return nil
}

// probeDevices checks the library's ABI, that it is a GPU library (the host
// emulation only when emulation is set) and that it sees a GPU, and
// describes it and its device 0.
func probeDevices(lib backend, path string, emulation bool) (Info, error) {
	if v := lib.abiVersion(); v != abiVersion {
		return Info{}, fmt.Errorf("hipkern: %s speaks launcher ABI %d, this binding %d: rebuild it", path, v, abiVersion)
	}
	rt := lib.runtimeName()
	if rt == emulationRuntime && !emulation {
		return Info{}, fmt.Errorf("hipkern: %s is the host emulation, not a GPU library: it runs the kernels on the CPU "+
			"and only the tests load it (hipkern/internal/emulation); build the GPU library with bash hipkern/build.sh", path)
	}
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
	return Info{Name: name, Arch: arch, Devices: n, Runtime: rt, Library: path}, nil
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
// (for gather.Tensor.DevPtr), or 0 with the error. n == 0 allocates one
// byte, so the address is a real one that Free accepts.
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
