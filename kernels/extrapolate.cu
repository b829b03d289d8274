/*
 * extrapolate.cu: WEST step 2 on the GPU, one thread per station and level;
 * must match kernels/extrapolate.c (west_extrapolate_cpu): both call
 * west_extrapolate_at (kernel_util.h); powf differs by a few ulp.
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void extrapolate_kernel(struct west_kgrid g, size_t ns,
					  const struct west_kstation *st,
					  const unsigned char *cls,
					  const float *pexp, float *spd)
{
	size_t e = west_tid1();
	if (e < ns * g.nz)
		spd[e] = west_extrapolate_at(&g, &st[e / g.nz], cls, pexp, e % g.nz);
}

extern "C" enum west_status west_extrapolate_cuda(const struct west_kgrid *g, size_t ns,
						  const struct west_kstation *st,
						  const unsigned char *cls,
						  const float *pexp, float *spd)
{
	extrapolate_kernel<<<west_grid1(ns * g->nz), WEST_B1>>>(*g, ns, st, cls, pexp, spd);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
