// compat.h: the fixture kernel's portability header. The fixture has no
// GPU build: its "device" functions are plain host functions, as in the
// row's host emulation, and the schema hooks follow the row's compat.h.
#ifndef KERNFIXTURE_COMPAT_H
#define KERNFIXTURE_COMPAT_H

#define __device__

#if defined(GATHERMUT_SCHEMA)
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int gathermut_env_int(const char* name) {
  const char* v = getenv(name);
  return v == NULL ? 0 : atoi(v);
}

static unsigned char* gathermut_map_hits(void) {
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

static int gathermut_active = gathermut_env_int("GATHERMUT_MUTANT");
static unsigned char* gathermut_hits = gathermut_map_hits();
#define GATHERMUT_ON(n) (gathermut_active == (n))
#define GATHERMUT_HIT(s) (gathermut_hits[(s)] = 1)
#endif

#endif
