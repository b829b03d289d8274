/*
 * speed_zero.c: CPU reference of WEST step 6, speed zero (kernels.h): every
 * face velocity times its transparency: 0 on a face touching a land cell
 * and on the ground, the flux per unit face area on a cut face.
 */
#include "kernel_util.h"

enum west_status west_speed_zero_cpu(const struct west_kgrid *g, float *u,
				     float *v, float *w)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	#pragma omp parallel for schedule(static)
	for (long k = 0; k <= (long)nz; k++)
		for (long j = 0; j <= (long)ny; j++)
			for (long i = 0; i <= (long)nx; i++) {
				if (k < (long)nz && j < (long)ny) {
					size_t f = west_kx(nx, ny, i, j, k);
					u[f] = west_times_t(u[f], g->tx[f]);
				}
				if (k < (long)nz && i < (long)nx) {
					size_t f = west_ky(nx, ny, i, j, k);
					v[f] = west_times_t(v[f], g->ty[f]);
				}
				if (i < (long)nx && j < (long)ny) {
					size_t f = west_kc(nx, ny, i, j, k);
					w[f] = west_times_t(w[f], g->tz[f]);
				}
			}
	return WEST_OK;
}
