/*
 * stability.cu: WEST step 1 on the GPU, one thread per column; must match
 * kernels/stability.c (west_stability_cpu) exactly: both call
 * west_stability_at (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void stability_kernel(struct west_kgrid g, size_t ns,
					const struct west_kstation *st,
					const float *stab, unsigned char *cls)
{
	size_t c = west_tid1();
	if (c < g.nx * g.ny)
		cls[c] = west_stability_at(&g, ns, st, stab, c % g.nx, c / g.nx);
}

extern "C" enum west_status west_stability_cuda(const struct west_kgrid *g, size_t ns,
						const struct west_kstation *st,
						const float *stab, unsigned char *cls)
{
	stability_kernel<<<west_grid1(g->nx * g->ny), WEST_B1>>>(*g, ns, st, stab, cls);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
