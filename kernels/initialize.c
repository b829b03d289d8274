/*
 * initialize.c: CPU reference of WEST step 3, wind field initialization
 * (kernels.h): meteorological speed and direction to components.
 */
#include <math.h>

#include "kernel_util.h"

enum west_status west_initialize_cpu(const struct west_kgrid *g, size_t ns,
				     const struct west_kstation *st,
				     const float *spd, float *us, float *vs,
				     float *w)
{
	size_t nz = g->nz, nw = g->nx * g->ny * (nz + 1);
	for (size_t s = 0; s < ns; s++)
		for (size_t k = 0; k < nz; k++) {
			size_t e = s * nz + k;
			west_initialize_at(&st[s], spd[e], &us[e], &vs[e]);
		}
	#pragma omp parallel for schedule(static)
	for (size_t c = 0; c < nw; c++)
		w[c] = 0.0f;
	return WEST_OK;
}
