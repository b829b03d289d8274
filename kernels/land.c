/*
 * land.c: CPU reference of WEST step 4, land addition (kernels.h): a cell
 * is land when its centre is below the terrain of its column.
 */
#include "kernel_util.h"

enum west_status west_land_cpu(size_t nx, size_t ny, size_t nz,
			       const float *terrain_alt, const double *zcalt,
			       unsigned char *land)
{
	#pragma omp parallel for schedule(static)
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j < ny; j++)
			for (size_t i = 0; i < nx; i++)
				land[west_kc(nx, ny, i, j, k)] =
					zcalt[k] < terrain_alt[j * nx + i];
	return WEST_OK;
}
