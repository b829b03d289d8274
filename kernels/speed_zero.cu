/*
 * speed_zero.cu: WEST step 6 on the GPU, one thread per (i, j, k) of the
 * (nx + 1) x (ny + 1) x (nz + 1) index space covering all faces; must match
 * kernels/speed_zero.c (west_speed_zero_cpu) exactly: both use the
 * west_*face_closed predicates (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void speed_zero_kernel(struct west_kgrid g, float *u, float *v,
					 float *w)
{
	size_t i, j, k, nx = g.nx, ny = g.ny, nz = g.nz;
	const unsigned char *l = g.land;
	west_tid3(&i, &j, &k);
	if (k < nz && i <= nx && j < ny && west_xface_closed(l, nx, ny, nz, i, j, k))
		u[west_kx(nx, ny, i, j, k)] = 0.0f;
	if (k < nz && i < nx && j <= ny && west_yface_closed(l, nx, ny, nz, i, j, k))
		v[west_ky(nx, ny, i, j, k)] = 0.0f;
	if (i < nx && j < ny && west_zface_closed(l, nx, ny, nz, i, j, k))
		w[west_kc(nx, ny, i, j, k)] = 0.0f;
}

extern "C" enum west_status west_speed_zero_cuda(const struct west_kgrid *g, float *u,
						 float *v, float *w)
{
	speed_zero_kernel<<<west_grid3(g->nx + 1, g->ny + 1, g->nz + 1), west_block3()>>>(
		*g, u, v, w);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
