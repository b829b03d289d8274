/*
 * transparency.c: CPU reference of WEST step 7, transparency calculation
 * (kernels.h, grid.h rules): 0 on a face touching land and on the ground;
 * on an open face 1, or with cut cells the open fraction of a side face.
 * Each face written once.
 */
#include "kernel_util.h"

enum west_status west_transparency_cpu(const struct west_kgrid *g, int cut,
				       float *tx, float *ty, float *tz)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	#pragma omp parallel for schedule(static)
	for (long k = 0; k <= (long)nz; k++)
		for (long j = 0; j <= (long)ny; j++)
			for (long i = 0; i <= (long)nx; i++) {
				if (k < (long)nz && j < (long)ny)
					tx[west_kx(nx, ny, i, j, k)] = west_side_t(g, cut, 0, i, j, k);
				if (k < (long)nz && i < (long)nx)
					ty[west_ky(nx, ny, i, j, k)] = west_side_t(g, cut, 1, i, j, k);
				if (i < (long)nx && j < (long)ny)
					tz[west_kc(nx, ny, i, j, k)] =
						!west_zface_closed(g->land, nx, ny, nz, i, j, k);
			}
	return WEST_OK;
}
