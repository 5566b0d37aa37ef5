//go:build cgo

package probe

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// The library's test and benchmark entry points, resolved with dlsym; see
// the end of gather.hip.
static int (*p_bench_gather)(int, int, uint64_t, int64_t, int64_t, uint64_t, int, int64_t, uint64_t, int, int, float*, char*, int);
static int (*p_bench_copy)(int, uint64_t, uint64_t, int64_t, int, float*, char*, int);
static int (*p_last_bound_device)(void);
static int64_t (*p_launches)(void);
static int64_t (*p_last_grid)(void);
static int64_t (*p_last_grid_cap)(void);
static int64_t (*p_live_temps)(void);
static void (*p_reset_probes)(void);
static void (*p_inject_failure)(int);
static int (*p_set_device)(int, char*, int);
static int (*p_current_device)(void);

static char pr_open_err[1024];

#define PR_SYM(h, var, name)                                                   \
	do {                                                                       \
		*(void**)(&var) = dlsym(h, name);                                      \
		if (var == NULL) {                                                     \
			snprintf(pr_open_err, sizeof pr_open_err, "missing symbol %s", name); \
			dlclose(h);                                                        \
			return NULL;                                                       \
		}                                                                      \
	} while (0)

// pr_open attaches to the library at path, which must be loaded already
// (RTLD_NOLOAD), and resolves the probe entry points. It returns the handle
// (one more reference), or NULL with the reason in pr_open_err.
static void* pr_open(const char* path) {
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (h == NULL) {
		snprintf(pr_open_err, sizeof pr_open_err, "not loaded in this process");
		return NULL;
	}
	PR_SYM(h, p_bench_gather, "gm_bench_gather");
	PR_SYM(h, p_bench_copy, "gm_bench_copy");
	PR_SYM(h, p_last_bound_device, "gm_last_bound_device");
	PR_SYM(h, p_launches, "gm_launches");
	PR_SYM(h, p_last_grid, "gm_last_grid");
	PR_SYM(h, p_last_grid_cap, "gm_last_grid_cap");
	PR_SYM(h, p_live_temps, "gm_live_temps");
	PR_SYM(h, p_reset_probes, "gm_reset_probes");
	PR_SYM(h, p_inject_failure, "gm_inject_failure");
	PR_SYM(h, p_set_device, "gm_set_device");
	PR_SYM(h, p_current_device, "gm_current_device");
	return h;
}

static const char* pr_open_error(void) { return pr_open_err; }

typedef struct { char text[1024]; } pr_msg;

// Trampolines: cgo cannot call C function pointers directly.
static int c_bench_gather(int dev, int type, uint64_t table, int64_t vocab, int64_t hidden, uint64_t ids,
                          int id_bytes, int64_t n_ids, uint64_t out, int out_bf16, int iters, float* ms, pr_msg* m) {
	return p_bench_gather(dev, type, table, vocab, hidden, ids, id_bytes, n_ids, out, out_bf16, iters, ms, m->text,
	                      sizeof m->text);
}
static int c_bench_copy(int dev, uint64_t dst, uint64_t src, int64_t n, int iters, float* ms, pr_msg* m) {
	return p_bench_copy(dev, dst, src, n, iters, ms, m->text, sizeof m->text);
}
static int c_last_bound_device(void) { return p_last_bound_device(); }
static int64_t c_launches(void) { return p_launches(); }
static int64_t c_last_grid(void) { return p_last_grid(); }
static int64_t c_last_grid_cap(void) { return p_last_grid_cap(); }
static int64_t c_live_temps(void) { return p_live_temps(); }
static void c_reset_probes(void) { p_reset_probes(); }
static void c_inject_failure(int step) { p_inject_failure(step); }
static int c_set_device(int dev, pr_msg* m) { return p_set_device(dev, m->text, sizeof m->text); }
static int c_current_device(void) { return p_current_device(); }
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Lib is one attachment to a loaded kernel library.
type Lib struct {
	handle unsafe.Pointer
}

// mu serializes the calls: the entry points are process-wide C function
// pointers into process-wide library state.
var mu sync.Mutex

// Open attaches to the kernel library at path, which this process has
// loaded already, and resolves its test entry points.
func Open(path string) (*Lib, error) {
	mu.Lock()
	defer mu.Unlock()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.pr_open(cpath)
	if h == nil {
		return nil, fmt.Errorf("hipkern probes: %s: %s", path, C.GoString(C.pr_open_error()))
	}
	return &Lib{handle: h}, nil
}

// Close drops the reference Open took; the library stays loaded while
// hipkern holds it.
func (l *Lib) Close() {
	mu.Lock()
	defer mu.Unlock()
	C.dlclose(l.handle)
}

// call runs one entry point that returns nonzero on failure with its
// message written into m.
func call(f func(m *C.pr_msg) C.int) error {
	var m C.pr_msg
	if f(&m) == 0 {
		return nil
	}
	return errors.New(C.GoString(&m.text[0]))
}

// State reads the probes.
func (l *Lib) State() State {
	mu.Lock()
	defer mu.Unlock()
	return State{
		BoundDevice: int(C.c_last_bound_device()),
		Launches:    int64(C.c_launches()),
		LastGrid:    int64(C.c_last_grid()),
		LastGridCap: int64(C.c_last_grid_cap()),
		LiveTemps:   int64(C.c_live_temps()),
	}
}

// Reset forgets the bound device (BoundDevice reads -1 until an entry
// point binds one).
func (l *Lib) Reset() {
	mu.Lock()
	defer mu.Unlock()
	C.c_reset_probes()
}

// InjectFailure makes the next gm_gather fail at step (1 clearing the error
// record, 2 launching, 3 synchronizing, 4 reading it back); 0 clears it.
func (l *Lib) InjectFailure(step int) {
	mu.Lock()
	defer mu.Unlock()
	C.c_inject_failure(C.int(step))
}

// SetDevice sets the calling thread's ambient current device.
func (l *Lib) SetDevice(dev int) error {
	mu.Lock()
	defer mu.Unlock()
	return call(func(m *C.pr_msg) C.int { return C.c_set_device(C.int(dev), m) })
}

// CurrentDevice returns the ambient current device, or -1.
func (l *Lib) CurrentDevice() int {
	mu.Lock()
	defer mu.Unlock()
	return int(C.c_current_device())
}

// BenchGather times iters launches of g with device events, after one
// warm-up launch that also checks the ids; it returns the total in ms.
func (l *Lib) BenchGather(g Gather, iters int) (float64, error) {
	mu.Lock()
	defer mu.Unlock()
	var ms C.float
	bf16 := C.int(0)
	if g.OutBF16 {
		bf16 = 1
	}
	err := call(func(m *C.pr_msg) C.int {
		return C.c_bench_gather(C.int(g.Dev), C.int(g.TableType), C.uint64_t(g.Table), C.int64_t(g.Vocab),
			C.int64_t(g.Hidden), C.uint64_t(g.IDs), C.int(g.IDBytes), C.int64_t(g.NIDs), C.uint64_t(g.Out),
			bf16, C.int(iters), &ms, m)
	})
	return float64(ms), err
}

// BenchCopy times iters device-to-device copies of n bytes with device
// events, after one warm-up copy; it returns the total in ms.
func (l *Lib) BenchCopy(dev int, dst, src uint64, n int64, iters int) (float64, error) {
	mu.Lock()
	defer mu.Unlock()
	var ms C.float
	err := call(func(m *C.pr_msg) C.int {
		return C.c_bench_copy(C.int(dev), C.uint64_t(dst), C.uint64_t(src), C.int64_t(n), C.int(iters), &ms, m)
	})
	return float64(ms), err
}
