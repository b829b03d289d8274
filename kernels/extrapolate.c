/*
 * extrapolate.c: CPU reference of WEST step 2, vertical extrapolation of
 * each station's speed to every level by the power law (kernels.h).
 */
#include <math.h>

#include "kernel_util.h"

enum west_status west_extrapolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const unsigned char *cls, const float *pexp,
				      float *spd)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	for (size_t s = 0; s < ns; s++) {
		/* the class of the column holding the station (clamped to the grid) */
		long i = (long)floorf(st[s].x / g->dx), j = (long)floorf(st[s].y / g->dy);
		i = i < 0 ? 0 : i >= (long)nx ? (long)nx - 1 : i;
		j = j < 0 ? 0 : j >= (long)ny ? (long)ny - 1 : j;
		float p = pexp[cls[(size_t)j * nx + (size_t)i]];
		for (size_t k = 0; k < nz; k++) {
			float h = fmaxf(g->zc[k] - st[s].ground, WEST_H_MIN);
			spd[s * nz + k] = st[s].speed * powf(h / st[s].height, p);
		}
	}
	return WEST_OK;
}
