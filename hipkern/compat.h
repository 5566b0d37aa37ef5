// compat.h: the portability layer of the gather kernel.
//
// gather.hip is written against the HIP runtime. This header lets the same
// source build three ways:
//
//   hipcc (ROCm, __HIPCC__)   the HIP runtime itself; on AMD device code the
//                             thread indices come from the amdgcn builtins, so
//                             a -nogpulib compile needs no device library call
//                             (the compile check asserts zero scratch).
//   nvcc  (__CUDACC__)        each HIP call used below is mapped to its CUDA
//                             twin, so the kernel runs on an NVIDIA GPU.
//   c++ -DGM_HOST_EMULATION   a sequential host emulation for developing the
//                             Go binding on a machine with no GPU: "device"
//                             memory is host memory, a launch runs every
//                             thread in turn. It is a development aid, never
//                             GPU evidence: it names itself "host emulation".
//
// Only the calls gather.hip uses are mapped.
#ifndef GATHERMUT_HIPKERN_COMPAT_H
#define GATHERMUT_HIPKERN_COMPAT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__HIPCC__)

#include <hip/hip_runtime.h>

#define GM_RUNTIME "hip"

// gm_arch_of writes the device's architecture, e.g. "gfx1100" (the feature
// suffixes after ':' are dropped).
static inline void gm_arch_of(const hipDeviceProp_t& p, char* buf, size_t n) {
  snprintf(buf, n, "%s", p.gcnArchName);
  char* colon = strchr(buf, ':');
  if (colon != NULL) *colon = '\0';
}

#elif defined(__CUDACC__)

#include <cuda_runtime.h>

#define GM_RUNTIME "cuda"

#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipDeviceProp_t cudaDeviceProp
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemset cudaMemset
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipGetLastError cudaGetLastError
#define hipGetErrorString cudaGetErrorString
#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipMemcpyToSymbol cudaMemcpyToSymbol
#define hipMemcpyFromSymbol cudaMemcpyFromSymbol
#define HIP_SYMBOL(x) x

// gm_arch_of writes "sm_<major><minor>", e.g. "sm_90".
static inline void gm_arch_of(const hipDeviceProp_t& p, char* buf, size_t n) {
  snprintf(buf, n, "sm_%d%d", p.major, p.minor);
}

#elif defined(GM_HOST_EMULATION)

#include <stdlib.h>
#include <time.h>

#define GM_RUNTIME "host emulation"

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)

typedef int hipError_t;
enum {
  hipSuccess = 0,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorIllegalAddress = 700
};
enum { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2, hipMemcpyDeviceToDevice = 3 };

// The emulation has two devices, so the device-binding tests run here too.
#define GM_EMU_DEVICES 2

struct hipDeviceProp_t {
  char name[256];
};

static int gm_emu_current = 0;
static hipError_t gm_emu_last = hipSuccess;

static inline const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorIllegalAddress: return "an illegal memory access was encountered";
  }
  return "unknown error";
}

static inline hipError_t hipGetDeviceCount(int* n) {
  *n = GM_EMU_DEVICES;
  return hipSuccess;
}

// gm_emu_fail records e as the last error and returns it: as on a GPU
// runtime, a failed call leaves its error for the next hipGetLastError.
static inline hipError_t gm_emu_fail(hipError_t e) {
  gm_emu_last = e;
  return e;
}

static inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int dev) {
  if (dev < 0 || dev >= GM_EMU_DEVICES) return gm_emu_fail(hipErrorInvalidDevice);
  snprintf(p->name, sizeof p->name, "host emulation device %d", dev);
  return hipSuccess;
}

static inline void gm_arch_of(const hipDeviceProp_t&, char* buf, size_t n) {
  snprintf(buf, n, "host-emulation");
}

// The emulated device has GM_EMU_UNITS multiprocessors, each holding
// GM_EMU_RESIDENT_THREADS threads, so the launcher sizes its grid from the
// device here too (a launch still runs every thread in turn).
#define GM_EMU_UNITS 8
#define GM_EMU_RESIDENT_THREADS 2048
enum { hipDeviceAttributeMultiprocessorCount = 1 };

static inline hipError_t hipDeviceGetAttribute(int* v, int attr, int dev) {
  if (dev < 0 || dev >= GM_EMU_DEVICES) return gm_emu_fail(hipErrorInvalidDevice);
  if (attr != hipDeviceAttributeMultiprocessorCount) return gm_emu_fail(hipErrorInvalidValue);
  *v = GM_EMU_UNITS;
  return hipSuccess;
}

template <class F>
static inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F, int threads, size_t) {
  *n = GM_EMU_RESIDENT_THREADS / threads;
  return hipSuccess;
}

static inline hipError_t hipSetDevice(int dev) {
  if (dev < 0 || dev >= GM_EMU_DEVICES) return gm_emu_fail(hipErrorInvalidDevice);
  gm_emu_current = dev;
  return hipSuccess;
}

static inline hipError_t hipGetDevice(int* dev) {
  *dev = gm_emu_current;
  return hipSuccess;
}

// Every emulated allocation remembers its device, so a launch on the wrong
// device faults the way a GPU without peer access does.
struct gm_emu_alloc {
  char* base;
  size_t size;
  int device;
  gm_emu_alloc* next;
};
static gm_emu_alloc* gm_emu_allocs = NULL;

static inline int gm_emu_owner(const void* p) {
  for (gm_emu_alloc* a = gm_emu_allocs; a != NULL; a = a->next) {
    const char* c = (const char*)p;
    if (c >= a->base && c < a->base + a->size) return a->device;
  }
  return -1;
}

static inline hipError_t hipMalloc(void** p, size_t n) {
  gm_emu_alloc* a = (gm_emu_alloc*)malloc(sizeof *a);
  char* base = (char*)malloc(n == 0 ? 1 : n);
  if (a == NULL || base == NULL) {
    free(a);
    free(base);
    return gm_emu_fail(hipErrorOutOfMemory);
  }
  a->base = base;
  a->size = n == 0 ? 1 : n;
  a->device = gm_emu_current;
  a->next = gm_emu_allocs;
  gm_emu_allocs = a;
  *p = base;
  return hipSuccess;
}

static inline hipError_t hipFree(void* p) {
  for (gm_emu_alloc** a = &gm_emu_allocs; *a != NULL; a = &(*a)->next) {
    if ((*a)->base == p) {
      gm_emu_alloc* dead = *a;
      *a = dead->next;
      free(dead->base);
      free(dead);
      return hipSuccess;
    }
  }
  return p == NULL ? hipSuccess : gm_emu_fail(hipErrorInvalidValue);
}

static inline hipError_t hipMemcpy(void* dst, const void* src, size_t n, int) {
  memmove(dst, src, n);
  return hipSuccess;
}

static inline hipError_t hipMemset(void* dst, int v, size_t n) {
  memset(dst, v, n);
  return hipSuccess;
}

static inline hipError_t hipDeviceSynchronize(void) { return gm_emu_last; }

static inline hipError_t hipGetLastError(void) {
  hipError_t e = gm_emu_last;
  gm_emu_last = hipSuccess;
  return e;
}

// An event records the host's monotonic clock: launches run synchronously,
// so the time between two events is the emulated work between them (host
// time, never a GPU timing).
typedef struct timespec* hipEvent_t;
static inline hipError_t hipEventCreate(hipEvent_t* e) {
  *e = (struct timespec*)calloc(1, sizeof(struct timespec));
  return *e == NULL ? hipErrorOutOfMemory : hipSuccess;
}
static inline hipError_t hipEventRecord(hipEvent_t e, int) {
  clock_gettime(CLOCK_MONOTONIC, e);
  return hipSuccess;
}
static inline hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
static inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  *ms = (float)((double)(stop->tv_sec - start->tv_sec) * 1e3 + (double)(stop->tv_nsec - start->tv_nsec) / 1e6);
  return hipSuccess;
}
static inline hipError_t hipEventDestroy(hipEvent_t e) {
  free(e);
  return hipSuccess;
}

// The emulated thread: set by gm_emu_launch before each call of the kernel.
static uint64_t gm_emu_block = 0, gm_emu_groups = 0;
static uint32_t gm_emu_thread = 0;

static inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
  unsigned long long old = *p;
  if (v < old) *p = v;
  return old;
}

#else
#error "compat.h: build with hipcc, nvcc, or a host C++ compiler with -DGM_HOST_EMULATION"
#endif

// Thread geometry of the one-dimensional grids the kernels use:
// gm_group() is the workgroup's index (blockIdx.x), gm_groups() the number
// of workgroups (gridDim.x), gm_thread() the thread's index in its
// workgroup (threadIdx.x).
#if defined(GM_HOST_EMULATION)
#define gm_group() (gm_emu_block)
#define gm_groups() (gm_emu_groups)
#define gm_thread() (gm_emu_thread)
#elif defined(__AMDGCN__)
#define gm_group() ((uint64_t)__builtin_amdgcn_workgroup_id_x())
#define gm_groups() ((uint64_t)(__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x()))
#define gm_thread() ((uint32_t)__builtin_amdgcn_workitem_id_x())
#else
#define gm_group() ((uint64_t)blockIdx.x)
#define gm_groups() ((uint64_t)gridDim.x)
#define gm_thread() ((uint32_t)threadIdx.x)
#endif

// ---------------------------------------------------------------------------
// Mutant schemata. A mutation run (package mutate/cxx) builds the library
// once with every kernel mutant it can switch: each mutated expression or
// statement becomes a choice on GATHERMUT_ON(n), true in a process started
// with GATHERMUT_MUTANT=n, and GATHERMUT_HIT(s) records that site s ran,
// in the file GATHERMUT_KERNEL_HITS names (one byte per site), so that a
// test's coverage is known. The rendered entry file defines
// GATHERMUT_SCHEMA and GATHERMUT_SITES; without them (every ordinary
// build) none of this exists and the hooks below are empty.
//
// On a GPU the mutant's number is a __constant__ of each device, written
// by gathermut_bind when the launcher first binds that device, and the
// hits are a __device__ array read back after every kernel
// (gathermut_collect); the launcher's host code has its own copies in
// host memory; in the host emulation both are plain globals.
#if defined(GATHERMUT_SCHEMA)
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

// gathermut_env_int is the integer in environment variable name, 0 when
// it is unset or not a number.
static inline int gathermut_env_int(const char* name) {
  const char* v = getenv(name);
  return v == NULL ? 0 : atoi(v);
}

// gathermut_map_hits maps the GATHERMUT_KERNEL_HITS file (GATHERMUT_SITES
// bytes, made by the tool), or returns private memory when there is none.
static inline unsigned char* gathermut_map_hits(void) {
  const char* path = getenv("GATHERMUT_KERNEL_HITS");
  if (path != NULL && path[0] != '\0') {
    int fd = open(path, O_RDWR);
    if (fd >= 0) {
      void* p = mmap(NULL, GATHERMUT_SITES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      if (p != MAP_FAILED) return (unsigned char*)p;
    }
  }
  return (unsigned char*)calloc(GATHERMUT_SITES, 1);
}

#if defined(GM_HOST_EMULATION)
static int gathermut_active = gathermut_env_int("GATHERMUT_MUTANT");
static unsigned char* gathermut_hits = gathermut_map_hits();
#define GATHERMUT_ON(n) (gathermut_active == (n))
#define GATHERMUT_HIT(s) (gathermut_hits[(s)] = 1)
static inline void gathermut_bind(int) {}
static inline void gathermut_collect(void) {}
#else
__constant__ int gathermut_active;
__device__ unsigned char gathermut_hits[GATHERMUT_SITES];
// The launcher's own code (gm_run, gm_gather, ...) runs on the host, where
// a __constant__ or __device__ variable names only its host shadow, never
// written: host code reads the switch and writes its hits in host memory,
// device code in the device's. Each compilation pass picks its pair.
static int gathermut_host_active = gathermut_env_int("GATHERMUT_MUTANT");
static unsigned char* gathermut_host_hits = gathermut_map_hits();
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define GATHERMUT_ON(n) (gathermut_active == (n))
#define GATHERMUT_HIT(s) (gathermut_hits[(s)] = 1)
#else
#define GATHERMUT_ON(n) (gathermut_host_active == (n))
#define GATHERMUT_HIT(s) (gathermut_host_hits[(s)] = 1)
#endif
static unsigned long long gathermut_bound = 0;  // devices whose switch is set, one bit each

// gathermut_bind sets the switch of the device just made current, once.
static inline void gathermut_bind(int device) {
  if (device < 0 || device >= 64 || (gathermut_bound >> device & 1)) return;
  const int n = gathermut_host_active;
  if (hipMemcpyToSymbol(HIP_SYMBOL(gathermut_active), &n, sizeof n) == hipSuccess) gathermut_bound |= 1ull << device;
}

// gathermut_collect adds the current device's hits to the hits file.
static inline void gathermut_collect(void) {
  static unsigned char buf[GATHERMUT_SITES];
  if (hipMemcpyFromSymbol(buf, HIP_SYMBOL(gathermut_hits), GATHERMUT_SITES) != hipSuccess) return;
  for (int i = 0; i < GATHERMUT_SITES; ++i) gathermut_host_hits[i] |= buf[i];
}
#endif
#else
#define gathermut_bind(device) ((void)0)
#define gathermut_collect() ((void)0)
#endif

#endif  // GATHERMUT_HIPKERN_COMPAT_H
