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
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	float rdx = 1.0f / g->dx, rdy = 1.0f / g->dy;

	#pragma omp parallel for schedule(static)
	for (long c = 0; c < (long)(nx * ny); c++) {
		size_t i = (size_t)c % nx, j = (size_t)c / nx;
		w[west_kc(nx, ny, i, j, 0)] = 0.0f;
		for (size_t k = 0; k < nz; k++) {
			size_t xw = west_kx(nx, ny, i, j, k), ys = west_ky(nx, ny, i, j, k);
			size_t zb = west_kc(nx, ny, i, j, k), zt = zb + nx * ny;
			int above_land = k + 1 < nz && g->land[zt];
			if (g->land[zb] || above_land) {
				w[zt] = 0.0f;
				continue;
			}
			float h = (u[xw + 1] - u[xw]) * rdx + (v[ys + nx] - v[ys]) * rdy;
			w[zt] = w[zb] - h / g->rdz[k];
		}
	}
	return WEST_OK;
}
