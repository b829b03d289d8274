/*
 * divremoval.c: CPU reference of WEST step 9, divergence removal
 * (kernels.h): w integrated upward from the ground in every column so that
 * each fluid cell's divergence is zero to rounding.  Faces touching land
 * keep w = 0 (the land of a column is a contiguous bottom part, so the
 * cells above it are all fluid).  Columns in parallel.
 */
#include "kernel_util.h"

enum west_status west_divremoval_cpu(const struct west_kgrid *g,
				     const float *u, const float *v, float *w)
{
	size_t nx = g->nx;
	float rdx = 1.0f / g->dx, rdy = 1.0f / g->dy;

	#pragma omp parallel for schedule(static)
	for (long c = 0; c < (long)(nx * g->ny); c++)
		west_divremoval_column(g, rdx, rdy, u, v, w, (size_t)c % nx, (size_t)c / nx);
	return WEST_OK;
}
