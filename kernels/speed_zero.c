/*
 * speed_zero.c: CPU reference of WEST step 6, speed zero (kernels.h): every
 * face velocity touching a land cell is set to 0, and w on the ground.
 */
#include "kernel_util.h"

enum west_status west_speed_zero_cpu(const struct west_kgrid *g, float *u,
				     float *v, float *w)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	const unsigned char *l = g->land;
	#pragma omp parallel for schedule(static)
	for (long k = 0; k <= (long)nz; k++)
		for (long j = 0; j <= (long)ny; j++)
			for (long i = 0; i <= (long)nx; i++) {
				if (k < (long)nz && j < (long)ny &&
				    west_xface_closed(l, nx, ny, nz, i, j, k))
					u[west_kx(nx, ny, i, j, k)] = 0.0f;
				if (k < (long)nz && i < (long)nx &&
				    west_yface_closed(l, nx, ny, nz, i, j, k))
					v[west_ky(nx, ny, i, j, k)] = 0.0f;
				if (i < (long)nx && j < (long)ny &&
				    west_zface_closed(l, nx, ny, nz, i, j, k))
					w[west_kc(nx, ny, i, j, k)] = 0.0f;
			}
	return WEST_OK;
}
