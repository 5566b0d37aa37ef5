// kernel.hip: the kernel of the mutation tool's kernel fixture: three
// device functions, and a host main that runs one of them on its
// arguments and prints the result. Each line says the verdicts its
// kernel mutants must get from kern's tests.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

// scale is tested exactly (TestScale): every mutant is killed.
__device__ int scale(int x, int f) {
  return x * f;  // want killed
}

// offset is tested weakly (TestOffsetPositive checks the sign only): the
// mutants that keep the result positive survive.
__device__ int offset(int x) {
  return x + 3;  // want survived, zero-return=killed
}

// unused is called by no test: its mutants are not covered.
__device__ int unused(int x) {
  return x - 1;  // want not-covered
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kernel scale|offset|unused x [f]\n");
    return 2;
  }
  const int x = atoi(argv[2]);
  int y = 0;
  if (strcmp(argv[1], "scale") == 0 && argc > 3) {
    y = scale(x, atoi(argv[3]));
  } else if (strcmp(argv[1], "offset") == 0) {
    y = offset(x);
  } else if (strcmp(argv[1], "unused") == 0) {
    y = unused(x);
  } else {
    fprintf(stderr, "kernel: unknown function %s\n", argv[1]);
    return 2;
  }
  printf("%d\n", y);
  return 0;
}
