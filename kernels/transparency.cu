/*
 * transparency.cu: WEST step 7 on the GPU, one thread per (i, j, k) of the
 * (nx + 1) x (ny + 1) x (nz + 1) index space covering all faces; must match
 * kernels/transparency.c (west_transparency_cpu) exactly: both use the
 * west_*face_closed predicates (kernel_util.h).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void transparency_kernel(size_t nx, size_t ny, size_t nz,
					   const unsigned char *l, float *tx,
					   float *ty, float *tz)
{
	size_t i, j, k;
	west_tid3(&i, &j, &k);
	if (k < nz && i <= nx && j < ny)
		tx[west_kx(nx, ny, i, j, k)] = !west_xface_closed(l, nx, ny, nz, i, j, k);
	if (k < nz && i < nx && j <= ny)
		ty[west_ky(nx, ny, i, j, k)] = !west_yface_closed(l, nx, ny, nz, i, j, k);
	if (i < nx && j < ny)
		tz[west_kc(nx, ny, i, j, k)] = !west_zface_closed(l, nx, ny, nz, i, j, k);
}

extern "C" enum west_status west_transparency_cuda(size_t nx, size_t ny, size_t nz,
						   const unsigned char *land, float *tx,
						   float *ty, float *tz)
{
	transparency_kernel<<<west_grid3(nx + 1, ny + 1, nz + 1), west_block3()>>>(
		nx, ny, nz, land, tx, ty, tz);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
