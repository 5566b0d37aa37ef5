//go:build cgo

package hipkern

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// The library's entry points, resolved with dlsym; see gather.hip.
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
static int (*p_bench_gather)(int, int, uint64_t, int64_t, int64_t, uint64_t, int, int64_t, uint64_t, int, int, float*, char*, int);
static int (*p_bench_copy)(int, uint64_t, uint64_t, int64_t, int, float*, char*, int);
static int (*p_last_bound_device)(void);
static int64_t (*p_launches)(void);
static int64_t (*p_last_grid)(void);
static int64_t (*p_live_temps)(void);
static void (*p_reset_probes)(void);
static void (*p_inject_failure)(int);
static int (*p_set_device)(int, char*, int);
static int (*p_current_device)(void);

static char gm_open_err[1024];

#define GM_SYM(h, var, name)                                                   \
	do {                                                                       \
		*(void**)(&var) = dlsym(h, name);                                      \
		if (var == NULL) {                                                     \
			snprintf(gm_open_err, sizeof gm_open_err, "missing symbol %s", name); \
			return gm_open_err;                                                \
		}                                                                      \
	} while (0)

// gm_open loads the library at path and resolves every entry point. It
// returns NULL, or why it failed.
static const char* gm_open(const char* path) {
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char* e = dlerror();
		snprintf(gm_open_err, sizeof gm_open_err, "%s", e != NULL ? e : "dlopen failed");
		return gm_open_err;
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
	GM_SYM(h, p_bench_gather, "gm_bench_gather");
	GM_SYM(h, p_bench_copy, "gm_bench_copy");
	GM_SYM(h, p_last_bound_device, "gm_last_bound_device");
	GM_SYM(h, p_launches, "gm_launches");
	GM_SYM(h, p_last_grid, "gm_last_grid");
	GM_SYM(h, p_live_temps, "gm_live_temps");
	GM_SYM(h, p_reset_probes, "gm_reset_probes");
	GM_SYM(h, p_inject_failure, "gm_inject_failure");
	GM_SYM(h, p_set_device, "gm_set_device");
	GM_SYM(h, p_current_device, "gm_current_device");
	return NULL;
}

// Trampolines: cgo cannot call C function pointers directly.
static int c_abi_version(void) { return p_abi_version(); }
static const char* c_runtime(void) { return p_runtime(); }
static int c_device_count(int* n, char* err, int errlen) { return p_device_count(n, err, errlen); }
static int c_device_info(int dev, char* name, int nl, char* arch, int al, char* err, int errlen) {
	return p_device_info(dev, name, nl, arch, al, err, errlen);
}
static int c_table_types(int* types, int cap, int* quant) { return p_table_types(types, cap, quant); }
static int c_alloc(int dev, int64_t n, uint64_t* p, char* err, int errlen) { return p_alloc(dev, n, p, err, errlen); }
static int c_free(int dev, uint64_t p, char* err, int errlen) { return p_free(dev, p, err, errlen); }
static int c_copy_in(int dev, uint64_t dst, const void* src, int64_t n, char* err, int errlen) {
	return p_copy_in(dev, dst, src, n, err, errlen);
}
static int c_copy_out(int dev, void* dst, uint64_t src, int64_t n, char* err, int errlen) {
	return p_copy_out(dev, dst, src, n, err, errlen);
}
static int c_gather(int dev, int type, uint64_t table, int64_t vocab, int64_t hidden, uint64_t ids, int id_bytes,
                    int64_t n_ids, uint64_t out, int out_bf16, int64_t* bad, char* err, int errlen) {
	return p_gather(dev, type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16, bad, err, errlen);
}
static int c_bench_gather(int dev, int type, uint64_t table, int64_t vocab, int64_t hidden, uint64_t ids,
                          int id_bytes, int64_t n_ids, uint64_t out, int out_bf16, int iters, float* ms, char* err,
                          int errlen) {
	return p_bench_gather(dev, type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16, iters, ms, err, errlen);
}
static int c_bench_copy(int dev, uint64_t dst, uint64_t src, int64_t n, int iters, float* ms, char* err, int errlen) {
	return p_bench_copy(dev, dst, src, n, iters, ms, err, errlen);
}
static int c_last_bound_device(void) { return p_last_bound_device(); }
static int64_t c_launches(void) { return p_launches(); }
static int64_t c_last_grid(void) { return p_last_grid(); }
static int64_t c_live_temps(void) { return p_live_temps(); }
static void c_reset_probes(void) { p_reset_probes(); }
static void c_inject_failure(int step) { p_inject_failure(step); }
static int c_set_device(int dev, char* err, int errlen) { return p_set_device(dev, err, errlen); }
static int c_current_device(void) { return p_current_device(); }
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"
)

// errLen is the size of the message buffer every library call gets.
const errLen = 1024

// cgoLib is the dlopened library. The library keeps process-wide state (its
// probes, the emulation's memory map), so calls into it are serialized.
type cgoLib struct {
	mu sync.Mutex
}

// openLib dlopens path and resolves the library's entry points. The dlopen
// happens once per process; a later call for another path is refused.
func openLib(path string) (backend, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if opened != nil {
		if openedPath != path {
			return nil, errors.New("another library, " + openedPath + ", is already loaded")
		}
		return opened, nil
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.gm_open(cpath); msg != nil {
		return nil, errors.New(C.GoString(msg))
	}
	opened, openedPath = &cgoLib{}, path
	return opened, nil
}

var (
	openMu     sync.Mutex
	opened     *cgoLib
	openedPath string
)

// status turns a library status and its message into an error.
func status(rc C.int, buf []C.char) error {
	if rc == 0 {
		return nil
	}
	return errors.New(C.GoString(&buf[0]))
}

func newErrBuf() []C.char { return make([]C.char, errLen) }

func (l *cgoLib) abiVersion() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(C.c_abi_version())
}

func (l *cgoLib) runtimeName() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return C.GoString(C.c_runtime())
}

func (l *cgoLib) deviceCount() (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	var n C.int
	err := status(C.c_device_count(&n, &buf[0], errLen), buf)
	return int(n), err
}

func (l *cgoLib) deviceInfo(dev int) (name, arch string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	nb := make([]C.char, 256)
	ab := make([]C.char, 64)
	if err := status(C.c_device_info(C.int(dev), &nb[0], 256, &ab[0], 64, &buf[0], errLen), buf); err != nil {
		return "", "", err
	}
	return C.GoString(&nb[0]), C.GoString(&ab[0]), nil
}

func (l *cgoLib) tableTypes() (all []int, quant int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	types := make([]C.int, 64)
	var q C.int
	n := int(C.c_table_types(&types[0], C.int(len(types)), &q))
	n = min(n, len(types))
	for _, t := range types[:n] {
		all = append(all, int(t))
	}
	return all, int(q)
}

func (l *cgoLib) alloc(dev int, n int64) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	var p C.uint64_t
	err := status(C.c_alloc(C.int(dev), C.int64_t(n), &p, &buf[0], errLen), buf)
	return uint64(p), err
}

func (l *cgoLib) free(dev int, p uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	return status(C.c_free(C.int(dev), C.uint64_t(p), &buf[0], errLen), buf)
}

func (l *cgoLib) copyIn(dev int, dst uint64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	rc := C.c_copy_in(C.int(dev), C.uint64_t(dst), unsafe.Pointer(&src[0]), C.int64_t(len(src)), &buf[0], errLen)
	return status(rc, buf)
}

func (l *cgoLib) copyOut(dev int, dst []byte, src uint64) error {
	if len(dst) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	rc := C.c_copy_out(C.int(dev), unsafe.Pointer(&dst[0]), C.uint64_t(src), C.int64_t(len(dst)), &buf[0], errLen)
	return status(rc, buf)
}

func (l *cgoLib) gather(g gatherCall) (badPos int64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	bad := C.int64_t(-1)
	rc := C.c_gather(C.int(g.dev), C.int(g.tableType), C.uint64_t(g.table), C.int64_t(g.vocab), C.int64_t(g.hidden),
		C.uint64_t(g.ids), C.int(g.idBytes), C.int64_t(g.nIDs), C.uint64_t(g.out), boolInt(g.outBF16), &bad,
		&buf[0], errLen)
	switch rc {
	case 0:
		return -1, nil
	case 1:
		return int64(bad), nil
	}
	return -1, errors.New(C.GoString(&buf[0]))
}

func (l *cgoLib) benchGather(g gatherCall, iters int) (float64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	var ms C.float
	rc := C.c_bench_gather(C.int(g.dev), C.int(g.tableType), C.uint64_t(g.table), C.int64_t(g.vocab),
		C.int64_t(g.hidden), C.uint64_t(g.ids), C.int(g.idBytes), C.int64_t(g.nIDs), C.uint64_t(g.out),
		boolInt(g.outBF16), C.int(iters), &ms, &buf[0], errLen)
	return float64(ms), status(rc, buf)
}

func (l *cgoLib) benchCopy(dev int, dst, src uint64, n int64, iters int) (float64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	var ms C.float
	rc := C.c_bench_copy(C.int(dev), C.uint64_t(dst), C.uint64_t(src), C.int64_t(n), C.int(iters), &ms, &buf[0], errLen)
	return float64(ms), status(rc, buf)
}

func (l *cgoLib) probes() probeState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return probeState{
		boundDevice: int(C.c_last_bound_device()),
		launches:    int64(C.c_launches()),
		lastGrid:    int64(C.c_last_grid()),
		liveTemps:   int64(C.c_live_temps()),
	}
}

func (l *cgoLib) resetProbes() {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.c_reset_probes()
}

func (l *cgoLib) injectFailure(step int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.c_inject_failure(C.int(step))
}

func (l *cgoLib) setDevice(dev int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := newErrBuf()
	return status(C.c_set_device(C.int(dev), &buf[0], errLen), buf)
}

func (l *cgoLib) currentDevice() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(C.c_current_device())
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
