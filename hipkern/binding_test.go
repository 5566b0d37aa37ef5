package hipkern

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gathermut/gather"
	"gathermut/gguf"
)

// TestProviderTypes: the packed provider supports exactly the library's
// packed codecs, the float provider the rest, and gather's registration
// accepts both only when every admitted codec is there.
func TestProviderTypes(t *testing.T) {
	f := newFakeLib()
	q, fl := newProvider(f, true, 1), newProvider(f, false, 1)
	if q.Name() != "hip.EmbeddingQuant" || fl.Name() != "hip.EmbeddingFloat" {
		t.Errorf("names %q, %q", q.Name(), fl.Name())
	}
	for _, c := range gather.Admitted() {
		if !q.Supports(c) || fl.Supports(c) {
			t.Errorf("%v: quant supports %v, float supports %v", c, q.Supports(c), fl.Supports(c))
		}
	}
	for _, c := range []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16} {
		if q.Supports(c) || !fl.Supports(c) {
			t.Errorf("%v: quant supports %v, float supports %v", c, q.Supports(c), fl.Supports(c))
		}
	}
	if q.Supports(gguf.TypeQ4_1) || fl.Supports(gguf.TypeQ4_1) {
		t.Errorf("an extra codec is supported")
	}
	r := gather.NewRegistry()
	if err := r.Register(gather.OpEmbeddingQuant, gather.GPU, q); err != nil {
		t.Error(err)
	}
	if err := r.Register(gather.OpEmbeddingFloat, gather.GPU, fl); err != nil {
		t.Error(err)
	}

	short := newFakeLib()
	short.types = slices.DeleteFunc(slices.Clone(short.types), func(t int) bool { return t == int(gguf.TypeQ4_K) })
	short.quant--
	err := gather.NewRegistry().Register(gather.OpEmbeddingQuant, gather.GPU, newProvider(short, true, 1))
	if err == nil || !strings.Contains(err.Error(), "does not support Q4_K") {
		t.Errorf("a library without Q4_K registered: %v", err)
	}
}

// gpuArgs builds device tensors for the provider tests (addresses are the
// fake's, never dereferenced).
func gpuArgs(table gguf.Type, vocab, hidden, n int64, ids, out gguf.Type) (o, tb, id *gather.Tensor) {
	return devTensor(gpu0, out, []int64{n, hidden}, 0x3000),
		devTensor(gpu0, table, []int64{vocab, hidden}, 0x1001),
		devTensor(gpu0, ids, []int64{n}, 0x2002)
}

// TestProviderEmbedding checks the provider's own steps with a fake
// library: what it declines, its refusals in the order of docs/row.md, the exact
// launch it asks for, and how a bad position becomes gather.IDError.
func TestProviderEmbedding(t *testing.T) {
	type args struct{ out, table, ids *gather.Tensor }
	std := func() args {
		o, tb, id := gpuArgs(gguf.TypeQ4_K, 100, 512, 3, gguf.TypeI64, gguf.TypeBF16)
		return args{o, tb, id}
	}
	cases := []struct {
		name     string
		edit     func(a *args, f *fakeLib)
		float    bool
		want     string // error text; "" for nil
		declined bool
		launched bool
	}{
		{name: "success", want: "", launched: true},
		{name: "all on the CPU", edit: func(a *args, f *fakeLib) {
			a.table.Device, a.ids.Device, a.out.Device = gather.Host, gather.Host, gather.Host
		},
			want: "hipkern: hip.EmbeddingQuant: tensors on cpu:0, not a GPU: gather: provider declined", declined: true},
		{name: "table on the CPU", edit: func(a *args, f *fakeLib) { a.table.Device = gather.Host },
			want: "gather: Embedding: tensors on different devices: table cpu:0, ids gpu:0, out gpu:0"},
		{name: "ids on another GPU", edit: func(a *args, f *fakeLib) { a.ids.Device.Ordinal = 1 },
			want: "gather: Embedding: tensors on different devices: table gpu:0, ids gpu:1, out gpu:0"},
		{name: "out on the CPU", edit: func(a *args, f *fakeLib) { a.out.Device = gather.Host },
			want: "gather: Embedding: tensors on different devices: table gpu:0, ids gpu:0, out cpu:0"},
		{name: "float table to the quant provider", edit: func(a *args, f *fakeLib) { a.table.Type = gguf.TypeF32 },
			want: "hipkern: hip.EmbeddingQuant: F32 tables: gather: provider declined", declined: true},
		// The structural refusals are gather.CheckArgs's, before any decline
		// (gathertest's refusal table has them all; these show the call).
		{name: "nil ids", edit: func(a *args, f *fakeLib) { a.ids = nil }, want: "gather: Embedding: ids is nil"},
		{name: "nil table on the CPU", edit: func(a *args, f *fakeLib) { a.table, a.out.Device = nil, gather.Host },
			want: "gather: Embedding: table is nil"},
		{name: "rank", edit: func(a *args, f *fakeLib) { a.ids.Shape = []int64{3, 1} },
			want: "gather: Embedding: ids must be 1-D, has rank 2"},
		{name: "strided table", edit: func(a *args, f *fakeLib) { a.table.Strides = []int64{1024, 1} },
			want: "gather: Embedding: table is not contiguous (shape [100 512], strides [1024 1])"},
		{name: "rank before the decline", float: true, edit: func(a *args, f *fakeLib) { a.out.Shape = []int64{3} },
			want: "gather: Embedding: out must be 2-D [len(ids), hidden], has rank 1"},
		{name: "no ids", edit: func(a *args, f *fakeLib) { a.ids.Shape[0], a.out.Shape[0] = 0, 0; a.ids.DevPtr = 0 }},
		{name: "zero width", edit: func(a *args, f *fakeLib) { a.table.Shape[1], a.out.Shape[1] = 0, 0; a.out.DevPtr = 0 }},
		{name: "no ids on vocab 0", edit: func(a *args, f *fakeLib) { a.ids.Shape[0], a.out.Shape[0], a.table.Shape[0] = 0, 0, 0 }},
		{name: "vocab 0", edit: func(a *args, f *fakeLib) { a.table.Shape[0] = 0 },
			want: "gather: Embedding: table has no rows (vocab 0), 3 ids requested"},
		{name: "width not whole blocks", edit: func(a *args, f *fakeLib) { a.table.Shape[1], a.out.Shape[1] = 300, 300 },
			want: "gather: Embedding: table width 300 is not whole Q4_K blocks of 256"},
		// The size checks at their exact limits: 2^53 x 512 bf16 elements
		// are 2^63 bytes, one row fewer fits; 2^52 rows for f32; the most
		// rows of 288 bytes (Q4_K, 512 wide) that int64 bytes can address.
		{name: "bf16 out overflows", edit: func(a *args, f *fakeLib) {
			a.ids.Shape[0], a.out.Shape[0] = 1<<53, 1<<53
		}, want: "gather: Embedding: out: gather: BF16 tensor [9007199254740992 512]: byte size overflows int64"},
		{name: "bf16 out fits", edit: func(a *args, f *fakeLib) {
			a.ids.Shape[0], a.out.Shape[0] = 1<<53-1, 1<<53-1
		}, launched: true},
		{name: "f32 out overflows", edit: func(a *args, f *fakeLib) {
			a.ids.Shape[0], a.out.Shape[0] = 1<<52, 1<<52
			a.out.Type = gguf.TypeF32
		}, want: "gather: Embedding: out: gather: F32 tensor [4503599627370496 512]: byte size overflows int64"},
		{name: "f32 out fits", edit: func(a *args, f *fakeLib) {
			a.ids.Shape[0], a.out.Shape[0] = 1<<52-1, 1<<52-1
			a.out.Type = gguf.TypeF32
		}, launched: true},
		{name: "table overflows", edit: func(a *args, f *fakeLib) { a.table.Shape[0] = math.MaxInt64/288 + 1 },
			want: "gather: Embedding: table: gather: Q4_K tensor [32025597350190194 512]: byte size overflows int64"},
		{name: "table fits", edit: func(a *args, f *fakeLib) { a.table.Shape[0] = math.MaxInt64 / 288 }, launched: true},
		{name: "ordinal", edit: func(a *args, f *fakeLib) {
			a.table.Device.Ordinal, a.ids.Device.Ordinal, a.out.Device.Ordinal = 1, 1, 1
		},
			want: "hipkern: hip.EmbeddingQuant: device gpu:1: the library sees 1 GPUs"},
		{name: "no table address", edit: func(a *args, f *fakeLib) { a.table.DevPtr = 0 },
			want: "hipkern: hip.EmbeddingQuant: table has no device address"},
		{name: "no ids address", edit: func(a *args, f *fakeLib) { a.ids.DevPtr = 0 },
			want: "hipkern: hip.EmbeddingQuant: ids has no device address"},
		{name: "no out address", edit: func(a *args, f *fakeLib) { a.out.DevPtr = 0 },
			want: "hipkern: hip.EmbeddingQuant: out has no device address"},
		{name: "library error", edit: func(a *args, f *fakeLib) { f.gatherErr = errors.New("hipkern: kernel on device 0: boom") },
			want: "hipkern: hip.EmbeddingQuant: hipkern: kernel on device 0: boom", launched: true},
		{name: "bad int64 id", edit: func(a *args, f *fakeLib) {
			f.badPos = 2
			f.mem[0x2002+16] = binary.LittleEndian.AppendUint64(nil, 1<<32+1)
		}, want: "gather: ids[2] = 4294967297 out of range [0, 100)", launched: true},
		{name: "bad id at position 0", edit: func(a *args, f *fakeLib) {
			f.badPos = 0
			f.mem[0x2002] = binary.LittleEndian.AppendUint64(nil, 100)
		}, want: "gather: ids[0] = 100 out of range [0, 100)", launched: true},
		{name: "bad int32 id", edit: func(a *args, f *fakeLib) {
			a.ids.Type = gguf.TypeI32
			f.badPos = 1
			f.mem[0x2002+4] = []byte{0xff, 0xff, 0xff, 0xff}
		}, want: "gather: ids[1] = -1 out of range [0, 100)", launched: true},
		{name: "bad id unreadable", edit: func(a *args, f *fakeLib) {
			f.badPos = 1
			f.copyErr = errors.New("copy failed")
		}, want: "hipkern: hip.EmbeddingQuant: ids[1] is out of range; reading it back: copy failed", launched: true},
		{name: "float success", float: true, edit: func(a *args, f *fakeLib) { a.table.Type = gguf.TypeF16 }, launched: true},
		{name: "packed table to the float provider", float: true,
			want: "hipkern: hip.EmbeddingFloat: Q4_K tables: gather: provider declined", declined: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeLib()
			a := std()
			if c.edit != nil {
				c.edit(&a, f)
			}
			p := newProvider(f, !c.float, 1)
			err := p.Embedding(a.out, a.table, a.ids)
			if got := errText(err); got != c.want {
				t.Errorf("error %q, want %q", got, c.want)
			}
			if errors.Is(err, gather.ErrDeclined) != c.declined {
				t.Errorf("declined: %v, want %v", errors.Is(err, gather.ErrDeclined), c.declined)
			}
			if (len(f.gathers) == 1) != c.launched || len(f.gathers) > 1 {
				t.Fatalf("%d library gathers, want launched=%v", len(f.gathers), c.launched)
			}
			if c.name == "success" {
				want := gatherCall{dev: 0, tableType: int(gguf.TypeQ4_K), table: 0x1001, vocab: 100, hidden: 512,
					ids: 0x2002, idBytes: 8, nIDs: 3, out: 0x3000, outBF16: true}
				if f.gathers[0] != want {
					t.Errorf("gather call %+v, want %+v", f.gathers[0], want)
				}
			}
			if c.name == "float success" {
				g := f.gathers[0]
				if g.tableType != int(gguf.TypeF16) || g.idBytes != 8 || !g.outBF16 {
					t.Errorf("float gather call %+v", g)
				}
			}
			if c.name == "bad int32 id" && f.gathers[0].idBytes != 4 {
				t.Errorf("int32 ids passed as %d bytes", f.gathers[0].idBytes)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// emulationRefusal is Load's error for the host emulation library at path.
func emulationRefusal(path string) string {
	return "hipkern: " + path + " is the host emulation, not a GPU library: it runs the kernels on the CPU " +
		"and only the tests load it (hipkern/internal/emulation); build the GPU library with bash hipkern/build.sh"
}

// TestProbeDevices: the library's ABI, runtime and device answers become
// Info or an error saying what is missing; the host emulation is a GPU
// library only when a test requests it (package admit).
func TestProbeDevices(t *testing.T) {
	for _, c := range []struct {
		name      string
		edit      func(*fakeLib)
		emulation bool
		want      string
	}{
		{"ok", func(*fakeLib) {}, false, ""},
		{"ok, emulation admitted", func(*fakeLib) {}, true, ""},
		{"abi", func(f *fakeLib) { f.abi = 2 }, false, "hipkern: /l.so speaks launcher ABI 2, this binding 1: rebuild it"},
		{"host emulation", func(f *fakeLib) { f.runtime = "host emulation" }, false, emulationRefusal("/l.so")},
		{"host emulation admitted", func(f *fakeLib) { f.runtime = "host emulation" }, true, ""},
		{"host emulation, no devices", func(f *fakeLib) { f.runtime, f.devices = "host emulation", 0 }, true,
			"hipkern: /l.so (host emulation runtime): no GPU: device count 0"},
		{"count error", func(f *fakeLib) {
			f.countErr = errors.New("hipkern: hipGetDeviceCount: no ROCm-capable device is detected")
		}, false,
			"hipkern: /l.so (fake runtime): no GPU: hipkern: hipGetDeviceCount: no ROCm-capable device is detected"},
		{"no devices", func(f *fakeLib) { f.devices = 0 }, false, "hipkern: /l.so (fake runtime): no GPU: device count 0"},
		{"info", func(f *fakeLib) { f.infoErr = errors.New("bad") }, false, "hipkern: /l.so (fake runtime): device 0: bad"},
	} {
		f := newFakeLib()
		f.devices = 2
		c.edit(f)
		info, err := probeDevices(f, "/l.so", c.emulation)
		if errText(err) != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if want := (Info{Name: "Fake GPU", Arch: "fake_arch", Devices: 2, Runtime: f.runtime, Library: "/l.so"}); err == nil && info != want {
			t.Errorf("%s: info %+v, want %+v", c.name, info, want)
		}
	}
}

// TestInfoString: a log line says which GPU, or that it is the host
// emulation and not a GPU.
func TestInfoString(t *testing.T) {
	for _, c := range []struct {
		info      Info
		emulation bool
		want      string
	}{
		{Info{Name: "NVIDIA H200", Arch: "sm_90", Devices: 1, Runtime: "cuda", Library: "/l.so"}, false,
			"GPU NVIDIA H200 (sm_90), 1 device(s), cuda runtime, library /l.so"},
		{Info{Name: "host emulation device 0", Arch: "host-emulation", Devices: 2, Runtime: "host emulation", Library: "/e.so"}, true,
			"the host emulation, not a GPU: host emulation device 0 (host-emulation), 2 device(s), host emulation runtime, library /e.so"},
	} {
		if got := c.info.String(); got != c.want || c.info.Emulation() != c.emulation {
			t.Errorf("%+v: %q, emulation %v; want %q, %v", c.info, got, c.info.Emulation(), c.want, c.emulation)
		}
	}
}

// allocFails calls Alloc where it must fail, and returns its error; the
// address of a failed Alloc is 0.
func allocFails(t *testing.T, dev gather.Device, n int) error {
	t.Helper()
	p, err := Alloc(dev, n)
	if err == nil || p != 0 {
		t.Errorf("Alloc(%v, %d) = %#x, %v; want 0 and an error", dev, n, p, err)
	}
	return err
}

// TestDeviceMemory: Alloc, Free, CopyIn and CopyOut check the device and
// wrap the library's errors.
func TestDeviceMemory(t *testing.T) {
	f := newFakeLib()
	withLoader(t, f, Info{Name: "Fake GPU", Arch: "fake_arch", Devices: 1})
	if p, err := Alloc(gpu0, 0); err != nil || p != 0x1000 || !reflect.DeepEqual(f.allocs, []int64{1}) {
		t.Errorf("Alloc(0) = %#x, %v; library asked for %v bytes", p, err, f.allocs)
	}
	if err := allocFails(t, gpu0, -1); errText(err) != "hipkern: Alloc on gpu:0: negative size -1" {
		t.Errorf("Alloc(-1): %v", err)
	}
	// cpu:1 is both not a GPU and past the library's GPUs: the kind is
	// checked first (check order).
	for _, dev := range []gather.Device{gather.Host, {Kind: gather.CPU, Ordinal: 1}, {Kind: gather.GPU, Ordinal: 1}, {Kind: gather.GPU, Ordinal: -1}} {
		want := "hipkern: device " + dev.String() + ": the library sees 1 GPUs"
		if dev.Kind == gather.CPU {
			want = "hipkern: device " + dev.String() + " is not a GPU"
		}
		for name, err := range map[string]error{
			"Alloc":   allocFails(t, dev, 8),
			"Free":    Free(dev, 0x1000),
			"CopyIn":  CopyIn(dev, 0x1000, []byte{1}),
			"CopyOut": CopyOut(dev, make([]byte, 1), 0x1000),
		} {
			if errText(err) != want {
				t.Errorf("%s on %v: %v, want %q", name, dev, err, want)
			}
		}
	}
	f.allocErr = errors.New("out of memory")
	f.copyErr = errors.New("copy failed")
	if err := allocFails(t, gpu0, 8); errText(err) != "hipkern: Alloc 8 bytes on gpu:0: out of memory" {
		t.Errorf("Alloc: %v", err)
	}
	if err := Free(gpu0, 0x1000); errText(err) != "hipkern: Free 0x1000 on gpu:0: out of memory" {
		t.Errorf("Free: %v", err)
	}
	if err := CopyIn(gpu0, 0x1000, []byte{1, 2}); errText(err) != "hipkern: CopyIn 2 bytes to 0x1000 on gpu:0: copy failed" {
		t.Errorf("CopyIn: %v", err)
	}
	if err := CopyOut(gpu0, make([]byte, 3), 0x1000); errText(err) != "hipkern: CopyOut 3 bytes from 0x1000 on gpu:0: copy failed" {
		t.Errorf("CopyOut: %v", err)
	}
	f.copyErr = nil
	f.mem[0x1000] = []byte{7, 8, 9}
	got := make([]byte, 3)
	if err := CopyOut(gpu0, got, 0x1000); err != nil || !reflect.DeepEqual(got, []byte{7, 8, 9}) {
		t.Errorf("CopyOut = %v, %v", got, err)
	}
	if info, err := Available(); err != nil || info.Name != "Fake GPU" {
		t.Errorf("Available() = %+v, %v", info, err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildScriptArgs: the build script refuses what it cannot build.
func TestBuildScriptArgs(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "hipkern: build.sh: unknown argument --bogus"},
		{[]string{"--src", t.TempDir()}, "hipkern: build.sh: no gather.hip in"},
		{[]string{"--compiler", "gcc", "--out", filepath.Join(t.TempDir(), "x.so")}, "hipkern: build.sh: unknown compiler gcc"},
	} {
		out, err := exec.Command(bash, append([]string{"build.sh"}, c.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("build.sh %v: %v\n%s\nwant %q", c.args, err, out, c.want)
		}
	}
	// With neither toolchain on PATH it says so.
	cmd := exec.Command(bash, "build.sh", "--out", filepath.Join(t.TempDir(), "x.so"))
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "neither hipcc with a ROCm runtime nor nvcc found") {
		t.Errorf("build.sh without compilers: %v\n%s", err, out)
	}
}
