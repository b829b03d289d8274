/*
 * initialize.c: CPU reference of WEST step 3, wind field initialization
 * (kernels.h): each station's speed and direction to components.
 */
#include <math.h>

#include "kernel_util.h"

enum west_status west_initialize_cpu(const struct west_kgrid *g, size_t ns,
				     const struct west_kstation *st,
				     float *us, float *vs, float *w)
{
	size_t nw = g->nx * g->ny * (g->nz + 1);
	for (size_t s = 0; s < ns; s++)
		west_initialize_at(&st[s], &us[s], &vs[s]);
	#pragma omp parallel for schedule(static)
	for (size_t c = 0; c < nw; c++)
		w[c] = 0.0f;
	return WEST_OK;
}
