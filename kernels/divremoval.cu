/*
 * divremoval.cu: WEST step 9 on the GPU, one thread per column (neighbouring
 * threads read neighbouring faces: coalesced); must match
 * kernels/divremoval.c (west_divremoval_cpu) exactly: both call
 * west_divremoval_column (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void divremoval_kernel(struct west_kgrid g, float rdx, float rdy,
					 const float *u, const float *v, float *w)
{
	size_t c = west_tid1();
	if (c < g.nx * g.ny)
		west_divremoval_column(&g, rdx, rdy, u, v, w, c % g.nx, c / g.nx);
}

extern "C" enum west_status west_divremoval_cuda(const struct west_kgrid *g,
						 const float *u, const float *v, float *w)
{
	float rdx = 1.0f / g->dx, rdy = 1.0f / g->dy;
	divremoval_kernel<<<west_grid1(g->nx * g->ny), WEST_B1>>>(*g, rdx, rdy, u, v, w);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
