/*
 * interpolate.c: CPU reference of WEST step 5, speed interpolation
 * (kernels.h): the stations' components, carried by their profiles to each
 * face's height above its own ground, onto the x- and y-faces by inverse
 * distance squared.  Columns of WEST_IDW_LEVELS faces in parallel.
 */
#include "kernel_util.h"

enum west_status west_interpolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const float *pst, const float *us,
				      const float *vs, float *u, float *v)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	size_t nkc = (nz + WEST_IDW_LEVELS - 1) / WEST_IDW_LEVELS;
	#pragma omp parallel for collapse(2) schedule(static)
	for (size_t kc = 0; kc < nkc; kc++)
		for (size_t j = 0; j <= ny; j++) {
			size_t k0 = kc * WEST_IDW_LEVELS;
			int n = nz - k0 < WEST_IDW_LEVELS ? (int)(nz - k0) : WEST_IDW_LEVELS;
			float f[WEST_IDW_LEVELS];
			for (size_t i = 0; i <= nx; i++) {
				if (j < ny) {
					west_interp_u_at(g, ns, st, pst, us, i, j, k0, n, f);
					for (int m = 0; m < n; m++)
						u[west_kx(nx, ny, i, j, k0 + (size_t)m)] = f[m];
				}
				if (i < nx) {
					west_interp_v_at(g, ns, st, pst, vs, i, j, k0, n, f);
					for (int m = 0; m < n; m++)
						v[west_ky(nx, ny, i, j, k0 + (size_t)m)] = f[m];
				}
			}
		}
	return WEST_OK;
}
