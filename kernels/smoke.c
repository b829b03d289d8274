/*
 * smoke.c: CPU reference of the smoke kernel (see kernels.h).  fmaf keeps
 * one rounding per element, as the CUDA kernel's fmaf does, so the two
 * agree bit for bit.
 */
#include <math.h>

#include "kernels.h"

enum west_status west_smoke_cpu(size_t n, float a, const float *x, float *y)
{
	#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < n; i++)
		y[i] = fmaf(a, x[i], y[i]);
	return WEST_OK;
}
