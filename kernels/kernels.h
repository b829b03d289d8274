/*
 * kernels.h: every compute kernel, as a pair with one prototype: the plain-C
 * CPU reference `west_<op>_cpu` (kernels/<op>.c, OpenMP allowed) and the
 * CUDA launcher `west_<op>_cuda` (kernels/<op>.cu, built with --with-cuda).
 * The launcher takes device pointers, queues its kernel on the default
 * stream, checks the launch, and returns without synchronizing; a failure
 * is logged with the CUDA error string and returned as WEST_ERR_CUDA.
 * Tests compare each launcher with its reference element by element.
 */
#ifndef WEST_KERNELS_H
#define WEST_KERNELS_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * smoke: y[i] = fmaf(a, x[i], y[i]) for i < n (float32).  The build's and the
 * device's smoke test: the CUDA backend's probe runs it on a few elements
 * and refuses the device when the result differs from the reference.
 */
enum west_status west_smoke_cpu(size_t n, float a, const float *x, float *y);
enum west_status west_smoke_cuda(size_t n, float a, const float *x, float *y);

#ifdef __cplusplus
}
#endif

#endif
