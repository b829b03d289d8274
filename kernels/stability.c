/*
 * stability.c: CPU reference of WEST step 1, stability interpolation
 * (kernels.h).  One column per iteration, columns in parallel.
 */
#include <math.h>

#include "kernel_util.h"

enum west_status west_stability_cpu(const struct west_kgrid *g, size_t ns,
				    const struct west_kstation *st,
				    const float *stab, unsigned char *cls)
{
	size_t nx = g->nx, ny = g->ny;
	#pragma omp parallel for schedule(static)
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++) {
			cls[j * nx + i] = west_stability_at(g, ns, st, stab, i, j);
		}
	return WEST_OK;
}
