/*
 * initialize.cu: WEST step 3 on the GPU, one thread per station for the
 * components, and w = 0 by a memset (0.0f is all zero bits); must match
 * kernels/initialize.c (west_initialize_cpu): both call west_initialize_at
 * (kernel_util.h); sinf and cosf differ by a few ulp.
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void initialize_kernel(size_t ns, const struct west_kstation *st,
					 float *us, float *vs)
{
	size_t s = west_tid1();
	if (s < ns)
		west_initialize_at(&st[s], &us[s], &vs[s]);
}

extern "C" enum west_status west_initialize_cuda(const struct west_kgrid *g, size_t ns,
						 const struct west_kstation *st,
						 float *us, float *vs, float *w)
{
	initialize_kernel<<<west_grid1(ns), WEST_B1>>>(ns, st, us, vs);
	WEST_CUDA_LOG(cudaGetLastError());
	WEST_CUDA_LOG(cudaMemsetAsync(w, 0, g->nx * g->ny * (g->nz + 1) * sizeof *w));
	return WEST_OK;
}
