/*
 * speed_zero.cu: WEST step 6 on the GPU, one thread per (i, j, k) of the
 * (nx + 1) x (ny + 1) x (nz + 1) index space covering all faces; must match
 * kernels/speed_zero.c (west_speed_zero_cpu) exactly: both use
 * west_times_t (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void speed_zero_kernel(struct west_kgrid g, float *u, float *v,
					 float *w)
{
	size_t i, j, k, nx = g.nx, ny = g.ny, nz = g.nz;
	west_tid3(&i, &j, &k);
	if (k < nz && i <= nx && j < ny) {
		size_t f = west_kx(nx, ny, i, j, k);
		u[f] = west_times_t(u[f], g.tx[f]);
	}
	if (k < nz && i < nx && j <= ny) {
		size_t f = west_ky(nx, ny, i, j, k);
		v[f] = west_times_t(v[f], g.ty[f]);
	}
	if (i < nx && j < ny) {
		size_t f = west_kc(nx, ny, i, j, k);
		w[f] = west_times_t(w[f], g.tz[f]);
	}
}

extern "C" enum west_status west_speed_zero_cuda(const struct west_kgrid *g, float *u,
						 float *v, float *w)
{
	speed_zero_kernel<<<west_grid3(g->nx + 1, g->ny + 1, g->nz + 1), west_block3()>>>(
		*g, u, v, w);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
