package engine

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
	"gathermut/hipkern/hipkerntest"
)

// fakeDevice is device memory for gpuMemory's tests: addresses from 0x1000
// up, what was copied in, every call, and the failures a test asks for.
type fakeDevice struct {
	mem                                                  map[uintptr][]byte
	next                                                 uintptr
	calls                                                []string
	failLoad, failAlloc, failCopy, failCopyOut, failFree error
}

func newFakeDevice() *fakeDevice { return &fakeDevice{mem: map[uintptr][]byte{}, next: 0x1000} }

func (d *fakeDevice) runtime() gpuRuntime {
	return gpuRuntime{
		load: func() error {
			d.calls = append(d.calls, "load")
			return d.failLoad
		},
		alloc: func(dev gather.Device, n int) (uintptr, error) {
			d.calls = append(d.calls, fmt.Sprintf("alloc %v %d", dev, n))
			if d.failAlloc != nil {
				return 0, d.failAlloc
			}
			p := d.next
			d.next += 0x1000
			d.mem[p] = make([]byte, n)
			return p, nil
		},
		free: func(dev gather.Device, p uintptr) error {
			d.calls = append(d.calls, fmt.Sprintf("free %v %#x", dev, p))
			if d.failFree != nil {
				return d.failFree
			}
			delete(d.mem, p)
			return nil
		},
		copyIn: func(dev gather.Device, dst uintptr, src []byte) error {
			d.calls = append(d.calls, fmt.Sprintf("copyIn %v %#x %d", dev, dst, len(src)))
			if d.failCopy != nil {
				return d.failCopy
			}
			copy(d.mem[dst], src)
			return nil
		},
		copyOut: func(dev gather.Device, dst []byte, src uintptr) error {
			d.calls = append(d.calls, fmt.Sprintf("copyOut %v %#x %d", dev, src, len(dst)))
			if d.failCopyOut != nil {
				return d.failCopyOut
			}
			copy(dst, d.mem[src])
			return nil
		},
	}
}

var gpu1 = gather.Device{Kind: gather.GPU, Ordinal: 1}

// TestGPUMemory: gpuMemory's tensors carry their type, shape, device and
// address; hold copies the host bytes in, write and read copy to and from a
// tensor's address; free releases an address once and then leaves the
// tensor alone.
func TestGPUMemory(t *testing.T) {
	d := newFakeDevice()
	m := gpuMemory{dev: gpu1, rt: d.runtime()}
	if m.device() != gpu1 {
		t.Errorf("device %v, want %v", m.device(), gpu1)
	}
	tab, err := m.hold(gguf.TypeQ4_0, []int64{2, 32}, []byte("table bytes"))
	if err != nil {
		t.Fatal(err)
	}
	want := gather.Tensor{Type: gguf.TypeQ4_0, Shape: []int64{2, 32}, Device: gpu1, DevPtr: 0x1000}
	if tab.Type != want.Type || !slices.Equal(tab.Shape, want.Shape) || tab.Device != want.Device || tab.DevPtr != want.DevPtr || tab.Data != nil {
		t.Errorf("hold: %+v, want %+v", tab, want)
	}
	ids, err := m.alloc(gguf.TypeI32, []int64{3}, 12)
	if err != nil || ids.Type != gguf.TypeI32 || !slices.Equal(ids.Shape, []int64{3}) || ids.Device != gpu1 || ids.DevPtr != 0x2000 {
		t.Errorf("alloc: %+v, %v", ids, err)
	}
	if err := m.write(&ids, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5)
	if err := m.read(got, &ids); err != nil || !bytes.Equal(got, []byte{1, 2, 3, 4, 0}) {
		t.Errorf("read % x, %v", got, err)
	}
	if !bytes.Equal(d.mem[0x1000], []byte("table bytes")) {
		t.Errorf("held bytes %q", d.mem[0x1000])
	}
	for range 2 {
		if err := m.free(&ids); err != nil || ids.DevPtr != 0 {
			t.Errorf("free: %v, address %#x", err, ids.DevPtr)
		}
	}
	wantCalls := []string{
		"alloc gpu:1 11", "copyIn gpu:1 0x1000 11",
		"alloc gpu:1 12", "copyIn gpu:1 0x2000 4", "copyOut gpu:1 0x2000 5",
		"free gpu:1 0x2000",
	}
	if !slices.Equal(d.calls, wantCalls) {
		t.Errorf("calls %q, want %q", d.calls, wantCalls)
	}
}

// TestGPUMemoryFaults: each device failure is returned with context and a
// zero tensor; a table whose copy fails is freed again (its free's failure
// joined to the error); a failed free still clears the address.
func TestGPUMemoryFaults(t *testing.T) {
	oom, bad, stuck := errors.New("out of memory"), errors.New("copy failed"), errors.New("free failed")
	tests := []struct {
		name  string
		fail  func(*fakeDevice)
		op    func(gpuMemory) (gather.Tensor, error)
		want  string
		calls []string
	}{
		{"alloc", func(d *fakeDevice) { d.failAlloc = oom },
			func(m gpuMemory) (gather.Tensor, error) { return m.alloc(gguf.TypeBF16, []int64{2, 4}, 16) },
			"engine: out of memory", []string{"alloc gpu:1 16"}},
		{"hold's alloc", func(d *fakeDevice) { d.failAlloc = oom },
			func(m gpuMemory) (gather.Tensor, error) {
				return m.hold(gguf.TypeQ8_0, []int64{1, 32}, make([]byte, 34))
			},
			"engine: out of memory", []string{"alloc gpu:1 34"}},
		{"hold's copy", func(d *fakeDevice) { d.failCopy = bad },
			func(m gpuMemory) (gather.Tensor, error) {
				return m.hold(gguf.TypeQ8_0, []int64{1, 32}, make([]byte, 34))
			},
			"engine: copy 34 table bytes to gpu:1: copy failed", []string{"alloc gpu:1 34", "copyIn gpu:1 0x1000 34", "free gpu:1 0x1000"}},
		{"hold's copy and free", func(d *fakeDevice) { d.failCopy, d.failFree = bad, stuck },
			func(m gpuMemory) (gather.Tensor, error) {
				return m.hold(gguf.TypeQ8_0, []int64{1, 32}, make([]byte, 34))
			},
			"engine: copy 34 table bytes to gpu:1: copy failed\nfree failed", []string{"alloc gpu:1 34", "copyIn gpu:1 0x1000 34", "free gpu:1 0x1000"}},
	}
	for _, tt := range tests {
		d := newFakeDevice()
		tt.fail(d)
		got, err := tt.op(gpuMemory{dev: gpu1, rt: d.runtime()})
		if errText(err) != tt.want || got.DevPtr != 0 || got.Shape != nil || got.Device != (gather.Device{}) {
			t.Errorf("%s: %+v, %v; want a zero tensor and %q", tt.name, got, err, tt.want)
		}
		if !slices.Equal(d.calls, tt.calls) {
			t.Errorf("%s: calls %q, want %q", tt.name, d.calls, tt.calls)
		}
	}
	d := newFakeDevice()
	m := gpuMemory{dev: gpu1, rt: d.runtime()}
	ids, _ := m.alloc(gguf.TypeI32, []int64{1}, 4)
	d.failCopy, d.failCopyOut, d.failFree = bad, bad, stuck
	if err := m.write(&ids, []byte{1, 2, 3, 4}); err != bad {
		t.Errorf("write: %v, want %v", err, bad)
	}
	if err := m.read(make([]byte, 4), &ids); err != bad {
		t.Errorf("read: %v, want %v", err, bad)
	}
	if err := m.free(&ids); err != stuck || ids.DevPtr != 0 {
		t.Errorf("free: %v, address %#x; want %v and 0", err, ids.DevPtr, stuck)
	}
}

// TestNewGPUMemory: device "gpu" loads the kernel library first; when that
// fails it is refused with the library's reason (never a CPU fallback),
// and otherwise the memory is GPU 0's, through the runtime that loaded.
// The load is a fake's, so that the refusal is judged on a machine whose
// GPU library loads as well as on one without (TestLoadDeviceAndFileErrors
// reaches one branch or the other, depending on the machine).
func TestNewGPUMemory(t *testing.T) {
	d := newFakeDevice()
	d.failLoad = errors.New("hipkern: no GPU: device count 0")
	mem, err := newGPUMemory(d.runtime())
	if want := "engine: device gpu: no GPU provider available: hipkern: no GPU: device count 0"; mem != nil || errText(err) != want || !errors.Is(err, d.failLoad) {
		t.Errorf("newGPUMemory with a failing load = %v, %v; want nil and %q", mem, err, want)
	}
	d = newFakeDevice()
	mem, err = newGPUMemory(d.runtime())
	if err != nil {
		t.Fatal(err)
	}
	if want := (gather.Device{Kind: gather.GPU, Ordinal: 0}); mem.device() != want {
		t.Errorf("device %v, want %v", mem.device(), want)
	}
	if _, err := mem.hold(gguf.TypeQ8_0, []int64{1, 32}, make([]byte, 34)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"load", "alloc gpu:0 34", "copyIn gpu:0 0x1000 34"}; !slices.Equal(d.calls, want) {
		t.Errorf("calls %q, want %q", d.calls, want)
	}
}

// TestGPUMemoryOnDevice: Params.Device "gpu" means GPU 0 through hipkern:
// a held table reads back from the device. It runs on a GPU, else on
// hipkern's host emulation, else it skips.
func TestGPUMemoryOnDevice(t *testing.T) {
	info, err := hipkerntest.Load()
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Logf("on %v", info)
	mem, err := memoryFor("gpu")
	if err != nil {
		t.Fatal(err)
	}
	if want := (gather.Device{Kind: gather.GPU, Ordinal: 0}); mem.device() != want {
		t.Errorf("device %v, want %v", mem.device(), want)
	}
	host := make([]byte, 34) // one Q8_0 block
	for i := range host {
		host[i] = byte(3*i + 1)
	}
	tab, err := mem.hold(gguf.TypeQ8_0, []int64{1, 32}, host)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Device != mem.device() || tab.DevPtr == 0 || tab.Data != nil {
		t.Errorf("table %+v", tab)
	}
	got := make([]byte, len(host))
	if err := mem.read(got, &tab); err != nil || !bytes.Equal(got, host) {
		t.Errorf("read back %q, %v", got, err)
	}
	if err := mem.free(&tab); err != nil || tab.DevPtr != 0 {
		t.Errorf("free: %v, address %#x", err, tab.DevPtr)
	}
}
