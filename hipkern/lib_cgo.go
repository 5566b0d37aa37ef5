//go:build cgo

package hipkern

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// The library's production entry points, resolved with dlsym; see
// gather.hip. Its test probes and benchmarks are hipkern/internal/probe's.
static int (*p_abi_version)(void);
static const char* (*p_runtime)(void);
static int (*p_device_count)(int*, char*, int);
static int (*p_device_info)(int, char*, int, char*, int, char*, int);
static int (*p_table_types)(int*, int, int*);
static int (*p_alloc)(int, int64_t, uint64_t*, char*, int);
static int (*p_free)(int, uint64_t, char*, int);
static int (*p_copy_in)(int, uint64_t, const void*, int64_t, char*, int);
static int (*p_copy_out)(int, void*, uint64_t, int64_t, char*, int);
static int (*p_gather)(int, int, uint64_t, int64_t, int64_t, uint64_t, int, int64_t, uint64_t, int, int64_t*, char*, int);

static char gm_open_err[1024];

#define GM_SYM(h, var, name)                                                   \
	do {                                                                       \
		*(void**)(&var) = dlsym(h, name);                                      \
		if (var == NULL) {                                                     \
			snprintf(gm_open_err, sizeof gm_open_err, "missing symbol %s", name); \
			dlclose(h);                                                        \
			return NULL;                                                       \
		}                                                                      \
	} while (0)

// gm_open loads the library at path and resolves every entry point. It
// returns the handle, or NULL with the reason in gm_open_err.
static void* gm_open(const char* path) {
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char* e = dlerror();
		snprintf(gm_open_err, sizeof gm_open_err, "%s", e != NULL ? e : "dlopen failed");
		return NULL;
	}
	GM_SYM(h, p_abi_version, "gm_abi_version");
	GM_SYM(h, p_runtime, "gm_runtime");
	GM_SYM(h, p_device_count, "gm_device_count");
	GM_SYM(h, p_device_info, "gm_device_info");
	GM_SYM(h, p_table_types, "gm_table_types");
	GM_SYM(h, p_alloc, "gm_alloc");
	GM_SYM(h, p_free, "gm_free");
	GM_SYM(h, p_copy_in, "gm_copy_in");
	GM_SYM(h, p_copy_out, "gm_copy_out");
	GM_SYM(h, p_gather, "gm_gather");
	return h;
}

// gm_open_error is why the last gm_open failed.
static const char* gm_open_error(void) { return gm_open_err; }

// gm_msg is the buffer a library call writes its failure message into.
typedef struct { char text[1024]; } gm_msg;

// gm_device_desc receives a device's name (hipDeviceProp_t.name and
// cudaDeviceProp.name are 256 bytes) and its architecture.
typedef struct {
	char name[256];
	char arch[256];
} gm_device_desc;

// Trampolines: cgo cannot call C function pointers directly. The buffers'
// sizes are passed from their declarations here.
static int c_abi_version(void) { return p_abi_version(); }
static const char* c_runtime(void) { return p_runtime(); }
static int c_device_count(int* n, gm_msg* m) { return p_device_count(n, m->text, sizeof m->text); }
static int c_device_info(int dev, gm_device_desc* d, gm_msg* m) {
	return p_device_info(dev, d->name, sizeof d->name, d->arch, sizeof d->arch, m->text, sizeof m->text);
}
static int c_table_types(int* types, int cap, int* quant) { return p_table_types(types, cap, quant); }
static int c_alloc(int dev, int64_t n, uint64_t* p, gm_msg* m) { return p_alloc(dev, n, p, m->text, sizeof m->text); }
static int c_free(int dev, uint64_t p, gm_msg* m) { return p_free(dev, p, m->text, sizeof m->text); }
static int c_copy_in(int dev, uint64_t dst, const void* src, int64_t n, gm_msg* m) {
	return p_copy_in(dev, dst, src, n, m->text, sizeof m->text);
}
static int c_copy_out(int dev, void* dst, uint64_t src, int64_t n, gm_msg* m) {
	return p_copy_out(dev, dst, src, n, m->text, sizeof m->text);
}
static int c_gather(int dev, int type, uint64_t table, int64_t vocab, int64_t hidden, uint64_t ids, int id_bytes,
                    int64_t n_ids, uint64_t out, int out_bf16, int64_t* bad, gm_msg* m) {
	return p_gather(dev, type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16, bad, m->text, sizeof m->text);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// cgoLib is one dlopen of the library. The entry points it resolves are
// process-wide, and the library keeps process-wide state (its probes, the
// emulation's memory map), so calls into it are serialized by callMu.
type cgoLib struct {
	handle unsafe.Pointer
}

// openLib dlopens path and resolves the library's entry points. While a
// library is open another path is refused; the same path may be opened
// again (dlopen counts the references), and close undoes one openLib.
func openLib(path string) (backend, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if openCount > 0 && openedPath != path {
		return nil, fmt.Errorf("hipkern: load %s: another library, %s, is already loaded (one per process)", path, openedPath)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	callMu.Lock()
	h := C.gm_open(cpath)
	callMu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("hipkern: load %s: %s (build it with bash hipkern/build.sh, or set %s)", path,
			C.GoString(C.gm_open_error()), LibEnv)
	}
	openCount++
	openedPath = path
	return &cgoLib{handle: h}, nil
}

var (
	openMu     sync.Mutex
	openCount  int    // openLib calls not undone by close
	openedPath string // the library they opened
	callMu     sync.Mutex
)

// close undoes the openLib that returned l: the library is unloaded once
// nothing holds it open.
func (l *cgoLib) close() {
	openMu.Lock()
	defer openMu.Unlock()
	callMu.Lock()
	C.dlclose(l.handle)
	callMu.Unlock()
	openCount--
}

// call runs one library entry point, which returns nonzero on failure with
// its message written into m.
func call(f func(m *C.gm_msg) C.int) error {
	var m C.gm_msg
	if f(&m) == 0 {
		return nil
	}
	return errors.New(C.GoString(&m.text[0]))
}

func (l *cgoLib) abiVersion() int {
	callMu.Lock()
	defer callMu.Unlock()
	return int(C.c_abi_version())
}

func (l *cgoLib) runtimeName() string {
	callMu.Lock()
	defer callMu.Unlock()
	return C.GoString(C.c_runtime())
}

func (l *cgoLib) deviceCount() (int, error) {
	callMu.Lock()
	defer callMu.Unlock()
	var n C.int
	err := call(func(m *C.gm_msg) C.int { return C.c_device_count(&n, m) })
	return int(n), err
}

func (l *cgoLib) deviceInfo(dev int) (name, arch string, err error) {
	callMu.Lock()
	defer callMu.Unlock()
	var d C.gm_device_desc
	if err := call(func(m *C.gm_msg) C.int { return C.c_device_info(C.int(dev), &d, m) }); err != nil {
		return "", "", err
	}
	return C.GoString(&d.name[0]), C.GoString(&d.arch[0]), nil
}

// tableTypes asks the library how many types it has, then for the types.
func (l *cgoLib) tableTypes() (all []int, quant int) {
	callMu.Lock()
	defer callMu.Unlock()
	var q C.int
	types := make([]C.int, C.c_table_types(nil, 0, &q))
	C.c_table_types(unsafe.SliceData(types), C.int(len(types)), &q)
	for _, t := range types {
		all = append(all, int(t))
	}
	return all, int(q)
}

func (l *cgoLib) alloc(dev int, n int64) (uint64, error) {
	callMu.Lock()
	defer callMu.Unlock()
	var p C.uint64_t
	err := call(func(m *C.gm_msg) C.int { return C.c_alloc(C.int(dev), C.int64_t(n), &p, m) })
	return uint64(p), err
}

func (l *cgoLib) free(dev int, p uint64) error {
	callMu.Lock()
	defer callMu.Unlock()
	return call(func(m *C.gm_msg) C.int { return C.c_free(C.int(dev), C.uint64_t(p), m) })
}

func (l *cgoLib) copyIn(dev int, dst uint64, src []byte) error {
	callMu.Lock()
	defer callMu.Unlock()
	return call(func(m *C.gm_msg) C.int {
		return C.c_copy_in(C.int(dev), C.uint64_t(dst), unsafe.Pointer(unsafe.SliceData(src)), C.int64_t(len(src)), m)
	})
}

func (l *cgoLib) copyOut(dev int, dst []byte, src uint64) error {
	callMu.Lock()
	defer callMu.Unlock()
	return call(func(m *C.gm_msg) C.int {
		return C.c_copy_out(C.int(dev), unsafe.Pointer(unsafe.SliceData(dst)), C.uint64_t(src), C.int64_t(len(dst)), m)
	})
}

// gather returns the smallest bad position, or -1 when there is none or the
// call failed.
func (l *cgoLib) gather(g gatherCall) (badPos int64, err error) {
	callMu.Lock()
	defer callMu.Unlock()
	var m C.gm_msg
	var bad C.int64_t
	switch C.c_gather(C.int(g.dev), C.int(g.tableType), C.uint64_t(g.table), C.int64_t(g.vocab), C.int64_t(g.hidden),
		C.uint64_t(g.ids), C.int(g.idBytes), C.int64_t(g.nIDs), C.uint64_t(g.out), boolInt(g.outBF16), &bad, &m) {
	case 0:
		return -1, nil
	case 1:
		return int64(bad), nil
	}
	return -1, errors.New(C.GoString(&m.text[0]))
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
