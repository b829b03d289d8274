/*
 * mgfill.c: CPU references of building the multigrid hierarchy (kernels.h,
 * "Building the hierarchy"): level 0's face codes, its cut table (the
 * CPU's alone) and a coarse level's conductances, rows in parallel, with
 * the bodies of multigrid_util.h.
 */
#include "multigrid_util.h"

enum west_status west_mg_codes_cpu(const struct west_kgrid *g, const struct west_plevel *l0)
{
	unsigned char *code = (unsigned char *)l0->code;

	#pragma omp parallel for schedule(static)
	for (long r = 0; r < (long)(g->ny * g->nz); r++) {
		size_t j = (size_t)r % g->ny, k = (size_t)r / g->ny;
		for (size_t i = 0; i < g->nx; i++)
			code[west_pslot(l0, i, j, k)] = west_mg_code_at(g, i, j, k);
	}
	return WEST_OK;
}

enum west_status west_mg_cuts_cpu(const struct west_plevel *l0, size_t *cutrow,
				  float *tcut, size_t stride)
{
	long rows = (long)(2 * l0->ny * l0->nz);

	if (!tcut) {   /* each row's count, then the sums before each row */
		#pragma omp parallel for schedule(static)
		for (long r = 0; r < rows; r++) {
			size_t n = 0;
			for (size_t t = 0; t < l0->hx; t++)
				n += l0->code[(size_t)r * l0->hx + t] >> WEST_PF_CUT & 1;
			cutrow[r + 1] = n;
		}
		cutrow[0] = 0;
		for (long r = 0; r < rows; r++)
			cutrow[r + 1] += cutrow[r];
		return WEST_OK;
	}
	#pragma omp parallel for schedule(static)
	for (long r = 0; r < rows; r++) {
		size_t c = (size_t)r / (l0->ny * l0->nz), row = (size_t)r % (l0->ny * l0->nz);
		size_t j = row % l0->ny, k = row / l0->ny, i0 = (j + k + c) & 1;
		size_t n = cutrow[r];
		for (size_t t = 0; t < l0->hx; t++) {
			if (!(l0->code[(size_t)r * l0->hx + t] >> WEST_PF_CUT & 1))
				continue;
			size_t i = 2 * t + i0, xw = west_kx(l0->nx, l0->ny, i, j, k);
			size_t ys = west_ky(l0->nx, l0->ny, i, j, k);
			tcut[WEST_PF_W * stride + n] = l0->tx[xw];
			tcut[WEST_PF_E * stride + n] = l0->tx[xw + 1];
			tcut[WEST_PF_S * stride + n] = l0->ty[ys];
			tcut[WEST_PF_N * stride + n] = l0->ty[ys + l0->nx];
			n++;
		}
	}
	return WEST_OK;
}

enum west_status west_mg_coarse_cpu(const struct west_plevel *fl, const struct west_mgeom *af,
				    const struct west_plevel *cl, const struct west_mgeom *ac)
{
	#pragma omp parallel for schedule(static)
	for (long r = 0; r < (long)(ac->ny * ac->nz); r++) {
		size_t J = (size_t)r % ac->ny, K = (size_t)r / ac->ny;
		for (size_t I = 0; I < ac->nx; I++)
			west_mg_coarse_at(fl, af, cl, ac, I, J, K);
	}
	return WEST_OK;
}
