/*
 * transparency.cu: WEST step 7 on the GPU, one thread per (i, j, k) of the
 * (nx + 1) x (ny + 1) x (nz + 1) index space covering all faces; must match
 * kernels/transparency.c (west_transparency_cpu) exactly: both use
 * west_side_t and west_zface_closed (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void transparency_kernel(struct west_kgrid g, int cut, float *tx,
					   float *ty, float *tz)
{
	size_t i, j, k, nx = g.nx, ny = g.ny, nz = g.nz;
	west_tid3(&i, &j, &k);
	if (k < nz && i <= nx && j < ny)
		tx[west_kx(nx, ny, i, j, k)] = west_side_t(&g, cut, 0, (long)i, (long)j, (long)k);
	if (k < nz && i < nx && j <= ny)
		ty[west_ky(nx, ny, i, j, k)] = west_side_t(&g, cut, 1, (long)i, (long)j, (long)k);
	if (i < nx && j < ny)
		tz[west_kc(nx, ny, i, j, k)] = !west_zface_closed(g.land, nx, ny, nz, i, j, k);
}

extern "C" enum west_status west_transparency_cuda(const struct west_kgrid *g, int cut,
						   float *tx, float *ty, float *tz)
{
	transparency_kernel<<<west_grid3(g->nx + 1, g->ny + 1, g->nz + 1), west_block3()>>>(
		*g, cut, tx, ty, tz);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
