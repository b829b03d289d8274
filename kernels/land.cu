/*
 * land.cu: WEST step 4 on the GPU, one thread per cell; must match
 * kernels/land.c (west_land_cpu) exactly (the same double comparison).
 */
#include "cuda_check.h"
#include "cuda_launch.cuh"
#include "kernel_util.h"

static __global__ void land_kernel(size_t nx, size_t ny, size_t nz,
				   const float *terrain_alt, const double *zcalt,
				   unsigned char *land)
{
	size_t i, j, k;
	west_tid3(&i, &j, &k);
	if (i < nx && j < ny)
		land[west_kc(nx, ny, i, j, k)] = zcalt[k] < terrain_alt[j * nx + i];
}

extern "C" enum west_status west_land_cuda(size_t nx, size_t ny, size_t nz,
					   const float *terrain_alt, const double *zcalt,
					   unsigned char *land)
{
	land_kernel<<<west_grid3(nx, ny, nz), west_block3()>>>(nx, ny, nz, terrain_alt,
							      zcalt, land);
	WEST_CUDA_LOG(cudaGetLastError());
	return WEST_OK;
}
