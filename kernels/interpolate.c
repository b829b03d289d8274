/*
 * interpolate.c: CPU reference of WEST step 5, speed interpolation
 * (kernels.h): the stations' components, carried by their profiles to each
 * face's height above its own ground, onto the x- and y-faces by inverse
 * distance squared.  Faces in parallel.
 */
#include "kernel_util.h"

enum west_status west_interpolate_cpu(const struct west_kgrid *g, size_t ns,
				      const struct west_kstation *st,
				      const float *pst, const float *us,
				      const float *vs, float *u, float *v)
{
	size_t nx = g->nx, ny = g->ny, nz = g->nz;
	#pragma omp parallel for collapse(2) schedule(static)
	for (size_t k = 0; k < nz; k++)
		for (size_t j = 0; j <= ny; j++) {
			for (size_t i = 0; i <= nx; i++) {
				if (j < ny)
					u[west_kx(nx, ny, i, j, k)] =
						west_interp_u_at(g, ns, st, pst, us, i, j, k);
				if (i < nx)
					v[west_ky(nx, ny, i, j, k)] =
						west_interp_v_at(g, ns, st, pst, vs, i, j, k);
			}
		}
	return WEST_OK;
}
