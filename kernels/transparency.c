/*
 * transparency.c: CPU reference of WEST step 7, transparency calculation
 * (kernels.h, grid.h rules): 0 on a face touching land and on the ground,
 * 1 elsewhere (open domain boundary included).  Each face written once.
 */
#include "kernel_util.h"

enum west_status west_transparency_cpu(size_t nx, size_t ny, size_t nz,
				       const unsigned char *l, float *tx,
				       float *ty, float *tz)
{
	#pragma omp parallel for schedule(static)
	for (long k = 0; k <= (long)nz; k++)
		for (long j = 0; j <= (long)ny; j++)
			for (long i = 0; i <= (long)nx; i++) {
				if (k < (long)nz && j < (long)ny)
					tx[west_kx(nx, ny, i, j, k)] =
						!west_xface_closed(l, nx, ny, nz, i, j, k);
				if (k < (long)nz && i < (long)nx)
					ty[west_ky(nx, ny, i, j, k)] =
						!west_yface_closed(l, nx, ny, nz, i, j, k);
				if (i < (long)nx && j < (long)ny)
					tz[west_kc(nx, ny, i, j, k)] =
						!west_zface_closed(l, nx, ny, nz, i, j, k);
			}
	return WEST_OK;
}
