/*
 * extrapolate.cu: WEST step 2 on the GPU, one thread per station; must
 * match kernels/extrapolate.c (west_extrapolate_cpu) exactly: both call
 * west_extrapolate_at (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void extrapolate_kernel(struct west_kgrid g, size_t ns,
					  const struct west_kstation *st,
					  const unsigned char *cls,
					  const float *pexp, float *pst)
{
	size_t s = west_tid1();
	if (s < ns)
		pst[s] = west_extrapolate_at(&g, &st[s], cls, pexp);
}

extern "C" enum west_status west_extrapolate_cuda(const struct west_kgrid *g, size_t ns,
						  const struct west_kstation *st,
						  const unsigned char *cls,
						  const float *pexp, float *pst)
{
	extrapolate_kernel<<<west_grid1(ns), WEST_B1>>>(*g, ns, st, cls, pexp, pst);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
